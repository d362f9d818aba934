package avro

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"

	"github.com/coltype-lab/lab/data"
)

// TestFileSchemaDepth checks the schema limit on an Avro file's schema,
// counted as Iceberg counts: a top-level field's type at depth 1, and an
// array's items, a map's values, a record field's type or a key/value
// array's key and value one deeper; an optional's union is no level.
func TestFileSchemaDepth(t *testing.T) {
	// Each wraps t in one level.
	shapes := map[string]func(t string, i int) string{
		"array": func(t string, _ int) string { return `{"type":"array","items":` + t + `}` },
		"optional array": func(t string, _ int) string {
			return `["null",{"type":"array","items":` + t + `}]`
		},
		"map": func(t string, _ int) string { return `{"type":"map","values":` + t + `}` },
		"record": func(t string, i int) string {
			return fmt.Sprintf(`{"type":"record","name":"r%d","fields":[{"name":"f","type":%s}]}`, i, t)
		},
		"key/value array": func(t string, i int) string {
			return fmt.Sprintf(`{"type":"array","logicalType":"map","items":{"type":"record","name":"kv%d","fields":[{"name":"key","type":"int"},{"name":"value","type":%s}]}}`, i, t)
		},
	}
	for name, wrap := range shapes {
		t.Run(name, func(t *testing.T) {
			schema := func(depth int) hamba.Schema {
				typ := `"int"`
				for i := range depth - 1 {
					typ = wrap(typ, i)
				}
				s, err := hamba.ParseBytesWithCache([]byte(`{"type":"record","name":"root","fields":[{"name":"a","type":`+typ+`}]}`), "", &hamba.SchemaCache{})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			if _, err := buildFileSchema(schema(data.MaxSchemaDepth), nil); err != nil {
				t.Errorf("%d levels: %v", data.MaxSchemaDepth, err)
			}
			_, err := buildFileSchema(schema(data.MaxSchemaDepth+1), nil)
			if !errors.Is(err, data.ErrSchemaTooDeep) || !strings.Contains(err.Error(), `Avro schema: column "a": types nest deeper than 255 levels`) {
				t.Errorf("%d levels: %v, want the depth refused", data.MaxSchemaDepth+1, err)
			}
		})
	}
}
