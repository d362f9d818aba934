package schemaspec

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data/coltype"
	_ "github.com/coltype-lab/lab/types/file"
	_ "github.com/coltype-lab/lab/types/vector"
)

// testPercent is registered for this package's tests: an int column type.
const testPercentProp = "write.parquet.test-percent-columns"

func init() {
	coltype.RegisterPrimitive(coltype.Primitive{Name: "test_percent", Iceberg: iceberg.PrimitiveTypes.Int32, Property: testPercentProp})
}

func TestRegisteredColumnTypeInBothForms(t *testing.T) {
	compact, err := Parse("id:long!,p:test_percent,q:test_percent,s:string")
	if err != nil {
		t.Fatal(err)
	}
	if got := compact.Schema.Field(1).Type; !got.Equals(iceberg.PrimitiveTypes.Int32) {
		t.Fatalf("p has type %s", got)
	}
	if got := compact.Properties()[testPercentProp]; got != "p,q" {
		t.Fatalf("%s = %q, want p,q", testPercentProp, got)
	}
	if d, ok := compact.Decl("q"); !ok || d.Type().Name != "test_percent" || d.TypeName() != "test_percent" {
		t.Fatalf("Decl(q) = %v, %v", d, ok)
	}
	// The JSON form prints the type's name and reads it back.
	js, err := compact.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"type": "test_percent"`) {
		t.Fatalf("JSON form lost the type:\n%s", js)
	}
	again, err := ParseJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Properties()[testPercentProp]; got != "p,q" || !again.Schema.Equals(compact.Schema) {
		t.Fatalf("JSON round trip: %q, %s", got, again.Schema)
	}
	// Plain Iceberg JSON typed by the property instead.
	plain, err := Parse("id:long!,p:int")
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Declare(map[string]string{testPercentProp: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.Decl("p"); !ok {
		t.Fatal("Declare did not type p")
	}
}

func TestRegisteredColumnTypeRefusals(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"l:list<test_percent>", `test_percent columns are top-level only`},
		{"s:struct<p:test_percent>", `test_percent columns are top-level only`},
	} {
		if _, err := Parse(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}
	s, err := Parse("id:long!,p:string,v:vector<float32,2>")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{testPercentProp: "p"}, `column "p" (field id 2) has type string; test_percent is int`},
		{map[string]string{testPercentProp: "v"}, `column "v" is declared VECTOR and test_percent`},
		{map[string]string{testPercentProp: "nope"}, `"nope" is not a top-level column`},
	} {
		if err := s.Declare(tc.props); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Declare(%v) = %v, want %q", tc.props, err, tc.want)
		}
	}
	for _, tc := range []struct {
		t    coltype.Type
		want string
	}{
		{coltype.Type{Name: "Bad", Property: "x"}, "lower-case"},
		{coltype.Type{Name: "double", Property: "x"}, "an Iceberg type of the schema forms"},
		{coltype.Type{Name: "other", Property: "write.parquet.vector-columns", Parse: func(string, string) (coltype.Decl, error) { return nil, nil }}, "collides"},
		{coltype.Type{Name: "test_percent", Property: "y", Parse: func(string, string) (coltype.Decl, error) { return nil, nil }}, "collides"},
		{coltype.Type{Name: "other", Property: testPercentProp, Parse: func(string, string) (coltype.Decl, error) { return nil, nil }}, "collides"},
		{coltype.Type{Name: "other", Property: "z"}, "has no Parse"},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, tc.want) {
					t.Errorf("Register(%+v) panicked %q, want %q", tc.t.Name, r, tc.want)
				}
			}()
			coltype.Register(&tc.t)
		}()
	}
}
