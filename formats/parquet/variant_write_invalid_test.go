package parquet_test

import (
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
// verdict).
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
				wb, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(t.TempDir()+"/v.parquet"))
				if err != nil {
					t.Fatal(err)
				}
				w, err := wb.Schema(sc).SetAll(props).Build()
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				if err := w.Write(data.Of(sc, int64(0), good)); err != nil {
					t.Fatal(err)
				}
				for row := range 2 {
					err := w.Write(data.Of(sc, int64(1+row), bad))
					if err == nil {
						// Shredded rows go through the shredder once the
						// layout is inferred: at the latest on Close.
						err = w.Close()
					}
					if err == nil || !strings.Contains(err.Error(), `"v"`) || !strings.Contains(err.Error(), "invalid") {
						t.Fatalf("row %d: %v, want an invalid-variant error naming the column", 1+row, err)
					}
					if err := w.Write(data.Of(sc, int64(3+row), good)); err != nil && !strings.Contains(err.Error(), "failed earlier") && !strings.Contains(err.Error(), "closed") {
						t.Fatalf("a good row after the refused one: %v", err)
					}
				}
			})
		}
	}
}
