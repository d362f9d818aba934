package vector

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
)

func TestParseDeclarations(t *testing.T) {
	for _, list := range []string{
		" emb:vector<float32,768> , ,small: vector< int8 , 3 >",
		" emb:float32:768 , ,small: int8 :3", // the legacy spelling
		"emb:vector<float32,768>,small:int8:3",
	} {
		got, err := ParseDeclarations(list)
		if err != nil {
			t.Fatalf("ParseDeclarations(%q): %v", list, err)
		}
		want := []Declaration{{"emb", Float32, 768}, {"small", Int8, 3}}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("ParseDeclarations(%q) = %+v, want %+v", list, got, want)
		}
		if s := got[0].String(); s != "emb:vector<float32,768>" || got[0].TypeName() != "vector<float32,768>" {
			t.Fatalf("String %q, TypeName %q", s, got[0].TypeName())
		}
	}
	for _, tt := range []struct{ list, msg string }{
		{"emb:float32", `column "emb": "float32" is not vector<ELEMENT,DIM> (or the legacy ELEMENT:DIM)`},
		{"emb", `column "emb": no type: want emb:vector<ELEMENT,DIM>`},
		{":vector<float32,4>", `":vector<float32,4>" has no column name`},
		{"emb:vector<float32>", `column "emb": "vector<float32>" is not vector<ELEMENT,DIM>: want an element type and a dimension`},
		{"emb:vector<float32,4,5>", `column "emb": "vector<float32,4,5>" is not vector<ELEMENT,DIM>`},
		{"emb:vector<float32,4", `column "emb": "vector<float32,4" is not vector<ELEMENT,DIM>`},
		{"emb:vector(float32,4)", `column "emb": "vector(float32" is not vector<ELEMENT,DIM>`},
		{"emb:bfloat16:8", `column "emb": element type bfloat16 has no Parquet representation`},
		{"emb:vector<bfloat16,8>", `column "emb": element type bfloat16 has no Parquet representation`},
		{"emb:float32:0", `column "emb": dimension "0" is not a positive integer`},
		{"emb:vector<float32,x>", `column "emb": dimension "x" is not a positive integer`},
		{"emb:vector<float32,16777217>", "above the lab's limit of 16777216"},
		{"a:vector<int8,2>,emb:complex:4", `column "emb": vector: unknown element type "complex"`},
	} {
		if _, err := ParseDeclarations(tt.list); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseDeclarations(%q) = %v, want an error with %q", tt.list, err, tt.msg)
		}
	}
}

func TestParseDeclarationSettings(t *testing.T) {
	d, settings, err := ParseDeclarationSettings("a.emb:vector<float32,4>; id=33 ;layout=list")
	if err != nil {
		t.Fatal(err)
	}
	if d != (Declaration{"a.emb", Float32, 4}) || len(settings) != 2 || settings[0] != (Setting{"id", "33"}) || settings[1] != (Setting{"layout", "list"}) {
		t.Fatalf("got %+v %+v", d, settings)
	}
	for _, tt := range []struct{ text, msg string }{
		{"emb:vector<float32,4>;id", `column "emb": setting "id" is not key=value`},
		{"emb:vector<float32,4>;id=1;id=2", `column "emb": setting id given twice`},
		{"emb:vector<float32>;id=1", `column "emb": "vector<float32>" is not vector<ELEMENT,DIM>`},
	} {
		if _, _, err := ParseDeclarationSettings(tt.text); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseDeclarationSettings(%q) = %v, want an error with %q", tt.text, err, tt.msg)
		}
	}
}

// The registered entry reads the same spellings and round-trips values
// through JSON; Format fits a terminal.
func TestRegisteredVector(t *testing.T) {
	decl, err := Type.Parse("emb", "vector<float32,768>")
	if err != nil {
		t.Fatal(err)
	}
	bound, err := decl.Bind(iceberg.NestedField{ID: 3, Name: "emb", Type: iceberg.FixedTypeOf(3072)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decl.Bind(iceberg.NestedField{ID: 3, Name: "emb", Type: iceberg.FixedTypeOf(12)}); err == nil ||
		err.Error() != "has type fixed[12]; vector<float32,768> needs fixed[3072]" {
		t.Errorf("Bind to fixed[12] = %v", err)
	}
	nums := make([]string, 768)
	for i := range nums {
		nums[i] = "0.5"
	}
	nums[1] = "-1.25"
	text := "[" + strings.Join(nums, ",") + "]"
	v, err := bound.DecodeJSON([]byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := bound.AppendJSON(nil, v, nil)
	if err != nil || string(back) != text {
		t.Fatalf("AppendJSON = %.60s..., %v", back, err)
	}
	if got := bound.Format(v); got != "[0.5, -1.25, 0.5, …] 768×float32" {
		t.Errorf("Format = %q", got)
	}
	small, _ := Type.Parse("s", "vector<int8,2>")
	b, err := small.DecodeJSON([]byte("[1,-2]"), nil)
	if err != nil || small.Format(b) != "[1, -2] 2×int8" {
		t.Errorf("int8: %v %q", err, small.Format(b))
	}
	for _, tt := range []struct{ text, msg string }{
		{`{"a":1}`, "want a JSON array of 2 numbers (vector<int8,2>), got an object"},
		{`[1]`, "1 values, want 2"},
		{`[1,null]`, "element 1 is null; VECTOR elements are never null"},
		{`[1,300]`, "element 1: 300 is out of range for int8"},
		{`[1,"x"]`, `element 1: want an integer, got a string "x"`},
	} {
		if _, err := small.DecodeJSON([]byte(tt.text), nil); err == nil || err.Error() != tt.msg {
			t.Errorf("DecodeJSON(%s) = %v, want %q", tt.text, err, tt.msg)
		}
	}
}

// FuzzParseDeclarations feeds arbitrary property values to the one
// declaration parser: it returns declarations or an error, never panics,
// and what it returns is written back in the canonical spelling, which
// reads back to the same declarations.
func FuzzParseDeclarations(f *testing.F) {
	for _, s := range []string{
		"emb:vector<float32,768>,b:vector<int8,16>", "emb:float32:768, small:int8:3", " a : vector < float16 , 2 > ",
		"emb:vector<float32>", "emb:vector<float32,4,5>", "emb", ":", ",,", "emb:vector<bfloat16,8>", "emb:float32:0",
		"a:vector<<int8,2>>", "a:vector<int8,2>;id=3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		decls, err := ParseDeclarations(list)
		if err != nil {
			return
		}
		parts := make([]string, len(decls))
		for i, d := range decls {
			if d.Column == "" || d.Dim <= 0 || d.Dim > MaxDim || !d.Element.Valid() {
				t.Fatalf("ParseDeclarations(%q) gave %+v", list, d)
			}
			parts[i] = d.String()
		}
		again, err := ParseDeclarations(strings.Join(parts, ","))
		if err != nil || len(again) != len(decls) {
			t.Fatalf("ParseDeclarations(%q) = %v, written back as %q: %v, %v", list, decls, parts, again, err)
		}
		for i := range decls {
			if again[i] != decls[i] {
				t.Fatalf("ParseDeclarations(%q): %v read back as %v", list, decls[i], again[i])
			}
		}
	})
}
