package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/data"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/internal/iocount"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// VariantBenchConfig sets up the variant shredding benchmark.
type VariantBenchConfig struct {
	Rows int    // event-log rows (default 200,000)
	Seed uint64 // dataset seed
	Dir  string // where the two files go (default: a temporary directory, removed)
	Runs int    // timed runs per measurement, best kept (default 3)
	// NoDuckDB leaves DuckDB out.
	NoDuckDB bool
	// PageBytes is the page size of the page-index measurement's file
	// (write.parquet.page-size-bytes; default 64 KiB).
	PageBytes int
}

// VariantBenchPath is the shredded integer path the path-read measurement reads.
const VariantBenchPath = "$.user.id"

// VariantBenchResult is one file layout's figures.
type VariantBenchResult struct {
	Layout       string  // "unshredded" or "shredded"
	FileBytes    int64   // zstd
	WriteSeconds float64 // best run
	ReadSeconds  float64 // full reconstruction to data.Record, best run
	PathSeconds  float64 // ReadVariantPath(VariantBenchPath), best run
	PathChunks   int     // column chunks the path read opened
	PathShredded bool    // every row group took the typed_value-only path
	// ProjSeconds is VariantBenchPath projected through the read builder
	// (lparquet.VariantPathsKey) as an int.
	ProjSeconds float64
	// FloorSeconds is parquet-go alone reading the path's typed_value
	// column (shredded file only): the floor of a path read.
	FloorSeconds float64
	// The selective filter: VariantBenchFilterPath >= the value that
	// leaves FilterShare of the rows, counted through the read builder
	// with the filter pushed down and only the path projected.
	FilterSeconds float64
	FilterCount   int
	FilterBytes   int64 // bytes the filtered count read from the file
	FullBytes     int64 // bytes the full read read
	FilterGroups  int   // row groups the filtered count read
	// Warnings are the reader's FilterWarnings for the filtered count.
	Warnings []string
	// The same filtered count on the same rows written as one row group
	// of small pages (VariantBenchConfig.PageBytes; shredded only), where
	// only the page index can prune: the rows and bytes it read, and the
	// bytes of a full read of that file.
	PageFilterRows    int
	PageFilterBytes   int64
	PageFullBytes     int64
	PageFilterSeconds float64
	PageIndexGroups   int // row groups of that file
}

// VariantBenchFilterPath is the path of the selective filter: the event
// time, which grows with the row number, so that a 1% filter selects a
// contiguous 1% of the file.
const VariantBenchFilterPath = "$.ts"

// VariantBenchFilterShare is the share of rows the selective filter keeps.
const VariantBenchFilterShare = 0.01

// DuckDBVariantFile is DuckDB's figures on one file.
type DuckDBVariantFile struct {
	File    string  `json:"file"`
	FullMS  float64 `json:"full_ms"`
	PathMS  float64 `json:"path_ms"`
	PathSum string  `json:"path_sum"`
	CountMS float64 `json:"count_ms"`
	Count   int     `json:"count"`
	Error   string  `json:"error"`
}

// DuckDBVariantResult is DuckDB's side of the run (Error when it did not
// run at all).
type DuckDBVariantResult struct {
	Version    string              `json:"version"`
	WriteMS    float64             `json:"write_ms"`
	WriteError string              `json:"write_error"`
	Schema     []string            `json:"schema"`
	Files      []DuckDBVariantFile `json:"files"`
	Error      string              `json:"-"`
	// Missing says DuckDB is not installed here (Error says why).
	Missing   bool  `json:"-"`
	FileBytes int64 `json:"-"`
}

// VariantBenchReport is the benchmark's outcome.
type VariantBenchReport struct {
	Config       VariantBenchConfig
	VariantBytes int64  // metadata + value bytes of the generated values
	Layout       string // the inferred shredded layout (compact form)
	Floor        FloorResult
	Results      []VariantBenchResult // unshredded, shredded
	// PathSpeedup is unshredded path time over shredded path time: a
	// shredded integer path against decoding whole variants.
	PathSpeedup float64
	// FilterThreshold is the selective filter's literal; FilterWant the
	// rows at or above it, counted on the generated values.
	FilterThreshold int64
	FilterWant      int
	// PathSum is the sum of VariantBenchPath over the generated values,
	// which DuckDB's one-path read must reproduce.
	PathSum int64
	DuckDB  DuckDBVariantResult
	Load    string // /proc/loadavg at the start and the end
}

// EventLogVariants generates n event-log variants, deterministic for seed:
// nested objects, arrays, a mixed-type field (value: int or string),
// optional fields (referrer, user.plan) and rare keys (debug, experiment).
func EventLogVariants(n int, seed uint64) ([]pvariant.Value, error) {
	texts := EventLogJSON(n, seed)
	out := make([]pvariant.Value, n)
	for i, text := range texts {
		v, err := pvariant.ParseJSON(text, false)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// EventLogJSON is EventLogVariants' events as JSON text.
func EventLogJSON(n int, seed uint64) []string {
	r := newRand(seed, streamData)
	events := []string{"view", "click", "search", "add_to_cart", "purchase", "login", "logout", "share"}
	countries := []string{"DE", "FR", "US", "JP", "BR", "IN", "NG", "SE"}
	out := make([]string, n)
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		fmt.Fprintf(&sb, `{"ts": %d, "event": %q, "session": "s%08x"`, 1_700_000_000_000_000+int64(i)*1_000_000+r.Int64N(1_000_000), events[r.IntN(len(events))], r.Uint32())
		// user.id stays in int32 range above int16: the shredder keeps a
		// narrower integer out of an int32 typed_value (exact types), and a
		// residual there would make every path read reconstruct.
		fmt.Fprintf(&sb, `, "user": {"id": %d, "country": %q`, 100_000+r.IntN(900_000), countries[r.IntN(len(countries))])
		if r.IntN(4) == 0 {
			fmt.Fprintf(&sb, `, "plan": %q`, []string{"free", "pro", "team"}[r.IntN(3)])
		}
		sb.WriteString(`}`)
		if r.IntN(10) < 6 {
			fmt.Fprintf(&sb, `, "referrer": "https://example.com/p/%d"`, r.IntN(500))
		}
		if r.IntN(10) < 3 {
			fmt.Fprintf(&sb, `, "value": "v%d"`, r.IntN(100))
		} else {
			fmt.Fprintf(&sb, `, "value": %d`, r.IntN(10_000))
		}
		fmt.Fprintf(&sb, `, "duration_ms": %.3f`, r.Float64()*5000)
		sb.WriteString(`, "tags": [`)
		for j := range r.IntN(4) {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, `"t%d"`, r.IntN(20))
		}
		sb.WriteString(`], "items": [`)
		for j := range r.IntN(3) {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, `{"sku": "k%d", "qty": %d, "price": %.2f}`, r.IntN(1000), 1+r.IntN(5), r.Float64()*200)
		}
		sb.WriteString(`]`)
		if r.IntN(100) == 0 {
			fmt.Fprintf(&sb, `, "debug": {"trace": "%x", "frames": [%d, %d]}`, r.Uint64(), r.IntN(99), r.IntN(99))
		}
		if r.IntN(200) == 0 {
			fmt.Fprintf(&sb, `, "experiment": {"arm": %d}`, r.IntN(3))
		}
		sb.WriteString(`}`)
		out[i] = sb.String()
	}
	return out
}

func variantBenchSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
	)
}

// WriteVariantFile writes id/v rows of values to path through the
// registry with props (zstd by default); a zero Value writes a null.
func WriteVariantFile(path string, values []pvariant.Value, props map[string]string) error {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Schema(variantBenchSchema()).SetAll(props).Overwrite().Build()
	if err != nil {
		return err
	}
	sc := variantBenchSchema()
	rec := data.NewRecord(sc)
	for i, v := range values {
		rec.Set(0, int64(i))
		if v.Bytes() == nil {
			rec.Set(1, nil) // the zero Value stands for a SQL NULL here
		} else {
			rec.Set(1, v)
		}
		if err := w.Write(rec); err != nil {
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}

// RunVariantBench writes the event log unshredded and shredded and
// measures sizes, write and full-read throughput, and the single shredded
// integer path read against decoding whole variants.
func RunVariantBench(cfg VariantBenchConfig) (rep *VariantBenchReport, err error) {
	if cfg.Rows <= 0 {
		cfg.Rows = 200_000
	}
	if cfg.Runs <= 0 {
		cfg.Runs = 3
	}
	if cfg.PageBytes <= 0 {
		cfg.PageBytes = 64 << 10
	}
	dir := cfg.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "lab-variant-bench-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	values, err := EventLogVariants(cfg.Rows, cfg.Seed)
	if err != nil {
		return nil, err
	}
	rep = &VariantBenchReport{Config: cfg}
	for _, v := range values {
		rep.VariantBytes += int64(len(v.Metadata().Bytes()) + len(v.Bytes()))
	}
	layout, _ := variant.Analyze(values, variant.DefaultAnalyzerConfig())
	rep.Layout = layout.String()
	if rep.Floor, err = Floor(max(rep.VariantBytes, 8), cfg.Runs); err != nil {
		return nil, err
	}
	rep.Load = loadAverage()
	defer func() {
		if rep != nil {
			rep.Load += " / " + loadAverage()
		}
	}()
	// Row groups of 20,000 rows, so that a filter has row groups to skip.
	rg := strconv.Itoa(variantRowGroupRows)
	layouts := []struct {
		name  string
		props map[string]string
	}{
		{"unshredded", map[string]string{lparquet.PropRowGroupRows: rg}},
		{"shredded", map[string]string{lparquet.PropShredVariants: "true", lparquet.PropRowGroupRows: rg}},
	}
	rep.FilterThreshold = 1_700_000_000_000_000 + int64(float64(cfg.Rows)*(1-VariantBenchFilterShare))*1_000_000
	wantCount := 0
	wantPath := make([]int64, len(values))
	for i, v := range values {
		if x, ok := lookupInt(v, "ts"); ok && x >= rep.FilterThreshold {
			wantCount++
		}
		x, ok := lookupInt(v, "user", "id")
		if !ok {
			return nil, fmt.Errorf("generated event %d has no integer %s", i, VariantBenchPath)
		}
		wantPath[i] = x
		rep.PathSum += x
	}
	rep.FilterWant = wantCount
	// Writes and full reads, whose ratios between the layouts are targets,
	// are timed interleaved (BestOfEach).
	paths := make([]string, len(layouts))
	writes, reads := make([]func() error, len(layouts)), make([]func() error, len(layouts))
	for i, l := range layouts {
		path := filepath.Join(dir, "events-"+l.name+".parquet")
		paths[i] = path
		writes[i] = func() error {
			if err := WriteVariantFile(path, values, l.props); err != nil {
				return fmt.Errorf("write %s: %w", l.name, err)
			}
			return nil
		}
		reads[i] = func() error {
			if err := readAllVariants(path, len(values)); err != nil {
				return fmt.Errorf("read %s: %w", l.name, err)
			}
			return nil
		}
	}
	writeSeconds, err := BestOfEach(cfg.Runs, writes...)
	if err != nil {
		return nil, err
	}
	readSeconds, err := BestOfEach(cfg.Runs, reads...)
	if err != nil {
		return nil, err
	}
	var pathValues [][]pvariant.Value
	for i, l := range layouts {
		res := VariantBenchResult{Layout: l.name, WriteSeconds: writeSeconds[i], ReadSeconds: readSeconds[i]}
		path := paths[i]
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		res.FileBytes = st.Size()
		var pr *lparquet.VariantPathRead
		if res.PathSeconds, err = BestOf(cfg.Runs, func() error {
			var err error
			pr, err = lparquet.ReadVariantPath(registry.LocalInput(path), "v", VariantBenchPath)
			return err
		}); err != nil {
			return nil, fmt.Errorf("path read %s: %w", l.name, err)
		}
		res.PathChunks, res.PathShredded = pr.ColumnChunks, pr.FallbackGroups == 0
		if len(pr.Values) != len(values) {
			return nil, fmt.Errorf("%s: ReadVariantPath %s read %d values, want %d", l.name, VariantBenchPath, len(pr.Values), len(values))
		}
		for i, v := range pr.Values {
			if x, ok := lookupInt(v); !ok || x != wantPath[i] {
				return nil, fmt.Errorf("%s: ReadVariantPath %s row %d: %v, want %d", l.name, VariantBenchPath, i, v, wantPath[i])
			}
		}
		pathValues = append(pathValues, pr.Values)
		// Timed, the values are summed, as the floor sums them; the run
		// after checks every one. On the shredded file the floor (parquet-go
		// reading the path's typed_value column), whose ratio to this is a
		// target, is timed interleaved with it.
		timed := []func() error{func() error {
			var sum int64
			n, err := readProjectedPath(path, func(x int32) { sum += int64(x) })
			if err == nil && (n != len(values) || sum != rep.PathSum) {
				err = fmt.Errorf("%d values summing to %d, want %d summing to %d", n, sum, len(values), rep.PathSum)
			}
			if err != nil {
				return fmt.Errorf("projected path read %s: %w", l.name, err)
			}
			return nil
		}}
		if l.name == "shredded" {
			timed = append(timed, func() error {
				if err := readTypedColumn(path, len(values)); err != nil {
					return fmt.Errorf("floor read: %w", err)
				}
				return nil
			})
		}
		best, err := BestOfEach(cfg.Runs, timed...)
		if err != nil {
			return nil, err
		}
		res.ProjSeconds = best[0]
		if len(best) > 1 {
			res.FloorSeconds = best[1]
		}
		proj := make([]int32, 0, len(values))
		if _, err := readProjectedPath(path, func(x int32) { proj = append(proj, x) }); err != nil {
			return nil, fmt.Errorf("projected path read %s: %w", l.name, err)
		}
		if len(proj) != len(values) {
			return nil, fmt.Errorf("%s: projected %s: %d rows, want %d", l.name, VariantBenchPath, len(proj), len(values))
		}
		for i, x := range proj {
			if int64(x) != wantPath[i] {
				return nil, fmt.Errorf("%s: projected %s row %d: %d, want %d", l.name, VariantBenchPath, i, x, wantPath[i])
			}
		}
		if l.name == "shredded" {
			if err := pageIndexFilter(dir, values, rep, wantCount, &res); err != nil {
				return nil, err
			}
		}
		var fr filterRead
		if res.FilterSeconds, err = BestOf(cfg.Runs, func() error {
			var err error
			fr, err = countFiltered(path, rep.FilterThreshold)
			return err
		}); err != nil {
			return nil, fmt.Errorf("filtered count %s: %w", l.name, err)
		}
		if fr.count != wantCount {
			return nil, fmt.Errorf("%s: filtered count %d, want %d", l.name, fr.count, wantCount)
		}
		res.FilterCount, res.FilterBytes, res.FilterGroups, res.Warnings = fr.count, fr.bytes, fr.groups, fr.warnings
		counter := &iocount.FS{}
		if err := readAllVariantsFrom(registry.InputFile{FS: counter, Location: path}, len(values), values); err != nil {
			return nil, fmt.Errorf("%s: full read: %w", l.name, err)
		}
		res.FullBytes = counter.Bytes()
		rep.Results = append(rep.Results, res)
	}
	if !cfg.NoDuckDB {
		rep.DuckDB = runDuckDBVariant(dir, cfg, rep, layouts[0].name, layouts[1].name)
		// A file DuckDB cannot read is a result; a wrong answer is not.
		for _, f := range rep.DuckDB.Files {
			if f.Error != "" {
				continue
			}
			if f.Count != wantCount {
				return nil, fmt.Errorf("DuckDB on %s: filtered count %d, want %d", filepath.Base(f.File), f.Count, wantCount)
			}
			if f.PathSum != strconv.FormatInt(rep.PathSum, 10) {
				return nil, fmt.Errorf("DuckDB on %s: sum of %s %s, want %d", filepath.Base(f.File), VariantBenchPath, f.PathSum, rep.PathSum)
			}
		}
	}
	// Both layouts must answer the same.
	for i := range pathValues[0] {
		if err := variant.Equal(pathValues[0][i], pathValues[1][i]); err != nil {
			return nil, fmt.Errorf("row %d: %s differs between layouts: %w", i, VariantBenchPath, err)
		}
	}
	rep.PathSpeedup = rep.Results[0].PathSeconds / rep.Results[1].PathSeconds
	return rep, nil
}

// readAllVariants reads every record, touching each variant.
func readAllVariants(path string, want int) error {
	return readAllVariantsFrom(registry.LocalInput(path), want, nil)
}

// readAllVariantsFrom reads every record of in; with check, it compares
// each row's id and variant with the values written (an untimed read).
func readAllVariantsFrom(in registry.InputFile, want int, check []pvariant.Value) error {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		return err
	}
	r, err := b.Build()
	if err != nil {
		return err
	}
	defer r.Close()
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		v, ok := rec.Get(1).(pvariant.Value)
		if !ok {
			return fmt.Errorf("row %d: variant is %T", n, rec.Get(1))
		}
		if check != nil {
			if id, ok := rec.GetInt64(0); !ok || id != int64(n) {
				return fmt.Errorf("row %d: id %v", n, rec.Get(0))
			}
			if n >= len(check) {
				return fmt.Errorf("row %d: more rows than the %d written", n, len(check))
			}
			if err := variant.Equal(v, check[n]); err != nil {
				return fmt.Errorf("row %d: variant differs from the one written: %w", n, err)
			}
		}
		n++
	}
	if n != want {
		return fmt.Errorf("read %d rows, want %d", n, want)
	}
	return nil
}

// Markdown renders the report as tables, with the targets.
func (r *VariantBenchReport) Markdown() string {
	var sb strings.Builder
	rows := float64(r.Config.Rows)
	fmt.Fprintf(&sb, "Variant shredding, event log: %d rows, seed %d, %.1f MB of variant bytes, zstd, row groups of %d rows, best of %d; load average %s.\n\n",
		r.Config.Rows, r.Config.Seed, float64(r.VariantBytes)/1e6, variantRowGroupRows, r.Config.Runs, r.Load)
	fmt.Fprintf(&sb, "Memory-bandwidth floor at that size: %.2f GB/s (%.4f s).\n\n", r.Floor.GBps, r.Floor.Seconds)
	sb.WriteString("| layout | file MB | write krows/s | full read krows/s | full read × floor | `" + VariantBenchPath + "` ReadVariantPath ms | projected ms | chunks read | filtered count ms | filtered bytes / full read bytes |\n")
	sb.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Results {
		share := 0.0
		if x.FullBytes > 0 {
			share = float64(x.FilterBytes) / float64(x.FullBytes)
		}
		fmt.Fprintf(&sb, "| %s | %.2f | %.0f | %.0f | %.0f | %.1f | %.1f | %d | %.1f | %.2f%% (%d of %d) |\n", x.Layout, float64(x.FileBytes)/1e6,
			rows/x.WriteSeconds/1e3, rows/x.ReadSeconds/1e3, x.ReadSeconds/r.Floor.Seconds, x.PathSeconds*1e3, x.ProjSeconds*1e3, x.PathChunks,
			x.FilterSeconds*1e3, share*100, x.FilterBytes, x.FullBytes)
	}
	if len(r.Results) == 2 {
		un, sh := r.Results[0], r.Results[1]
		fmt.Fprintf(&sb, "\nShredded file: %.2f× the unshredded size. Path read, shredded typed_value vs decoding whole variants: %.1f× faster (target ≥ 5×).\n",
			float64(sh.FileBytes)/float64(un.FileBytes), r.PathSpeedup)
		verdict := func(ok bool) string {
			if ok {
				return "met"
			}
			return "missed"
		}
		sb.WriteString("\n| target | figure | verdict |\n|---|---|---|\n")
		w := un.WriteSeconds / sh.WriteSeconds
		fmt.Fprintf(&sb, "| shredded write ≥ 0.8× unshredded throughput | %.2f× | %s |\n", w, verdict(w >= 0.8))
		rd := un.ReadSeconds / sh.ReadSeconds
		fmt.Fprintf(&sb, "| shredded full read no slower than unshredded | %.2f× the throughput | %s |\n", rd, verdict(rd >= 1))
		if sh.FloorSeconds > 0 {
			pf := sh.PathSeconds / sh.FloorSeconds
			pj := sh.ProjSeconds / sh.FloorSeconds
			fmt.Fprintf(&sb, "| one shredded path ≤ 2× parquet-go reading its typed_value column (%.1f ms) | ReadVariantPath %.1f×, projection %.1f× | %s |\n",
				sh.FloorSeconds*1e3, pf, pj, verdict(min(pf, pj) <= 2))
		}
		if sh.FullBytes > 0 {
			fs := float64(sh.FilterBytes) / float64(sh.FullBytes)
			fmt.Fprintf(&sb, "| 1%% filter on a shredded path reads ≤ 5%% of a full scan's bytes | %.2f%% | %s |\n", fs*100, verdict(fs <= 0.05))
		}
		if sh.PageFullBytes > 0 {
			fs := float64(sh.PageFilterBytes) / float64(sh.PageFullBytes)
			fmt.Fprintf(&sb, "| the same, %d row group(s) of %d KiB pages: the page index alone prunes | %.2f%% (%d of %d rows read, %.1f ms) | %s |\n",
				sh.PageIndexGroups, r.Config.PageBytes>>10, fs*100, sh.PageFilterRows, r.Config.Rows, sh.PageFilterSeconds*1e3, verdict(fs <= 0.05))
		}
		if len(r.DuckDB.Files) == 3 {
			d := r.DuckDB.Files
			if d[2].Error == "" {
				fmt.Fprintf(&sb, "| full read no slower than DuckDB's, lab's shredded file | lab %.0f ms, DuckDB %.0f ms | %s |\n", sh.ReadSeconds*1e3, d[2].FullMS, verdict(sh.ReadSeconds*1e3 <= d[2].FullMS))
				fmt.Fprintf(&sb, "| one-path read no slower than DuckDB's, lab's shredded file | lab %.1f ms, DuckDB %.1f ms | %s |\n", sh.ProjSeconds*1e3, d[2].PathMS, verdict(sh.ProjSeconds*1e3 <= d[2].PathMS))
			}
			if d[1].Error == "" {
				fmt.Fprintf(&sb, "| full read no slower than DuckDB's, lab's unshredded file | lab %.0f ms, DuckDB %.0f ms | %s |\n", un.ReadSeconds*1e3, d[1].FullMS, verdict(un.ReadSeconds*1e3 <= d[1].FullMS))
			}
		}
	}
	for _, x := range r.Results {
		for _, w := range x.Warnings {
			fmt.Fprintf(&sb, "\nReader warning (%s): %s\n", x.Layout, w)
		}
	}
	d := r.DuckDB
	switch {
	case r.Config.NoDuckDB:
	case d.Error != "":
		fmt.Fprintf(&sb, "\nDuckDB did not run: %s\n", d.Error)
	default:
		fmt.Fprintf(&sb, "\nDuckDB %s, same run: its own file (written with COPY, zstd) %.2f MB, write %.0f krows/s%s.\n\n", d.Version, float64(d.FileBytes)/1e6, rows/(d.WriteMS/1e3)/1e3, d.WriteError)
		sb.WriteString("| file | DuckDB full read ms | DuckDB `v.user.id` sum ms | DuckDB filtered count ms | count | error |\n|---|---:|---:|---:|---:|---|\n")
		for _, f := range d.Files {
			fmt.Fprintf(&sb, "| %s | %.1f | %.1f | %.1f | %d | %s |\n", filepath.Base(f.File), f.FullMS, f.PathMS, f.CountMS, f.Count, strings.ReplaceAll(f.Error, "\n", " "))
		}
		fmt.Fprintf(&sb, "\nDuckDB's shredding of its file: `%s`\n", strings.Join(d.Schema, " "))
	}
	fmt.Fprintf(&sb, "\nInferred layout: `%s`\n", r.Layout)
	return sb.String()
}

// variantRowGroupRows is the benchmark files' row-group size in rows.
const variantRowGroupRows = 20_000

// lookupInt is the integer at a path of v, by brute force.
func lookupInt(v pvariant.Value, steps ...string) (int64, bool) {
	if v.Bytes() == nil {
		return 0, false // the zero Value: null or missing
	}
	for _, s := range steps {
		obj, ok := v.Value().(pvariant.ObjectValue)
		if !ok {
			return 0, false
		}
		f, err := obj.ValueByKey(s)
		if err != nil {
			return 0, false
		}
		v = f.Value
	}
	switch x := v.Value().(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// pathSchema projects id and one variant path as a field of type typ.
func pathSchema(name string, typ iceberg.Type) *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 1000, Name: name, Type: typ},
	)
}

// readProjectedPath reads VariantBenchPath through the read builder as an
// int, one record at a time with reused containers, handing each value to
// each, and returns how many it read. The timed runs sum the values, as the
// floor does; collecting them into a slice (what the checking run does)
// cost a seventh of the read at 200,000 rows.
func readProjectedPath(path string, each func(int32)) (int, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return 0, err
	}
	// Only the path: the floor reads its one column, and so does DuckDB's
	// sum of v.user.id.
	only := iceberg.NewSchema(0, iceberg.NestedField{ID: 1000, Name: "user_id", Type: iceberg.PrimitiveTypes.Int32})
	r, err := b.Project(only).
		Set(lparquet.VariantPathsKey, "user_id=v:"+VariantBenchPath).ReuseContainers().Build()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	for n := 0; ; n++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		// The typed getter: boxing an int32 per row through Get cost as
		// much as the read.
		x, ok := rec.GetInt32(0)
		if !ok {
			return n, fmt.Errorf("row %d: %s is null or not an int", n, VariantBenchPath)
		}
		each(x)
	}
}

// openParquetGo opens path with parquet-go alone, as the floors read it.
func openParquetGo(path string) (*pq.File, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return pf, func() { f.Close() }, nil
}

// readTypedColumn is the floor of a path read: parquet-go alone reads the
// typed_value column of VariantBenchPath, page by page, values in batches.
func readTypedColumn(path string, want int) error {
	pf, closeFile, err := openParquetGo(path)
	if err != nil {
		return err
	}
	defer closeFile()
	col := -1
	for i, p := range pf.Schema().Columns() {
		if strings.Join(p, ".") == "v.typed_value.user.typed_value.id.typed_value" {
			col = i
		}
	}
	if col < 0 {
		return fmt.Errorf("no typed_value column for %s", VariantBenchPath)
	}
	buf := make([]pq.Value, 1024)
	n := 0
	var sum int64
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[col].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return err
			}
			vr := p.Values()
			for {
				k, err := vr.ReadValues(buf)
				for _, v := range buf[:k] {
					sum += int64(v.Int32())
				}
				n += k
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return err
				}
			}
		}
		pages.Close()
	}
	if n != want {
		return fmt.Errorf("floor read %d values, want %d (sum %d)", n, want, sum)
	}
	return nil
}

type filterRead struct {
	count, groups, rows int
	bytes               int64
	warnings            []string
}

// pageIndexFilter writes values shredded with Iceberg's default row-group
// size, so as one row group here, of small pages, and measures the
// selective filter's count on it, which only the page index can prune.
func pageIndexFilter(dir string, values []pvariant.Value, rep *VariantBenchReport, wantCount int, res *VariantBenchResult) error {
	path := filepath.Join(dir, "events-shredded-pages.parquet")
	props := map[string]string{lparquet.PropShredVariants: "true", lparquet.PropPageBytes: strconv.Itoa(rep.Config.PageBytes)}
	if err := WriteVariantFile(path, values, props); err != nil {
		return fmt.Errorf("write the page-index file: %w", err)
	}
	var fr filterRead
	var err error
	if res.PageFilterSeconds, err = BestOf(rep.Config.Runs, func() error {
		fr, err = countFiltered(path, rep.FilterThreshold)
		return err
	}); err != nil {
		return fmt.Errorf("filtered count on the page-index file: %w", err)
	}
	if fr.count != wantCount {
		return fmt.Errorf("page-index file: filtered count %d, want %d", fr.count, wantCount)
	}
	counter := &iocount.FS{}
	if err := readAllVariantsFrom(registry.InputFile{FS: counter, Location: path}, len(values), values); err != nil {
		return fmt.Errorf("page-index file: full read: %w", err)
	}
	pf, closeFile, err := openParquetGo(path)
	if err != nil {
		return err
	}
	defer closeFile()
	res.PageFilterRows, res.PageFilterBytes, res.PageFullBytes = fr.rows, fr.bytes, counter.Bytes()
	res.PageIndexGroups = len(pf.RowGroups())
	return nil
}

// countFiltered counts the rows whose VariantBenchFilterPath is at least
// threshold: only the path is projected, the filter is pushed down, and
// the rows are filtered again (a pushed-down filter only prunes).
func countFiltered(path string, threshold int64) (filterRead, error) {
	counter := &iocount.FS{}
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.InputFile{FS: counter, Location: path})
	if err != nil {
		return filterRead{}, err
	}
	filter := iceberg.GreaterThanEqual(iceberg.Extract(iceberg.Reference("v"), VariantBenchFilterPath, iceberg.PrimitiveTypes.Int64), threshold)
	r, err := b.Project(pathSchema("ts", iceberg.PrimitiveTypes.Int64)).Filter(filter).
		Set(lparquet.VariantPathsKey, "ts=v:"+VariantBenchFilterPath).ReuseContainers().Build()
	if err != nil {
		return filterRead{}, err
	}
	defer r.Close()
	var out filterRead
	if w, ok := r.(interface{ FilterWarnings() []string }); ok {
		out.warnings = w.FilterWarnings()
	}
	rows := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		rows++
		if x, ok := rec.Get(1).(int64); ok && x >= threshold {
			out.count++
		}
	}
	out.groups = (rows + variantRowGroupRows - 1) / variantRowGroupRows
	out.rows = rows
	out.bytes = counter.Bytes()
	return out, nil
}

// runDuckDBVariant has DuckDB write the same events (from their JSON) and
// time its full read, one-path read and filtered count on its file and on
// the lab's two files. What DuckDB cannot do is its result.
func runDuckDBVariant(dir string, cfg VariantBenchConfig, rep *VariantBenchReport, files ...string) DuckDBVariantResult {
	var out DuckDBVariantResult
	jsonl := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(jsonl, []byte(strings.Join(EventLogJSON(cfg.Rows, cfg.Seed), "\n")+"\n"), 0o644); err != nil {
		out.Error = err.Error()
		return out
	}
	duck := filepath.Join(dir, "events-duckdb.parquet")
	req := map[string]any{
		"op": "variant", "jsonl": jsonl, "out": duck, "runs": cfg.Runs,
		"path_sql":   "v.user.id::BIGINT",
		"filter_sql": fmt.Sprintf("v.ts::BIGINT >= %d", rep.FilterThreshold),
	}
	var paths []string
	for _, name := range files {
		paths = append(paths, filepath.Join(dir, "events-"+name+".parquet"))
	}
	req["files"] = paths
	p := peers.DuckDBVariant
	p.Timeout = 10 * time.Minute
	if err := peers.Run(context.Background(), p, req, &out); err != nil {
		out.Error, out.Missing = err.Error(), errors.Is(err, peers.ErrMissing)
		return out
	}
	if st, err := os.Stat(duck); err == nil {
		out.FileBytes = st.Size()
	}
	return out
}
