package bench_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	_ "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/registry/tour"
)

// tourRow is the walkthrough's (id long required, name string optional) row
// as parquet-go's generic writer wants it.
type tourRow struct {
	ID   int64   `parquet:"id"`
	Name *string `parquet:"name,optional"`
}

const overheadRows = 1_000_000

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "name-" + strconv.Itoa(i%1000)
	}
	return out
}

// writeDirect writes the rows with parquet-go alone, in the layout the
// registry's Parquet model writes (zstd, v1 data pages, PLAIN byte arrays,
// 1 MiB pages), so the two differ only by the registry and record layers.
// It uses parquet.Zstd, the codec parquet-go shares across files, which is
// also the registry's at the default level: every path draws on one pool
// of encoders, so none pays for a new 16 MiB encoder window more often
// than another.
func writeDirect(path string, ids []int64, nm []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[tourRow](f, parquet.Compression(&parquet.Zstd), parquet.DataPageVersion(1),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain), parquet.PageBufferSize(1<<20))
	batch := make([]tourRow, 0, 1024)
	for i := range ids {
		r := tourRow{ID: ids[i]}
		if i%10 != 0 {
			r.Name = &nm[i]
		}
		batch = append(batch, r)
		if len(batch) == cap(batch) {
			if _, err := w.Write(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if _, err := w.Write(batch); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// writeDirectRows writes the same file through parquet-go's row API, which is
// what a row type without a Go struct (a generic record) must use. The gap
// between this and writeRegistry is the registry and record layers alone.
func writeDirectRows(path string, ids []int64, nm []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	schema := parquet.SchemaOf(tourRow{})
	w := parquet.NewWriter(f, schema, parquet.Compression(&parquet.Zstd), parquet.DataPageVersion(1),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain), parquet.PageBufferSize(1<<20))
	const batch = 512
	rows := make([]parquet.Row, 0, batch)
	values := make([]parquet.Value, 0, 2*batch)
	for i := range ids {
		start := len(values)
		values = append(values, parquet.Int64Value(ids[i]).Level(0, 0, 0))
		if i%10 != 0 {
			values = append(values, parquet.ByteArrayValue([]byte(nm[i])).Level(0, 1, 1))
		} else {
			values = append(values, parquet.Value{}.Level(0, 0, 1))
		}
		rows = append(rows, values[start:len(values):len(values)])
		if len(rows) == batch {
			if _, err := w.WriteRows(rows); err != nil {
				return err
			}
			rows, values = rows[:0], values[:0]
		}
	}
	if _, err := w.WriteRows(rows); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// readDirectRows reads through parquet-go's row API and looks at no value:
// the values stay in parquet-go's page buffers, valid until the next call.
// It is the floor of decoding, not a reader a caller could keep rows from.
func readDirectRows(path string) (int, error) {
	return readRowAPI(path, func([]parquet.Row) {})
}

// readDirectRowValues reads through the row API and turns every row into
// Go values a caller can keep, as a reader of dynamic schemas must: a boxed
// int64 and a copied string (or nil) per row, in a reused []any. It is the
// like-for-like baseline of the registry's get-read, which does the same
// from a reused *data.Record.
func readDirectRowValues(path string) (int, error) {
	row := make([]any, 2)
	return readRowAPI(path, func(rows []parquet.Row) {
		for _, values := range rows {
			for i, v := range values {
				switch {
				case v.IsNull():
					row[i] = nil
				case v.Kind() == parquet.Int64:
					row[i] = v.Int64()
				default:
					row[i] = string(v.ByteArray())
				}
			}
			sink = row
		}
	})
}

// readRowAPI reads path with parquet-go's row API, 1024 rows a call, and
// hands each batch to visit.
func readRowAPI(path string, visit func([]parquet.Row)) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := parquet.NewReader(f)
	defer r.Close()
	buf := make([]parquet.Row, 1024)
	return countRows(func() (int, error) {
		n, err := r.ReadRows(buf)
		visit(buf[:n])
		return n, err
	})
}

// sink keeps the compiler from dropping the values readDirectRowValues builds.
var sink []any

// writeRegistry writes the rows through the registry's data writer into
// one reused record, with the record's typed setters: the way to write
// primitives without boxing each into an interface.
func writeRegistry(path string, ids []int64, nm []string) error {
	return writeRegistryWith(path, len(ids), func(rec *data.Record, i int) {
		rec.SetInt64(0, ids[i])
		if i%10 != 0 {
			rec.SetString(1, nm[i])
		} else {
			rec.Set(1, nil)
		}
	})
}

// writeRegistryBoxed is writeRegistry with Set, which boxes the int64 and
// the string of every row: what a caller holding values as any pays.
func writeRegistryBoxed(path string, ids []int64, nm []string) error {
	return writeRegistryWith(path, len(ids), func(rec *data.Record, i int) {
		rec.Set(0, ids[i])
		if i%10 != 0 {
			rec.Set(1, nm[i])
		} else {
			rec.Set(1, nil)
		}
	})
}

func writeRegistryWith(path string, rows int, fill func(rec *data.Record, i int)) error {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Schema(tour.Schema).Overwrite().Build()
	if err != nil {
		return err
	}
	rec := data.NewRecord(tour.Schema)
	for i := range rows {
		fill(rec, i)
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	return w.Close()
}

func readDirect(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := parquet.NewGenericReader[tourRow](f)
	defer r.Close()
	buf := make([]tourRow, 1024)
	return countRows(func() (int, error) { return r.Read(buf) })
}

// countRows calls read until it reports io.EOF and adds up the rows it
// returned on the way.
func countRows(read func() (int, error)) (int, error) {
	total := 0
	for {
		n, err := read()
		total += n
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// readRegistry reads through the registry into one reused record and
// reads every value with the record's typed getters, as a caller that
// knows the schema does: the reader stores primitives unboxed.
func readRegistry(path string) (int, error) {
	return readRegistryWith(path, func(rec *data.Record) {
		id, _ := rec.GetInt64(0)
		name, _ := rec.GetString(1)
		sinkID, sinkName = id, name
	})
}

// readRegistryGet is readRegistry for a caller that takes every value as
// any with Get, which boxes it: the like-for-like of readDirectRowValues.
func readRegistryGet(path string) (int, error) {
	row := make([]any, 2)
	return readRegistryWith(path, func(rec *data.Record) {
		row[0], row[1] = rec.Get(0), rec.Get(1)
		sink = row
	})
}

// sinkID and sinkName keep the compiler from dropping what readRegistry reads.
var (
	sinkID   int64
	sinkName string
)

func readRegistryWith(path string, visit func(*data.Record)) (int, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return 0, err
	}
	r, err := b.ReuseContainers().Build()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	total := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		visit(rec)
		total++
	}
}

// BenchmarkRegistryOverhead writes and reads 1M tour rows several ways in
// the same run, alternating them. The baselines are parquet-go used
// directly: its typed generic API (GenericWriter and GenericReader over a
// Go struct, open only to schemas known when compiling) and its row API
// (Writer and Reader over parquet.Row, what a schema known only at run
// time must use). The registry writes *data.Record with the typed setters
// (write) and with boxing Set (boxed-write); it reads into a reused record
// and takes the values with the typed getters (read) or with boxing Get
// (get-read). The target is at most 1.10 against parquet-go's row API,
// the one open to schemas known at run time; the typed API's ratios are
// reported beside it.
//
// Reads have two row-API baselines: rows-read touches no value (the decode
// floor, not a reader a caller could keep rows from); rows-values-read
// turns each row into Go values a caller can keep, a boxed int64 and a
// copied string, and is the like-for-like of get-read.
//
// Every figure is the median over b.N rounds of warm runs (costs.add),
// and every ratio a ratio of medians: on a shared machine one stalled
// round would move a mean by tens of percent. Run with -benchtime 9x or
// more. The cpu- ratios use the
// process CPU time of each round, which other work on the machine
// stretches less than wall time. The README gives measured figures.
func BenchmarkRegistryOverhead(b *testing.B) {
	ids := make([]int64, overheadRows)
	for i := range ids {
		ids[i] = int64(i)
	}
	nm := names(overheadRows)
	dir := b.TempDir()
	typed, rows, viaRegistry := filepath.Join(dir, "typed.parquet"), filepath.Join(dir, "rows.parquet"), filepath.Join(dir, "registry.parquet")
	var wt, wd, wr, wb, rt, rd, rv, rr, rg costs
	for i := 0; i < b.N; i++ {
		_ = os.Remove(typed)
		_ = os.Remove(rows)
		wt.add(b, func() error { return writeDirect(typed, ids, nm) })
		wd.add(b, func() error { return writeDirectRows(rows, ids, nm) })
		wr.add(b, func() error { return writeRegistry(viaRegistry, ids, nm) })
		wb.add(b, func() error { return writeRegistryBoxed(viaRegistry, ids, nm) })
		rt.add(b, func() error { return expectRows(readDirect(typed)) })
		rd.add(b, func() error { return expectRows(readDirectRows(rows)) })
		rv.add(b, func() error { return expectRows(readDirectRowValues(rows)) })
		rr.add(b, func() error { return expectRows(readRegistry(viaRegistry)) })
		rg.add(b, func() error { return expectRows(readRegistryGet(viaRegistry)) })
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
	b.ReportMetric(ms(wt.wall()), "typed-write-ms")
	b.ReportMetric(ms(wd.wall()), "rows-write-ms")
	b.ReportMetric(ms(wr.wall()), "registry-write-ms")
	b.ReportMetric(ms(wb.wall()), "registry-boxed-write-ms")
	b.ReportMetric(ms(rt.wall()), "typed-read-ms")
	b.ReportMetric(ms(rd.wall()), "rows-read-ms")
	b.ReportMetric(ms(rv.wall()), "rows-values-read-ms")
	b.ReportMetric(ms(rr.wall()), "registry-read-ms")
	b.ReportMetric(ms(rg.wall()), "registry-get-read-ms")
	ratio := func(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }
	b.ReportMetric(ratio(wr.wall(), wd.wall()), "write/rows")
	b.ReportMetric(ratio(wb.wall(), wd.wall()), "boxed-write/rows")
	b.ReportMetric(ratio(rr.wall(), rd.wall()), "read/rows")
	b.ReportMetric(ratio(rr.wall(), rv.wall()), "read/rows-values")
	b.ReportMetric(ratio(rg.wall(), rv.wall()), "get-read/rows-values")
	b.ReportMetric(ratio(wr.wall(), wt.wall()), "write/typed")
	b.ReportMetric(ratio(rr.wall(), rt.wall()), "read/typed")
	b.ReportMetric(ratio(wr.cpu(), wd.cpu()), "cpu-write/rows")
	b.ReportMetric(ratio(wb.cpu(), wd.cpu()), "cpu-boxed-write/rows")
	b.ReportMetric(ratio(wr.cpu(), wt.cpu()), "cpu-write/typed")
	b.ReportMetric(ratio(rr.cpu(), rv.cpu()), "cpu-read/rows-values")
	b.ReportMetric(ratio(rg.cpu(), rv.cpu()), "cpu-get-read/rows-values")
	b.ReportMetric(ratio(rr.cpu(), rt.cpu()), "cpu-read/typed")
	b.ReportMetric(0, "ns/op") // the per-path metrics above are the result
}

func expectRows(n int, err error) error {
	if err == nil && n != overheadRows {
		err = fmt.Errorf("read %d rows, want %d", n, overheadRows)
	}
	return err
}

// costs are the wall and process CPU times of a path's rounds.
type costs struct{ walls, cpus []time.Duration }

// add runs f twice and records the second run. The first warms what the
// path reuses across files (parquet-go's buffer pools, codec encoders);
// the collection between them hands the second run a heap without the
// first's garbage. A collection alone would not do: it also empties
// sync.Pools, so every path would run cold, and not equally so (the
// typed generic writer, for one, ran 1.3× slower cold than warm).
func (c *costs) add(b *testing.B, f func() error) {
	b.Helper()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	startCPU, start := processCPU(b), time.Now()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	c.walls = append(c.walls, time.Since(start))
	c.cpus = append(c.cpus, processCPU(b)-startCPU)
}

func (c *costs) wall() time.Duration { return median(c.walls) }
func (c *costs) cpu() time.Duration  { return median(c.cpus) }

// median is the middle of ds, the mean of the two middle ones for an even
// count.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// processCPU is the user and system CPU time of the process so far,
// garbage collection included.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
