package vectorcol

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/types/vector"
)

func testColumn(n, dim int, nulls, elemNulls bool, seed uint64) Column {
	r := rand.New(rand.NewPCG(seed, 7))
	c := Column{Dim: dim, Data: make([]float32, n*dim)}
	for i := range c.Data {
		c.Data[i] = float32(r.NormFloat64())
	}
	if nulls {
		c.Null = make([]bool, n)
		for i := range c.Null {
			c.Null[i] = i%7 == 3
		}
	}
	if elemNulls {
		c.ElementNull = make([]bool, n*dim)
		for i := range c.ElementNull {
			c.ElementNull[i] = i%11 == 5
		}
	}
	return c
}

// expected returns what a reader must give back for row i: nil for a null
// vector, NaN for a null element.
func expected(c Column, i int) []float32 {
	if c.isNull(i) {
		return nil
	}
	v := slices.Clone(c.Data[i*c.Dim : (i+1)*c.Dim])
	for j := range v {
		if c.elemNull(i*c.Dim + j) {
			v[j] = nan
		}
	}
	return v
}

func sameFloats(a, b []float32) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

func TestLayoutsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const n, dim = 300, 12
	for _, layout := range Layouts() {
		for _, enc := range ValueEncodings() {
			for _, codec := range Codecs() {
				for _, nulls := range []bool{false, true} {
					elemNulls := nulls && (layout == LayoutList || layout == LayoutVectorRepetition)
					col := testColumn(n, dim, nulls, elemNulls, 1)
					name := strings.Join([]string{layout.String(), enc.String(), codec.String(), map[bool]string{false: "required", true: "nullable"}[nulls]}, "-")
					t.Run(name, func(t *testing.T) {
						path := filepath.Join(dir, name+".parquet")
						// Small pages: several per file, so page boundaries are exercised.
						if err := WriteFile(path, col, WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: 2000}); err != nil {
							t.Fatal(err)
						}
						f, err := OpenFile(path)
						if err != nil {
							t.Fatal(err)
						}
						defer f.Close()
						info := f.Info()
						if info.Layout != layout || info.Dim != dim || info.Rows != n || info.Nullable != nulls || info.NullableElements != elemNulls {
							t.Fatalf("info = %+v", info)
						}
						for _, c := range f.chunks {
							wantCodec, _ := codec.codec()
							if c.pages == nil || c.meta.Codec != wantCodec.CompressionCodec() || !slices.Contains(c.meta.Encoding, enc.format()) {
								t.Fatalf("chunk: offset index %v, codec %v, encodings %v", c.pages != nil, c.meta.Codec, c.meta.Encoding)
							}
							if c.meta.Statistics != nil && (c.meta.Statistics.MinValue != nil || c.meta.Statistics.Min != nil) {
								t.Fatalf("column statistics written: %+v", c.meta.Statistics)
							}
						}
						m, null, err := f.ReadAll()
						if err != nil {
							t.Fatal(err)
						}
						k := 0
						for i := range n {
							isNull := null != nil && null[i]
							if isNull != col.isNull(i) {
								t.Fatalf("row %d: null = %v", i, isNull)
							}
							if isNull {
								continue
							}
							if got := m.Row(k); !sameFloats(got, expected(col, i)) {
								t.Fatalf("row %d: got %v want %v", i, got, expected(col, i))
							}
							k++
						}
						rows := []int64{0, 299, 3, 150, 17, 17, 298}
						got, err := f.Take(rows)
						if err != nil {
							t.Fatal(err)
						}
						for i, r := range rows {
							if !sameFloats(got[i], expected(col, int(r))) {
								t.Fatalf("take row %d: got %v want %v", r, got[i], expected(col, int(r)))
							}
						}
						if _, err := f.Take([]int64{n}); err == nil || !strings.Contains(err.Error(), "row 300") {
							t.Fatalf("take past the end: %v", err)
						}
						// Search equals the in-memory search over the same non-null rows.
						q := col.Data[5*dim : 6*dim]
						res, err := f.Search(0, vector.MetricL2, vector.Matrix{Dim: dim, Data: q}, 5)
						if err != nil {
							t.Fatal(err)
						}
						if !elemNulls {
							want := vector.NewTopK(5, vector.MetricL2)
							for i := range n {
								if !col.isNull(i) {
									want.Push(int64(i), vector.MetricL2.Score(q, col.Data[i*dim:(i+1)*dim]))
								}
							}
							w := want.Results()
							for i := range w {
								if res[0][i].ID != w[i].ID {
									t.Fatalf("search: got %v want %v", res[0], w)
								}
							}
						}
						if res[0][0].ID != 5 && !col.isNull(5) && !elemNulls {
							t.Fatalf("row 5 is not its own nearest neighbour: %v", res[0])
						}
					})
				}
			}
		}
	}
}

// TestVectorRepetitionLevels is PR #592's example: optional group emb
// (VECTOR) { vector group list [3] { optional float element } }, rows
// [1,2,3], null, [4,null,6].
func TestVectorRepetitionLevels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pr592.parquet")
	col := Column{Dim: 3, Data: []float32{1, 2, 3, 0, 0, 0, 4, 0, 6},
		Null:        []bool{false, true, false},
		ElementNull: []bool{false, false, false, false, false, false, false, true, false}}
	if err := WriteFile(path, col, WriteOptions{Layout: LayoutVectorRepetition}); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if i := f.Info(); i.MaxDef != 2 || i.MaxRep != 0 {
		t.Fatalf("max def %d, max rep %d; want 2, 0", i.MaxDef, i.MaxRep)
	}
	raw, _ := os.ReadFile(path)
	ft, err := footer.ReadFooter(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	s := ft.Meta.Schema
	if s[2].RepetitionType.V != footer.Vector || s[2].VectorLength.V != 3 {
		t.Fatalf("middle group: %+v", s[2])
	}
	if _, ok := s[1].LogicalType.Value.(*footer.VectorType); !ok {
		t.Fatalf("outer group logical type %v", s[1].LogicalType.String())
	}
	cm := ft.Meta.RowGroups[0].Columns[0].MetaData
	if cm.NumValues != 9 {
		t.Fatalf("column num_values %d, want 9", cm.NumValues)
	}
	refs, err := f.pageRefs(0)
	if err != nil {
		t.Fatal(err)
	}
	h, hlen, _, err := f.readHeader(refs[0].offset, f.chunks[0].end)
	if err != nil {
		t.Fatal(err)
	}
	if h.DataPageHeader.V.NumValues != 9 {
		t.Fatalf("page num_values %d, want 9", h.DataPageHeader.V.NumValues)
	}
	body := raw[refs[0].offset+int64(hlen) : refs[0].offset+int64(hlen)+int64(h.CompressedPageSize)]
	defBytes, vals, err := pages.LengthPrefixed(body, "definition")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pages.DecodeLevels(defBytes, 2, 9, "definition")
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{2, 2, 2, 0, 0, 0, 2, 1, 2}; !bytes.Equal(defs, want) {
		t.Fatalf("definition levels %v, want %v", defs, want)
	}
	var values []float32
	for i := 0; i+4 <= len(vals); i += 4 {
		values = append(values, math.Float32frombits(binary.LittleEndian.Uint32(vals[i:])))
	}
	if want := []float32{1, 2, 3, 4, 6}; !slices.Equal(values, want) {
		t.Fatalf("values %v, want %v", values, want)
	}
	got, err := f.Take([]int64{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !sameFloats(got[0], []float32{1, 2, 3}) || got[1] != nil || !sameFloats(got[2], []float32{4, nan, 6}) {
		t.Fatalf("take: %v", got)
	}

	// A required vector of required elements writes no levels at all.
	req := filepath.Join(t.TempDir(), "required.parquet")
	if err := WriteFile(req, Column{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6}}, WriteOptions{Layout: LayoutVectorRepetition}); err != nil {
		t.Fatal(err)
	}
	rf, err := OpenFile(req)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	refs, _ = rf.pageRefs(0)
	h, _, _, _ = rf.readHeader(refs[0].offset, rf.chunks[0].end)
	if h.CompressedPageSize != 24 || h.DataPageHeader.V.NumValues != 6 || rf.Info().MaxDef != 0 {
		t.Fatalf("required page: %d bytes, %d values; want 24 bytes of values only", h.CompressedPageSize, h.DataPageHeader.V.NumValues)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	col := testColumn(50, 8, false, false, 2)
	flba := filepath.Join(dir, "flba.parquet")
	if err := WriteFile(flba, col, WriteOptions{Layout: LayoutFLBA}); err != nil {
		t.Fatal(err)
	}
	t.Run("query dimension", func(t *testing.T) {
		_, err := searchFile(flba, 0, vector.MetricDot, vector.Matrix{Dim: 7, Data: make([]float32, 7)}, 3)
		if err == nil || !strings.Contains(err.Error(), "query dimension 7") || !strings.Contains(err.Error(), "column dimension 8") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("wrong layout", func(t *testing.T) {
		if _, err := searchFile(flba, LayoutList, vector.MetricDot, vector.Matrix{Dim: 8, Data: make([]float32, 8)}, 3); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("flba length not a multiple of 4", func(t *testing.T) {
		path := filepath.Join(dir, "odd.parquet")
		odd := rewriteMeta(t, flba, func(m *footer.FileMetaData) {
			m.Schema[1].TypeLength.V = 30
		})
		os.WriteFile(path, odd, 0o644)
		_, err := OpenFile(path)
		if err == nil || !strings.Contains(err.Error(), "FIXED_LEN_BYTE_ARRAY(30) is not a multiple of the float32 width 4") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("vector_length disagrees", func(t *testing.T) {
		vr := filepath.Join(dir, "vr.parquet")
		if err := WriteFile(vr, col, WriteOptions{Layout: LayoutVectorRepetition}); err != nil {
			t.Fatal(err)
		}
		bad := rewriteMeta(t, vr, func(m *footer.FileMetaData) { m.Schema[2].VectorLength.V = 6 })
		path := filepath.Join(dir, "vr-bad.parquet")
		os.WriteFile(path, bad, 0o644)
		_, err := OpenFile(path)
		if err == nil || !strings.Contains(err.Error(), "vector_length") {
			t.Fatalf("err = %v", err)
		}
		// The same lie in the schema and the mirror: num_values tells.
		bad = rewriteMeta(t, vr, func(m *footer.FileMetaData) {
			m.Schema[2].VectorLength.V = 6
			m.KeyValueMetadata = nil
		})
		os.WriteFile(path, bad, 0o644)
		_, err = OpenFile(path)
		if err == nil || !strings.Contains(err.Error(), "disagrees with the data") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("NaN ranks last", func(t *testing.T) {
		c := testColumn(20, 4, false, false, 3)
		for j := range 4 {
			c.Data[2*4+j] = nan
		}
		c.Data[9*4+1] = nan
		for _, layout := range Layouts() {
			path := filepath.Join(dir, "nan-"+layout.String()+".parquet")
			if err := WriteFile(path, c, WriteOptions{Layout: layout}); err != nil {
				t.Fatal(err)
			}
			for _, m := range []vector.Metric{vector.MetricDot, vector.MetricL2} {
				res, err := searchFile(path, layout, m, vector.Matrix{Dim: 4, Data: c.Data[:4]}, 20)
				if err != nil {
					t.Fatal(err)
				}
				r := res[0]
				if len(r) != 20 || r[18].ID != 2 || r[19].ID != 9 || r[18].Score == r[18].Score {
					t.Fatalf("%v %v: NaN rows not last by id: %v", layout, m, r[17:])
				}
			}
		}
	})
	t.Run("empty file", func(t *testing.T) {
		for _, layout := range Layouts() {
			path := filepath.Join(dir, "empty-"+layout.String()+".parquet")
			if err := WriteFile(path, Column{Dim: 4}, WriteOptions{Layout: layout}); err != nil {
				t.Fatal(err)
			}
			res, err := searchFile(path, 0, vector.MetricDot, vector.Matrix{Dim: 4, Data: make([]float32, 8)}, 3)
			if err != nil || len(res) != 2 || len(res[0]) != 0 {
				t.Fatalf("%v: %v %v", layout, res, err)
			}
			got, err := Take(path, nil)
			if err != nil || len(got) != 0 {
				t.Fatalf("%v take: %v %v", layout, got, err)
			}
		}
	})
	t.Run("not parquet", func(t *testing.T) {
		path := filepath.Join(dir, "junk.parquet")
		os.WriteFile(path, []byte("PAR1 not really PAR1"), 0o644)
		if _, err := searchFile(path, 0, vector.MetricDot, vector.Matrix{Dim: 4, Data: make([]float32, 4)}, 1); err == nil {
			t.Fatal("no error")
		}
	})
}

// rewriteMeta returns the file at path with its footer edited, bypassing
// RewriteFooter's shape checks (the point is to make bad files).
func rewriteMeta(t *testing.T, path string, edit func(*footer.FileMetaData)) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := footer.ReadFooter(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	edit(ft.Meta)
	fb, err := footer.Encode(ft.Meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(slices.Clone(raw[:ft.Offset]), fb...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fb)))
	return append(out, "PAR1"...)
}

func TestZeroCopyPlainPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "z.parquet")
	for _, layout := range []Layout{LayoutFLBARaw, LayoutVectorRepetition} {
		if err := WriteFile(path, testColumn(100, 16, true, false, 4), WriteOptions{Layout: layout, PageBytes: 1000}); err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		refs, _ := f.pageRefs(0)
		p, err := f.decodePage(refs[0], 16)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !p.zeroCopy {
			t.Errorf("%v: uncompressed PLAIN page was copied", layout)
		}
	}
}
