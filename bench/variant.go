package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// VariantBenchConfig sets up the variant shredding benchmark.
type VariantBenchConfig struct {
	Rows int    // event-log rows (default 200,000)
	Seed uint64 // dataset seed
	Dir  string // where the two files go (default: a temporary directory, removed)
	Runs int    // timed runs per measurement, best kept (default 3)
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
}

// EventLogVariants generates n event-log variants, deterministic for seed:
// nested objects, arrays, a mixed-type field (value: int or string),
// optional fields (referrer, user.plan) and rare keys (debug, experiment).
func EventLogVariants(n int, seed uint64) ([]pvariant.Value, error) {
	r := newRand(seed, streamData)
	events := []string{"view", "click", "search", "add_to_cart", "purchase", "login", "logout", "share"}
	countries := []string{"DE", "FR", "US", "JP", "BR", "IN", "NG", "SE"}
	out := make([]pvariant.Value, n)
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
		v, err := pvariant.ParseJSON(sb.String(), false)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
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

func variantTimed(runs int, fn func() error) (float64, error) {
	best := -1.0
	for range max(runs, 1) {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		if s := time.Since(start).Seconds(); best < 0 || s < best {
			best = s
		}
	}
	return best, nil
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
	layouts := []struct {
		name  string
		props map[string]string
	}{
		{"unshredded", nil},
		{"shredded", map[string]string{lparquet.PropShredVariants: "true"}},
	}
	var paths [][]pvariant.Value
	for _, l := range layouts {
		res := VariantBenchResult{Layout: l.name}
		path := filepath.Join(dir, "events-"+l.name+".parquet")
		if res.WriteSeconds, err = variantTimed(cfg.Runs, func() error { return WriteVariantFile(path, values, l.props) }); err != nil {
			return nil, fmt.Errorf("write %s: %w", l.name, err)
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		res.FileBytes = st.Size()
		if res.ReadSeconds, err = variantTimed(cfg.Runs, func() error { return readAllVariants(path, len(values)) }); err != nil {
			return nil, fmt.Errorf("read %s: %w", l.name, err)
		}
		var pr *lparquet.VariantPathRead
		if res.PathSeconds, err = variantTimed(cfg.Runs, func() error {
			var err error
			pr, err = lparquet.ReadVariantPath(registry.LocalInput(path), "v", VariantBenchPath)
			return err
		}); err != nil {
			return nil, fmt.Errorf("path read %s: %w", l.name, err)
		}
		res.PathChunks, res.PathShredded = pr.ColumnChunks, pr.FallbackGroups == 0
		paths = append(paths, pr.Values)
		rep.Results = append(rep.Results, res)
	}
	// Both layouts must answer the same.
	for i := range paths[0] {
		if err := variant.Equal(paths[0][i], paths[1][i]); err != nil {
			return nil, fmt.Errorf("row %d: %s differs between layouts: %w", i, VariantBenchPath, err)
		}
	}
	rep.PathSpeedup = rep.Results[0].PathSeconds / rep.Results[1].PathSeconds
	return rep, nil
}

// readAllVariants reads every record, touching each variant.
func readAllVariants(path string, want int) error {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
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
		if _, ok := rec.Get(1).(pvariant.Value); !ok {
			return fmt.Errorf("row %d: variant is %T", n, rec.Get(1))
		}
		n++
	}
	if n != want {
		return fmt.Errorf("read %d rows, want %d", n, want)
	}
	return nil
}

// Markdown renders the report as a table.
func (r *VariantBenchReport) Markdown() string {
	var sb strings.Builder
	rows := float64(r.Config.Rows)
	fmt.Fprintf(&sb, "Variant shredding, event log: %d rows, seed %d, %.1f MB of variant bytes, zstd, best of %d.\n\n", r.Config.Rows, r.Config.Seed, float64(r.VariantBytes)/1e6, r.Config.Runs)
	fmt.Fprintf(&sb, "Memory-bandwidth floor at that size: %.2f GB/s (%.4f s).\n\n", r.Floor.GBps, r.Floor.Seconds)
	sb.WriteString("| layout | file MB | write krows/s | full read krows/s | full read × floor | `" + VariantBenchPath + "` read ms | chunks read |\n")
	sb.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Results {
		fmt.Fprintf(&sb, "| %s | %.2f | %.0f | %.0f | %.0f | %.1f | %d |\n", x.Layout, float64(x.FileBytes)/1e6,
			rows/x.WriteSeconds/1e3, rows/x.ReadSeconds/1e3, x.ReadSeconds/r.Floor.Seconds, x.PathSeconds*1e3, x.PathChunks)
	}
	if len(r.Results) == 2 {
		fmt.Fprintf(&sb, "\nShredded file: %.2f× the unshredded size. Path read, shredded typed_value vs decoding whole variants: %.1f× faster (target ≥ 5×).\n",
			float64(r.Results[1].FileBytes)/float64(r.Results[0].FileBytes), r.PathSpeedup)
	}
	fmt.Fprintf(&sb, "\nInferred layout: `%s`\n", r.Layout)
	return sb.String()
}
