package footer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The structs below are PR #241's thrift (parquet-format refs/pull/241/head,
// bc3df18, src/main/thrift/parquet.thrift) written out for this test only,
// so that the footer is decoded by parquet-go's thrift decoder against
// definitions that share nothing with this package's codec:
//
//	struct FixedSizeListType {
//	    1: required Type type;
//	    2: required i32 num_values;
//	}
//	union LogicalType { ... 19: FixedSizeListType FIXED_SIZE_LIST }
//
// The union is modelled as optional members at the ids under test.
type pr241FixedSizeList struct {
	Type      int32 `thrift:"1,required"`
	NumValues int32 `thrift:"2,required"`
}

type pr241LogicalType struct {
	At19 *pr241FixedSizeList `thrift:"19,optional"`
	At21 *pr241FixedSizeList `thrift:"21,optional"`
	At33 *pr241FixedSizeList `thrift:"33,optional"`
}

type pr241SchemaElement struct {
	Type          thrift.Null[int32] `thrift:"1,optional"`
	TypeLength    thrift.Null[int32] `thrift:"2,optional"`
	Repetition    thrift.Null[int32] `thrift:"3,optional"`
	Name          string             `thrift:"4,required"`
	NumChildren   thrift.Null[int32] `thrift:"5,optional"`
	ConvertedType thrift.Null[int32] `thrift:"6,optional"`
	LogicalType   *pr241LogicalType  `thrift:"10,optional"`
}

type pr241FileMetaData struct {
	Schema []pr241SchemaElement `thrift:"2,required"`
}

// flbaMeta is a footer with one optional FIXED_LEN_BYTE_ARRAY(n) leaf, emb.
func flbaMeta(n int32) *FileMetaData {
	return &FileMetaData{
		Version: 2,
		Schema: []SchemaElement{
			{Name: "schema", NumChildren: thrift.New[int32](1)},
			{Name: "emb", Type: thrift.New(format.FixedLenByteArray), TypeLength: thrift.New(n), RepetitionType: thrift.New(Optional)},
		},
		RowGroups: []RowGroup{},
	}
}

func TestFixedSizeListThriftBytes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      int16 // 0: the default
		element string
		length  int32
		n       int32
		typ     format.Type
		// member is the union member as the compact protocol writes it:
		// field header (STRUCT, id), field 1 i32, field 2 i32, STOP.
		member []byte
	}{
		{"PR #241's id 19, FLOAT", 19, "FLOAT", 12, 3, format.Float,
			[]byte{0x0c, 0x26, 0x15, 0x08, 0x15, 0x06, 0x00}},
		{"default id 21, DOUBLE", 0, "DOUBLE", 64, 8, format.Double,
			[]byte{0x0c, 0x2a, 0x15, 0x0a, 0x15, 0x10, 0x00}},
		{"id 33, FIXED_LEN_BYTE_ARRAY", 33, "FIXED_LEN_BYTE_ARRAY", 12, 4, format.FixedLenByteArray,
			[]byte{0x0c, 0x42, 0x15, 0x0e, 0x15, 0x08, 0x00}},
		{"id 21, INT32", 21, "INT32", 8, 2, format.Int32,
			[]byte{0x0c, 0x2a, 0x15, 0x02, 0x15, 0x04, 0x00}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := flbaMeta(tc.length)
			if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindFixedSizeList, ID: tc.id, VectorLength: tc.n, Element: tc.element}); err != nil {
				t.Fatal(err)
			}
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			// The member, then the union's STOP, then the element's.
			if !bytes.Contains(b, append(append([]byte{}, tc.member...), 0x00, 0x00)) {
				t.Errorf("footer % x does not hold the member % x", b, tc.member)
			}
			var got pr241FileMetaData
			if err := thrift.Unmarshal(new(thrift.CompactProtocol), b, &got); err != nil {
				t.Fatal(err)
			}
			lt := got.Schema[1].LogicalType
			if lt == nil {
				t.Fatal("no logical type on emb")
			}
			want := map[int16]*pr241FixedSizeList{19: lt.At19, 21: lt.At21, 33: lt.At33}
			id := tc.id
			if id == 0 {
				id = DefaultFixedSizeListID
			}
			for at, v := range want {
				if (v != nil) != (at == id) {
					t.Errorf("member at %d: %+v (want one at %d only)", at, v, id)
				}
			}
			if v := want[id]; v == nil || v.Type != int32(tc.typ) || v.NumValues != tc.n {
				t.Errorf("decoded %+v, want type %d num_values %d", v, tc.typ, tc.n)
			}
			if e := got.Schema[1]; e.ConvertedType.Valid || e.Type.V != int32(format.FixedLenByteArray) || e.TypeLength.V != tc.length {
				t.Errorf("leaf %+v", e)
			}

			// The lab's own decode reads it back under the id.
			dec, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			fsl, ok, err := AsFixedSizeList(dec.Schema[1].LogicalType.Value, id)
			if err != nil || !ok || fsl.Type != tc.typ || fsl.NumValues != tc.n || fsl.FieldID() != id {
				t.Fatalf("AsFixedSizeList: %v %v %v", fsl, ok, err)
			}
			anns, err := ReadAnnotations(dec)
			if err != nil {
				t.Fatal(err)
			}
			if len(anns) != 1 || anns[0].Kind != KindFixedSizeList || anns[0].ID != id || anns[0].VectorLength != tc.n ||
				anns[0].Element != tc.element || !anns[0].InFooter || !anns[0].InKeyValue {
				t.Errorf("annotations %+v", anns)
			}
			if again, err := Encode(dec); err != nil || !bytes.Equal(again, b) {
				t.Errorf("decode and re-encode differ (%v)", err)
			}
		})
	}
}

// Without the mirror the annotation is still found: under 19 (PR #241's id,
// where FILE cannot sit on a leaf), under the lab's 21, and under another id
// when the struct is FixedSizeListType's and fits the leaf.
func TestReadAnnotationsFindsFixedSizeListWithoutMirror(t *testing.T) {
	for _, id := range []int16{19, 21, 33} {
		m := flbaMeta(12)
		m.Schema[1].LogicalType = LogicalType{Value: &FixedSizeListType{ID: id, Type: format.Float, NumValues: 3}}
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		anns, err := ReadAnnotations(dec)
		if err != nil {
			t.Fatal(err)
		}
		if len(anns) != 1 || anns[0].Kind != KindFixedSizeList || anns[0].ID != id || anns[0].VectorLength != 3 || anns[0].Element != "FLOAT" {
			t.Errorf("id %d: annotations %+v", id, anns)
		}
	}
	// Another id whose struct does not fit the leaf stays unknown.
	m := flbaMeta(12)
	m.Schema[1].LogicalType = LogicalType{Value: &FixedSizeListType{ID: 33, Type: format.Float, NumValues: 4}}
	b, _ := Encode(m)
	dec, _ := Decode(b)
	if anns, _ := ReadAnnotations(dec); len(anns) != 1 || anns[0].Kind != KindUnknown {
		t.Errorf("a misfit struct under 33: %+v", anns)
	}
	// Under 19 it is FIXED_SIZE_LIST all the same, so that a reader refuses
	// it as invalid rather than read it as something else.
	m.Schema[1].LogicalType = LogicalType{Value: &FixedSizeListType{ID: 19, Type: format.Float, NumValues: 4}}
	b, _ = Encode(m)
	dec, _ = Decode(b)
	anns, _ := ReadAnnotations(dec)
	if len(anns) != 1 || anns[0].Kind != KindFixedSizeList {
		t.Fatalf("a misfit struct under 19: %+v", anns)
	}
	fsl, _, _ := AsFixedSizeList(dec.Schema[1].LogicalType.Value, 19)
	if err := CheckFixedSizeList(fsl, &dec.Schema[1]); err == nil || !strings.Contains(err.Error(), "type_length = num_values × 4 = 16") {
		t.Errorf("CheckFixedSizeList = %v", err)
	}
}

func TestAsFixedSizeList(t *testing.T) {
	// FILE's and VECTOR's empty structs are not FIXED_SIZE_LIST.
	for _, v := range []LogicalTypeValue{&FileType{}, &VectorType{ID: 21}, &UnknownLogicalType{ID: 21}, &format.StringType{}} {
		if _, ok, err := AsFixedSizeList(v, v.FieldID()); ok || err != nil {
			t.Errorf("%s: ok %v err %v", v, ok, err)
		}
	}
	// Another id is not looked at.
	if _, ok, err := AsFixedSizeList(&UnknownLogicalType{ID: 22, Raw: []byte{0x15, 0x08, 0x15, 0x06, 0x00}}, 21); ok || err != nil {
		t.Errorf("other id: ok %v err %v", ok, err)
	}
	// Fields that are not FixedSizeListType's are an error under the id.
	for _, raw := range [][]byte{
		{0x15, 0x08, 0x00},             // num_values missing
		{0x18, 0x01, 'x', 0x00},        // field 1 a binary
		{0x25, 0x06, 0x00},             // only field 2
		{0x15, 0x08, 0x18, 0x00, 0x00}, // field 2 a binary
	} {
		_, ok, err := AsFixedSizeList(&UnknownLogicalType{ID: 21, Raw: raw}, 21)
		if ok || err == nil || !strings.Contains(err.Error(), "FixedSizeListType") {
			t.Errorf("% x: ok %v err %v", raw, ok, err)
		}
	}
	// A FILE-decoded 19 with FixedSizeListType's fields is one.
	fsl, ok, err := AsFixedSizeList(&FileType{Unmodelled: []byte{0x15, 0x08, 0x15, 0x06, 0x00}}, 19)
	if !ok || err != nil || fsl.Type != format.Float || fsl.NumValues != 3 || fsl.FieldID() != 19 {
		t.Errorf("FILE-decoded 19: %v %v %v", fsl, ok, err)
	}
}

// CheckFixedSizeList follows PR #241's LogicalTypes.md sentence by sentence.
func TestCheckFixedSizeList(t *testing.T) {
	leaf := func(length int32) *SchemaElement {
		return &SchemaElement{Name: "emb", Type: thrift.New(format.FixedLenByteArray), TypeLength: thrift.New(length), RepetitionType: thrift.New(Required)}
	}
	for _, tc := range []struct {
		name string
		t    FixedSizeListType
		e    *SchemaElement
		want string // "" for valid
	}{
		{"FLOAT", FixedSizeListType{Type: format.Float, NumValues: 128}, leaf(512), ""},
		{"DOUBLE", FixedSizeListType{Type: format.Double, NumValues: 3}, leaf(24), ""},
		{"INT32", FixedSizeListType{Type: format.Int32, NumValues: 3}, leaf(12), ""},
		{"INT64", FixedSizeListType{Type: format.Int64, NumValues: 3}, leaf(24), ""},
		{"FIXED_LEN_BYTE_ARRAY divisible", FixedSizeListType{Type: format.FixedLenByteArray, NumValues: 6}, leaf(12), ""},
		{"FIXED_LEN_BYTE_ARRAY not divisible", FixedSizeListType{Type: format.FixedLenByteArray, NumValues: 5}, leaf(12), "must be divisible by `num_values`"},
		{"BOOLEAN", FixedSizeListType{Type: format.Boolean, NumValues: 3}, leaf(3), "must not be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`"},
		{"INT96", FixedSizeListType{Type: format.Int96, NumValues: 1}, leaf(12), "must not be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`"},
		{"BYTE_ARRAY", FixedSizeListType{Type: format.ByteArray, NumValues: 1}, leaf(12), "must not be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`"},
		{"unknown type", FixedSizeListType{Type: format.Type(42), NumValues: 1}, leaf(12), "must be a fixed-width primitive physical type"},
		{"num_values 0", FixedSizeListType{Type: format.Float, NumValues: 0}, leaf(12), "must be a positive integer"},
		{"num_values negative", FixedSizeListType{Type: format.Float, NumValues: -3}, leaf(12), "must be a positive integer"},
		{"FLOAT length mismatch", FixedSizeListType{Type: format.Float, NumValues: 4}, leaf(12), "type_length = num_values × 4 = 16"},
		{"DOUBLE length mismatch", FixedSizeListType{Type: format.Double, NumValues: 3}, leaf(12), "type_length = num_values × 8 = 24"},
		{"on a BYTE_ARRAY leaf", FixedSizeListType{Type: format.Float, NumValues: 3},
			&SchemaElement{Name: "emb", Type: thrift.New(format.ByteArray)}, "must annotate a FIXED_LEN_BYTE_ARRAY leaf"},
		{"on a group", FixedSizeListType{Type: format.Float, NumValues: 3},
			&SchemaElement{Name: "emb", NumChildren: thrift.New[int32](1)}, "this one is a group"},
		{"repeated leaf", FixedSizeListType{Type: format.Float, NumValues: 3},
			&SchemaElement{Name: "emb", Type: thrift.New(format.FixedLenByteArray), TypeLength: thrift.New[int32](12), RepetitionType: thrift.New(Repeated)},
			"optional or required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckFixedSizeList(&tc.t, tc.e)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestAnnotateFixedSizeListRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *FileMetaData)
		a    Annotation
		want string
	}{
		{"id 18", nil, Annotation{ID: 18, VectorLength: 3, Element: "FLOAT"}, "one of parquet-format's ids 1-18"},
		{"id 20, the lab's VECTOR", nil, Annotation{ID: 20, VectorLength: 3, Element: "FLOAT"}, "the lab's VECTOR id"},
		{"negative id", nil, Annotation{ID: -4, VectorLength: 3, Element: "FLOAT"}, "negative"},
		{"FLOAT16 element", nil, Annotation{VectorLength: 6, Element: "FLOAT16"}, `element type "FLOAT16" is not one PR #241 allows`},
		{"INT8 element", nil, Annotation{VectorLength: 12, Element: "INT8"}, `element type "INT8" is not one PR #241 allows`},
		{"BOOLEAN element", nil, Annotation{VectorLength: 12, Element: "BOOLEAN"}, `not one PR #241 allows`},
		{"length mismatch", nil, Annotation{VectorLength: 4, Element: "FLOAT"}, "type_length = num_values × 4 = 16"},
		{"vector repetition", nil, Annotation{VectorLength: 3, Element: "FLOAT", VectorRepetition: true}, "no VECTOR repetition"},
		{"converted type", func(m *FileMetaData) { m.Schema[1].ConvertedType = thrift.New(deprecated.UTF8) }, Annotation{VectorLength: 3, Element: "FLOAT"},
			"has a converted type"},
		{"another logical type", func(m *FileMetaData) { m.Schema[1].LogicalType = LogicalType{Value: &format.UUIDType{}} },
			Annotation{VectorLength: 3, Element: "FLOAT"}, "already has logical type"},
		{"not a leaf of FIXED_LEN_BYTE_ARRAY", func(m *FileMetaData) { m.Schema[1].Type = thrift.New(format.ByteArray) },
			Annotation{VectorLength: 3, Element: "FLOAT"}, "must annotate a FIXED_LEN_BYTE_ARRAY leaf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := flbaMeta(12)
			if tc.edit != nil {
				tc.edit(m)
			}
			tc.a.Kind = KindFixedSizeList
			err := Annotate(m, []string{"emb"}, tc.a)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if _, ok := m.KeyValue(MirrorKey); ok {
				t.Error("a refused annotation was mirrored")
			}
		})
	}
	// An id another annotation of the footer already uses.
	m := flbaMeta(12)
	m.Schema = append(m.Schema, SchemaElement{Name: "emb2", Type: thrift.New(format.FixedLenByteArray), TypeLength: thrift.New[int32](12), RepetitionType: thrift.New(Optional)})
	m.Schema[0].NumChildren = thrift.New[int32](2)
	if err := Annotate(m, []string{"emb2"}, Annotation{Kind: KindVector, ID: 33, VectorLength: 3, Element: "FLOAT"}); err != nil {
		t.Fatal(err)
	}
	if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindFixedSizeList, ID: 33, VectorLength: 3, Element: "FLOAT"}); err == nil || !strings.Contains(err.Error(), "already the VECTOR of column emb2") {
		t.Errorf("shared id: err = %v", err)
	}
}

// PR #592 (refs/pull/592/head, 94d5ced) writes VECTOR under 19, as arrow-go's
// prototype does; a 2.14.0 decode sees FILE there, and ReadAnnotations
// tells VECTOR by its VECTOR-repeated middle group.
func TestVectorUnderID19(t *testing.T) {
	m := &FileMetaData{
		Version: 2,
		Schema: []SchemaElement{
			{Name: "schema", NumChildren: thrift.New[int32](1)},
			{Name: "emb", RepetitionType: thrift.New(Required), NumChildren: thrift.New[int32](1)},
			{Name: "list", RepetitionType: thrift.New(Repeated), NumChildren: thrift.New[int32](1)},
			{Name: "element", Type: thrift.New(format.Float), RepetitionType: thrift.New(Required)},
		},
		RowGroups: []RowGroup{},
	}
	if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindVector, ID: 19, VectorLength: 3}); err == nil || !strings.Contains(err.Error(), "only with VectorRepetition") {
		t.Fatalf("19 on the REPEATED list layout: err = %v", err)
	}
	if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindVector, ID: 19, VectorLength: 3, VectorRepetition: true}); err != nil {
		t.Fatal(err)
	}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	// emb's logical type: member 19 (long field header 0c 26), an empty
	// struct, the union's STOP.
	if !bytes.Contains(b, []byte{'e', 'm', 'b', 0x15, 0x02, 0x5c, 0x0c, 0x26, 0x00, 0x00}) {
		t.Errorf("footer % x has no empty member 19 on emb", b)
	}
	dec, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dec.Schema[1].LogicalType.Value.(*FileType); !ok {
		t.Fatalf("decoded %s, want FILE (2.14.0's 19)", dec.Schema[1].LogicalType.String())
	}
	anns, err := ReadAnnotations(dec)
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 1 || anns[0].Kind != KindVector || anns[0].ID != 19 || !anns[0].VectorRepetition || anns[0].VectorLength != 3 || !anns[0].InFooter || !anns[0].InKeyValue {
		t.Errorf("annotations %+v", anns)
	}
	// A real FILE group stays FILE.
	file := &FileMetaData{Version: 2, RowGroups: []RowGroup{}, Schema: []SchemaElement{
		{Name: "schema", NumChildren: thrift.New[int32](1)},
		{Name: "doc", RepetitionType: thrift.New(Optional), NumChildren: thrift.New[int32](1), LogicalType: LogicalType{Value: &FileType{}}},
		{Name: "uri", Type: thrift.New(format.ByteArray), RepetitionType: thrift.New(Optional), LogicalType: LogicalType{Value: &format.StringType{}}},
	}}
	if anns, _ := ReadAnnotations(file); len(anns) != 1 || anns[0].Kind != KindFile {
		t.Errorf("FILE group: %+v", anns)
	}
}

// PR #592: "The middle level, named `list`, must be a group with
// `repetition_type = VECTOR`, exactly one field named `element`" and "It
// must not have a logical type or converted type."
func TestAnnotateVectorRepetitionNames(t *testing.T) {
	for _, tc := range []struct {
		name          string
		middle, elem  string
		convertedList bool
		want          string
	}{
		{"bag/array", "bag", "array", false, `middle group named "list" and its field "element" (PR #592), not "bag" and "array"`},
		{"list/item", "list", "item", false, `not "list" and "item"`},
		{"converted type on the middle", "list", "element", true, `the middle group "list" must not have a converted type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &FileMetaData{Version: 2, RowGroups: []RowGroup{}, Schema: []SchemaElement{
				{Name: "schema", NumChildren: thrift.New[int32](1)},
				{Name: "emb", RepetitionType: thrift.New(Optional), NumChildren: thrift.New[int32](1)},
				{Name: tc.middle, RepetitionType: thrift.New(Repeated), NumChildren: thrift.New[int32](1)},
				{Name: tc.elem, Type: thrift.New(format.Float), RepetitionType: thrift.New(Optional)},
			}}
			if tc.convertedList {
				m.Schema[2].ConvertedType = thrift.New(deprecated.List)
			}
			err := Annotate(m, []string{"emb"}, Annotation{Kind: KindVector, VectorLength: 3, VectorRepetition: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// The REPEATED list layout keeps its writer's names.
	m := &FileMetaData{Version: 2, RowGroups: []RowGroup{}, Schema: []SchemaElement{
		{Name: "schema", NumChildren: thrift.New[int32](1)},
		{Name: "emb", RepetitionType: thrift.New(Optional), NumChildren: thrift.New[int32](1)},
		{Name: "bag", RepetitionType: thrift.New(Repeated), NumChildren: thrift.New[int32](1)},
		{Name: "array", Type: thrift.New(format.Float), RepetitionType: thrift.New(Optional)},
	}}
	if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindVector, VectorLength: 3}); err != nil {
		t.Errorf("REPEATED layout with legacy names: %v", err)
	}
}
