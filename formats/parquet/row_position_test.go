package parquet_test

import (
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// The _pos metadata column counts every row of the file, so a row keeps
// its position when a filter or a split skips the row groups before it:
// position deletes and deletion vectors depend on that.
func TestRowPositionColumn(t *testing.T) {
	schema := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "s", iceberg.PrimitiveTypes.String))
	path := tempFile(t, "pos.parquet")
	var recs []*data.Record
	for i := range 10 {
		recs = append(recs, rec(structOf(schema.Fields()...), int64(100+i), fmt.Sprint("s", i)))
	}
	df := writeRecords(t, path, schema, map[string]string{"write.parquet.row-group-limit": "3"}, recs...)
	if n := len(df.SplitOffsets()); n != 4 {
		t.Fatalf("want 4 row groups, got %d split offsets", n)
	}
	withPos := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64),
		req(registry.RowPositionFieldID, "_pos", iceberg.PrimitiveTypes.Int64))
	check := func(name string, configure func(*registry.ReadBuilder[*data.Record]), wantFirst, wantN int) {
		t.Helper()
		got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
			b.Project(withPos)
			if configure != nil {
				configure(b)
			}
		})
		if len(got) != wantN {
			t.Fatalf("%s: %d rows, want %d", name, len(got), wantN)
		}
		for i, r := range got {
			want := int64(wantFirst + i)
			if r.Get(0) != 100+want || r.Get(1) != want {
				t.Fatalf("%s: row %d is (id %v, _pos %v), want (%d, %d)", name, i, r.Get(0), r.Get(1), 100+want, want)
			}
		}
	}
	check("whole file", nil, 0, 10)
	check("filter skips two row groups", func(b *registry.ReadBuilder[*data.Record]) {
		b.Filter(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(106)))
	}, 6, 4)
	offs := df.SplitOffsets()
	check("split of the third row group", func(b *registry.ReadBuilder[*data.Record]) {
		b.Split(offs[2], offs[3]-offs[2])
	}, 6, 3)

	// Only _pos: no column is read, the rows are still counted.
	only := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Project(iceberg.NewSchema(0, req(registry.RowPositionFieldID, "_pos", iceberg.PrimitiveTypes.Int64)))
	})
	if len(only) != 10 || only[9].Get(0) != int64(9) {
		t.Fatalf("_pos alone: %d rows, last %v", len(only), only[len(only)-1].Get(0))
	}

	_, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Project(iceberg.NewSchema(0, req(registry.RowPositionFieldID, "_pos", iceberg.PrimitiveTypes.String)))
	})
	if err == nil {
		t.Fatal("_pos as a string: want an error")
	}
}
