package blankvector_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	_ "github.com/coltype-lab/lab/formats/parquet/vectorcol" // VECTOR's binding and block model
	"github.com/coltype-lab/lab/registry"
)

func cell(xs ...float32) []byte {
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// With the blank import only, the record model writes a declared VECTOR
// column in every layout the binding offers, annotates it, and reads it
// back as its fixed[8] cells.
func TestVectorArrivesWithTheBlankImport(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(8)})
	vecs := [][]byte{cell(1, 2), nil, cell(-3, 0.5)}
	for _, layout := range []string{"flba", "list", "vector-repetition", "fixed-size-list"} {
		t.Run(layout, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.parquet")
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
			if err != nil {
				t.Fatal(err)
			}
			w, err := b.Schema(sc).
				Set("write.parquet.vector-columns", "emb:vector<float32,2>").
				Set("write.parquet.vector-layout.column.emb", layout).Build()
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vecs {
				var x any
				if v != nil {
					x = v
				}
				if err := w.Write(data.Of(sc, int64(i), x)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			anns, err := parquet.FileAnnotations(registry.LocalInput(path))
			if err != nil {
				t.Fatal(err)
			}
			wantKind := footer.KindVector
			if layout == "fixed-size-list" {
				wantKind = footer.KindFixedSizeList
			}
			if len(anns) != 1 || anns[0].Kind != wantKind || anns[0].VectorLength != 2 {
				t.Fatalf("annotations %+v, want one %s of length 2", anns, wantKind)
			}
			rb, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
			if err != nil {
				t.Fatal(err)
			}
			r, err := rb.Project(sc).Build()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for i, want := range vecs {
				rec, err := r.Next()
				if err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				got, _ := rec.Get(1).([]byte)
				if !bytes.Equal(got, want) || (want == nil) != (rec.Get(1) == nil) {
					t.Fatalf("row %d: emb %v, want %v", i, rec.Get(1), want)
				}
			}
			if _, err := r.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after the last row: %v, want io.EOF", err)
			}
		})
	}
}
