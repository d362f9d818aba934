package avro

import (
	"fmt"

	hamba "github.com/hamba/avro/v2"
)

// unreadable finds the first field of a file read whole that icebergType
// leaves out, and says why. A read without projection must not drop a
// column in silence (the Parquet model refuses the same way, file_schema.go
// strictSchema): a general union, a recursive record, a field or element
// without an id in a file that has ids, or a type Iceberg lacks. Iceberg
// Java cannot read these either: SchemaToType maps a general union to
// struct<tag, field0, …>, but BuildAvroProjection refuses it ("non-option
// unions are not supported"). path is the dotted path so far ("" at the
// root); ok is false when every field is readable.
func (n *fnode) unreadable(path string) (where, why string, ok bool) {
	if n.kind == hamba.Union {
		v, _, _, err := n.option()
		if err != nil {
			return path, err.Error(), true
		}
		n = v
	}
	at := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	switch n.kind {
	case hamba.Null:
		return "", "", false
	case hamba.Record:
		if n.recursive != nil {
			return path, fmt.Sprintf("record %s contains itself, and Iceberg has no recursive type", n.name), true
		}
		for _, f := range n.fields {
			if !f.hasID {
				return at(f.name), "the field has no field-id while other fields of the file have one; give a name mapping", true
			}
			if w, y, bad := f.node.unreadable(at(f.name)); bad {
				return w, y, true
			}
		}
		return "", "", false
	case hamba.Array:
		if n.isMap {
			if !n.hasKeyID || !n.hasValueID {
				return path, "the map's key or value has no id", true
			}
			if w, y, bad := n.items.fields[0].node.unreadable(at("key")); bad {
				return w, y, true
			}
			return n.items.fields[1].node.unreadable(at("value"))
		}
		if !n.hasElementID {
			return path, "the array's element has no element-id", true
		}
		return n.items.unreadable(at("element"))
	case hamba.Map:
		if !n.hasKeyID || !n.hasValueID {
			return path, "the map's key or value has no id", true
		}
		return n.values.unreadable(at("value"))
	}
	if _, err := n.primitiveType(); err != nil {
		return path, err.Error(), true
	}
	return "", "", false
}
