package schemaspec

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/types/file"
	"github.com/coltype-lab/lab/types/vector"
)

func TestParseCompact(t *testing.T) {
	spec, err := Parse(" id : long! , tags:list<string!>, m:map<string,struct<a:int!,b:decimal(10,2)>!>, emb:vector<float32,4>, img:file<uri,size>, doc:variant, fx:fixed[3], after:int")
	if err != nil {
		t.Fatal(err)
	}
	want := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "tags", Type: &iceberg.ListType{ElementID: 3, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}},
		iceberg.NestedField{ID: 4, Name: "m", Type: &iceberg.MapType{KeyID: 5, KeyType: iceberg.PrimitiveTypes.String, ValueID: 6, ValueRequired: true,
			ValueType: &iceberg.StructType{FieldList: []iceberg.NestedField{
				{ID: 7, Name: "a", Type: iceberg.PrimitiveTypes.Int32, Required: true},
				{ID: 8, Name: "b", Type: iceberg.DecimalTypeOf(10, 2)},
			}}}},
		iceberg.NestedField{ID: 9, Name: "emb", Type: iceberg.FixedTypeOf(16)},
		// FILE: the children sit at the mirror's offsets from the column's id.
		iceberg.NestedField{ID: 10, Name: "img", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 11, Name: "uri", Type: iceberg.PrimitiveTypes.String},
			{ID: 13, Name: "size", Type: iceberg.PrimitiveTypes.Int64},
		}}},
		iceberg.NestedField{ID: 17, Name: "doc", Type: iceberg.VariantType{}},
		iceberg.NestedField{ID: 18, Name: "fx", Type: iceberg.FixedTypeOf(3)},
		iceberg.NestedField{ID: 19, Name: "after", Type: iceberg.PrimitiveTypes.Int32},
	)
	if !spec.Schema.Equals(want) {
		t.Fatalf("schema\n%s\nwant\n%s", spec.Schema, want)
	}
	if got := spec.Properties(); got[file.PropColumns] != "img" || got[vector.PropColumns] != "emb:vector<float32,4>" || len(got) != 2 {
		t.Fatalf("properties %v", got)
	}
}

func TestParseCompactErrors(t *testing.T) {
	for _, tt := range []struct{ in, msg string }{
		{"", "want a column name"},
		{"id", `want ':' after column name "id"`},
		{"id:", `column "id": want a type`},
		{"id:lon", `unknown type "lon"`},
		{"id:long,id:int", `column "id" is declared twice`},
		{"id:long x:int", `want "," before the next column`},
		{"d:decimal(39,2)", "decimal(39,2) needs 1 <= precision <= 38"},
		{"d:decimal(4,5)", "scale <= precision"},
		{"d:decimal(4)", `want ','`},
		{"f:fixed[0]", "fixed[0] needs a length"},
		{"l:list<int", `want '>' to close list<`},
		{"m:map<int>", `want ','`},
		{"s:struct<a:int", `want ',' or '>'`},
		{"s:struct<e:file>", "FILE columns are top-level only"},
		{"l:list<vector<float32,2>>", "VECTOR columns are top-level only"},
		{"e:vector<float32,0>", `dimension "0" is not a positive integer`},
		{"e:vector<bfloat16,2>", "no Parquet representation"},
		{"e:vector<complex,2>", "complex"},
		{"f:file<url>", `"url" is not a FILE child`},
		{"f:file<uri,uri>", "named twice"},
	} {
		_, err := Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tt.in, err, tt.msg)
		}
	}
}

func TestParseJSON(t *testing.T) {
	doc := `{"type":"struct","schema-id":3,"fields":[
		{"id":1,"name":"id","required":true,"type":"long"},
		{"id":2,"name":"emb","required":false,"type":"vector<int8,5>"},
		{"id":3,"name":"img","required":true,"type":"file"},
		{"id":20,"name":"s","required":false,"type":{"type":"struct","fields":[{"id":21,"name":"x","required":false,"type":"string"}]}}]}`
	spec, err := ParseJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := spec.Schema.FindFieldByName("emb")
	if !emb.Type.Equals(iceberg.FixedTypeOf(5)) {
		t.Errorf("emb is %s", emb.Type)
	}
	inline, ok := spec.Schema.FindFieldByName("img.inline")
	if !ok || inline.ID != 9 || !inline.Type.Equals(iceberg.PrimitiveTypes.Binary) {
		t.Errorf("img.inline = %+v, %v; want field id 3+6", inline, ok)
	}
	if v, ok := vector.Lookup(spec.Decls, "emb"); !ok || v.Element != vector.Int8 || v.Dim != 5 || !slices.Equal(file.Columns(spec.Decls), []string{"img"}) {
		t.Errorf("declarations: %v", spec.Decls)
	}
	// Plain Iceberg JSON is typed by the Parquet properties instead.
	plain, err := json.Marshal(spec.Schema)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseJSON(plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Decls) != 0 {
		t.Fatal("plain JSON declared lab types by itself")
	}
	if err := again.Declare(spec.Properties()); err != nil {
		t.Fatal(err)
	}
	if !again.Schema.Equals(spec.Schema) || again.Properties()[vector.PropColumns] != "emb:vector<int8,5>" || again.Properties()[file.PropColumns] != "img" {
		t.Errorf("declared from properties: %v", again.Properties())
	}

	for _, tt := range []struct{ doc, msg string }{
		{`{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"file"},{"id":2,"name":"b","required":false,"type":"int"}]}`, "multiple fields for id 2: uri and b"},
		{`{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"vector<float32,x>"}]}`, `field 0 ("a")`},
		{`{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"nope"}]}`, "schema JSON"},
		{`[1]`, "schema JSON"},
	} {
		if _, err := ParseJSON([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseJSON(%s) = %v, want an error containing %q", tt.doc, err, tt.msg)
		}
	}
}

func TestDeclareErrors(t *testing.T) {
	spec, err := Parse("id:long,blob:binary,fx:fixed[8],img:file")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		props map[string]string
		msg   string
	}{
		{map[string]string{file.PropColumns: "nope"}, `"nope" is not a top-level column`},
		{map[string]string{file.PropColumns: "blob"}, `column "blob" (field id 2) has type binary; a FILE column is a struct of FILE children`},
		{map[string]string{file.PropColumns: "img:file<uri>"}, "the property lists column names"},
		{map[string]string{vector.PropColumns: "fx:float32:3"}, `column "fx" (field id 3) has type fixed[8]; vector<float32,3> needs fixed[12]`},
		{map[string]string{vector.PropColumns: "fx:vector<float32,3>"}, "vector<float32,3> needs fixed[12]"},
		{map[string]string{vector.PropColumns: "fx:float32"}, `column "fx": "float32" is not vector<ELEMENT,DIM> (or the legacy ELEMENT:DIM)`},
		{map[string]string{vector.PropColumns: "fx"}, `column "fx": no type`},
		{map[string]string{vector.PropColumns: ":vector<int8,8>"}, "has no column name"},
		{map[string]string{vector.PropColumns: "fx:vector<float32>"}, `column "fx": "vector<float32>" is not vector<ELEMENT,DIM>`},
		{map[string]string{vector.PropColumns: "img:float32:2"}, "declared FILE and VECTOR"},
		{map[string]string{vector.PropColumns: "img:vector<float32,2>"}, "declared FILE and VECTOR"},
	} {
		if err := spec.Declare(tt.props); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Declare(%v) = %v, want an error containing %q", tt.props, err, tt.msg)
		}
	}
	// The legacy spelling reads as the canonical one, which is what is
	// written back.
	if err := spec.Declare(map[string]string{vector.PropColumns: "fx:float32:2", file.PropColumns: "img"}); err != nil {
		t.Fatal(err)
	}
	if got := spec.Properties(); got[vector.PropColumns] != "fx:vector<float32,2>" || got[file.PropColumns] != "img" {
		t.Errorf("properties %v", got)
	}
	if err := spec.Declare(map[string]string{vector.PropColumns: "fx:vector<float32,2>"}); err != nil {
		t.Errorf("the canonical spelling of the same declaration: %v", err)
	}
	if err := spec.Declare(map[string]string{vector.PropColumns: "fx:vector<int8,8>"}); err == nil || !strings.Contains(err.Error(), "declared vector<float32,2> and vector<int8,8>") {
		t.Errorf("a second declaration that disagrees: %v", err)
	}
}
