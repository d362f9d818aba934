package avro_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

func benchRows(n int) (*iceberg.Schema, []*data.Record) {
	schema := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "name", iceberg.PrimitiveTypes.String, false),
		field(3, "score", iceberg.PrimitiveTypes.Float64, false),
		field(4, "tags", &iceberg.ListType{ElementID: 5, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}, false))
	rows := make([]*data.Record, n)
	for i := range rows {
		rows[i] = data.Of(schema, int64(i), strings.Repeat("n", i%20), float64(i)/3, []any{"a", "bc"})
	}
	return schema, rows
}

// BenchmarkWrite measures encoding and container writing, uncompressed so
// the codec does not dominate.
func BenchmarkWrite(b *testing.B) {
	schema, rows := benchRows(10_000)
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		path := filepath.Join(dir, "w"+string(rune('a'+i%26))+".avro")
		wb, _ := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
		w, err := wb.Schema(schema).Overwrite().Set("write.avro.compression-codec", "uncompressed").Build()
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows)), "rows/op")
}

// BenchmarkRead measures decoding with reused containers.
func BenchmarkRead(b *testing.B) {
	schema, rows := benchRows(10_000)
	path := filepath.Join(b.TempDir(), "r.avro")
	wb, _ := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	w, _ := wb.Schema(schema).Set("write.avro.compression-codec", "uncompressed").Build()
	for _, r := range rows {
		_ = w.Write(r)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		rb, _ := registry.NewReadBuilder[*data.Record](registry.AVRO, registry.LocalInput(path))
		r, err := rb.ReuseContainers().Build()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		r.Close()
		if n != len(rows) {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(len(rows)), "rows/op")
}
