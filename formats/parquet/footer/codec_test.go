package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

func TestRoundTripGeneratedFiles(t *testing.T) {
	for _, g := range generatedFiles(t) {
		t.Run(g.name, func(t *testing.T) {
			f := readFooterBytes(t, g.data)
			enc, err := Encode(f.Meta)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !bytes.Equal(enc, f.Raw) {
				t.Fatalf("re-encoded footer differs at byte %d (%d vs %d bytes)", firstDifference(enc, f.Raw), len(enc), len(f.Raw))
			}
			if want := int64(len(g.data)) - 8 - f.Length; f.Offset != want {
				t.Errorf("footer offset %d, want %d", f.Offset, want)
			}
			m := f.Meta
			if m.NumRows != int64(g.rows) || len(m.RowGroups) != g.rowGroups {
				t.Errorf("num_rows %d, row groups %d; want %d, %d", m.NumRows, len(m.RowGroups), g.rows, g.rowGroups)
			}
			tree, err := newSchemaTree(m.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(tree.leaves()); got != g.leaves {
				t.Errorf("%d leaves, want %d", got, g.leaves)
			}
			for i, rg := range m.RowGroups {
				if len(rg.Columns) != g.leaves {
					t.Errorf("row group %d has %d column chunks, want %d", i, len(rg.Columns), g.leaves)
				}
			}
			for k, v := range g.kv {
				if got, ok := m.KeyValue(k); !ok || got != v {
					t.Errorf("key/value %q = %q, %v; want %q", k, got, ok, v)
				}
			}
		})
	}
}

// The statistics survive with their values, not just their bytes.
func TestDecodeStatisticsValues(t *testing.T) {
	m := readFooterBytes(t, writeParquet(t, flatRows())).Meta
	cc := m.RowGroups[0].Columns[0] // id
	if got := strings.Join(cc.MetaData.PathInSchema, "."); got != "id" {
		t.Fatalf("first column chunk is %q", got)
	}
	st := cc.MetaData.Statistics
	if st == nil {
		t.Fatal("no statistics on column id")
	}
	if lo, hi := int64(binary.LittleEndian.Uint64(st.MinValue)), int64(binary.LittleEndian.Uint64(st.MaxValue)); lo != 1 || hi != 3 {
		t.Errorf("id min/max = %d/%d, want 1/3", lo, hi)
	}
	if !st.NullCount.Valid || st.NullCount.V != 0 {
		t.Errorf("id null_count = %+v, want present 0", st.NullCount)
	}
	opt := m.RowGroups[0].Columns[4]
	if opt.MetaData.Statistics.NullCount.V != 1 {
		t.Errorf("opt null_count = %d, want 1", opt.MetaData.Statistics.NullCount.V)
	}
	var price *SchemaElement
	for i := range m.Schema {
		if m.Schema[i].Name == "price" {
			price = &m.Schema[i]
		}
	}
	d, ok := price.LogicalType.Value.(*format.DecimalType)
	if !ok || d.Precision != 10 || d.Scale != 2 {
		t.Errorf("price logical type %v, want DECIMAL(10,2)", price.LogicalType.String())
	}
}

// An optional field that is present with its zero value stays present, and an
// absent one stays absent: the distinction parquet-go's own model loses.
func TestPresenceOfZeroValuesSurvives(t *testing.T) {
	m := &FileMetaData{
		Version: 2,
		Schema: []SchemaElement{
			{Name: "root", NumChildren: thrift.New[int32](2)},
			{Name: "a", Type: thrift.New(format.Int32), RepetitionType: thrift.New(Required), FieldID: thrift.New[int32](0)},
			{Name: "b", Type: thrift.New(format.ByteArray), RepetitionType: thrift.New(Optional),
				ConvertedType: thrift.New(deprecated.UTF8), LogicalType: LogicalType{Value: &format.StringType{}}},
		},
		RowGroups:        []RowGroup{},
		KeyValueMetadata: []KeyValue{{Key: "no value"}, {Key: "empty", Value: thrift.New("")}},
		CreatedBy:        thrift.New(""),
	}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Schema[1].FieldID.Valid || got.Schema[2].FieldID.Valid {
		t.Errorf("field_id presence: a=%v b=%v, want true false", got.Schema[1].FieldID.Valid, got.Schema[2].FieldID.Valid)
	}
	if got.KeyValueMetadata[0].Value.Valid || !got.KeyValueMetadata[1].Value.Valid {
		t.Errorf("key/value presence: %+v", got.KeyValueMetadata)
	}
	if !got.CreatedBy.Valid || got.CreatedBy.V != "" {
		t.Errorf("created_by = %+v, want present and empty", got.CreatedBy)
	}
	again, _ := Encode(got)
	if !bytes.Equal(again, b) {
		t.Error("second encode differs")
	}
}

// minimalMeta is a small valid footer model for hand-made cases.
func minimalMeta() *FileMetaData {
	return &FileMetaData{
		Version: 1,
		Schema: []SchemaElement{
			{Name: "root", NumChildren: thrift.New[int32](1)},
			{Name: "g", NumChildren: thrift.New[int32](1), RepetitionType: thrift.New(Optional)},
			{Name: "x", Type: thrift.New(format.Int64), RepetitionType: thrift.New(Optional)},
		},
		NumRows:   0,
		RowGroups: []RowGroup{},
	}
}

func TestUnknownLogicalTypeKeepsItsBytes(t *testing.T) {
	// A member struct with fields: i32 field 1 = 7, binary field 2 = "ab".
	raw := []byte{0x15, 0x0e, 0x18, 0x02, 'a', 'b', 0x00}
	for _, tc := range []struct {
		name string
		id   int16
	}{{"short field header", 9}, {"long field header", 42}, {"large id", 2555}} {
		t.Run(tc.name, func(t *testing.T) {
			m := minimalMeta()
			m.Schema[1].LogicalType = LogicalType{Value: &UnknownLogicalType{ID: tc.id, Raw: raw}}
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			u, ok := got.Schema[1].LogicalType.Value.(*UnknownLogicalType)
			if !ok || u.ID != tc.id || !bytes.Equal(u.Raw, raw) {
				t.Fatalf("decoded %#v, want unknown id %d with its bytes", got.Schema[1].LogicalType.Value, tc.id)
			}
			if again, _ := Encode(got); !bytes.Equal(again, b) {
				t.Error("re-encode differs")
			}
		})
	}
}

// The VECTOR id is a per-decode setting; the annotation remembers its id.
func TestVectorIDIsConfigurable(t *testing.T) {
	m := minimalMeta()
	m.Schema[1].LogicalType = LogicalType{Value: &VectorType{ID: 30}}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []Option
		want string
	}{
		{"default id 20 reads 30 as unknown", nil, "UNKNOWN_ANNOTATION(id=30)"},
		{"configured 30", []Option{WithVectorID(30)}, "VECTOR(id=30)"},
		{"configured 31", []Option{WithVectorID(31)}, "UNKNOWN_ANNOTATION(id=30)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(b, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if s := got.Schema[1].LogicalType.String(); s != tc.want {
				t.Errorf("decoded %s, want %s", s, tc.want)
			}
			if again, _ := Encode(got); !bytes.Equal(again, b) {
				t.Error("re-encode differs")
			}
		})
	}
	for _, id := range []int16{-1, 0, 1, 9, 19} {
		if _, err := Decode(b, WithVectorID(id)); err == nil || !strings.Contains(err.Error(), "not usable") {
			t.Errorf("WithVectorID(%d): err = %v, want refusal", id, err)
		}
	}
	// 19 is PR #592's and arrow-go#854's VECTOR id: it may be written, and
	// a decode reads it as FILE (2.14.0's 19); other standard ids may not.
	m.Schema[1].LogicalType = LogicalType{Value: &VectorType{ID: 19}}
	if b19, err := Encode(m); err != nil {
		t.Errorf("encoding VECTOR under id 19: %v", err)
	} else if got, err := Decode(b19); err != nil || got.Schema[1].LogicalType.String() != "FILE" {
		t.Errorf("VECTOR under id 19 decodes as %v (%v), want FILE", got.Schema[1].LogicalType.String(), err)
	}
	m.Schema[1].LogicalType = LogicalType{Value: &VectorType{ID: 18}}
	if _, err := Encode(m); err == nil || !strings.Contains(err.Error(), "collides") {
		t.Errorf("encoding VECTOR under id 18: err = %v", err)
	}
	m.Schema[1].LogicalType = LogicalType{Value: &UnknownLogicalType{ID: 5}}
	if _, err := Encode(m); err == nil {
		t.Error("encoding an unknown annotation under DECIMAL's id 5 succeeded")
	}
}

func TestFileAndVectorStructsWithFieldsAreKept(t *testing.T) {
	extra := []byte{0x15, 0x04, 0x00} // field 1: i32 2; STOP
	m := minimalMeta()
	m.Schema[1].LogicalType = LogicalType{Value: &FileType{Unmodelled: extra}}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := got.Schema[1].LogicalType.Value.(*FileType); !ok || !bytes.Equal(f.Unmodelled, extra) {
		t.Fatalf("decoded %#v", got.Schema[1].LogicalType.Value)
	}
	m.Schema[1].LogicalType = LogicalType{Value: &FileType{Unmodelled: []byte{0x15}}}
	if _, err := Encode(m); err == nil {
		t.Error("encoding a FILE with truncated kept bytes succeeded")
	}
}

// footerOf encodes minimalMeta with a change.
func footerOf(t *testing.T, change func(*FileMetaData)) []byte {
	t.Helper()
	m := minimalMeta()
	change(m)
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeErrors(t *testing.T) {
	valid := footerOf(t, func(*FileMetaData) {})
	// Logical type union with two members: STRING (1) then MAP (2).
	twoMembers := footerOf(t, func(m *FileMetaData) { m.Schema[1].LogicalType = LogicalType{Value: &format.StringType{}} })
	i := bytes.Index(twoMembers, []byte{0x1c, 0x00, 0x00}) // member 1 {} STOP of union
	if i < 0 {
		t.Fatal("no STRING member in encoding")
	}
	twoMembers = append(append(append([]byte{}, twoMembers[:i+2]...), 0x1c, 0x00), twoMembers[i+2:]...)

	deep := []byte{}
	for range 200 {
		deep = append(deep, 0x1c) // field +1, struct
	}
	cases := []struct {
		name, data, want string
	}{
		{"empty", "", "cut off"},
		{"truncated", string(valid[:len(valid)/2]), "at footer byte"},
		{"list size bomb", "\x19\xfc\xff\xff\xff\x07", "list of 16777215 elements exceeds the 0 bytes left"},
		{"binary length bomb", "\x48\xff\xff\xff\xff\x07", "binary value needs 2147483647 bytes, 0 are left"},
		{"nesting bomb", string(deep), "nest deeper than 64"},
		{"unknown thrift type", "\x1e\x00", "unknown thrift type 14"},
		{"missing required field", "\x00", "missing required field"},
		{"wrong field type", "\x18\x01a\x00", "type mismatch"},
		{"trailing bytes", string(valid) + "xy", "2 bytes follow the FileMetaData"},
		{"two union members", string(twoMembers), "two members (ids 1 and 2)"},
		{"num_children past the end", string(footerOf(t, func(m *FileMetaData) { m.Schema[1].NumChildren = thrift.New[int32](5) })),
			`("g") has num_children 5, but only 1 elements follow it`},
		{"negative num_children", string(footerOf(t, func(m *FileMetaData) { m.Schema[1].NumChildren = thrift.New[int32](-3) })),
			`("g") has num_children -3`},
		{"orphan elements", string(footerOf(t, func(m *FileMetaData) { m.Schema[0].NumChildren = thrift.New[int32](0) })),
			`holds only 1; element 1 ("g") has no parent`},
		{"schema deeper than 255 levels", string(footerOf(t, func(m *FileMetaData) {
			m.Schema = []SchemaElement{{Name: "root", NumChildren: thrift.New[int32](1)}}
			for range 1100 {
				m.Schema = append(m.Schema, SchemaElement{Name: "g", NumChildren: thrift.New[int32](1), RepetitionType: thrift.New(Optional)})
			}
			m.Schema = append(m.Schema, SchemaElement{Name: "x", Type: thrift.New(format.Int32), RepetitionType: thrift.New(Optional)})
		})), `schema element 256 ("g") is nested 256 levels deep, more than 255: schemas nest at most 255 levels`},
		{"no schema", string(footerOf(t, func(m *FileMetaData) { m.Schema = []SchemaElement{} })), "no elements"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode([]byte(tc.data))
			if err == nil {
				t.Fatalf("decoded %+v, want error containing %q", m, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Errorf("error %T is not a *DecodeError", err)
			}
		})
	}
}

func TestDecodeErrorNamesOffset(t *testing.T) {
	valid := footerOf(t, func(*FileMetaData) {})
	_, err := Decode(valid[:len(valid)-1])
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset != int64(len(valid)-1) {
		t.Fatalf("err = %v, want a DecodeError at footer byte %d", err, len(valid)-1)
	}
	if !strings.Contains(err.Error(), "at footer byte") {
		t.Errorf("error %q does not name the byte", err)
	}
}

// Names that are not UTF-8 are a defined result: kept byte for byte.
func TestNonUTF8NamesAreKept(t *testing.T) {
	b := footerOf(t, func(m *FileMetaData) { m.Schema[2].Name = "x\xff\xfe" })
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema[2].Name != "x\xff\xfe" {
		t.Errorf("name = %q", m.Schema[2].Name)
	}
	if again, _ := Encode(m); !bytes.Equal(again, b) {
		t.Error("re-encode differs")
	}
	if err := Annotate(m, []string{"g"}, Annotation{Kind: KindFile}); err == nil {
		t.Error("annotating a group with a non-UTF-8 child name as FILE succeeded")
	}
}
