package parquet_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// TestVariantReadByArrow reads the lab's variant files with arrow-go's
// pqarrow, an independent implementation with its own reconstruction.
func TestVariantReadByArrow(t *testing.T) {
	recs := variantRecords(t, 400)
	for name, props := range map[string]map[string]string{
		"unshredded": nil,
		"shredded":   {lparquet.PropShredVariants: "true", lparquet.PropRowGroupRows: "150"},
	} {
		t.Run(name, func(t *testing.T) {
			path := tempFile(t, name+".parquet")
			writeRecords(t, path, variantSchema(), props, recs...)
			rdr, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Close()
			fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := fr.ReadTable(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			col := tbl.Column(1)
			row := 0
			for _, chunk := range col.Data().Chunks() {
				va, ok := chunk.(*extensions.VariantArray)
				if !ok {
					t.Fatalf("arrow reads column v as %T (%s), not the variant extension", chunk, chunk.DataType())
				}
				for i := range va.Len() {
					want := recs[row].Get(1)
					if va.IsNull(i) {
						// arrow-go's IsNull is also true for a Variant null.
						if wv, ok := want.(pvariant.Value); want != nil && !(ok && wv.Type() == pvariant.Null) {
							t.Fatalf("row %d: arrow reads null, want %v", row, want)
						}
						row++
						continue
					}
					got, err := va.Value(i)
					if err != nil {
						t.Fatalf("row %d: %v", row, err)
					}
					if want == nil {
						t.Fatalf("row %d: arrow reads %v, want null", row, got)
					}
					if err := variant.Equal(got, want.(pvariant.Value)); err != nil {
						t.Fatalf("row %d: %v", row, err)
					}
					row++
				}
			}
			if row != len(recs) {
				t.Fatalf("arrow read %d rows, want %d", row, len(recs))
			}
		})
	}
}

// TestVariantParquetTesting reads parquet-testing's shredded_variant
// files through the registry and compares with variant.ReadParquet.
func TestVariantParquetTesting(t *testing.T) {
	dir := testenv.ParquetTestingDir(t, "shredded_variant")
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		File  string `json:"parquet_file"`
		Error string `json:"error_message"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	one, two := 1, 2
	mapping := iceberg.NameMapping{{Names: []string{"id"}, FieldID: &one}, {Names: []string{"var"}, FieldID: &two}}
	var compared, failedAsExpected int
	for _, c := range cases {
		if c.File == "" || strings.Contains(c.File, "INVALID") {
			continue
		}
		t.Run(strings.TrimSuffix(c.File, ".parquet"), func(t *testing.T) {
			path := filepath.Join(dir, c.File)
			layout, rows, rerr := variant.ReadParquet(openPQ(t, path), "var")
			var want []any
			for _, r := range rows {
				if rerr != nil {
					break
				}
				if r.Null {
					want = append(want, nil)
					continue
				}
				v, err := variant.Reconstruct(layout, r)
				if err != nil {
					rerr = err
					break
				}
				want = append(want, v)
			}
			got, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) { b.WithNameMapping(mapping) })
			if c.Error != "" || rerr != nil {
				if err == nil {
					t.Fatalf("registry read succeeded; variant.ReadParquet: %v, expected error %q", rerr, c.Error)
				}
				failedAsExpected++
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range want {
				v, _ := got[i].GetField("var")
				if !data.ValuesEqual(v, want[i]) {
					t.Errorf("row %d: got %v, want %v", i, v, want[i])
				}
			}
			compared++
		})
	}
	t.Logf("shredded_variant through the registry: %d cases equal to variant.ReadParquet, %d failed as expected", compared, failedAsExpected)
}
