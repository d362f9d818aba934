package vectorcol

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// listEntry is one level entry of an optional LIST<optional FLOAT> column
// (max definition 3, max repetition 1).
type listEntry struct {
	rep, def byte
	val      float32 // when def is 3
}

// listEntries flattens rows as DuckDB writes FLOAT[N]: a null row is dim
// entries of level 0 (the first at repetition 0), a NaN element is a null
// element (level 2).
func listEntries(rows [][]float32, dim int) []listEntry {
	var out []listEntry
	for _, r := range rows {
		for j := range dim {
			e := listEntry{}
			if j > 0 {
				e.rep = 1
			}
			switch {
			case r == nil:
			case math.IsNaN(float64(r[j])):
				e.def = 2
			default:
				e.def, e.val = 3, r[j]
			}
			out = append(out, e)
		}
	}
	return out
}

// writeListPages writes a one-column Parquet file ("emb", an optional
// LIST<optional FLOAT> with no annotation, as DuckDB writes FLOAT[N])
// whose V1 PLAIN pages hold the given entries, cut wherever pages says,
// without regard to row boundaries and with no page index: the format
// allows V1 pages to split a row there.
func writeListPages(t *testing.T, pages [][]listEntry, rows int) string {
	t.Helper()
	var file []byte
	file = append(file, "PAR1"...)
	first := int64(len(file))
	var values int64
	for _, pg := range pages {
		reps, defs := make([]byte, len(pg)), make([]byte, len(pg))
		var vals []byte
		for i, e := range pg {
			reps[i], defs[i] = e.rep, e.def
			if e.def == 3 {
				vals = binary.LittleEndian.AppendUint32(vals, math.Float32bits(e.val))
			}
		}
		var body []byte
		for _, l := range []struct {
			levels []byte
			width  int
		}{{reps, 1}, {defs, 2}} {
			e := rle.Encoding{BitWidth: l.width}
			b, err := e.EncodeLevels(nil, l.levels)
			if err != nil {
				t.Fatal(err)
			}
			body = binary.LittleEndian.AppendUint32(body, uint32(len(b)))
			body = append(body, b...)
		}
		body = append(body, vals...)
		hdr := format.PageHeader{
			Type: format.DataPage, UncompressedPageSize: int32(len(body)), CompressedPageSize: int32(len(body)),
			CRC: int32(crc32.ChecksumIEEE(body)),
			DataPageHeader: thrift.New(format.DataPageHeader{NumValues: int32(len(pg)), Encoding: format.Plain,
				DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE}),
		}
		h, err := thrift.Marshal(&compactProtocol, &hdr)
		if err != nil {
			t.Fatal(err)
		}
		file = append(append(file, h...), body...)
		values += int64(len(pg))
	}
	size := int64(len(file)) - first
	opt := thrift.New(footer.Optional)
	meta := &footer.FileMetaData{
		Version: 1,
		Schema: []footer.SchemaElement{
			{Name: "schema", NumChildren: thrift.New(int32(1))},
			{Name: ColumnName, RepetitionType: opt, NumChildren: thrift.New(int32(1)), ConvertedType: thrift.New(deprecated.List)},
			{Name: "list", RepetitionType: thrift.New(footer.Repeated), NumChildren: thrift.New(int32(1))},
			leafElement(vector.Float32, "element", opt),
		},
		NumRows: int64(rows),
		RowGroups: []footer.RowGroup{{
			Columns: []footer.ColumnChunk{{FileOffset: first, MetaData: &footer.ColumnMetaData{
				Type: format.Float, Encoding: []format.Encoding{format.Plain, format.RLE},
				PathInSchema: []string{ColumnName, "list", "element"}, Codec: format.Uncompressed,
				NumValues: values, TotalUncompressedSize: size, TotalCompressedSize: size, DataPageOffset: first,
			}}},
			TotalByteSize: size, NumRows: int64(rows),
		}},
	}
	fb, err := footer.Encode(meta)
	if err != nil {
		t.Fatal(err)
	}
	file = append(file, fb...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(fb)))
	file = append(file, "PAR1"...)
	path := filepath.Join(t.TempDir(), "cross.parquet")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cutEvery cuts entries into pages of n (the last shorter).
func cutEvery(entries []listEntry, n int) [][]listEntry {
	var pages [][]listEntry
	for len(entries) > 0 {
		k := min(n, len(entries))
		pages = append(pages, entries[:k])
		entries = entries[k:]
	}
	return pages
}

// DuckDB lets a FLOAT[N] row cross a V1 page boundary (every FLOAT[768]
// table of more than about 35k rows has one), and the format allows it.
// Search, take and ReadAll join such rows, whether the cut falls inside a
// present row, inside a null one, or leaves a page holding only the middle
// of one row; results equal a brute-force computation.
func TestRowsCrossingPages(t *testing.T) {
	const n, dim = 60, 7
	rows := make([][]float32, n)
	data := randomMatrix(5, n, dim)
	for i := range rows {
		if i%9 == 4 {
			continue // a null vector
		}
		rows[i] = slices.Clone(data.Row(i))
	}
	q := randomMatrix(6, 1, dim)
	top := vector.NewTopK(10, vector.MetricDot)
	for i, r := range rows {
		if r != nil {
			top.Push(int64(i), vector.MetricDot.Score(q.Row(0), r))
		}
	}
	want := top.Results()
	for _, per := range []int{3, 7, 11, 50, dim * n} {
		t.Run(fmt.Sprintf("entries per page %d", per), func(t *testing.T) {
			path := writeListPages(t, cutEvery(listEntries(rows, dim), per), n)
			f, err := OpenColumn(path, ColumnName)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Info().Dim != dim {
				t.Fatalf("dim %d, want %d", f.Info().Dim, dim)
			}
			got, err := f.Search(0, vector.MetricDot, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !sameResults(got[0], want) {
				t.Fatalf("search = %v\nwant %v", got[0], want)
			}
			all := make([]int64, n)
			for i := range all {
				all[i] = int64(n - 1 - i)
			}
			taken, err := f.Take(all)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range all {
				if !slices.Equal(taken[i], rows[r]) {
					t.Fatalf("take row %d = %v, want %v", r, taken[i], rows[r])
				}
			}
			m, null, err := f.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for i, r := range rows {
				if (r == nil) != (null != nil && null[i]) {
					t.Fatalf("row %d: null flag %v", i, null[i])
				}
				if r != nil {
					if !slices.Equal(m.Row(k), r) {
						t.Fatalf("ReadAll row %d = %v, want %v", i, m.Row(k), r)
					}
					k++
				}
			}
		})
	}
}

// Cuts that cannot be joined are errors naming the page: a first page that
// starts inside a row, a row cut and then not continued, a row continued
// past its dimension, values continuing a null row.
func TestRowsCrossingPagesRefused(t *testing.T) {
	const dim = 4
	whole := listEntries([][]float32{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}, dim)
	withNull := listEntries([][]float32{{1, 2, 3, 4}, nil, {5, 6, 7, 8}}, dim)
	cont := func(def byte, v float32) listEntry { return listEntry{rep: 1, def: def, val: v} }
	for _, tc := range []struct {
		name  string
		pages [][]listEntry
		want  string
	}{
		{"first page inside a row", [][]listEntry{append([]listEntry{cont(3, 9)}, whole...)}, "no row is open before it"},
		{"cut, not continued", [][]listEntry{whole[:6], whole[8:]}, "row 1 has 2 elements, the column dimension is 4"},
		{"continued past dim", [][]listEntry{whole[:8], {cont(3, 9)}, whole[8:]}, "continues row 1, which already has its 4 elements"},
		{"values continue a null row", [][]listEntry{withNull[:6], {cont(3, 9)}, withNull[6:]}, "continues null row 1 with 1 values"},
		{"cut at the chunk end", [][]listEntry{whole[:10]}, "row 2 has 2 elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeListPages(t, tc.pages, 3)
			f, err := OpenColumn(path, ColumnName)
			if err == nil {
				defer f.Close()
				if f.Info().Dim != dim {
					t.Fatalf("dim %d, want %d", f.Info().Dim, dim)
				}
				q := vector.Matrix{Dim: dim, Data: []float32{1, 0, 0, 0}}
				_, err = f.Search(0, vector.MetricDot, q, 3)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cross.parquet") {
				t.Fatalf("err = %v, want it to name the file and say %q", err, tc.want)
			}
		})
	}
}

// Rows without nulls crossing pages cut anywhere take the level-pattern
// fast path (the page starts with the previous row's tail, may end inside
// a row), and each page decodes to what the general path gives.
func TestRowsCrossingPagesFastPath(t *testing.T) {
	const n, dim = 40, 7
	data := randomMatrix(8, n, dim)
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = slices.Clone(data.Row(i))
	}
	for _, per := range []int{3, 6, 7, 8, 11, 50, dim * n} {
		path := writeListPages(t, cutEvery(listEntries(rows, dim), per), n)
		f, err := OpenColumn(path, ColumnName)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := f.pageRefs(0)
		if err != nil {
			t.Fatal(err)
		}
		fast, starting := 0, 0
		for _, ref := range refs {
			fixedRowsFastPath = true
			a, errA := f.decodePage(ref, dim)
			fixedRowsFastPath = false
			b, errB := f.decodePage(ref, dim)
			fixedRowsFastPath = true
			if errA != nil || errB != nil {
				t.Fatalf("per %d, page at %d: %v / %v", per, ref.offset, errA, errB)
			}
			if a.rows != b.rows || !slices.Equal(a.vectors, b.vectors) || !slices.Equal(a.head, b.head) || a.headEntries != b.headEntries ||
				a.headNulls != b.headNulls || a.tail != b.tail || a.lastNull != b.lastNull || a.lastCount != b.lastCount || a.present != nil || b.present != nil {
				t.Fatalf("per %d, page at %d: fast %+v\ngeneral %+v", per, ref.offset, a, b)
			}
			// Only the fast path views the values in place (PLAIN pages):
			// the general one builds the rows' vectors itself.
			if a.zeroCopy && !b.zeroCopy {
				fast++
			}
			if b.rows > 0 {
				starting++
			}
		}
		// A page that starts no row (all of it continues one) takes the
		// general path; every other one the fast path.
		if fast != starting || fast == 0 {
			t.Fatalf("per %d: %d of the %d pages that start a row took the fast path", per, fast, starting)
		}
		m, null, err := f.ReadAll()
		f.Close()
		if err != nil || null != nil || len(m.Data) != n*dim {
			t.Fatalf("per %d: ReadAll %d values, nulls %v, %v", per, len(m.Data), null, err)
		}
		for i := range rows {
			if !slices.Equal(m.Row(i), rows[i]) {
				t.Fatalf("per %d: ReadAll row %d = %v, want %v", per, i, m.Row(i), rows[i])
			}
		}
	}
}
