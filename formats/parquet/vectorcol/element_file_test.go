package vectorcol

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// converted is what a file of element type t gives back for v: the value
// rounded by the package's own conversions, then widened to float32.
func converted(t *testing.T, et vector.ElementType, v float32) float32 {
	t.Helper()
	switch et {
	case vector.Float64:
		return float32(float64(v))
	case vector.Float16:
		return vector.Float16FromFloat32(v).Float32()
	case vector.BFloat16:
		return vector.BFloat16FromFloat32(v).Float32()
	case vector.Int8:
		q, err := vector.Int8FromFloat32(v)
		if err != nil {
			t.Fatal(err)
		}
		return float32(q)
	}
	return v
}

// elementColumn is testColumn scaled so that int8 keeps some precision and
// float16/bfloat16 round visibly; every value fits int8.
func elementColumn(n, dim int, nulls, elemNulls bool, seed uint64) Column {
	c := testColumn(n, dim, nulls, elemNulls, seed)
	for i, v := range c.Data {
		c.Data[i] = max(-127, min(127, v*20.3))
	}
	return c
}

func TestElementTypesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const n, dim = 157, 5
	queries := vector.Matrix{Dim: dim, Data: elementColumn(3, dim, false, false, 99).Data}
	for _, et := range vector.ElementTypes() {
		for _, layout := range Layouts() {
			for _, nullable := range []bool{false, true} {
				for _, enc := range ValueEncodings() {
					for _, codec := range []Codec{CodecNone, CodecZstd} {
						name := fmt.Sprintf("%v/%v/nullable=%v/%v/%v", et, layout, nullable, enc, codec)
						t.Run(name, func(t *testing.T) {
							elemNulls := nullable && (layout == LayoutList || layout == LayoutVectorRepetition)
							col := elementColumn(n, dim, nullable, elemNulls, 11)
							path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".parquet")
							opts := WriteOptions{Layout: layout, Element: et, Encoding: enc, Codec: codec, PageBytes: 120}
							err := WriteFile(path, col, opts)
							if et == vector.BFloat16 && layout == LayoutFLBA {
								if err == nil || !strings.Contains(err.Error(), "flba cannot hold bfloat16") {
									t.Fatalf("bfloat16 flba: got %v, want the refusal", err)
								}
								return
							}
							if layout == LayoutFixedSizeList && et != vector.Float32 && et != vector.Float64 {
								// PR #241 names physical types only (TestFixedSizeListRefusesElements).
								if err == nil || !strings.Contains(err.Error(), "fixed-size-list cannot hold "+et.String()) {
									t.Fatalf("%v fixed-size-list: got %v, want the refusal", et, err)
								}
								return
							}
							if err != nil {
								t.Fatal(err)
							}
							checkElementFile(t, path, col, et, layout, queries)
						})
					}
				}
			}
		}
	}
}

func checkElementFile(t *testing.T, path string, col Column, et vector.ElementType, layout Layout, queries vector.Matrix) {
	t.Helper()
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info := f.Info()
	if info.Element != et || info.Layout != layout || info.Dim != col.Dim || info.Rows != int64(col.Rows()) {
		t.Fatalf("info %+v, want element %v layout %v dim %d rows %d", info, et, layout, col.Dim, col.Rows())
	}
	// What every read must give: converted values, NaN for null elements.
	want := make([][]float32, col.Rows())
	var present vector.Matrix
	present.Dim = col.Dim
	var presentIDs []int64
	for i := range want {
		want[i] = expected(col, i)
		if want[i] == nil {
			continue
		}
		for j, v := range want[i] {
			if !col.elemNull(i*col.Dim + j) {
				want[i][j] = converted(t, et, v)
			}
		}
		present.Data = append(present.Data, want[i]...)
		presentIDs = append(presentIDs, int64(i))
	}
	all, null, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !sameFloats(all.Data, present.Data) {
		t.Fatalf("ReadAll: %v..., want %v...", all.Data[:col.Dim], present.Data[:col.Dim])
	}
	for i := range want {
		if got := null != nil && null[i]; got != (want[i] == nil) {
			t.Fatalf("row %d: null %v, want %v", i, got, want[i] == nil)
		}
	}
	rows := []int64{int64(col.Rows() - 1), 0, 3, 3, 10, 42, int64(col.Rows() / 2)}
	got, err := f.Take(rows)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if !sameFloats(got[i], want[r]) {
			t.Fatalf("Take row %d: %v, want %v", r, got[i], want[r])
		}
	}
	if col.ElementNull != nil {
		return // NaN scores: ranking among them is not the point here
	}
	for _, metric := range metrics {
		res, err := searchFile(path, layout, metric, queries, 10)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := vector.SearchBatch(metric, present, queries, 10)
		if err != nil {
			t.Fatal(err)
		}
		for q := range ref {
			for k := range ref[q] {
				ref[q][k].ID = presentIDs[ref[q][k].ID]
			}
			if !sameResults(res[q], ref[q]) {
				t.Fatalf("%v query %d: file %v, in memory %v", metric, q, res[q], ref[q])
			}
		}
	}
}

func TestElementTypeAnnotations(t *testing.T) {
	dir := t.TempDir()
	col := elementColumn(20, 3, false, false, 5)
	cases := []struct {
		et      vector.ElementType
		layout  Layout
		element string // the VECTOR annotation's element, "" when none
		hint    string // the ElementKey entry, "" when absent
	}{
		{vector.Float32, LayoutFLBA, "FLOAT", ""},
		{vector.Float64, LayoutFLBA, "DOUBLE", "float64"},
		{vector.Float16, LayoutFLBA, "FLOAT16", "float16"},
		{vector.Int8, LayoutFLBA, "INT8", "int8"},
		{vector.Float32, LayoutFLBARaw, "", ""},
		{vector.BFloat16, LayoutFLBARaw, "", "bfloat16"},
		{vector.Float16, LayoutList, "", "float16"},
		{vector.Int8, LayoutVectorRepetition, "INT32", "int8"},
		{vector.Float16, LayoutVectorRepetition, "FIXED_LEN_BYTE_ARRAY", "float16"},
		{vector.BFloat16, LayoutList, "", "bfloat16"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v/%v", c.et, c.layout), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("%v-%v.parquet", c.et, c.layout))
			if err := WriteFile(path, col, WriteOptions{Layout: c.layout, Element: c.et}); err != nil {
				t.Fatal(err)
			}
			meta := readMeta(t, path)
			hint, _ := meta.KeyValue(ElementKey)
			if hint != c.hint {
				t.Errorf("%s = %q, want %q", ElementKey, hint, c.hint)
			}
			anns, err := footer.ReadAnnotations(meta)
			if err != nil {
				t.Fatal(err)
			}
			element := ""
			for _, a := range anns {
				if a.Kind == footer.KindVector {
					element = a.Element
				}
			}
			if element != c.element {
				t.Errorf("VECTOR element %q, want %q", element, c.element)
			}
		})
	}
}

func readMeta(t *testing.T, path string) *footer.FileMetaData {
	t.Helper()
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ft, err := footer.ReadFooter(f.r, f.size)
	if err != nil {
		t.Fatal(err)
	}
	return ft.Meta
}

func TestElementTypeErrors(t *testing.T) {
	dir := t.TempDir()
	col := Column{Dim: 2, Data: []float32{1, 2, 300, 4}}
	for _, layout := range Layouts() {
		if layout == LayoutFixedSizeList {
			continue // no int8 at all (TestFixedSizeListRefusesElements)
		}
		path := filepath.Join(dir, layout.String()+".parquet")
		err := WriteFile(path, col, WriteOptions{Layout: layout, Element: vector.Int8})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "row 1") || !strings.Contains(err.Error(), "300 does not fit int8") {
			t.Errorf("%v: int8 overflow gave %v", layout, err)
		}
	}
	if err := WriteFile(filepath.Join(dir, "x.parquet"), col, WriteOptions{Layout: LayoutFLBA, Element: vector.ElementType(99)}); err == nil || !strings.Contains(err.Error(), "unknown element type") {
		t.Errorf("invalid element type gave %v", err)
	}

	// A hint that disagrees with the schema, and a FIXED_LEN_BYTE_ARRAY(2)
	// element that nothing names, are refused on open.
	good := Column{Dim: 2, Data: []float32{1, 2, 3, 4}}
	list := filepath.Join(dir, "f16-list.parquet")
	if err := WriteFile(list, good, WriteOptions{Layout: LayoutList, Element: vector.Float16}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "f16-list-bad.parquet")
	writeBytes(t, bad, rewriteMeta(t, list, func(m *footer.FileMetaData) { m.SetKeyValue(ElementKey, "int8") }))
	if _, err := OpenFile(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "says int8") {
		t.Errorf("disagreeing hint gave %v", err)
	}
	bf := filepath.Join(dir, "bf16-list.parquet")
	if err := WriteFile(bf, good, WriteOptions{Layout: LayoutList, Element: vector.BFloat16}); err != nil {
		t.Fatal(err)
	}
	writeBytes(t, bad, rewriteMeta(t, bf, func(m *footer.FileMetaData) {
		for i := range m.KeyValueMetadata {
			if m.KeyValueMetadata[i].Key == ElementKey {
				m.KeyValueMetadata = append(m.KeyValueMetadata[:i], m.KeyValueMetadata[i+1:]...)
				break
			}
		}
	}))
	if _, err := OpenFile(bad); err == nil || !strings.Contains(err.Error(), "element type is unknown") {
		t.Errorf("unnamed FIXED_LEN_BYTE_ARRAY(2) gave %v", err)
	}
	if _, err := OpenFile(bf); err != nil {
		t.Errorf("bfloat16 list with its hint: %v", err)
	}
}

func writeBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
