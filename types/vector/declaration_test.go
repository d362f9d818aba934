package vector

import (
	"strings"
	"testing"
)

func TestParseDeclarations(t *testing.T) {
	got, err := ParseDeclarations(" emb:float32:768 , ,small: int8 :3")
	if err != nil {
		t.Fatal(err)
	}
	want := []Declaration{{"emb", Float32, 768}, {"small", Int8, 3}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("ParseDeclarations = %+v, want %+v", got, want)
	}
	if s := got[0].String(); s != "emb:float32:768" || got[0].TypeName() != "vector<float32,768>" {
		t.Fatalf("String %q, TypeName %q", s, got[0].TypeName())
	}
	for _, tt := range []struct{ list, msg string }{
		{"emb:float32", `"emb:float32" is not name:element:dim`},
		{"emb:bfloat16:8", `column "emb": element type bfloat16 has no Parquet representation`},
		{"emb:float32:0", `column "emb": dimension "0" is not a positive integer`},
		{"emb:float32:x", `column "emb": dimension "x" is not a positive integer`},
		{"emb:float32:16777217", "above the lab's limit of 16777216"},
		{"emb:complex:4", `column "emb": `},
	} {
		if _, err := ParseDeclarations(tt.list); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseDeclarations(%q) = %v, want an error with %q", tt.list, err, tt.msg)
		}
	}
}
