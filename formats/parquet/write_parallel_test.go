package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// setColumnWorkers sets the concurrency hooks of writeTo and flushColumns
// for the test: workers goroutines at most, parallel from minBytes on.
func setColumnWorkers(t testing.TB, workers int, minBytes int64) {
	t.Helper()
	oldWorkers, oldMin := maxColumnWorkers, parallelMinBytes
	t.Cleanup(func() { maxColumnWorkers, parallelMinBytes = oldWorkers, oldMin })
	maxColumnWorkers = func() int { return workers }
	parallelMinBytes = minBytes
}

// setColumnHook installs hook for the test.
func setColumnHook(t testing.TB, hook func(c int, flush bool) error) {
	t.Helper()
	t.Cleanup(func() { columnHook = nil })
	columnHook = hook
}

// eventSchema is an event log: plain columns around a variant.
func eventSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
		iceberg.NestedField{ID: 3, Name: "note", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "score", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "tags", Type: &iceberg.ListType{ElementID: 51, Element: iceberg.PrimitiveTypes.String}},
	)
}

// eventJSON is one event in the shape of bench.EventLogJSON: stable and
// optional fields, a field of two types, nested objects, arrays of scalars
// and of objects, and rare keys.
func eventJSON(r *rand.Rand, i int) string {
	var sb strings.Builder
	events := []string{"view", "click", "search", "purchase", "login"}
	fmt.Fprintf(&sb, `{"ts": %d, "event": %q, "session": "s%08x"`, 1_700_000_000_000_000+int64(i)*1_000_000, events[r.IntN(len(events))], r.Uint32())
	fmt.Fprintf(&sb, `, "user": {"id": %d, "country": %q`, 100_000+r.IntN(900_000), []string{"DE", "FR", "JP"}[r.IntN(3)])
	if r.IntN(4) == 0 {
		fmt.Fprintf(&sb, `, "plan": %q`, []string{"free", "pro"}[r.IntN(2)])
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
	fmt.Fprintf(&sb, `, "duration_ms": %.3f, "tags": [`, r.Float64()*5000)
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
	if i%97 == 0 {
		fmt.Fprintf(&sb, `, "debug": {"trace": "%x", "frames": [%d, null]}`, r.Uint64(), r.IntN(99))
	}
	if i%31 == 0 {
		sb.WriteString(`, "gone": null`)
	}
	sb.WriteString(`}`)
	return sb.String()
}

// eventRecords are n events with SQL nulls in the variant and in every
// optional plain column, and JSON nulls in the variant.
func eventRecords(t testing.TB, n int) []*data.Record {
	t.Helper()
	r := rand.New(rand.NewPCG(17, 4))
	schema := eventSchema()
	recs := make([]*data.Record, n)
	for i := range recs {
		var v any
		switch {
		case i%23 == 5:
			// SQL NULL
		case i%41 == 7:
			v = mustVariant(t, `null`)
		default:
			v = mustVariant(t, eventJSON(r, i))
		}
		var note, score, tags any
		if i%7 != 0 {
			note = fmt.Sprintf("note %d %s", i, strings.Repeat("x", r.IntN(30)))
		}
		if i%11 != 0 {
			score = r.NormFloat64()
		}
		if i%5 != 0 {
			list := make([]any, r.IntN(4))
			for j := range list {
				if j != 2 {
					list[j] = fmt.Sprintf("tag%d", r.IntN(9))
				}
			}
			tags = list
		}
		recs[i] = data.Of(schema, int64(i), v, note, score, tags)
	}
	return recs
}

// writeParallelFile writes recs to path, overwriting it.
func writeParallelFile(path string, schema *iceberg.Schema, props map[string]string, recs []*data.Record) error {
	a, err := newRecordAppender(registry.LocalOutput(path), registry.WriteOptions{Schema: schema, Properties: props, Overwrite: true})
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := a.Add(r); err != nil {
			_ = a.Abort()
			return err
		}
	}
	return a.Close()
}

// openParallelFile opens path with parquet-go.
func openParallelFile(t *testing.T, path string) *pq.File {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := pq.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustVariant(t testing.TB, s string) pvariant.Value {
	t.Helper()
	v, err := pvariant.ParseJSON(s, false)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// TestParallelWriteMatchesSerial writes the same records with the columns
// written and flushed concurrently and one after the other, and requires
// byte-identical files and equal metrics: the concurrency must not change
// a page. Small pages and row groups make pages end inside batches and at
// row-group flushes.
func TestParallelWriteMatchesSerial(t *testing.T) {
	defaultMinBytes := parallelMinBytes
	events := eventRecords(t, 3000)
	shred := map[string]string{PropShredVariants: "true"}
	cases := []struct {
		name   string
		schema *iceberg.Schema
		recs   []*data.Record
		props  map[string]string
		flat   bool
		groups int // the least row groups the case must make
		pages  int // the least pages in the first row group's largest chunk
	}{
		{"shredded variant", eventSchema(), events, shred, true, 1, 1},
		{"shredded variant, small pages and row groups", eventSchema(), events,
			map[string]string{PropShredVariants: "true", PropPageBytes: "2048", PropRowGroupRows: "700"}, true, 5, 4},
		{"shredded variant, row-group bytes, snappy", eventSchema(), events,
			map[string]string{PropShredVariants: "true", PropRowGroupBytes: "200000", PropCompressionCodec: "snappy"}, true, 2, 1},
		{"shredded variant, general path", eventSchema(), events, shred, false, 1, 1},
		{"unshredded variant", eventSchema(), events, nil, true, 1, 1},
		{"every primitive", columnarSchema(), columnarRecords(2000),
			map[string]string{PropPageBytes: "1500", PropRowGroupRows: "900", PropCompressionCodec: "gzip"}, true, 3, 4},
	}
	full := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name string, workers int, minBytes int64) ([]byte, registry.Metrics) {
				setColumnWorkers(t, workers, minBytes)
				raw, metrics, errs := writeWith(t, filepath.Join(dir, name), tc.schema, tc.props, full, tc.flat, tc.recs)
				for i, e := range errs {
					if e != "" {
						t.Fatalf("%s: record %d: %s", name, i, e)
					}
				}
				return raw, metrics
			}
			serial, serialMetrics := write("serial.parquet", 1, 0)
			for _, run := range []struct {
				name     string
				workers  int
				minBytes int64
			}{
				{"parallel.parquet", 4, 0},
				{"two.parquet", 2, 0},
				{"default.parquet", runtime.GOMAXPROCS(0), defaultMinBytes},
			} {
				got, metrics := write(run.name, run.workers, run.minBytes)
				if !bytes.Equal(got, serial) {
					t.Errorf("%s: %d bytes differ from the serial write's %d", run.name, len(got), len(serial))
				}
				if !reflect.DeepEqual(metrics, serialMetrics) {
					t.Errorf("%s: metrics differ:\ngot:    %+v\nserial: %+v", run.name, metrics, serialMetrics)
				}
			}
			f := openParallelFile(t, filepath.Join(dir, "parallel.parquet"))
			if n := len(f.RowGroups()); n < tc.groups {
				t.Errorf("%d row groups, want at least %d", n, tc.groups)
			}
			pages := 0
			for _, chunk := range f.RowGroups()[0].ColumnChunks() {
				index, err := chunk.OffsetIndex()
				if err != nil {
					t.Fatal(err)
				}
				pages = max(pages, index.NumPages())
			}
			if pages < tc.pages {
				t.Errorf("the largest column chunk of row group 0 has %d pages, want at least %d", pages, tc.pages)
			}
			if tc.props[PropShredVariants] == "true" {
				if n := len(f.Schema().Columns()); n < 25 {
					t.Errorf("%d leaf columns, want a variant shredded into many", n)
				}
			}
			got := readAllRecords(t, filepath.Join(dir, "parallel.parquet"))
			if len(got) != len(tc.recs) {
				t.Fatalf("read %d records, want %d", len(got), len(tc.recs))
			}
		})
	}
}

// TestParallelWriteRoundTrip reads back what the concurrent write wrote.
func TestParallelWriteRoundTrip(t *testing.T) {
	setColumnWorkers(t, 4, 0)
	recs := eventRecords(t, 1200)
	path := filepath.Join(t.TempDir(), "events.parquet")
	writeWith(t, path, eventSchema(), map[string]string{PropShredVariants: "true", PropPageBytes: "4096"},
		registry.DefaultMetricsConfig(), true, recs)
	got := readAllRecords(t, path)
	if len(got) != len(recs) {
		t.Fatalf("read %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !got[i].Equal(recs[i]) {
			t.Fatalf("record %d:\ngot:  %s\nwant: %s", i, got[i], recs[i])
		}
	}
}

// waitGoroutines fails the test unless the goroutines fall back to at
// most base, polling briefly: a goroutine that has returned may take a
// moment to be counted out.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before the write:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestParallelWriteErrors injects an error or a panic into some columns
// of a batch or of the final flush: the first failing column in column
// order names the error, the appender fails, the process survives, and no
// goroutine outlives the call.
func TestParallelWriteErrors(t *testing.T) {
	errBoom := errors.New("boom")
	recs := eventRecords(t, 1500)
	cases := []struct {
		name  string
		flush bool
		fail  map[int]string // column -> "error" or "panic"
		first int            // the column that must name the error
	}{
		{"error in one column", false, map[int]string{3: "error"}, 3},
		{"errors in two columns", false, map[int]string{9: "error", 2: "error"}, 2},
		{"panic", false, map[int]string{4: "panic"}, 4},
		{"panic after an error", false, map[int]string{5: "panic", 1: "error"}, 1},
		{"error after a panic", false, map[int]string{7: "error", 6: "panic"}, 6},
		{"error in the flush", true, map[int]string{8: "error"}, 8},
		{"panic in the flush", true, map[int]string{0: "panic", 8: "error"}, 0},
	}
	for _, tc := range cases {
		for _, workers := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/%d workers", tc.name, workers), func(t *testing.T) {
				setColumnWorkers(t, workers, 0)
				var calls atomic.Int64
				setColumnHook(t, func(c int, flush bool) error {
					calls.Add(1)
					if flush != tc.flush {
						return nil
					}
					switch tc.fail[c] {
					case "error":
						return errBoom
					case "panic":
						panic("boom")
					}
					return nil
				})
				base := runtime.NumGoroutine()
				path := filepath.Join(t.TempDir(), "f.parquet")
				a, err := newRecordAppender(registry.LocalOutput(path), registry.WriteOptions{
					Schema: eventSchema(), Properties: map[string]string{PropShredVariants: "true", PropVariantInferenceRows: "100"}})
				if err != nil {
					t.Fatal(err)
				}
				var failed error
				for _, r := range recs {
					if failed = a.Add(r); failed != nil {
						break
					}
				}
				if failed == nil {
					failed = a.Close()
				} else if err := a.Close(); err == nil {
					t.Error("Close after a failed write succeeded")
				}
				waitGoroutines(t, base)
				if failed == nil {
					t.Fatalf("no error; hook ran %d times", calls.Load())
				}
				t.Logf("error: %v", failed)
				want := fmt.Sprintf("column %q: boom", a.batch.names[tc.first])
				if tc.fail[tc.first] == "panic" {
					want = "parquet: " + want
				}
				if !strings.Contains(failed.Error(), want) || !strings.Contains(failed.Error(), path) {
					t.Errorf("error %q, want it to name %s and contain %q", failed, path, want)
				}
				if err := a.Add(recs[0]); err == nil || !strings.Contains(err.Error(), "failed earlier") && !strings.Contains(err.Error(), "closed") {
					t.Errorf("Add after the failure: %v", err)
				}
			})
		}
	}
}

// TestForEachColumnOutcome checks that the outcome follows column order,
// not timing: the later column fails first in time, the earlier one wins.
func TestForEachColumnOutcome(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	name := func(c int) string { return fmt.Sprint(c) }
	order := func() []int { return []int{7, 6, 5, 4, 3, 2, 1, 0} }
	for _, workers := range []int{1, 2, 8} {
		base := runtime.NumGoroutine()
		var ran atomic.Int64
		err := forEachColumn(8, workers, order, name, func(c int) error {
			ran.Add(1)
			switch c {
			case 2:
				time.Sleep(20 * time.Millisecond)
				return errA
			case 6:
				return errB
			}
			return nil
		})
		if err != errA {
			t.Errorf("%d workers: error %v, want %v", workers, err, errA)
		}
		if workers > 1 && ran.Load() != 8 {
			t.Errorf("%d workers: %d columns ran, want all 8", workers, ran.Load())
		}
		got := func() (p any) {
			defer func() { p = recover() }()
			_ = forEachColumn(8, workers, order, name, func(c int) error {
				switch c {
				case 1:
					time.Sleep(20 * time.Millisecond)
					panic("late")
				case 3:
					return errB
				}
				return nil
			})
			return nil
		}()
		if got != "column 1: late" {
			t.Errorf("%d workers: panic %v, want %q", workers, got, "column 1: late")
		}
		waitGoroutines(t, base)
	}
}

func TestColumnWorkers(t *testing.T) {
	setColumnWorkers(t, 8, 1000)
	for _, tc := range []struct {
		columns int
		bytes   int64
		want    int
	}{
		{0, 1 << 20, 1},
		{1, 1 << 20, 1},
		{2, 999, 1},
		{2, 1000, 2},
		{5, 1 << 20, 5},
		{30, 1 << 20, 8},
	} {
		if got := columnWorkers(tc.columns, tc.bytes); got != tc.want {
			t.Errorf("columnWorkers(%d, %d) = %d, want %d", tc.columns, tc.bytes, got, tc.want)
		}
	}
}

// BenchmarkParallelWriteEvents writes 20,000 events shredded and not,
// serially and in parallel, in one process: the serial and parallel
// figures of a run share the machine's load.
func BenchmarkParallelWriteEvents(b *testing.B) {
	recs := eventRecords(b, 20_000)
	for _, layout := range []struct {
		name  string
		props map[string]string
	}{{"unshredded", nil}, {"shredded", map[string]string{PropShredVariants: "true"}}} {
		for _, mode := range []struct {
			name     string
			minBytes int64
		}{{"serial", math.MaxInt64}, {"parallel", parallelMinBytes}} {
			b.Run(layout.name+"/"+mode.name, func(b *testing.B) {
				setColumnWorkers(b, runtime.GOMAXPROCS(0), mode.minBytes)
				path := filepath.Join(b.TempDir(), "f.parquet")
				for b.Loop() {
					if err := writeParallelFile(path, eventSchema(), layout.props, recs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParallelWriteBatch times writeTo alone, serial and parallel,
// on batches of eight string columns of growing size: where the parallel
// write starts to pay is where parallelMinBytes belongs.
func BenchmarkParallelWriteBatch(b *testing.B) {
	fields := make([]iceberg.NestedField, 8)
	for i := range fields {
		fields[i] = iceberg.NestedField{ID: i + 1, Name: fmt.Sprintf("s%d", i), Type: iceberg.PrimitiveTypes.String}
	}
	schema := iceberg.NewSchema(0, fields...)
	for _, size := range []struct{ rows, width int }{{64, 0}, {128, 0}, {256, 0}, {512, 0}, {512, 16}, {512, 64}, {512, 128}} {
		recs := make([]*data.Record, size.rows)
		for i := range recs {
			values := make([]any, len(fields))
			for j := range values {
				values[j] = fmt.Sprintf("%0*d", size.width, i*j)
			}
			recs[i] = data.Of(schema, values...)
		}
		for _, mode := range []struct {
			name     string
			minBytes int64
		}{{"serial", math.MaxInt64}, {"parallel", 0}} {
			a, err := newRecordAppender(registry.LocalOutput(filepath.Join(b.TempDir(), "f.parquet")),
				registry.WriteOptions{Schema: schema, Properties: map[string]string{PropRowGroupRows: "100000000"}})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range recs {
				if err := a.batch.add(a.shred, r, a.annot.check); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%dKiB/%s", (a.batch.bytes+512)>>10, mode.name), func(b *testing.B) {
				setColumnWorkers(b, runtime.GOMAXPROCS(0), mode.minBytes)
				for i := 0; b.Loop(); i++ {
					if err := a.batch.writeTo(a.w.ColumnWriters()); err != nil {
						b.Fatal(err)
					}
					if i%64 == 63 {
						// Bound the row group's memory.
						if err := a.flushGroup(); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			_ = a.Abort()
		}
	}
}

// BenchmarkParallelWriteSmall measures what the goroutines cost a write
// too small to gain from them: the threshold, parallelMinBytes, keeps
// such batches serial. Sizes are per 512-row batch.
func BenchmarkParallelWriteSmall(b *testing.B) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "b", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 3, Name: "c", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "d", Type: iceberg.PrimitiveTypes.Float64},
	)
	for _, width := range []int{0, 32, 256} {
		recs := make([]*data.Record, 4096)
		for i := range recs {
			recs[i] = data.Of(schema, int64(i), int64(i*7), strings.Repeat("s", width), float64(i))
		}
		for _, mode := range []struct {
			name     string
			minBytes int64
		}{{"serial", math.MaxInt64}, {"parallel", 0}} {
			b.Run(fmt.Sprintf("string%d/%s", width, mode.name), func(b *testing.B) {
				setColumnWorkers(b, runtime.GOMAXPROCS(0), mode.minBytes)
				path := filepath.Join(b.TempDir(), "f.parquet")
				for b.Loop() {
					if err := writeParallelFile(path, schema, map[string]string{PropRowGroupRows: "512"}, recs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
