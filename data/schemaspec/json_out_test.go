package schemaspec

import (
	"strings"
	"testing"
)

// What Spec.JSON prints, ParseJSON reads back to the same spec.
func TestJSONRoundTrip(t *testing.T) {
	for _, compact := range []string{
		"id:long!,name:string,emb:vector<float32,768>,doc:variant,img:file",
		"id:int,img:file<uri,size>,tags:list<string>,m:map<string,double>,p:struct<x:int,y:float>",
		"v:vector<float16,8>,w:vector<int8,4>",
	} {
		t.Run(compact, func(t *testing.T) {
			spec, err := Parse(compact)
			if err != nil {
				t.Fatal(err)
			}
			out, err := spec.JSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseJSON(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !back.Schema.Equals(spec.Schema) {
				t.Fatalf("schema\n%s\nread back\n%s", spec.Schema, back.Schema)
			}
			if len(back.Decls) != len(spec.Decls) {
				t.Fatalf("declarations: %v, want %v", back.Decls, spec.Decls)
			}
			for i := range spec.Decls {
				if b, s := back.Decls[i], spec.Decls[i]; b.ColumnName() != s.ColumnName() || b.TypeName() != s.TypeName() {
					t.Fatalf("declaration %d: %s:%s, want %s:%s", i, b.ColumnName(), b.TypeName(), s.ColumnName(), s.TypeName())
				}
			}
			if !strings.Contains(string(out), `"type": "`) {
				t.Fatalf("no lab types in\n%s", out)
			}
		})
	}
}
