package vectorcol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// PR #241's thrift (parquet-format refs/pull/241/head, bc3df18), defined
// here so that the footer is decoded by parquet-go's thrift decoder
// independently of the footer package's codec.
type testFixedSizeListType struct {
	Type      int32 `thrift:"1,required"`
	NumValues int32 `thrift:"2,required"`
}

type testLogicalType struct {
	At19 *testFixedSizeListType `thrift:"19,optional"`
	At20 *struct{}              `thrift:"20,optional"`
	At21 *testFixedSizeListType `thrift:"21,optional"`
	At33 *testFixedSizeListType `thrift:"33,optional"`
}

type testSchemaElement struct {
	Type          thrift.Null[int32] `thrift:"1,optional"`
	TypeLength    thrift.Null[int32] `thrift:"2,optional"`
	Repetition    thrift.Null[int32] `thrift:"3,optional"`
	Name          string             `thrift:"4,required"`
	ConvertedType thrift.Null[int32] `thrift:"6,optional"`
	LogicalType   *testLogicalType   `thrift:"10,optional"`
}

type testFileMetaData struct {
	Schema []testSchemaElement `thrift:"2,required"`
}

// PR #592's thrift (refs/pull/592/head, 94d5ced): "struct VectorType {}",
// "19: VectorType VECTOR" (the lab writes 20 by default), "VECTOR = 3" and
// "11: optional i32 vector_length".
type testVectorLogicalType struct {
	At19 *struct{} `thrift:"19,optional"`
	At20 *struct{} `thrift:"20,optional"`
}

type testVectorSchemaElement struct {
	Type          thrift.Null[int32]     `thrift:"1,optional"`
	Repetition    thrift.Null[int32]     `thrift:"3,optional"`
	Name          string                 `thrift:"4,required"`
	NumChildren   thrift.Null[int32]     `thrift:"5,optional"`
	ConvertedType thrift.Null[int32]     `thrift:"6,optional"`
	LogicalType   *testVectorLogicalType `thrift:"10,optional"`
	VectorLength  thrift.Null[int32]     `thrift:"11,optional"`
}

type testVectorFileMetaData struct {
	Schema []testVectorSchemaElement `thrift:"2,required"`
}

// rawFooter returns the footer bytes of the Parquet file at path.
func rawFooter(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 || string(b[len(b)-4:]) != "PAR1" {
		t.Fatalf("%s is not Parquet", path)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	return b[len(b)-8-n : len(b)-8]
}

func TestFixedSizeListRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const n, dim = 157, 5
	queries := vector.Matrix{Dim: dim, Data: elementColumn(3, dim, false, false, 99).Data}
	for _, et := range []vector.ElementType{vector.Float32, vector.Float64} {
		for _, id := range []int16{0, 19, 33} {
			for _, nullable := range []bool{false, true} {
				for _, enc := range ValueEncodings() {
					name := fmt.Sprintf("%v/id=%d/nullable=%v/%v", et, id, nullable, enc)
					t.Run(name, func(t *testing.T) {
						col := elementColumn(n, dim, nullable, false, 11)
						path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".parquet")
						opts := WriteOptions{Layout: LayoutFixedSizeList, Element: et, Encoding: enc, Codec: CodecZstd, PageBytes: 200, FixedSizeListID: id}
						if err := WriteFile(path, col, opts); err != nil {
							t.Fatal(err)
						}
						checkElementFile(t, path, col, et, LayoutFixedSizeList, queries)
						checkFixedSizeListFooter(t, path, et, dim, id)
					})
				}
			}
		}
	}
}

// checkFixedSizeListFooter decodes the footer with the test's own thrift
// structs: one FIXED_SIZE_LIST member under id, type FLOAT or DOUBLE,
// num_values dim, on a FIXED_LEN_BYTE_ARRAY(dim × width) leaf without a
// converted type.
func checkFixedSizeListFooter(t *testing.T, path string, et vector.ElementType, dim int, id int16) {
	t.Helper()
	var meta testFileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), rawFooter(t, path), &meta); err != nil {
		t.Fatal(err)
	}
	if len(meta.Schema) != 2 {
		t.Fatalf("schema %+v", meta.Schema)
	}
	e := meta.Schema[1]
	width := map[vector.ElementType]int32{vector.Float32: 4, vector.Float64: 8}[et]
	wantType := map[vector.ElementType]format.Type{vector.Float32: format.Float, vector.Float64: format.Double}[et]
	if e.Name != ColumnName || e.Type.V != int32(format.FixedLenByteArray) || e.TypeLength.V != int32(dim)*width || e.ConvertedType.Valid {
		t.Errorf("leaf %+v, want FIXED_LEN_BYTE_ARRAY(%d) %s without a converted type", e, int32(dim)*width, ColumnName)
	}
	if e.LogicalType == nil {
		t.Fatal("no logical type")
	}
	if id == 0 {
		id = footer.DefaultFixedSizeListID
	}
	members := map[int16]*testFixedSizeListType{19: e.LogicalType.At19, 21: e.LogicalType.At21, 33: e.LogicalType.At33}
	for at, m := range members {
		if (m != nil) != (at == id) {
			t.Errorf("member %d: %+v; want a member under %d only", at, m, id)
		}
	}
	if e.LogicalType.At20 != nil {
		t.Error("a VECTOR member (20) too")
	}
	if m := members[id]; m == nil || m.Type != int32(wantType) || m.NumValues != int32(dim) {
		t.Errorf("FixedSizeListType %+v, want type %d num_values %d", m, wantType, dim)
	}
}

// PR #241: "The annotated field's `type_length` must equal the encoded size,
// in bytes, of `num_values` elements using the PLAIN representation of
// `type`", and Encodings.md's PLAIN: "FLOAT: 4 bytes IEEE little endian",
// "DOUBLE: 8 bytes IEEE little endian". A reader that knows nothing of the
// annotation (parquet-go) sees exactly those bytes.
func TestFixedSizeListCellsArePlainLittleEndian(t *testing.T) {
	col := Column{Dim: 3, Data: []float32{1, -2.5, 3.25, float32(math.Pi), 0, -0.125}}
	for _, et := range []vector.ElementType{vector.Float32, vector.Float64} {
		path := filepath.Join(t.TempDir(), "v.parquet")
		if err := WriteFile(path, col, WriteOptions{Layout: LayoutFixedSizeList, Element: et}); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := pq.OpenFile(f, st.Size())
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		rows := make([]pq.Row, 2)
		r := pq.NewRowGroupReader(pf.RowGroups()[0])
		got, _ := r.ReadRows(rows)
		f.Close()
		if got != 2 {
			t.Fatalf("%v: parquet-go read %d rows", et, got)
		}
		for i := range 2 {
			var want []byte
			for _, v := range col.Data[i*3 : i*3+3] {
				if et == vector.Float64 {
					want = binary.LittleEndian.AppendUint64(want, math.Float64bits(float64(v)))
				} else {
					want = binary.LittleEndian.AppendUint32(want, math.Float32bits(v))
				}
			}
			if cell := rows[i][0].ByteArray(); !bytes.Equal(cell, want) {
				t.Errorf("%v row %d: cell % x, want % x", et, i, cell, want)
			}
		}
	}
}

// float16, int8 and bfloat16 have no physical type, and FixedSizeListType
// names only a physical type: the layout refuses them, saying so.
func TestFixedSizeListRefusesElements(t *testing.T) {
	col := Column{Dim: 2, Data: []float32{1, 2, 3, 4}}
	for et, why := range map[vector.ElementType]string{
		vector.Float16:  "FLOAT16 is a logical type on FIXED_LEN_BYTE_ARRAY(2)",
		vector.Int8:     "Parquet has no 1-byte physical type",
		vector.BFloat16: "no Parquet type, physical or logical, is bfloat16",
	} {
		path := filepath.Join(t.TempDir(), "v.parquet")
		err := WriteFile(path, col, WriteOptions{Layout: LayoutFixedSizeList, Element: et})
		if err == nil || !strings.Contains(err.Error(), "fixed-size-list cannot hold "+et.String()) ||
			!strings.Contains(err.Error(), "PR #241") || !strings.Contains(err.Error(), why) {
			t.Errorf("%v: err = %v", et, err)
		}
		if _, serr := os.Stat(path); serr == nil {
			t.Errorf("%v: a refused write left %s", et, path)
		}
	}
}

func TestWriteOptionsUnionIDs(t *testing.T) {
	col := Column{Dim: 2, Data: []float32{1, 2}}
	for _, tc := range []struct {
		opts WriteOptions
		want string // "" for accepted
	}{
		{WriteOptions{Layout: LayoutFixedSizeList, FixedSizeListID: 19}, ""},
		{WriteOptions{Layout: LayoutFixedSizeList, FixedSizeListID: 44}, ""},
		{WriteOptions{Layout: LayoutFixedSizeList, FixedSizeListID: 20}, "FIXED_SIZE_LIST union id 20"},
		{WriteOptions{Layout: LayoutFixedSizeList, FixedSizeListID: 7}, "FIXED_SIZE_LIST union id 7"},
		{WriteOptions{Layout: LayoutVectorRepetition, VectorID: 19}, ""},
		{WriteOptions{Layout: LayoutFLBA, VectorID: 19}, "VECTOR union id 19"},
		{WriteOptions{Layout: LayoutVectorRepetition, VectorID: 15}, "VECTOR union id 15"},
		{WriteOptions{Layout: LayoutFLBA, VectorID: 30}, ""},
	} {
		path := filepath.Join(t.TempDir(), "v.parquet")
		err := WriteFile(path, col, tc.opts)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.opts, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// spliceFooter replaces the footer of the file at path by edit's version,
// encoded by the footer package, bypassing RewriteFooter's shape checks:
// the files a careless writer could produce.
func spliceFooter(t *testing.T, path string, edit func(*footer.FileMetaData)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := footer.ReadFooter(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	edit(ft.Meta)
	fb, err := footer.Encode(ft.Meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(b[:ft.Offset:ft.Offset], fb...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fb)))
	out = append(out, "PAR1"...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dropMirror removes the lab's annotation mirror, as a writer other than
// the lab would leave the file.
func dropMirror(m *footer.FileMetaData) {
	kv := m.KeyValueMetadata[:0]
	for _, e := range m.KeyValueMetadata {
		if e.Key != footer.MirrorKey {
			kv = append(kv, e)
		}
	}
	m.KeyValueMetadata = kv
}

// PR #241: "Readers must treat violating metadata as invalid."
func TestFixedSizeListInvalidMetadataIsRefused(t *testing.T) {
	col := Column{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	for _, tc := range []struct {
		name string
		fsl  footer.FixedSizeListType
		want string
	}{
		{"num_values disagrees with type_length", footer.FixedSizeListType{ID: 19, Type: format.Float, NumValues: 4}, "type_length = num_values × 4 = 16"},
		{"DOUBLE on 12 bytes", footer.FixedSizeListType{ID: 21, Type: format.Double, NumValues: 3}, "type_length = num_values × 8 = 24"},
		{"BOOLEAN", footer.FixedSizeListType{ID: 19, Type: format.Boolean, NumValues: 12}, "must not be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`"},
		{"BYTE_ARRAY", footer.FixedSizeListType{ID: 21, Type: format.ByteArray, NumValues: 3}, "must not be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`"},
		{"num_values 0", footer.FixedSizeListType{ID: 19, Type: format.Float, NumValues: 0}, "must be a positive integer"},
		{"INT32, valid but not a lab element", footer.FixedSizeListType{ID: 19, Type: format.Int32, NumValues: 3}, "reads FLOAT and DOUBLE elements only"},
		{"FIXED_LEN_BYTE_ARRAY elements", footer.FixedSizeListType{ID: 21, Type: format.FixedLenByteArray, NumValues: 6}, "reads FLOAT and DOUBLE elements only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.parquet")
			if err := WriteFile(path, col, WriteOptions{Layout: LayoutFixedSizeList}); err != nil {
				t.Fatal(err)
			}
			spliceFooter(t, path, func(m *footer.FileMetaData) {
				m.Schema[1].LogicalType = footer.LogicalType{Value: &tc.fsl}
				dropMirror(m)
			})
			_, err := OpenFile(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// An ElementKey entry that disagrees with the struct.
	path := filepath.Join(t.TempDir(), "v.parquet")
	if err := WriteFile(path, col, WriteOptions{Layout: LayoutFixedSizeList}); err != nil {
		t.Fatal(err)
	}
	spliceFooter(t, path, func(m *footer.FileMetaData) { m.SetKeyValue(ElementKey, "float64") })
	if _, err := OpenFile(path); err == nil || !strings.Contains(err.Error(), "disagrees with the "+ElementKey) {
		t.Errorf("element key disagreeing: err = %v", err)
	}
}

// A FIXED_SIZE_LIST another writer put under an id of its own, without the
// lab's mirror, is still read as one (the struct and the leaf identify it).
func TestFixedSizeListForeignID(t *testing.T) {
	col := Column{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	path := filepath.Join(t.TempDir(), "v.parquet")
	if err := WriteFile(path, col, WriteOptions{Layout: LayoutFixedSizeList}); err != nil {
		t.Fatal(err)
	}
	spliceFooter(t, path, func(m *footer.FileMetaData) {
		m.Schema[1].LogicalType = footer.LogicalType{Value: &footer.FixedSizeListType{ID: 33, Type: format.Float, NumValues: 3}}
		dropMirror(m)
	})
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if info := f.Info(); info.Layout != LayoutFixedSizeList || info.Dim != 3 || info.Element != vector.Float32 {
		t.Fatalf("info %+v", info)
	}
	got, err := f.Take([]int64{1})
	if err != nil || !sameFloats(got[0], []float32{4, 5, 6}) {
		t.Fatalf("take: %v %v", got, err)
	}
}

// PR #592 (refs/pull/592/head, 94d5ced): "The middle level, named `list`,
// must be a group with `repetition_type = VECTOR`, exactly one field named
// `element` ... It must not have a logical type or converted type." A file
// that breaks it is refused on read, citing the text.
func TestVectorRepetitionSchemaRules(t *testing.T) {
	col := Column{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	for _, tc := range []struct {
		name string
		edit func(s []footer.SchemaElement)
		want string
	}{
		{"middle named bag", func(s []footer.SchemaElement) { s[2].Name = "bag" }, `middle group is named "bag"; PR #592: "The middle level, named ` + "`list`" + `"`},
		{"element named item", func(s []footer.SchemaElement) { s[3].Name = "item" }, `element is named "item"; PR #592`},
		{"middle with a logical type", func(s []footer.SchemaElement) { s[2].LogicalType = footer.LogicalType{Value: &format.ListType{}} },
			`has logical type LIST; PR #592: "It must not have a logical type or converted type."`},
		{"middle with a converted type", func(s []footer.SchemaElement) { s[2].ConvertedType = thrift.New(deprecated.List) },
			`has converted type 3; PR #592: "It must not have a logical type or converted type."`},
		{"outer with a converted type", func(s []footer.SchemaElement) { s[1].ConvertedType = thrift.New(deprecated.List) },
			"must be a group annotated with `LogicalType.VECTOR`"},
		{"outer annotated LIST", func(s []footer.SchemaElement) { s[1].LogicalType = footer.LogicalType{Value: &format.ListType{}} },
			"must be a group annotated with `LogicalType.VECTOR`"},
		{"vector_length on the element", func(s []footer.SchemaElement) { s[3].VectorLength = thrift.New[int32](3) },
			`vector_length "must not be set otherwise"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.parquet")
			if err := WriteFile(path, col, WriteOptions{Layout: LayoutVectorRepetition}); err != nil {
				t.Fatal(err)
			}
			spliceFooter(t, path, func(m *footer.FileMetaData) {
				dropMirror(m)
				tc.edit(m.Schema)
				for i := range m.RowGroups {
					for c := range m.RowGroups[i].Columns {
						m.RowGroups[i].Columns[c].MetaData.PathInSchema = []string{m.Schema[1].Name, m.Schema[2].Name, m.Schema[3].Name}
					}
				}
			})
			_, err := OpenFile(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "column emb") {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The lab writes PR #592's names and nothing on the middle group, under
// either VECTOR id; a file under 19 (PR #592's and arrow-go#854's id) reads
// back as one under the lab's 20.
func TestVectorRepetitionWritesPR592Schema(t *testing.T) {
	col := testColumn(60, 4, true, true, 5)
	for _, id := range []int16{0, 19} {
		path := filepath.Join(t.TempDir(), "v.parquet")
		if err := WriteFile(path, col, WriteOptions{Layout: LayoutVectorRepetition, VectorID: id}); err != nil {
			t.Fatal(err)
		}
		var meta testVectorFileMetaData
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), rawFooter(t, path), &meta); err != nil {
			t.Fatal(err)
		}
		s := meta.Schema
		if len(s) != 4 || s[1].Name != ColumnName || s[2].Name != "list" || s[3].Name != "element" {
			t.Fatalf("id %d: schema %+v", id, s)
		}
		if s[2].Repetition.V != int32(footer.Vector) || s[2].VectorLength.V != 4 || s[2].LogicalType != nil || s[2].ConvertedType.Valid || s[1].ConvertedType.Valid {
			t.Errorf("id %d: middle %+v, outer %+v", id, s[2], s[1])
		}
		if s[1].VectorLength.Valid || s[3].VectorLength.Valid || s[1].NumChildren.V != 1 || s[2].NumChildren.V != 1 {
			t.Errorf("id %d: outer %+v, element %+v", id, s[1], s[3])
		}
		if lt := s[1].LogicalType; lt == nil || (id == 19) != (lt.At19 != nil) || (id == 0) != (lt.At20 != nil) {
			t.Errorf("id %d: outer logical type %+v", id, lt)
		}
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		info := f.Info()
		f.Close()
		if info.Layout != LayoutVectorRepetition || info.Dim != 4 {
			t.Fatalf("id %d: info %+v", id, info)
		}
		checkElementFile(t, path, col, vector.Float32, LayoutVectorRepetition, vector.Matrix{Dim: 4, Data: col.Data[:8]})
		anns, err := footer.ReadAnnotations(readMeta(t, path))
		want := id
		if want == 0 {
			want = footer.DefaultVectorID
		}
		if err != nil || len(anns) != 1 || anns[0].Kind != footer.KindVector || anns[0].ID != want || !anns[0].InFooter || !anns[0].VectorRepetition {
			t.Errorf("id %d: annotations %+v (%v)", id, anns, err)
		}
	}
}

// fixed-size-list and flba differ in the footer only: the same parquet-go
// writer writes the same pages, so spec/VECTOR.md's flba figures (size,
// decode, search, take) are fixed-size-list's too.
func TestFixedSizeListSharesFLBAPages(t *testing.T) {
	col := testColumn(3000, 16, true, false, 9)
	for _, enc := range ValueEncodings() {
		for _, codec := range []Codec{CodecNone, CodecZstd} {
			var before [][]byte
			for _, layout := range []Layout{LayoutFLBA, LayoutFixedSizeList} {
				path := filepath.Join(t.TempDir(), "v.parquet")
				if err := WriteFile(path, col, WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: 8192}); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				before = append(before, b[:len(b)-8-len(rawFooter(t, path))])
			}
			if !bytes.Equal(before[0], before[1]) {
				t.Errorf("%v/%v: the bytes before the footer differ", enc, codec)
			}
		}
	}
}

// The key/value mirror keeps a fixed-size-list file readable when a tool
// has dropped the annotation from the footer, as it does for flba.
func TestFixedSizeListFromMirror(t *testing.T) {
	col := Column{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	path := filepath.Join(t.TempDir(), "v.parquet")
	if err := WriteFile(path, col, WriteOptions{Layout: LayoutFixedSizeList, Element: vector.Float64}); err != nil {
		t.Fatal(err)
	}
	spliceFooter(t, path, func(m *footer.FileMetaData) { m.Schema[1].LogicalType = footer.LogicalType{} })
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if info := f.Info(); info.Layout != LayoutFixedSizeList || info.Dim != 3 || info.Element != vector.Float64 {
		t.Fatalf("info %+v", info)
	}
	// A mirror that disagrees with what the footer holds is refused.
	spliceFooter(t, path, func(m *footer.FileMetaData) { m.Schema[1].LogicalType = footer.LogicalType{Value: &format.UUIDType{}} })
	if _, err := OpenFile(path); err == nil || !strings.Contains(err.Error(), "the key/value mirror says FIXED_SIZE_LIST (id 21), the footer UUID") {
		t.Errorf("err = %v", err)
	}
}
