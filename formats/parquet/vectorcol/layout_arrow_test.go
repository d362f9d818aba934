package vectorcol

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// arrowRows reads the vector column with arrow-go, opening the file with
// the sanitized footer (arrow-go v18.8.0 panics on the VECTOR annotation).
func arrowRows(t *testing.T, path string) ([][]float32, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	ft, err := footer.ReadFooter(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	md, err := footer.ArrowFileMetaData(ft.Meta, st.Size())
	if err != nil {
		return nil, err
	}
	pf, err := file.NewParquetReader(f, file.WithMetadata(md))
	if err != nil {
		t.Fatalf("arrow-go: %v", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var out [][]float32
	for _, chunk := range tbl.Column(0).Data().Chunks() {
		switch a := chunk.(type) {
		case *array.FixedSizeBinary:
			for i := range a.Len() {
				if a.IsNull(i) {
					out = append(out, nil)
					continue
				}
				v, err := vector.Float32.DecodeAppend(nil, a.Value(i))
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
		case *array.List:
			vals := a.ListValues().(*array.Float32)
			for i := range a.Len() {
				if a.IsNull(i) {
					out = append(out, nil)
					continue
				}
				lo, hi := a.ValueOffsets(i)
				v := make([]float32, 0, hi-lo)
				for j := lo; j < hi; j++ {
					if vals.IsNull(int(j)) {
						v = append(v, nan)
					} else {
						v = append(v, vals.Value(int(j)))
					}
				}
				out = append(out, v)
			}
		default:
			t.Fatalf("arrow-go column type %T", chunk)
		}
	}
	return out, nil
}

func TestArrowCrossCheck(t *testing.T) {
	dir := t.TempDir()
	const n, dim = 200, 8
	for _, layout := range Layouts() {
		for _, enc := range ValueEncodings() {
			for _, codec := range []Codec{CodecNone, CodecZstd} {
				nulls := true
				col := testColumn(n, dim, nulls, layout == LayoutList || layout == LayoutVectorRepetition, 5)
				name := layout.String() + "-" + enc.String() + "-" + codec.String()
				t.Run(name, func(t *testing.T) {
					path := filepath.Join(dir, name+".parquet")
					if err := WriteFile(path, col, WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: 1500}); err != nil {
						t.Fatal(err)
					}
					got, err := arrowRows(t, path)
					if layout == LayoutVectorRepetition {
						if err == nil || !strings.Contains(err.Error(), "VECTOR") || !strings.Contains(err.Error(), "emb") {
							t.Fatalf("the sanitizer let vector-repetition through: %v", err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != n {
						t.Fatalf("arrow-go read %d rows, want %d", len(got), n)
					}
					for i := range n {
						if !sameFloats(got[i], expected(col, i)) {
							t.Fatalf("row %d: arrow-go %v, want %v", i, got[i], expected(col, i))
						}
					}
				})
			}
		}
	}
}
