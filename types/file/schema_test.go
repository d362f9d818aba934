package file

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

func TestNewStructDeclaresOnlyUsedChildrenAllOptional(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
		want   []iceberg.NestedField
	}{
		{
			// "A column whose values are always stored inline may define just inline."
			name:   "inline only",
			fields: []Field{FieldInline, FieldContentType},
			want: []iceberg.NestedField{
				{ID: 14, Name: "content_type", Type: iceberg.PrimitiveTypes.String},
				{ID: 16, Name: "inline", Type: iceberg.PrimitiveTypes.Binary},
			},
		},
		{
			name:   "external reference",
			fields: []Field{FieldSize, FieldURI, FieldOffset},
			want: []iceberg.NestedField{
				{ID: 11, Name: "uri", Type: iceberg.PrimitiveTypes.String},
				{ID: 12, Name: "offset", Type: iceberg.PrimitiveTypes.Int64},
				{ID: 13, Name: "size", Type: iceberg.PrimitiveTypes.Int64},
			},
		},
		{
			name:   "all",
			fields: AllFields,
			want: []iceberg.NestedField{
				{ID: 11, Name: "uri", Type: iceberg.PrimitiveTypes.String},
				{ID: 12, Name: "offset", Type: iceberg.PrimitiveTypes.Int64},
				{ID: 13, Name: "size", Type: iceberg.PrimitiveTypes.Int64},
				{ID: 14, Name: "content_type", Type: iceberg.PrimitiveTypes.String},
				{ID: 15, Name: "checksum", Type: iceberg.PrimitiveTypes.String},
				{ID: 16, Name: "inline", Type: iceberg.PrimitiveTypes.Binary},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := NewStruct(10, tc.fields...)
			if err != nil {
				t.Fatal(err)
			}
			want := &iceberg.StructType{FieldList: tc.want}
			if !st.Equals(want) {
				t.Fatalf("got %s, want %s", st, want)
			}
			for _, f := range st.FieldList {
				if f.Required {
					t.Errorf("child %s is required; FILE children are optional", f.Name)
				}
			}
		})
	}
}

func TestNewStructErrors(t *testing.T) {
	for name, fields := range map[string][]Field{
		"no children": nil,
		"duplicate":   {FieldURI, FieldURI},
		"unknown":     {Field(9)},
	} {
		if _, err := NewStruct(1, fields...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestFieldSpecsMatchSpecPhysicalTypes(t *testing.T) {
	// The spec's field table: uri/content_type/checksum are STRING byte
	// arrays, offset/size INT64, inline a plain BYTE_ARRAY.
	want := map[string]struct {
		phys   ParquetPhysical
		str    bool
		offset int
	}{
		"uri": {ByteArray, true, 1}, "offset": {Int64, false, 2}, "size": {Int64, false, 3},
		"content_type": {ByteArray, true, 4}, "checksum": {ByteArray, true, 5}, "inline": {ByteArray, false, 6},
	}
	for _, f := range AllFields {
		s := f.Spec()
		w := want[s.Name]
		if s.Physical != w.phys || s.StringAnnotated != w.str || s.IDOffset != w.offset {
			t.Errorf("%s: got %+v, want %+v", s.Name, s, w)
		}
	}
	if got := Field(42).Spec(); got != (FieldSpec{}) {
		t.Errorf("invalid field spec = %+v", got)
	}
	if ChildID(5, Field(-1)) != -1 {
		t.Error("ChildID of an invalid field is not -1")
	}
}

func TestMirrorIDs(t *testing.T) {
	// Iceberg v4 proposal: uri +1, offset +2, size +3, content_type +4,
	// checksum +5; inline +6 is the lab's assumption.
	if got, want := ReservedIDs(100), []int{101, 102, 103, 104, 105, 106}; !equalInts(got, want) {
		t.Fatalf("ReservedIDs(100) = %v, want %v", got, want)
	}
	st := MirrorStruct(7)
	for i, f := range st.FieldList {
		if f.ID != 8+i || f.Name != AllFields[i].Name() {
			t.Errorf("mirror child %d = %d %s", i, f.ID, f.Name)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCheckMirror(t *testing.T) {
	col, err := Column(2, "image", false, FieldURI, FieldSize)
	if err != nil {
		t.Fatal(err)
	}
	id := iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}
	tests := []struct {
		name    string
		fields  []iceberg.NestedField
		wantErr string
	}{
		{"ok", []iceberg.NestedField{id, col, {ID: 9, Name: "label", Type: iceberg.PrimitiveTypes.String}}, ""},
		{
			// An undeclared child's id (checksum = 2+5) is still reserved.
			"collision", []iceberg.NestedField{id, col, {ID: 7, Name: "label", Type: iceberg.PrimitiveTypes.String}},
			`reserves field id 7 for an implicit child, but field "label" uses it`,
		},
		{
			"wrong child id", []iceberg.NestedField{id, {ID: 2, Name: "image", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
				{ID: 5, Name: "uri", Type: iceberg.PrimitiveTypes.String},
			}}}},
			`child "uri" has field id 5, want 3`,
		},
		{"not a struct", []iceberg.NestedField{id, {ID: 2, Name: "image", Type: iceberg.PrimitiveTypes.String}}, "want a struct"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMirror(iceberg.NewSchema(0, tc.fields...), 2)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
	if err := CheckMirror(iceberg.NewSchema(0, id), 2); err == nil {
		t.Error("missing column: no error")
	}
}

func TestParseStructFindsChildrenByName(t *testing.T) {
	// Other order, children missing: found by name.
	st := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 30, Name: "inline", Type: iceberg.PrimitiveTypes.Binary},
		{ID: 31, Name: "uri", Type: iceberg.PrimitiveTypes.String},
	}}
	l, err := ParseStruct(st)
	if err != nil {
		t.Fatal(err)
	}
	if l.Position(FieldInline) != 0 || l.Position(FieldURI) != 1 || l.Has(FieldSize) || l.Position(FieldSize) != -1 {
		t.Fatalf("positions: inline %d uri %d size %v", l.Position(FieldInline), l.Position(FieldURI), l.Has(FieldSize))
	}
	if got := fieldNames(l.Fields()); strings.Join(got, ",") != "uri,inline" {
		t.Errorf("Fields() = %v", got)
	}
}

func TestParseStructRefuses(t *testing.T) {
	str, i64 := iceberg.PrimitiveTypes.String, iceberg.PrimitiveTypes.Int64
	tests := []struct {
		name    string
		fields  []iceberg.NestedField
		wantErr string
	}{
		{"empty", nil, "no children"},
		{"unknown child", []iceberg.NestedField{{ID: 1, Name: "uri", Type: str}, {ID: 2, Name: "mtime", Type: i64}}, `child "mtime" (field id 2) is not one of uri, offset, size, content_type, checksum, inline`},
		{"case differs", []iceberg.NestedField{{ID: 1, Name: "URI", Type: str}}, `child "URI"`},
		{"wrong type", []iceberg.NestedField{{ID: 1, Name: "size", Type: iceberg.PrimitiveTypes.Int32}}, `child "size" (field id 1) has type int, want long`},
		{"inline as string", []iceberg.NestedField{{ID: 1, Name: "inline", Type: str}}, `child "inline" (field id 1) has type string, want binary`},
		{"required", []iceberg.NestedField{{ID: 1, Name: "uri", Type: str, Required: true}}, `child "uri" (field id 1) is required; FILE children must be optional`},
		{"duplicate", []iceberg.NestedField{{ID: 1, Name: "uri", Type: str}, {ID: 2, Name: "uri", Type: str}}, `declares child "uri" twice (field ids 1 and 2)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseStruct(&iceberg.StructType{FieldList: tc.fields})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	all := MirrorStruct(0)
	tests := []struct {
		name string
		st   *iceberg.StructType
		v    *Value
	}{
		{"null", all, nil},
		{"inline", all, &Value{Inline: []byte("hi"), ContentType: Ptr("text/plain")}},
		{"empty inline stays set", all, &Value{Inline: []byte{}}},
		{"range", all, &Value{URI: Ptr("s3://b/x"), Offset: Ptr[int64](4), Size: Ptr[int64](10), Checksum: Ptr("CRC32:00000000")}},
		{"empty strings kept", all, &Value{URI: Ptr(""), ContentType: Ptr(""), Inline: []byte{1}}},
		{"subset struct", mustStruct(t, 0, FieldURI, FieldSize), &Value{URI: Ptr("a.jpg"), Size: Ptr[int64](3)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := tc.v.ToRecord(tc.st)
			if err != nil {
				t.Fatal(err)
			}
			if (rec == nil) != (tc.v == nil) {
				t.Fatalf("record %v for value %v", rec, tc.v)
			}
			got, err := FromRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.v) {
				t.Fatalf("round trip: got %v, want %v", got, tc.v)
			}
		})
	}
}

func mustStruct(t *testing.T, id int, fs ...Field) *iceberg.StructType {
	t.Helper()
	st, err := NewStruct(id, fs...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRecordValues(t *testing.T) {
	st := mustStruct(t, 0, FieldInline, FieldURI, FieldSize)
	rec, err := (&Value{URI: Ptr("u"), Size: Ptr[int64](2), Inline: []byte("ab")}).ToRecord(st)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.String(); got != `{uri: "u", size: 2, inline: 0x6162}` {
		t.Errorf("record = %s", got)
	}
	// A nil []byte in a record is a null inline, not an empty one.
	rec.Set(2, nil)
	v, err := FromRecord(rec)
	if err != nil || v.Inline != nil {
		t.Errorf("null inline decoded as %v, %v", v, err)
	}
}

func TestEncodeRefusesUndeclaredChild(t *testing.T) {
	st := mustStruct(t, 0, FieldURI)
	_, err := (&Value{URI: Ptr("x"), Checksum: Ptr("MD5:00")}).ToRecord(st)
	if err == nil || !strings.Contains(err.Error(), "holds checksum, which the group does not declare (declared: uri)") {
		t.Fatalf("error %v", err)
	}
}

func TestDecodeWrongGoType(t *testing.T) {
	st := mustStruct(t, 0, FieldOffset, FieldURI)
	rec := data.NewStructRecord(st)
	if err := rec.SetField("offset", int32(3)); err != nil {
		t.Fatal(err)
	}
	_, err := FromRecord(rec)
	if err == nil || !strings.Contains(err.Error(), `FILE child "offset" (field id 2) holds int32, want int64`) {
		t.Fatalf("error %v", err)
	}
}

// CheckChildren is the one check of a FILE group's children, for Iceberg
// struct types and Parquet schemas alike. LogicalTypes.md (FILE, 2.14.0):
// fields are "identified by name case sensitively", "any field that is
// present has a field repetition type of `OPTIONAL`", and the field table
// gives uri, content_type and checksum as STRING, offset and size as INT64
// and inline as BYTE_ARRAY.
func TestCheckChildren(t *testing.T) {
	opt := func(name string, typ ChildType, declared string) Child {
		return Child{Name: name, Type: typ, Declared: declared, Optional: true, Repetition: "OPTIONAL"}
	}
	all := []Child{
		opt("inline", TypeByteArray, "BYTE_ARRAY"), opt("uri", TypeString, "BYTE_ARRAY (STRING)"),
		opt("size", TypeInt64, "INT64"), opt("offset", TypeInt64, "INT64"),
		opt("checksum", TypeString, "BYTE_ARRAY (STRING)"), opt("content_type", TypeString, "BYTE_ARRAY (STRING)"),
	}
	got, err := CheckChildren(all, ParquetNames)
	want := []Field{FieldInline, FieldURI, FieldSize, FieldOffset, FieldChecksum, FieldContentType}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("CheckChildren(all six, any order) = %v, %v; want %v", got, err, want)
	}
	required := opt("uri", TypeString, "BYTE_ARRAY (STRING)")
	required.Optional, required.Repetition = false, "REQUIRED"
	withID := opt("uri", TypeString, "BYTE_ARRAY (STRING)")
	withID.ID, withID.HasID = 7, true
	for _, tc := range []struct {
		name     string
		children []Child
		wantErr  string
	}{
		{"no children", nil, "has no children"},
		{"unknown name", []Child{opt("mtime", TypeInt64, "INT64")}, `child "mtime" is not one of uri, offset`},
		{"case differs", []Child{opt("Uri", TypeString, "BYTE_ARRAY (STRING)")}, `child "Uri" is not one of`},
		{"twice", []Child{opt("uri", TypeString, "BYTE_ARRAY (STRING)"), opt("uri", TypeString, "BYTE_ARRAY (STRING)")}, `declares child "uri" twice`},
		{"REQUIRED", []Child{required}, `child "uri" is REQUIRED; FILE children must be optional`},
		{"uri without STRING", []Child{opt("uri", TypeByteArray, "BYTE_ARRAY")}, `child "uri" has type BYTE_ARRAY, want STRING`},
		{"content_type without STRING", []Child{opt("content_type", TypeByteArray, "BYTE_ARRAY")}, `child "content_type" has type BYTE_ARRAY, want STRING`},
		{"checksum without STRING", []Child{opt("checksum", TypeByteArray, "BYTE_ARRAY")}, `child "checksum" has type BYTE_ARRAY, want STRING`},
		{"inline as STRING", []Child{opt("inline", TypeString, "BYTE_ARRAY (STRING)")}, `child "inline" has type BYTE_ARRAY (STRING), want BYTE_ARRAY`},
		{"size as INT32", []Child{opt("size", "", "INT32")}, `child "size" has type INT32, want INT64`},
		{"offset as a timestamp", []Child{opt("offset", "", "INT64 (TIMESTAMP)")}, `child "offset" has type INT64 (TIMESTAMP), want INT64`},
		{"field id shown", []Child{withID, withID}, `declares child "uri" twice (field ids 7 and 7)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CheckChildren(tc.children, ParquetNames); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
