// Command vector-layouts is the notebook of the VECTOR layout study: the
// candidate Parquet layouts of a vector column, under every value encoding
// and codec, measured for size, writing, decoding, search and take against
// the memory-bandwidth floor of the same run.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

var (
	sizeFlag    = flag.String("size", "20000x128", "rows x dimensions of the dataset")
	datasetFlag = flag.String("dataset", "clustered", "clustered or uniform")
)

func main() { notebook.Main(run) }

func parseSize(s string) (bench.Size, error) {
	n, d, ok := bench.ParseSize(s)
	if !ok {
		return bench.Size{}, fmt.Errorf("--size %q: want ROWSxDIM with positive numbers, e.g. 20000x128", s)
	}
	return bench.Size{Name: fmt.Sprintf("%d×%d", n, d), N: n, Dim: d}, nil
}

func run(ctx context.Context, opts notebook.Options) (*notebook.Report, error) {
	size, err := parseSize(*sizeFlag)
	if err != nil {
		return nil, err
	}
	runs := 3
	if opts.Quick {
		size, runs = bench.Quick, 1
	}
	rep, err := bench.RunVectorBench(bench.VectorBenchConfig{Size: size, Dataset: *datasetFlag, Seed: opts.Seed, Runs: runs})
	if err != nil {
		return nil, err
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("vector bench at %s gave no results", size)
	}
	return report(rep, runs, opts.Seed)
}

// combo names an encoding × codec, the categories of the plots.
func combo(x bench.VectorBenchResult) string { return x.Encoding + "/" + x.Codec }

func report(rep *bench.VectorBenchReport, runs int, seed uint64) (*notebook.Report, error) {
	r := &notebook.Report{
		Title:    "VECTOR layouts: size, decode, search and take",
		Question: "Which Parquet layout of a vector column (FIXED_LEN_BYTE_ARRAY with the VECTOR annotation, raw FLBA, LIST<FLOAT>, or PR #592's VECTOR repetition), with which value encoding and codec, gives the smallest file and the fastest exact search, and how close to the memory-bandwidth floor does each get?",
		Setup: []string{
			fmt.Sprintf("Dataset: %s, %d vectors × %d float32 (%.1f MB raw), seed %d, from bench.Clustered or bench.Uniform.", rep.Dataset, rep.N, rep.Dim, float64(rep.RawBytes)/1e6, seed),
			fmt.Sprintf("Every layout × encoding × codec is written with vectorcol.WriteFile and measured by bench.RunVectorBench, best of %d runs: write, size, full decode, one top-10 query, a batch of 64 queries, taking 100 random rows. Reads come from the page cache.", runs),
			fmt.Sprintf("Memory-bandwidth floor measured in the same run at the raw size: %.2f GB/s (%.3f ms); a ratio of 1 means a scan ran as fast as reading the raw floats once.", rep.Floor.GBps, rep.Floor.Seconds*1e3),
		},
	}

	layouts, combos := []string{}, []string{}
	for _, x := range rep.Results {
		if !slices.Contains(layouts, x.Layout) {
			layouts = append(layouts, x.Layout)
		}
		if !slices.Contains(combos, combo(x)) {
			combos = append(combos, combo(x))
		}
	}
	find := func(layout, c string) (bench.VectorBenchResult, bool) {
		for _, x := range rep.Results {
			if x.Layout == layout && combo(x) == c {
				return x, true
			}
		}
		return bench.VectorBenchResult{}, false
	}
	series := func(value func(bench.VectorBenchResult) float64) []notebook.Series {
		out := make([]notebook.Series, len(layouts))
		for i, l := range layouts {
			out[i].Name = l
			for _, c := range combos {
				v := 0.0
				if x, ok := find(l, c); ok {
					v = value(x)
				}
				out[i].Values = append(out[i].Values, v)
			}
		}
		return out
	}

	// Best per layout: the reader's first question is which layout to pick.
	r.Section("Best per layout")
	bt := notebook.NewTable(notebook.Text("layout"), notebook.Text("smallest file"), notebook.Num("size ÷ raw", "%.3f"),
		notebook.Text("fastest search"), notebook.Num("top-10 ms", "%.2f"), notebook.Num("top-10 ÷ floor", "%.1f"), notebook.Num("decode GB/s", "%.2f"))
	for _, l := range layouts {
		small, fast := bestOf(rep.Results, l, func(x bench.VectorBenchResult) float64 { return x.SizeRatio }),
			bestOf(rep.Results, l, func(x bench.VectorBenchResult) float64 { return x.SearchMs })
		if err := bt.Row(l, combo(small), small.SizeRatio, combo(fast), fast.SearchMs, fast.SearchFloorRatio, fast.DecodeGBps); err != nil {
			return nil, err
		}
	}
	r.Table(bt)

	r.Section("Size")
	p, err := notebook.Bars("File size ÷ raw float32 size", "size ÷ raw", combos, series(func(x bench.VectorBenchResult) float64 { return x.SizeRatio }), false)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("size.svg", "File size over the raw float32 bytes, per encoding/codec and layout (lower is smaller).", p); err != nil {
		return nil, err
	}

	r.Section("Search and decode against the floor")
	p, err = notebook.Bars("One top-10 query ÷ memory-bandwidth floor", "time ÷ floor (log)", combos, series(func(x bench.VectorBenchResult) float64 { return x.SearchFloorRatio }), true)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("search-floor.svg", "Exact top-10 search of the whole file, as a multiple of the time to read the raw floats once (1 = the floor; lower is better).", p); err != nil {
		return nil, err
	}
	p, err = notebook.Bars("Full decode throughput", "GB/s of float32 (log)", combos, series(func(x bench.VectorBenchResult) float64 { return x.DecodeGBps }), true)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("decode.svg", fmt.Sprintf("Decoding every page into float32 blocks; the floor is %.1f GB/s.", rep.Floor.GBps), p); err != nil {
		return nil, err
	}

	r.Section("All combinations")
	r.Text("bench.RunVectorBench's own table (the same as `lab bench vectors`):")
	r.Markdown(rep.Markdown())

	findings(r, rep, layouts)
	return r, nil
}

// bestOf is layout's result with the lowest value.
func bestOf(results []bench.VectorBenchResult, layout string, value func(bench.VectorBenchResult) float64) bench.VectorBenchResult {
	var best bench.VectorBenchResult
	found := false
	for _, x := range results {
		if x.Layout == layout && (!found || value(x) < value(best)) {
			best, found = x, true
		}
	}
	return best
}

func label(x bench.VectorBenchResult) string {
	return fmt.Sprintf("%s %s/%s", x.Layout, x.Encoding, x.Codec)
}

func findings(r *notebook.Report, rep *bench.VectorBenchReport, layouts []string) {
	all := rep.Results
	minBy := func(value func(bench.VectorBenchResult) float64) bench.VectorBenchResult {
		return slices.MinFunc(all, func(a, b bench.VectorBenchResult) int { return cmp.Compare(value(a), value(b)) })
	}
	maxBy := func(value func(bench.VectorBenchResult) float64) bench.VectorBenchResult {
		return slices.MaxFunc(all, func(a, b bench.VectorBenchResult) int { return cmp.Compare(value(a), value(b)) })
	}
	small := minBy(func(x bench.VectorBenchResult) float64 { return x.SizeRatio })
	big := maxBy(func(x bench.VectorBenchResult) float64 { return x.SizeRatio })
	fast := minBy(func(x bench.VectorBenchResult) float64 { return x.SearchMs })
	slow := maxBy(func(x bench.VectorBenchResult) float64 { return x.SearchMs })
	dec := maxBy(func(x bench.VectorBenchResult) float64 { return x.DecodeGBps })

	r.Headline = fmt.Sprintf("At %d×%d, fastest exact top-10: %s, %.2f ms = %.1f× the memory floor; smallest file: %s at %.3f× raw.",
		rep.N, rep.Dim, label(fast), fast.SearchMs, fast.SearchFloorRatio, label(small), small.SizeRatio)
	r.Finding("Smallest file: %s at %.3f× the raw floats; largest: %s at %.3f×. %s",
		label(small), small.SizeRatio, label(big), big.SizeRatio, compressionNote(rep.Dataset, small.SizeRatio))
	r.Finding("Fastest single top-10 search: %s, %.2f ms, %.1f× the floor; slowest: %s, %.2f ms (%.1f× slower than the fastest).",
		label(fast), fast.SearchMs, fast.SearchFloorRatio, label(slow), slow.SearchMs, slow.SearchMs/fast.SearchMs)
	r.Finding("Fastest full decode: %s at %.2f GB/s, %.2f× the floor's time.", label(dec), dec.DecodeGBps, dec.DecodeFloorRatio)

	// Layout against layout, on the plain uncompressed files, where the
	// layout alone makes the difference.
	var parts []string
	base := bench.VectorBenchResult{}
	for _, l := range layouts {
		for _, x := range all {
			if x.Layout == l && x.Encoding == vectorcol.EncodingPlain.String() && x.Codec == vectorcol.CodecNone.String() {
				if base.Layout == "" {
					base = x
				}
				parts = append(parts, fmt.Sprintf("%s %.2f ms (%.2f× %s)", l, x.SearchMs, x.SearchMs/base.SearchMs, base.Layout))
			}
		}
	}
	if len(parts) > 1 {
		r.Finding("Plain, uncompressed, layout against layout, one top-10 query: %s.", strings.Join(parts, ", "))
	}
	tk := minBy(func(x bench.VectorBenchResult) float64 { return x.TakeMs })
	tkSlow := maxBy(func(x bench.VectorBenchResult) float64 { return x.TakeMs })
	why := ""
	if tk.Codec == vectorcol.CodecNone.String() && tk.Encoding == vectorcol.EncodingPlain.String() && tkSlow.Codec != vectorcol.CodecNone.String() {
		why = ": an uncompressed PLAIN page is read row by row, a compressed one is decoded whole"
	}
	r.Finding("Taking 100 random rows: fastest %s in %.2f ms, slowest %s in %.2f ms (%.1f×)%s.",
		label(tk), tk.TakeMs, label(tkSlow), tkSlow.TakeMs, tkSlow.TakeMs/tk.TakeMs, why)
}

func compressionNote(dataset string, best float64) string {
	switch {
	case best > 0.97:
		return fmt.Sprintf("On %s float32 data no codec saves more than %.0f%%: random mantissa bits do not compress.", dataset, (1-best)*100)
	default:
		return fmt.Sprintf("The best combination saves %.0f%% on %s data.", (1-best)*100, dataset)
	}
}
