package schemaspec

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
)

// testPercent is registered for this package's tests: an int column type.
const testPercentProp = "write.parquet.test-percent-columns"

func init() {
	RegisterColumnType(ColumnType{Name: "test_percent", Type: iceberg.PrimitiveTypes.Int32, Property: testPercentProp})
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
	if typ, ok := compact.TypeOf("q"); !ok || typ.Name != "test_percent" {
		t.Fatalf("TypeOf(q) = %v, %v", typ, ok)
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
	if _, ok := plain.TypeOf("p"); !ok {
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
		t    ColumnType
		want string
	}{
		{ColumnType{Name: "Bad", Type: iceberg.PrimitiveTypes.Int32, Property: "x"}, "lower-case"},
		{ColumnType{Name: "double", Type: iceberg.PrimitiveTypes.Int32, Property: "x"}, "a type of the schema forms"},
		{ColumnType{Name: "other", Type: iceberg.PrimitiveTypes.Int32, Property: PropFileColumns}, "FILE's or VECTOR's"},
		{ColumnType{Name: "test_percent", Type: iceberg.PrimitiveTypes.Int32, Property: "y"}, "collides"},
		{ColumnType{Name: "other", Type: iceberg.PrimitiveTypes.Int32, Property: testPercentProp}, "collides"},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, tc.want) {
					t.Errorf("RegisterColumnType(%+v) panicked %q, want %q", tc.t, r, tc.want)
				}
			}()
			RegisterColumnType(tc.t)
		}()
	}
}
