package parquet_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

// TestVariantWriteRefusesInvalidValues: a variant.Value whose bytes nobody
// checked (arrow-go's Builder takes encoded bytes unchecked) or whose
// metadata breaks its sorted_strings flag is refused by the write that
// passes it, shredded or not, and again on a later row with the same
// metadata (the writer checks each distinct metadata once and keeps the
// verdict); the rows accepted around them are the file's rows.
func TestVariantWriteRefusesInvalidValues(t *testing.T) {
	var b pvariant.Builder
	if err := b.UnsafeAppendEncoded([]byte{2, 5}); err != nil { // an object of 5 fields, and no bytes for them
		t.Fatal(err)
	}
	badValue, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Version 1, sorted_strings set, offsets of one byte, keys "b", "a".
	meta, err := pvariant.NewMetadata([]byte{0x11, 2, 0, 1, 2, 'b', 'a'})
	if err != nil {
		t.Fatal(err)
	}
	badMeta, err := pvariant.NewWithMetadata(meta, []byte{0x0c, 7}) // int8 7
	if err != nil {
		t.Fatal(err)
	}
	good, err := pvariant.ParseJSON(`{"a": 1}`, false)
	if err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
	)
	for name, props := range map[string]map[string]string{
		"unshredded": nil,
		"shredded":   {lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: "1"},
	} {
		for what, bad := range map[string]pvariant.Value{"value": badValue, "metadata": badMeta} {
			t.Run(name+"/"+what, func(t *testing.T) {
				path := t.TempDir() + "/v.parquet"
				wb, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
				if err != nil {
					t.Fatal(err)
				}
				w, err := wb.Schema(sc).SetAll(props).Build()
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(data.Of(sc, int64(0), good)); err != nil {
					t.Fatal(err)
				}
				kept := []int64{0}
				for row := range 2 {
					if err := w.Write(data.Of(sc, int64(1+row), bad)); err == nil || !strings.Contains(err.Error(), `"v"`) || !strings.Contains(err.Error(), "invalid") {
						t.Fatalf("row %d: %v, want an invalid-variant error naming the column", 1+row, err)
					}
					// The refused record left the batch as it was.
					if err := w.Write(data.Of(sc, int64(3+row), good)); err != nil {
						t.Fatalf("a good row after the refused one: %v", err)
					}
					kept = append(kept, int64(3+row))
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				var ids []int64
				for _, rec := range readRecords(t, path, nil) {
					id, _ := rec.GetInt64(0)
					ids = append(ids, id)
					if v, ok := rec.Get(1).(pvariant.Value); !ok || v.String() != good.String() {
						t.Fatalf("row %d reads %v, want %s", id, rec.Get(1), good)
					}
				}
				if !slices.Equal(ids, kept) {
					t.Fatalf("the file holds rows %v, want %v", ids, kept)
				}
			})
		}
	}
}

// TestVariantWriteRollsBackARefusedRecord: a record refused by a field
// after its variant (here a null in a required column) leaves none of the
// variant's shredded values behind: the file holds exactly the accepted
// rows.
func TestVariantWriteRollsBackARefusedRecord(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
		iceberg.NestedField{ID: 3, Name: "z", Type: iceberg.PrimitiveTypes.String, Required: true},
	)
	var values []pvariant.Value
	for i := range 40 {
		v, err := pvariant.ParseJSON(fmt.Sprintf(`{"a": %d, "b": ["x%d", "y"], "c": {"d": %d}}`, i, i, i*3), false)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	path := t.TempDir() + "/v.parquet"
	wb, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := wb.Schema(sc).SetAll(map[string]string{lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: "4"}).Build()
	if err != nil {
		t.Fatal(err)
	}
	var kept []int
	for i, v := range values {
		if i%3 == 1 {
			if err := w.Write(data.Of(sc, int64(i), v, nil)); err == nil {
				t.Fatalf("row %d: a null in the required column was accepted", i)
			}
			continue
		}
		if err := w.Write(data.Of(sc, int64(i), v, "ok")); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		kept = append(kept, i)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, path, nil)
	if len(recs) != len(kept) {
		t.Fatalf("read %d rows, want the %d accepted", len(recs), len(kept))
	}
	for n, rec := range recs {
		id, _ := rec.GetInt64(0)
		v, _ := rec.Get(1).(pvariant.Value)
		if id != int64(kept[n]) || v.String() != values[kept[n]].String() {
			t.Fatalf("row %d: id %d, %s; want %d, %s", n, id, v, kept[n], values[kept[n]])
		}
	}
}
