// Command file-references is the notebook of the FILE logical type's
// storage choice: image bytes inline in the Parquet file, or outside it as
// one pack file with byte ranges, or as one file per image.
package main

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

var imagesFlag = flag.Int("images", 10_000, "number of images")

func main() { notebook.Main(run) }

func run(ctx context.Context, opts notebook.Options) (*notebook.Report, error) {
	cfg := bench.FileRefConfig{N: *imagesFlag, Seed: opts.Seed, Runs: 3, Random: 100}
	if opts.Quick {
		cfg.N, cfg.Runs, cfg.Random = 300, 1, 20
	}
	if cfg.N <= 0 {
		return nil, fmt.Errorf("--images %d: want a positive count", cfg.N)
	}
	rep, err := bench.RunFileRefBench(cfg)
	if err != nil {
		return nil, err
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("file reference bench gave no results")
	}
	return report(rep)
}

func report(rep *bench.FileRefReport) (*notebook.Report, error) {
	r := &notebook.Report{
		Title:    "FILE references: inline bytes or external objects",
		Question: "Where should the bytes behind a FILE column live — inline in the Parquet file, in one external pack file addressed by offset and size, or in one external file per object — judged by the space they take, the time to write them, and the time to resolve all rows or a few random rows?",
		Setup: []string{
			fmt.Sprintf("Data: %d generated PNG images (bench.FileRefImages, 32×32, seed %d), %.2f MB in all, %d–%d bytes each.", rep.N, rep.Seed, float64(rep.ImageBytes)/1e6, rep.MinImage, rep.MaxImage),
			fmt.Sprintf("bench.RunFileRefBench writes each layout through the registry with the FILE column annotated (parquet-format 2.14.0), then resolves every row, and %d seeded random rows, to their bytes; best of %d runs, page cache warm. Every layout is checked to return exactly the generated image for every row.", rep.Random, rep.Runs),
			fmt.Sprintf("Memory-bandwidth floors measured in the same run: all images %.3f ms (%.2f GB/s); the %d random rows' %d bytes %.4f ms.", rep.FloorAll.Seconds*1e3, rep.FloorAll.GBps, rep.Random, rep.RandomBytes, rep.FloorRandom.Seconds*1e3),
		},
	}

	r.Section("Results")
	t := notebook.NewTable(notebook.Text("layout"), notebook.Num("files", "%d"), notebook.Num("on disk MB", "%.3f"), notebook.Num("allocated MB", "%.3f"),
		notebook.Num("write ms", "%.1f"), notebook.Num("resolve all ms", "%.1f"), notebook.Num("all ÷ floor", "%.0f"),
		notebook.Num("random ms", "%.2f"), notebook.Num("random ÷ floor", "%.0f"), notebook.Num("verified", "%d"))
	for _, x := range rep.Results {
		if err := t.Row(x.Layout, 1+x.ExternalFiles, float64(x.DiskBytes)/1e6, float64(x.AllocatedBytes)/1e6, x.WriteSeconds*1e3,
			x.ResolveAllSeconds*1e3, x.ResolveAllFloorRatio, x.RandomSeconds*1e3, x.RandomFloorRatio, x.Verified); err != nil {
			return nil, err
		}
	}
	r.Table(t)

	layouts := make([]string, len(rep.Results))
	disk, alloc, write, all, random := make([]float64, len(layouts)), make([]float64, len(layouts)), make([]float64, len(layouts)), make([]float64, len(layouts)), make([]float64, len(layouts))
	for i, x := range rep.Results {
		layouts[i] = x.Layout
		disk[i], alloc[i] = float64(x.DiskBytes)/1e6, float64(x.AllocatedBytes)/1e6
		write[i], all[i], random[i] = x.WriteSeconds*1e3, x.ResolveAllSeconds*1e3, x.RandomSeconds*1e3
	}
	p, err := notebook.Bars("Space", "MB", layouts, []notebook.Series{{Name: "bytes on disk", Values: disk}, {Name: "allocated blocks", Values: alloc}}, false)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("space.svg", "Bytes written and blocks the file system allocated for them, per layout.", p); err != nil {
		return nil, err
	}
	p, err = notebook.Bars("Time", "ms (log)", layouts, []notebook.Series{
		{Name: "write", Values: write}, {Name: "resolve all", Values: all}, {Name: fmt.Sprintf("resolve %d random", rep.Random), Values: random},
	}, true)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("time.svg", "Writing, resolving every row and resolving a few random rows, per layout (lower is faster).", p); err != nil {
		return nil, err
	}

	r.Section("All figures")
	r.Text("bench.RunFileRefBench's own table:")
	r.Markdown(rep.Markdown())

	findings(r, rep)
	return r, nil
}

func findings(r *notebook.Report, rep *bench.FileRefReport) {
	res := rep.Results
	by := func(v func(bench.FileRefResult) float64) (lo, hi bench.FileRefResult) {
		cmp := func(a, b bench.FileRefResult) int {
			switch x, y := v(a), v(b); {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
		return slices.MinFunc(res, cmp), slices.MaxFunc(res, cmp)
	}
	smallAlloc, bigAlloc := by(func(x bench.FileRefResult) float64 { return float64(x.AllocatedBytes) })
	fastAll, slowAll := by(func(x bench.FileRefResult) float64 { return x.ResolveAllSeconds })
	fastRand, slowRand := by(func(x bench.FileRefResult) float64 { return x.RandomSeconds })
	fastW, slowW := by(func(x bench.FileRefResult) float64 { return x.WriteSeconds })

	r.Headline = fmt.Sprintf("%d images: fastest to resolve all is %s (%.1f ms), fastest for %d random rows is %s (%.2f ms); %s allocates %.1f× the space of %s.",
		rep.N, fastAll.Layout, fastAll.ResolveAllSeconds*1e3, rep.Random, fastRand.Layout, fastRand.RandomSeconds*1e3,
		bigAlloc.Layout, float64(bigAlloc.AllocatedBytes)/float64(smallAlloc.AllocatedBytes), smallAlloc.Layout)
	verified := true
	for _, x := range res {
		verified = verified && x.Verified == rep.N
	}
	if verified {
		r.Finding("Every layout resolved all %d rows to exactly their images.", rep.N)
	} else {
		r.Finding("Not every layout resolved every row to its image: see the verified column.")
	}
	r.Finding("Space: %s takes %.3f MB of allocated blocks, %s %.3f MB (%.1f×): %d bytes written as %d files.",
		smallAlloc.Layout, float64(smallAlloc.AllocatedBytes)/1e6, bigAlloc.Layout, float64(bigAlloc.AllocatedBytes)/1e6,
		float64(bigAlloc.AllocatedBytes)/float64(smallAlloc.AllocatedBytes), bigAlloc.DiskBytes, 1+bigAlloc.ExternalFiles)
	r.Finding("Resolving every row: %s is fastest at %.1f ms (%.0f MB/s, %.0f× the floor), %s slowest at %.1f ms (%.1f× longer).",
		fastAll.Layout, fastAll.ResolveAllSeconds*1e3, fastAll.ResolveAllMBps, fastAll.ResolveAllFloorRatio,
		slowAll.Layout, slowAll.ResolveAllSeconds*1e3, slowAll.ResolveAllSeconds/fastAll.ResolveAllSeconds)
	why := ""
	if slowRand.Layout == bench.FileRefInline {
		why = "; without row-level skipping in the reader, the inline layout decodes every image to return a few"
	}
	r.Finding("Resolving %d random rows: %s is fastest at %.2f ms, %s slowest at %.2f ms (%.1f× longer)%s.",
		rep.Random, fastRand.Layout, fastRand.RandomSeconds*1e3, slowRand.Layout, slowRand.RandomSeconds*1e3, slowRand.RandomSeconds/fastRand.RandomSeconds, why)
	r.Finding("Writing: %s is fastest at %.1f ms, %s slowest at %.1f ms (%.1f×).",
		fastW.Layout, fastW.WriteSeconds*1e3, slowW.Layout, slowW.WriteSeconds*1e3, slowW.WriteSeconds/fastW.WriteSeconds)
}
