// Command variant-shredding is the notebook of Variant shredding: what the
// analyzer infers for an event log, and what shredding costs and gains in
// file size, write and read speed, and reading one shredded path, at a
// range of row counts.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/variant"
)

var rowsFlag = flag.String("rows", "10000,30000,100000", "comma-separated event-log row counts, one benchmark each")

func main() { notebook.Main(run) }

func parseRows(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--rows %q: want positive row counts separated by commas", s)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func run(ctx context.Context, opts notebook.Options) (*notebook.Report, error) {
	rows, err := parseRows(*rowsFlag)
	if err != nil {
		return nil, err
	}
	runs := 3
	if opts.Quick {
		rows, runs = []int{1000, 3000}, 1
	}
	var reps []*bench.VariantBenchReport
	for _, n := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep, err := bench.RunVariantBench(bench.VariantBenchConfig{Rows: n, Seed: opts.Seed, Runs: runs})
		if err != nil {
			return nil, fmt.Errorf("variant bench at %d rows: %w", n, err)
		}
		if len(rep.Results) != 2 {
			return nil, fmt.Errorf("variant bench at %d rows: %d results, want unshredded and shredded", n, len(rep.Results))
		}
		reps = append(reps, rep)
	}
	// The analysis the layout came from, on the analyzer's own buffer.
	cfg := variant.DefaultAnalyzerConfig()
	values, err := bench.EventLogVariants(cfg.BufferRows, opts.Seed)
	if err != nil {
		return nil, err
	}
	_, analysis := variant.Analyze(values, cfg)
	return report(reps, analysis, cfg, runs, opts.Seed)
}

func report(reps []*bench.VariantBenchReport, analysis *variant.Report, cfg variant.AnalyzerConfig, runs int, seed uint64) (*notebook.Report, error) {
	last := reps[len(reps)-1]
	counts := make([]string, len(reps))
	for i, rep := range reps {
		counts[i] = strconv.Itoa(rep.Config.Rows)
	}
	r := &notebook.Report{
		Title:    "Variant shredding: what it costs, what it buys",
		Question: "For a realistic event log stored as Parquet VARIANT, what layout does Iceberg's type-uniformity rule infer, and how do file size, write and full-read speed, and reading one shredded path compare between shredded and unshredded files as the log grows?",
		Setup: []string{
			fmt.Sprintf("Data: bench.EventLogVariants, seed %d: nested objects, arrays, a mixed-type field, optional and rare keys. Row counts: %s.", seed, strings.Join(counts, ", ")),
			fmt.Sprintf("Per row count, bench.RunVariantBench writes the log unshredded and shredded (zstd) through the registry and measures size, write, full reconstruction and the path read of `%s`, best of %d runs; both files must give the same path values.", bench.VariantBenchPath, runs),
			fmt.Sprintf("The layout is inferred by variant.Analyze from the first %d rows (Iceberg's analyzer defaults: fields below %.0f%% frequency pruned, at most %d fields per object).", cfg.BufferRows, cfg.MinFieldFrequency*100, cfg.MaxShreddedFields),
			"The memory-bandwidth floor is measured in each benchmark at the size of the variant bytes.",
		},
	}

	r.Section("Inferred layout")
	r.Text("Shredded layout at %d rows: `%s`", last.Config.Rows, last.Layout)
	pt := notebook.NewTable(notebook.Text("path"), notebook.Num("frequency", "%.2f"), notebook.Text("types seen"), notebook.Text("typed_value"), notebook.Text("why not"))
	for _, p := range analysis.Paths {
		admitted := p.Admitted
		switch {
		case admitted == "":
			admitted = "—"
		case strings.HasPrefix(admitted, "{"):
			admitted = "object, fields below" // the whole layout is shown above
		case strings.HasPrefix(admitted, "["):
			admitted = "array, element below"
		}
		if err := pt.Row("`"+p.Path+"`", p.Frequency, typesSeen(p.Types), admitted, p.Reason); err != nil {
			return nil, err
		}
	}
	r.Table(pt)

	r.Section("Shredded against unshredded")
	t := notebook.NewTable(notebook.Num("rows", "%d"), notebook.Text("layout"), notebook.Num("file MB", "%.2f"), notebook.Num("size ÷ unshredded", "%.2f"),
		notebook.Num("write krows/s", "%.0f"), notebook.Num("full read krows/s", "%.0f"), notebook.Num("full read ÷ floor", "%.0f"),
		notebook.Num("path ms", "%.2f"), notebook.Num("path ÷ floor", "%.1f"), notebook.Num("chunks read", "%d"))
	for _, rep := range reps {
		n := float64(rep.Config.Rows)
		base := rep.Results[0]
		for _, x := range rep.Results {
			if err := t.Row(rep.Config.Rows, x.Layout, float64(x.FileBytes)/1e6, float64(x.FileBytes)/float64(base.FileBytes),
				n/x.WriteSeconds/1e3, n/x.ReadSeconds/1e3, x.ReadSeconds/rep.Floor.Seconds,
				x.PathSeconds*1e3, x.PathSeconds/rep.Floor.Seconds, x.PathChunks); err != nil {
				return nil, err
			}
		}
	}
	r.Table(t)

	xs := make([]float64, len(reps))
	line := func(layout int, value func(bench.VariantBenchResult, float64) float64) []float64 {
		ys := make([]float64, len(reps))
		for i, rep := range reps {
			xs[i] = float64(rep.Config.Rows)
			ys[i] = value(rep.Results[layout], float64(rep.Config.Rows))
		}
		return ys
	}
	pathMS := func(x bench.VariantBenchResult, _ float64) float64 { return x.PathSeconds * 1e3 }
	p, err := notebook.Lines("Reading "+bench.VariantBenchPath, "rows (log)", "ms (log)", []notebook.Line{
		{Name: "unshredded: decode every variant", X: xs, Y: line(0, pathMS)},
		{Name: "shredded: typed_value column", X: slices.Clone(xs), Y: line(1, pathMS)},
	}, true, true)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("path-read.svg", fmt.Sprintf("Time to read `%s` from every row, by row count (best of %d).", bench.VariantBenchPath, runs), p); err != nil {
		return nil, err
	}

	cats := []string{"file MB", "write s", "full read s", "path read s"}
	vals := func(x bench.VariantBenchResult) []float64 {
		return []float64{float64(x.FileBytes) / 1e6, x.WriteSeconds, x.ReadSeconds, x.PathSeconds}
	}
	p, err = notebook.Bars(fmt.Sprintf("Costs at %d rows", last.Config.Rows), "MB or seconds (log)", cats, []notebook.Series{
		{Name: "unshredded", Values: vals(last.Results[0])},
		{Name: "shredded", Values: vals(last.Results[1])},
	}, true)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("costs.svg", fmt.Sprintf("Size and times at %d rows, unshredded against shredded (lower is better).", last.Config.Rows), p); err != nil {
		return nil, err
	}

	// What this shows, from the figures.
	un, sh := last.Results[0], last.Results[1]
	n := float64(last.Config.Rows)
	r.Headline = fmt.Sprintf("At %d rows, reading `%s` from the shredded file is %.1f× faster than decoding whole variants; the file is %.2f× the unshredded size.",
		last.Config.Rows, bench.VariantBenchPath, last.PathSpeedup, float64(sh.FileBytes)/float64(un.FileBytes))
	admitted := 0
	for _, p := range analysis.Paths {
		if p.Admitted != "" {
			admitted++
		}
	}
	r.Finding("The analyzer tracked %d paths in %d rows and gave %d of them a typed_value; the rest stay in the residual value column, each with its reason in the table.", len(analysis.Paths), analysis.Rows, admitted)
	speedups := make([]string, len(reps))
	for i, rep := range reps {
		speedups[i] = fmt.Sprintf("%.1f× at %d", rep.PathSpeedup, rep.Config.Rows)
	}
	r.Finding("Path read, shredded against unshredded: %s rows. The shredded read opens %d column chunk(s) against %d%s.",
		strings.Join(speedups, ", "), sh.PathChunks, un.PathChunks, shreddedNote(sh))
	r.Finding("Size: the shredded file is %s the unshredded one at %d rows (%.2f MB against %.2f MB).",
		relative(float64(sh.FileBytes)/float64(un.FileBytes)), last.Config.Rows, float64(sh.FileBytes)/1e6, float64(un.FileBytes)/1e6)
	r.Finding("Writing shredded runs at %.0f krows/s against %.0f unshredded (%.2f× the time); reconstructing every variant runs at %.0f krows/s against %.0f (%.2f× the time).",
		n/sh.WriteSeconds/1e3, n/un.WriteSeconds/1e3, sh.WriteSeconds/un.WriteSeconds, n/sh.ReadSeconds/1e3, n/un.ReadSeconds/1e3, sh.ReadSeconds/un.ReadSeconds)
	r.Finding("Against the memory-bandwidth floor of the variant bytes (%.2f GB/s), the shredded path read takes %.1f× the floor's time and full reconstruction %.0f×.",
		last.Floor.GBps, sh.PathSeconds/last.Floor.Seconds, sh.ReadSeconds/last.Floor.Seconds)
	return r, nil
}

func shreddedNote(x bench.VariantBenchResult) string {
	if x.PathShredded {
		return "; every row group was answered from typed_value alone"
	}
	return "; some row groups fell back to reconstructing variants"
}

func relative(ratio float64) string {
	switch {
	case ratio < 0.995:
		return fmt.Sprintf("%.0f%% smaller than", (1-ratio)*100)
	case ratio > 1.005:
		return fmt.Sprintf("%.0f%% larger than", (ratio-1)*100)
	}
	return "about the size of"
}

// typesSeen renders observations per variant type, most frequent first.
func typesSeen(types map[string]int) string {
	names := slices.Sorted(maps.Keys(types))
	slices.SortStableFunc(names, func(a, b string) int { return types[b] - types[a] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", n, types[n])
	}
	return strings.Join(parts, ", ")
}
