package vectorcol

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/coltype-lab/lab/types/vector"
)

// Dictionary-encoded vector pages, as arrow-rs writes every column by
// default and DuckDB when values repeat: searched and taken like PLAIN.
func TestDictionaryEncodedVectors(t *testing.T) {
	const rows, dim = 500, 8
	want := make([][]float32, rows)
	for i := range want {
		if i%11 == 10 {
			continue // a null vector
		}
		want[i] = make([]float32, dim)
		for x := range want[i] {
			want[i][x] = float32(math.Sin(float64(i%37) + float64(x))) // repeats: a small dictionary
		}
	}
	for _, tc := range []struct {
		name string
		typ  arrow.DataType
	}{
		{"list", arrow.ListOf(arrow.PrimitiveTypes.Float32)},
		{"fixed-size list", arrow.FixedSizeListOf(dim, arrow.PrimitiveTypes.Float32)},
	} {
		for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Zstd} {
			t.Run(tc.name+"/"+codec.String(), func(t *testing.T) {
				nulls := tc.typ.ID() == arrow.LIST // pqarrow cannot write null fixed-size lists
				path := writeArrowVectors(t, tc.typ, want, nulls, parquet.WithDictionaryDefault(true), parquet.WithCompression(codec))
				f, err := OpenColumn(path, "emb")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				all := make([]int64, rows)
				for i := range all {
					all[i] = int64(i)
				}
				got, err := f.Take(all)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					w := want[i]
					if !nulls && w == nil {
						w = make([]float32, dim)
					}
					if !slices.Equal(got[i], w) {
						t.Fatalf("row %d: %v, want %v", i, got[i], w)
					}
				}
			})
		}
	}
}

func writeArrowVectors(t *testing.T, typ arrow.DataType, rows [][]float32, nulls bool, props ...parquet.WriterProperty) string {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "emb", Type: typ, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		switch lb := b.Field(0).(type) {
		case *array.ListBuilder:
			if r == nil && nulls {
				lb.AppendNull()
				continue
			}
			lb.Append(true)
			lb.ValueBuilder().(*array.Float32Builder).AppendValues(r, nil)
		case *array.FixedSizeListBuilder:
			lb.Append(true)
			if r == nil {
				r = make([]float32, typ.(*arrow.FixedSizeListType).Len())
			}
			lb.ValueBuilder().(*array.Float32Builder).AppendValues(r, nil)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "dict.parquet")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, out, parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// DuckDB writes a null FLOAT[N] as N level entries: the first at the row's
// level, the rest repeating inside the null list.
func TestNullVectorWrittenWithDimEntries(t *testing.T) {
	info := &FileInfo{Layout: LayoutList, Dim: 2, Nullable: true, NullableElements: true, MaxDef: 3, MaxRep: 1}
	reps := []byte{0, 1, 0, 1, 0, 1}
	defs := []byte{3, 3, 0, 0, 3, 3}
	p, err := assembleList(info, len(defs), reps, defs, []float32{1, 2, 5, 6}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.rows != 3 || !slices.Equal(p.present, []bool{true, false, true}) || !slices.Equal(p.vectors, []float32{1, 2, 5, 6}) {
		t.Fatalf("rows %d present %v vectors %v", p.rows, p.present, p.vectors)
	}
	// An element after a null vector is still refused: it would have to
	// belong to the null row.
	defs[3] = 3
	if _, err := assembleList(info, len(defs), reps, defs, []float32{1, 2, 9, 5, 6}, 2); err == nil || !strings.Contains(err.Error(), "continues a null vector") {
		t.Fatalf("err = %v", err)
	}
}

// A flipped byte in a vector page is refused through its CRC in every
// layout, never searched or taken (29 of 30 flips used to change results
// with exit 0). The lab's own vector-repetition pages carry CRCs too.
func TestFlippedVectorByteIsRefused(t *testing.T) {
	col := testColumn(300, 8, false, false, 7)
	for _, layout := range Layouts() {
		t.Run(layout.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.parquet")
			if err := WriteFile(path, col, WriteOptions{Layout: layout, PageBytes: 4096}); err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			start := f.chunks[0].start
			f.Close()
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			raw[start+600] ^= 0x04 // inside the first data page's values
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			q, err := vector.NewMatrix(8, []float32{1, 0, 0, 0, 0, 0, 0, 0})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := searchFile(path, layout, vector.MetricDot, q, 5); err == nil || !strings.Contains(err.Error(), "checksum") {
				t.Fatalf("search: err = %v, want a checksum error", err)
			}
			if _, err := Take(path, []int64{0, 1}); err == nil || !strings.Contains(err.Error(), "checksum") {
				t.Fatalf("take: err = %v, want a checksum error", err)
			}
			// SkipChecksums (the benchmarks' readers) does not look. A list
			// file's open reads its first page for the dimension, verified.
			g, err := OpenFile(path)
			if layout == LayoutList && err != nil && strings.Contains(err.Error(), "checksum") {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			g.SkipChecksums(true)
			if _, err := g.Search(layout, vector.MetricDot, q, 5); err != nil && strings.Contains(err.Error(), "checksum") {
				t.Fatalf("SkipChecksums: %v", err)
			}
			if v, _ := g.Checksums(); v != 0 {
				t.Fatalf("SkipChecksums: %d pages verified", v)
			}
		})
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// Take on an open File verifies an uncompressed PLAIN page's CRC the first
// time it takes rows from it, reading the page whole, and afterwards reads
// only the rows' bytes; a page that failed stays refused.
func TestTakeVerifiesAPageOnce(t *testing.T) {
	const rows, dim, pageRows = 300, 8, 50
	col := testColumn(rows, dim, false, false, 3)
	path := filepath.Join(t.TempDir(), "v.parquet")
	if err := WriteFile(path, col, WriteOptions{Layout: LayoutFLBA, PageBytes: pageRows * dim * 4}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	open := func(b []byte) (*File, *countingReader) {
		cr := &countingReader{r: bytes.NewReader(b)}
		f, err := OpenReader(cr, int64(len(b)), path, "")
		if err != nil {
			t.Fatal(err)
		}
		return f, cr
	}
	f, cr := open(raw)
	defer f.Close()
	take := func(f *File, rows ...int64) ([][]float32, int64, error) {
		before := cr.n.Load()
		got, err := f.Take(rows)
		return got, cr.n.Load() - before, err
	}
	first, read1, err := take(f, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	second, read2, err := take(f, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []int{3, 7} {
		if !slices.Equal(first[i], expected(col, r)) || !slices.Equal(second[i], expected(col, r)) {
			t.Fatalf("row %d: %v then %v, want %v", r, first[i], second[i], expected(col, r))
		}
	}
	if page := int64(pageRows * dim * 4); read1 < page || read2 >= page {
		t.Fatalf("read %d bytes, then %d: want the %d-byte page whole, then less", read1, read2, page)
	}
	if v, without := f.Checksums(); v != 2 || without != 0 {
		t.Fatalf("Checksums = %d verified, %d without; want 2, 0", v, without)
	}
	// A flipped byte in the second page: its rows are refused on every
	// take, the first page's still given.
	refs, err := f.pageRefs(0)
	if err != nil {
		t.Fatal(err)
	}
	broken := slices.Clone(raw)
	broken[refs[1].offset+40] ^= 0x10 // past its header, in its values
	g, cr2 := open(broken)
	defer g.Close()
	cr = cr2
	for range 2 {
		if _, _, err := take(g, 60); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("take from the flipped page: err = %v, want a checksum error", err)
		}
		if got, _, err := take(g, 4); err != nil || !slices.Equal(got[0], expected(col, 4)) {
			t.Fatalf("take from the first page: %v, %v", got, err)
		}
	}
}
