package schemaspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data/coltype"
)

// ParseJSON reads Iceberg's schema JSON (spec.md, Appendix C: {"type":
// "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required":
// true, "type": "long"}, ...]}). A top-level field's "type" may also be one
// of the lab's type names:
//
//	"file"                    a FILE column with every child
//	"file<uri,size,checksum>" a FILE column with the children named
//	"vector<float32,768>"     a VECTOR column
//
// A FILE column's children take the ids after the column's own (id+1 uri
// ... id+6 inline, the FILE mirror's offsets); an id that collides with
// another field's is an error. Plain Iceberg JSON is accepted as is; its
// struct and fixed columns can be typed FILE and VECTOR with Spec.Declare.
func ParseJSON(b []byte) (*Spec, error) {
	if err := checkJSONDepth(b); err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("schema JSON: %w", err)
	}
	var fields []map[string]json.RawMessage
	if raw, ok := doc["fields"]; ok {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("schema JSON: fields: %w", err)
		}
	}
	spec := &Spec{}
	var pending []coltype.Decl
	for i, f := range fields {
		var typeName string
		if json.Unmarshal(f["type"], &typeName) != nil {
			continue // a nested type, or a mistake iceberg-go reports below
		}
		var name string
		_ = json.Unmarshal(f["name"], &name)
		var id int
		_ = json.Unmarshal(f["id"], &id)
		t, err := labType(&pending, name, id, typeName)
		if err != nil {
			return nil, fmt.Errorf("schema JSON: field %d (%q): %w", i, name, err)
		}
		if t == nil {
			continue
		}
		// A primitive type's JSON is its name (iceberg-go marshals only
		// nested types itself).
		var raw []byte
		if _, primitive := t.(iceberg.PrimitiveType); primitive {
			raw, err = json.Marshal(t.String())
		} else {
			raw, err = json.Marshal(t)
		}
		if err != nil {
			return nil, fmt.Errorf("schema JSON: field %q: %w", name, err)
		}
		f["type"] = raw
	}
	if fields != nil {
		raw, err := json.Marshal(fields)
		if err != nil {
			return nil, fmt.Errorf("schema JSON: %w", err)
		}
		doc["fields"] = raw
	}
	rewritten, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("schema JSON: %w", err)
	}
	var schema iceberg.Schema
	if err := json.Unmarshal(rewritten, &schema); err != nil {
		return nil, fmt.Errorf("schema JSON: %w", err)
	}
	spec.Schema = &schema
	for _, f := range spec.Schema.Fields() {
		if f.Name == "" {
			return nil, fmt.Errorf("schema JSON: field id %d has no name", f.ID)
		}
	}
	if err := spec.bindPending(pending); err != nil {
		return nil, fmt.Errorf("schema JSON: %w", err)
	}
	return spec, nil
}

// labType turns a registered type's spelling into its Iceberg type for
// the field of that id, recording the declaration; nil for any other name
// (an Iceberg type).
func labType(pending *[]coltype.Decl, name string, id int, typeName string) (iceberg.Type, error) {
	t, ok := coltype.Lookup(coltype.SpellingName(typeName))
	if !ok {
		return nil, nil
	}
	d, err := t.Parse(name, typeName)
	if err != nil {
		return nil, err
	}
	*pending = append(*pending, d)
	return d.IcebergType(id)
}

// Load reads the --schema argument: "@PATH" reads a file (JSON when it
// starts with "{", the compact form otherwise), text starting with "{" is
// JSON, anything else is the compact form.
func Load(arg string) (*Spec, error) {
	text := []byte(arg)
	if path, ok := strings.CutPrefix(arg, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("schema file: %w", err)
		}
		text = b
	}
	trimmed := bytes.TrimSpace(text)
	if bytes.HasPrefix(trimmed, []byte("{")) {
		return ParseJSON(trimmed)
	}
	spec, err := Parse(string(trimmed))
	if err != nil && !strings.HasPrefix(arg, "@") && !strings.Contains(arg, ":") {
		return nil, fmt.Errorf("%w (to read a schema file, write @%s)", err, arg)
	}
	return spec, err
}

// JSON is the spec in the JSON form ParseJSON reads, so that `lab write
// --schema @FILE` takes what `lab schema` prints: Iceberg's schema JSON
// with each registered type's column typed by its spelling
// ("vector<element,dim>", "file<children>"). A column whose spelling would
// not read back to its Iceberg type (a FILE column whose children do not
// carry the mirror's ids, types/file ChildID) stays that type.
func (s *Spec) JSON() ([]byte, error) {
	raw, err := json.Marshal(s.Schema)
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	var fields []map[string]json.RawMessage
	if err := json.Unmarshal(doc["fields"], &fields); err != nil {
		return nil, err
	}
	for i, f := range s.Schema.Fields() {
		d, ok := s.Decl(f.Name)
		if !ok {
			continue
		}
		// The spelling reads back to this very type, or the column stays
		// its Iceberg type (a FILE struct whose children are not at the
		// mirror's ids: the spelling would renumber them).
		if t, err := d.IcebergType(f.ID); err != nil || !t.Equals(f.Type) {
			continue
		}
		name := d.TypeName()
		if fields[i]["type"], err = json.Marshal(name); err != nil {
			return nil, err
		}
	}
	if doc["fields"], err = json.Marshal(fields); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
