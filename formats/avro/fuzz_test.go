package avro_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// FuzzRead feeds arbitrary bytes to the reader, with and without a
// projection and a split: it must return rows or an error naming the file,
// and never panic or hang.
func FuzzRead(f *testing.F) {
	schema := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "s", iceberg.PrimitiveTypes.String, false),
		field(3, "l", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: false}, false),
		field(5, "m", &iceberg.MapType{KeyID: 6, KeyType: iceberg.PrimitiveTypes.Int32, ValueID: 7, ValueType: iceberg.DecimalTypeOf(9, 2)}, false),
	)
	dir := f.TempDir()
	for i, codec := range []string{"uncompressed", "gzip", "snappy", "zstd"} {
		path := filepath.Join(dir, codec+".avro")
		b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
		if err != nil {
			f.Fatal(err)
		}
		w, err := b.Schema(schema).Set("write.avro.compression-codec", codec).Set("write.avro.sync-interval-bytes", "64").Build()
		if err != nil {
			f.Fatal(err)
		}
		for j := range 5 {
			if err := w.Write(data.Of(schema, int64(i*10+j), strings.Repeat("x", j), []any{int32(j), nil},
				data.Map{{Key: int32(j), Value: iceberg.Decimal{Scale: 2}}})); err != nil {
				f.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		seed, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed, int64(0), int64(0))
		f.Add(seed, int64(len(seed)/2), int64(len(seed)))
	}
	f.Add([]byte("Obj\x01"), int64(0), int64(0))
	f.Add([]byte("not avro"), int64(0), int64(0))

	projection := iceberg.NewSchema(0, field(3, "l", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Int64}, false),
		field(1, "id", iceberg.PrimitiveTypes.Int64, false))
	f.Fuzz(func(t *testing.T, file []byte, start, length int64) {
		path := filepath.Join(t.TempDir(), "fuzz.avro")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, configure := range []func(*registry.ReadBuilder[*data.Record]){
			nil,
			func(b *registry.ReadBuilder[*data.Record]) { b.Project(projection).ReuseContainers() },
			func(b *registry.ReadBuilder[*data.Record]) { b.Split(start, length) },
		} {
			_, err := readRecords(t, path, configure)
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
		}
	})
}
