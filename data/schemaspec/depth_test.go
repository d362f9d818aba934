package schemaspec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/data"
)

// TestJSONDepth checks that the JSON form counts depth as the compact form
// does: the compact schema at the limit, in its JSON, is accepted, and the
// same shape one level deeper is refused, by ParseJSON and by
// IcebergSchemaFromJSON, quickly however deep it goes.
func TestJSONDepth(t *testing.T) {
	for _, shape := range []struct{ name, open, close string }{
		{"list", "list<", ">"},
		{"struct", "struct<b:", ">"},
		{"map value", "map<string,", ">"},
	} {
		t.Run(shape.name, func(t *testing.T) {
			compact := func(depth int) string {
				return "a:" + strings.Repeat(shape.open, depth-1) + "int" + strings.Repeat(shape.close, depth-1)
			}
			spec, err := Parse(compact(maxNesting))
			if err != nil {
				t.Fatalf("%d levels: %v", maxNesting, err)
			}
			doc, err := json.Marshal(spec.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseJSON(doc); err != nil {
				t.Errorf("ParseJSON, %d levels: %v", maxNesting, err)
			}
			if _, err := IcebergSchemaFromJSON(doc); err != nil {
				t.Errorf("IcebergSchemaFromJSON, %d levels: %v", maxNesting, err)
			}
			// One level deeper: the innermost int becomes a list of ints.
			deeper := strings.Replace(string(doc), `"int"`, `{"type":"list","element-id":99999,"element":"int","element-required":false}`, 1)
			if !strings.Contains(deeper, "99999") {
				t.Fatal("no int to nest further")
			}
			// And 3,000 levels more, which took iceberg-go's decoder 22 s.
			const more = 3000
			inner := strings.Repeat(`{"type":"list","element-id":99999,"element":`, more) + `"int"` +
				strings.Repeat(`,"element-required":false}`, more)
			deepest := strings.Replace(string(doc), `"int"`, inner, 1)
			for _, tc := range []struct {
				name, doc string
			}{{"one level more", deeper}, {"3,000 levels more", deepest}} {
				for fn, parse := range map[string]func([]byte) error{
					"ParseJSON":             func(b []byte) error { _, err := ParseJSON(b); return err },
					"IcebergSchemaFromJSON": func(b []byte) error { _, err := IcebergSchemaFromJSON(b); return err },
				} {
					began := time.Now()
					err := parse([]byte(tc.doc))
					if !errors.Is(err, data.ErrSchemaTooDeep) || !strings.Contains(err.Error(), `types nest deeper than 255 levels in top-level field 1 (at byte offset `) {
						t.Errorf("%s, %s: %v, want the depth refused", fn, tc.name, err)
					}
					// Milliseconds; the bound is for a loaded machine.
					if took := time.Since(began); took > 2*time.Second {
						t.Errorf("%s, %s: refused after %v", fn, tc.name, took)
					}
				}
			}
		})
	}
}
