package vectorcol

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
	"github.com/parquet-go/parquet-go"
)

// TestNoColumnIndexForVectors writes every layout and element type, with
// and without a page of nothing but null vectors, and requires that no
// chunk links a ColumnIndex and that parquet-go reads every page. The
// vector column has no bounds (WriteFile says why), and parquet-go wrote
// an index all the same: for FIXED_LEN_BYTE_ARRAY leaves one without min
// or max values, which arrow-rs refuses and parquet-go panics on; for
// FLOAT lists min = max = 0 on pages of non-zero values.
func TestNoColumnIndexForVectors(t *testing.T) {
	for _, layout := range Layouts() {
		for _, et := range vector.ElementTypes() {
			if layout == LayoutFLBA && et == vector.BFloat16 {
				continue // refused: the VECTOR annotation cannot name it
			}
			if layout == LayoutFixedSizeList && et != vector.Float32 && et != vector.Float64 {
				continue // refused: PR #241 names physical types only
			}
			for _, nulls := range []bool{false, true} {
				name := layout.String() + "/" + et.String()
				if nulls {
					name += "/nulls"
				}
				t.Run(name, func(t *testing.T) {
					elemNulls := nulls && !layout.flat()
					col := testColumn(400, 6, nulls, elemNulls, 3)
					if nulls {
						for i := 100; i < 200; i++ {
							col.Null[i] = true
						}
					}
					path := filepath.Join(t.TempDir(), "v.parquet")
					if err := WriteFile(path, col, WriteOptions{Layout: layout, Element: et, PageBytes: 256}); err != nil {
						t.Fatal(err)
					}
					checkNoColumnIndex(t, path, col, layout != LayoutVectorRepetition)
				})
			}
		}
	}
}

// checkNoColumnIndex also counts the rows parquet-go reads when countRows
// is set: it reads VECTOR repetition as one row per element slot.
func checkNoColumnIndex(t *testing.T, path string, col Column, countRows bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	rows := int64(0)
	for g, rg := range pf.RowGroups() {
		cc := &pf.Metadata().RowGroups[g].Columns[0]
		if cc.ColumnIndexOffset != 0 || cc.ColumnIndexLength != 0 {
			t.Errorf("row group %d links a ColumnIndex at %d (%d bytes)", g, cc.ColumnIndexOffset, cc.ColumnIndexLength)
		}
		if cc.OffsetIndexOffset == 0 {
			t.Errorf("row group %d lost its OffsetIndex", g)
		}
		pages := rg.ColumnChunks()[0].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rows += p.NumRows()
			parquet.Release(p)
		}
		pages.Close()
	}
	if countRows && rows != int64(col.Rows()) {
		t.Errorf("parquet-go read %d rows, want %d", rows, col.Rows())
	}
}
