package schemaspec

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

// IcebergSchemaFromJSON decodes Iceberg's schema JSON (spec.md, Appendix C)
// from untrusted bytes, such as the iceberg.schema header of an Avro file:
// json.Unmarshal into an iceberg.Schema, after checkJSONDepth.
func IcebergSchemaFromJSON(b []byte) (*iceberg.Schema, error) {
	if err := checkJSONDepth(b); err != nil {
		return nil, err
	}
	s := new(iceberg.Schema)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, err
	}
	return s, nil
}

// checkJSONDepth refuses schema JSON whose types nest deeper than
// data.MaxSchemaDepth, counted as the compact form counts them: a top-level
// field's type at depth 1, a struct field's type, a list's element and a
// map's key and value one deeper than what holds them. It walks the tokens
// with a stack of its own, so the cost is linear in the input; iceberg-go's
// decoder, which re-reads each nested type's bytes at every level, took 22 s
// for 3,000 nested lists. JSON it cannot read it leaves to the decoder,
// which says what is wrong with it.
func checkJSONDepth(b []byte) error {
	type frame struct {
		kind    byte // 't' a type object, 'f' a field object, 'a' a field list, 'o' anything else
		array   bool
		depth   int    // the type's; for fields and field lists, their struct's
		key     string // in objects, the key whose value comes next
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil
	}
	stack := []frame{{kind: 't', wantKey: true}}
	field, column := 0, "" // the top-level field, and its name once seen
	for len(stack) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		top := &stack[len(stack)-1]
		if !top.array && top.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && !stack[len(stack)-1].array {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			top.key, _ = tok.(string)
			top.wantKey = false
			continue
		}
		if top.array && tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && !stack[len(stack)-1].array {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		// A value: what it is depends on where it sits.
		kind, depth := byte('o'), top.depth
		switch {
		case top.kind == 't' && !top.array && (top.key == "element" || top.key == "key" || top.key == "value"),
			top.kind == 'f' && top.key == "type":
			kind, depth = 't', top.depth+1
			if depth > data.MaxSchemaDepth {
				where := fmt.Sprintf(" in top-level field %d", field)
				if column != "" {
					where = fmt.Sprintf(" in column %q", column)
				}
				return fmt.Errorf("schema JSON: types nest deeper than %d levels%s (at byte offset %d): %w",
					data.MaxSchemaDepth, where, dec.InputOffset(), data.ErrSchemaTooDeep)
			}
		case top.kind == 't' && !top.array && top.key == "fields":
			kind = 'a'
		case top.kind == 'a':
			kind = 'f'
			if depth == 0 {
				field, column = field+1, ""
			}
		case top.kind == 'f' && top.depth == 0 && top.key == "name":
			column, _ = tok.(string)
		}
		switch tok {
		case json.Delim('{'):
			if kind == 'a' {
				kind = 'o' // a field list must be an array
			}
			stack = append(stack, frame{kind: kind, depth: depth, wantKey: true})
		case json.Delim('['):
			if kind != 'a' {
				kind = 'o'
			}
			stack = append(stack, frame{kind: kind, array: true, depth: depth})
		default:
			if !top.array {
				top.wantKey = true
			}
		}
	}
	return nil
}
