package schemaspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data"
)

// TestParseCompactDepth checks that nesting is refused past maxNesting
// levels, at the type that goes too deep, before the parser builds it.
func TestParseCompactDepth(t *testing.T) {
	nest := func(open, leaf, close string, n int) string {
		return "a:" + strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
	}
	// The deepest accepted: maxNesting types, the outermost the column's.
	if _, err := Parse(nest("list<", "int", ">", maxNesting-1)); err != nil {
		t.Fatalf("%d levels: %v", maxNesting, err)
	}
	for _, tt := range []struct {
		name, open, close string
		depth, at         int // at: the offset of the type that is one too deep
	}{
		{"list", "list<", ">", maxNesting, 2 + 5*maxNesting},
		{"list 100,000 deep", "list<", ">", 100_000, 2 + 5*maxNesting},
		{"struct", "struct<b:", ">", 100_000, 2 + 9*maxNesting},
		// The innermost map's key is the first type too deep.
		{"map", "map<string,", ">", 100_000, 2 + 11*(maxNesting-1) + 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(nest(tt.open, "int", tt.close, tt.depth))
			want := fmt.Sprintf("schema at offset %d (", tt.at)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("types nest deeper than %d levels", maxNesting)) ||
				!errors.Is(err, data.ErrSchemaTooDeep) {
				t.Errorf("error %v, want one at offset %d naming the limit", err, tt.at)
			}
		})
	}
}

// FuzzParseCompact feeds arbitrary text to the compact parser: it must
// return a schema or an error, never panic, and a schema it returns must
// survive Iceberg's JSON form with its declarations (ParseJSON, Declare).
func FuzzParseCompact(f *testing.F) {
	for _, s := range []string{
		" id : long! , tags:list<string!>, m:map<string,struct<a:int!,b:decimal(10,2)>!>, emb:vector<float32,4>, img:file<uri,size>, doc:variant, fx:fixed[3], after:int",
		"id:long!,name:string,emb:vector<float32,768>,doc:variant,img:file",
		"t:timestamp,tz:timestamptz_ns,d:date,u:uuid,b:binary,bo:boolean,f:float,x:double,tm:time",
		"m:map<list<int>,map<string,fixed[16]!>>",
		"s:struct<a:struct<b:struct<c:list<map<int,string>>>>>",
		"e:vector<int8,1>,h:vector<float16,3>,g:vector<float64,2>",
		"f:file<>", "f:file<uri,uri>", "s:struct<e:file>", "l:list<vector<float32,2>>",
		"d:decimal(39,2)", "d:decimal(4,5)", "f:fixed[0]", "f:fixed[99999999999999999999]",
		"id:long,id:int", "id:long x:int", "l:list<int", "", ":", "a:list<" + strings.Repeat("list<", 50),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := Parse(text)
		if err != nil {
			return
		}
		if spec.Schema == nil || len(spec.Schema.Fields()) == 0 {
			t.Fatalf("Parse(%q) gave no columns and no error", text)
		}
		doc, err := json.Marshal(spec.Schema)
		if err != nil {
			t.Fatalf("Parse(%q): the schema does not marshal: %v", text, err)
		}
		again, err := ParseJSON(doc)
		if err != nil {
			t.Fatalf("Parse(%q): its JSON %s does not parse: %v", text, doc, err)
		}
		if err := again.Declare(spec.Properties()); err != nil {
			t.Fatalf("Parse(%q): its declarations %v do not apply to its JSON: %v", text, spec.Properties(), err)
		}
		if !again.Schema.Equals(spec.Schema) {
			t.Fatalf("Parse(%q) = %s, through JSON %s", text, spec.Schema, again.Schema)
		}
	})
}
