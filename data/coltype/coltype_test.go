package coltype

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"emb:vector<float32,768>, b:vector<int8,16>", []string{"emb:vector<float32,768>", "b:vector<int8,16>"}},
		{" a , ,b,", []string{"a", "b"}},
		{"emb:float32:768,small:int8:3", []string{"emb:float32:768", "small:int8:3"}},
		{"a>b,c", []string{"a>b", "c"}}, // a stray '>' does not open anything
		{"", nil},
	} {
		if got := SplitList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	got := ParseEntries("img, emb : vector<float32,4>")
	if len(got) != 2 || got[0] != (Entry{"img", ""}) || got[1] != (Entry{"emb", "vector<float32,4>"}) {
		t.Errorf("ParseEntries = %+v", got)
	}
	if SpellingName(" vector <float32,4>") != "vector" || SpellingName("file") != "file" {
		t.Error("SpellingName")
	}
}

func TestJSONHelpers(t *testing.T) {
	elems, ok := JSONArray([]byte(` [1, "a,]b", [2,3], {"x":[4]}, "\"]" ] `))
	want := []string{`1`, `"a,]b"`, `[2,3]`, `{"x":[4]}`, `"\"]"`}
	if !ok || len(elems) != len(want) {
		t.Fatalf("JSONArray = %q, %v", elems, ok)
	}
	for i := range want {
		if string(elems[i]) != want[i] {
			t.Errorf("element %d = %s, want %s", i, elems[i], want[i])
		}
	}
	if e, ok := JSONArray([]byte("[ ]")); !ok || len(e) != 0 {
		t.Errorf("empty array: %q %v", e, ok)
	}
	if _, ok := JSONArray([]byte(`{"a":1}`)); ok {
		t.Error("an object is not an array")
	}
	for _, tt := range []struct {
		text string
		want float64
		msg  string
	}{
		{`1.5`, 1.5, ""},
		{`"NaN"`, math.NaN(), ""},
		{`"-Infinity"`, math.Inf(-1), ""},
		{`"\u004eaN"`, math.NaN(), ""},
		{`"x"`, 0, `"x" is not a number (non-finite values are "NaN", "Infinity", "-Infinity")`},
		{`true`, 0, "want a number, got a boolean true"},
		{`[1]`, 0, "want a number, got an array"},
		{`1e39`, 0, "1e39 is out of range for float32"},
	} {
		got, err := ParseJSONFloat([]byte(tt.text), 32, "float32")
		switch {
		case tt.msg != "" && (err == nil || err.Error() != tt.msg):
			t.Errorf("ParseJSONFloat(%s) = %v, want %q", tt.text, err, tt.msg)
		case tt.msg == "" && (err != nil || !(got == tt.want || math.IsNaN(got) && math.IsNaN(tt.want))):
			t.Errorf("ParseJSONFloat(%s) = %v, %v; want %v", tt.text, got, err, tt.want)
		}
	}
	if _, err := ParseJSONInt([]byte(`"1"`), 8, "int8"); err == nil || err.Error() != `want an integer, got a string "1"` {
		t.Errorf("ParseJSONInt of a string: %v", err)
	}
	if _, err := ParseJSONInt([]byte(`1.5`), 8, "int8"); err == nil || err.Error() != "1.5 is not an integer (int8 holds whole numbers)" {
		t.Errorf("ParseJSONInt of 1.5: %v", err)
	}
	for f, want := range map[float64]string{1e-7: "1e-7", 0.5: "0.5", 1e21: "1e+21", math.Inf(1): `"Infinity"`} {
		if got := string(AppendJSONFloat(nil, f, 64)); got != want {
			t.Errorf("AppendJSONFloat(%v) = %s, want %s", f, got, want)
		}
	}
	if d := DescribeJSON([]byte(`"` + strings.Repeat("x", 50) + `"`)); d != `a string "`+strings.Repeat("x", 40)+`"` {
		t.Errorf("DescribeJSON cuts to 40: %s", d)
	}
}
