package bench_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

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
func writeDirect(path string, ids []int64, nm []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[tourRow](f, parquet.Compression(&zstd.Codec{}), parquet.DataPageVersion(1),
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
	w := parquet.NewWriter(f, schema, parquet.Compression(&zstd.Codec{}), parquet.DataPageVersion(1),
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

// readDirectRows reads through parquet-go's row API.
func readDirectRows(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := parquet.NewReader(f)
	defer r.Close()
	buf := make([]parquet.Row, 1024)
	total := 0
	for {
		n, err := r.ReadRows(buf)
		total += n
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func writeRegistry(path string, ids []int64, nm []string) error {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Schema(tour.Schema).Overwrite().Build()
	if err != nil {
		return err
	}
	rec := data.NewRecord(tour.Schema)
	for i := range ids {
		rec.Set(0, ids[i])
		if i%10 != 0 {
			rec.Set(1, nm[i])
		} else {
			rec.Set(1, nil)
		}
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
	total := 0
	for {
		n, err := r.Read(buf)
		total += n
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func readRegistry(path string) (int, error) {
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
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		total++
	}
}

// BenchmarkRegistryOverhead writes and reads 1M tour rows three ways in the
// same run, alternating them: parquet-go's typed generic API (its fastest
// path, open only to Go structs), parquet-go's row API (what a generic
// record must use), and the registry with *data.Record. It reports times and
// the registry's ratio to each baseline; the target is at most 1.10 against
// the row API, which isolates the registry and record layers.
func BenchmarkRegistryOverhead(b *testing.B) {
	ids := make([]int64, overheadRows)
	for i := range ids {
		ids[i] = int64(i)
	}
	nm := names(overheadRows)
	dir := b.TempDir()
	typed, rows, viaRegistry := filepath.Join(dir, "typed.parquet"), filepath.Join(dir, "rows.parquet"), filepath.Join(dir, "registry.parquet")
	var wt, wd, wr, rt, rd, rr time.Duration
	for i := 0; i < b.N; i++ {
		_ = os.Remove(typed)
		_ = os.Remove(rows)
		wt += timed(b, func() error { return writeDirect(typed, ids, nm) })
		wd += timed(b, func() error { return writeDirectRows(rows, ids, nm) })
		wr += timed(b, func() error { return writeRegistry(viaRegistry, ids, nm) })
		rt += timed(b, func() error { return expectRows(readDirect(typed)) })
		rd += timed(b, func() error { return expectRows(readDirectRows(rows)) })
		rr += timed(b, func() error { return expectRows(readRegistry(viaRegistry)) })
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return d.Seconds() / n * 1e3 }
	b.ReportMetric(ms(wt), "typed-write-ms")
	b.ReportMetric(ms(wd), "rows-write-ms")
	b.ReportMetric(ms(wr), "registry-write-ms")
	b.ReportMetric(ms(rt), "typed-read-ms")
	b.ReportMetric(ms(rd), "rows-read-ms")
	b.ReportMetric(ms(rr), "registry-read-ms")
	b.ReportMetric(wr.Seconds()/wd.Seconds(), "write/rows")
	b.ReportMetric(rr.Seconds()/rd.Seconds(), "read/rows")
	b.ReportMetric(wr.Seconds()/wt.Seconds(), "write/typed")
	b.ReportMetric(rr.Seconds()/rt.Seconds(), "read/typed")
	b.ReportMetric(0, "ns/op") // the per-path metrics above are the result
}

func expectRows(n int, err error) error {
	if err == nil && n != overheadRows {
		err = fmt.Errorf("read %d rows, want %d", n, overheadRows)
	}
	return err
}

func timed(b *testing.B, f func() error) time.Duration {
	b.Helper()
	start := time.Now()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
