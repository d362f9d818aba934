package parquet

import (
	"fmt"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/variant"
)

// Iceberg's names for the synthetic levels of lists and maps.
const (
	listRepeatedName = "list"
	listElementName  = "element"
	mapRepeatedName  = "key_value"
	mapKeyName       = "key"
	mapValueName     = "value"
	rootName         = "table"
)

type wkind uint8

const (
	wPrimitive wkind = iota
	wStruct
	wList
	wMap
	wUnknown // Iceberg's unknown type: always null, no column (as Iceberg Java)
	wVariant // a VARIANT group, unshredded or shredded (variant_write.go)
	// wVector is a declared column of a PageBinding (VECTOR's), written
	// by the binding's page writer (page_write.go), not by parquet-go: it
	// has no leaf column in the plan and no field in its Parquet schema.
	wVector
)

// wnode is one Iceberg field in the write plan: where its values go and at
// which levels. Levels are absolute: def is the definition level a present
// value of this node reaches, rep the repetition level of the repeated
// group of a list or map.
type wnode struct {
	kind     wkind
	path     string // dotted column path for errors, e.g. "address.zip", "tags.element"
	typ      iceberg.Type
	required bool
	def      int
	rep      int
	leaves   []int // leaf columns under the node, for writing nulls

	st       *iceberg.StructType // wStruct
	seen     *iceberg.StructType // wStruct: last record type that matched st
	children []*wnode            // wStruct: one per field; wList: element; wMap: key, value

	col  int       // wPrimitive: leaf column index
	conv converter // wPrimitive

	variant *variantPlan // wVariant
}

// writePlan is an Iceberg schema translated to a Parquet schema and the
// shredding plan that fills it.
type writePlan struct {
	// schema is parquet-go's: every column but the VECTOR ones, nil when
	// there is no other.
	schema  *pq.Schema
	root    *wnode
	columns int
}

// planWrite translates schema per Iceberg's TypeToMessageType.
// Variant columns whose path has a layout in layouts are shredded by it.
func planWrite(schema *iceberg.Schema, layouts map[string]*variant.Layout) (*writePlan, error) {
	return planWriteVectors(schema, layouts, nil)
}

// planWriteVectors is planWrite with the top-level columns named in
// vectors left to the VECTOR page writer: wVector nodes, outside the
// Parquet schema.
func planWriteVectors(schema *iceberg.Schema, layouts map[string]*variant.Layout, vectors map[string]bool) (*writePlan, error) {
	b := &planBuilder{layouts: layouts}
	st := schema.AsStruct()
	root := &wnode{kind: wStruct, typ: &st, required: true, st: &st}
	var fields []pq.Field
	for _, f := range st.FieldList {
		if vectors[f.Name] {
			def := 0
			if !f.Required {
				def = 1
			}
			root.children = append(root.children, &wnode{kind: wVector, typ: f.Type, required: f.Required, path: f.Name, def: def})
			continue
		}
		n, pf, err := b.field(f, "", 0, 0)
		if err != nil {
			return nil, err
		}
		root.children = append(root.children, n)
		root.leaves = append(root.leaves, n.leaves...)
		if pf != nil {
			fields = append(fields, pf)
		}
	}
	if b.next == 0 {
		if len(vectors) == 0 {
			return nil, fmt.Errorf("schema has no column Parquet can store")
		}
		return &writePlan{root: root}, nil
	}
	return &writePlan{schema: pq.NewSchema(rootName, newGroup(plainGroupType, fields...)), root: root, columns: b.next}, nil
}

type planBuilder struct {
	next    int
	layouts map[string]*variant.Layout // variant column path → shredding layout
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// field plans an Iceberg field under a parent whose present values reach
// definition level def and repetition level rep. The returned Parquet field
// is nil for fields that have no column (unknown type).
func (b *planBuilder) field(f iceberg.NestedField, parent string, def, rep int) (*wnode, pq.Field, error) {
	path := joinPath(parent, f.Name)
	if f.ID <= 0 {
		return nil, nil, fmt.Errorf("column %q: field id %d cannot be written as a Parquet field_id (ids must be positive)", path, f.ID)
	}
	n, node, err := b.value(f.Type, f.Required, path, def, rep)
	if err != nil || node == nil {
		return n, nil, err
	}
	return n, field(f.Name, pq.FieldID(node, f.ID)), nil
}

// value plans a value of type t. Optionality adds one definition level.
func (b *planBuilder) value(t iceberg.Type, required bool, path string, def, rep int) (*wnode, pq.Node, error) {
	if !required {
		def++
	}
	n := &wnode{typ: t, required: required, path: path, def: def, rep: rep}
	wrap := func(node pq.Node) pq.Node {
		if required {
			return pq.Required(node)
		}
		return pq.Optional(node)
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		n.kind, n.st = wStruct, t
		var fields []pq.Field
		for _, f := range t.FieldList {
			c, pf, err := b.field(f, path, def, rep)
			if err != nil {
				return nil, nil, err
			}
			n.children = append(n.children, c)
			n.leaves = append(n.leaves, c.leaves...)
			if pf != nil {
				fields = append(fields, pf)
			}
		}
		if len(fields) == 0 {
			return nil, nil, fmt.Errorf("column %q: a struct needs at least one field with a Parquet column", path)
		}
		return n, wrap(newGroup(plainGroupType, fields...)), nil

	case *iceberg.ListType:
		n.kind = wList
		n.rep = rep + 1
		elemPath := joinPath(path, listElementName)
		if t.ElementID <= 0 {
			return nil, nil, fmt.Errorf("column %q: element id %d cannot be written as a Parquet field_id", elemPath, t.ElementID)
		}
		// The repeated group adds one definition level (non-empty list).
		elem, elemNode, err := b.value(t.Element, t.ElementRequired, elemPath, def+1, n.rep)
		if err != nil {
			return nil, nil, err
		}
		if elemNode == nil {
			return nil, nil, fmt.Errorf("column %q: list elements of type %s have no Parquet column", elemPath, t.Element)
		}
		n.children = []*wnode{elem}
		n.leaves = elem.leaves
		repeated := pq.Repeated(newGroup(plainGroupType, field(listElementName, pq.FieldID(elemNode, t.ElementID))))
		return n, wrap(newGroup(listGroupType, field(listRepeatedName, repeated))), nil

	case *iceberg.MapType:
		n.kind = wMap
		n.rep = rep + 1
		keyPath, valuePath := joinPath(path, mapKeyName), joinPath(path, mapValueName)
		if t.KeyID <= 0 || t.ValueID <= 0 {
			return nil, nil, fmt.Errorf("column %q: key id %d and value id %d must be positive to be written as Parquet field_ids", path, t.KeyID, t.ValueID)
		}
		key, keyNode, err := b.value(t.KeyType, true, keyPath, def+1, n.rep)
		if err != nil {
			return nil, nil, err
		}
		value, valueNode, err := b.value(t.ValueType, t.ValueRequired, valuePath, def+1, n.rep)
		if err != nil {
			return nil, nil, err
		}
		if keyNode == nil || valueNode == nil {
			return nil, nil, fmt.Errorf("column %q: map keys and values of type unknown have no Parquet column", path)
		}
		n.children = []*wnode{key, value}
		n.leaves = append(append([]int(nil), key.leaves...), value.leaves...)
		repeated := pq.Repeated(newGroup(plainGroupType,
			field(mapKeyName, pq.FieldID(keyNode, t.KeyID)),
			field(mapValueName, pq.FieldID(valueNode, t.ValueID))))
		return n, wrap(newGroup(mapGroupType, field(mapRepeatedName, repeated))), nil

	case iceberg.VariantType:
		return b.variant(n, path, wrap)

	case iceberg.UnknownType:
		if required {
			return nil, nil, fmt.Errorf("column %q: type unknown must be optional", path)
		}
		n.kind = wUnknown
		return n, nil, nil
	}

	leaf, conv, err := primitiveLeaf(t)
	if err != nil {
		return nil, nil, fmt.Errorf("column %q: %w", path, err)
	}
	n.kind, n.col, n.conv = wPrimitive, b.next, conv
	n.leaves = []int{b.next}
	b.next++
	return n, wrap(leaf), nil
}

// primitiveLeaf maps an Iceberg primitive to its Parquet leaf, per Iceberg
// Java's TypeToMessageType, with the converter for record values.
func primitiveLeaf(t iceberg.Type) (pq.Node, converter, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return pq.Leaf(pq.BooleanType), convBool, nil
	case iceberg.Int32Type:
		return bareLeaf(pq.Int32Type), convInt32, nil
	case iceberg.Int64Type:
		return bareLeaf(pq.Int64Type), convInt64, nil
	case iceberg.Float32Type:
		return pq.Leaf(pq.FloatType), convFloat32, nil
	case iceberg.Float64Type:
		return pq.Leaf(pq.DoubleType), convFloat64, nil
	case iceberg.DateType:
		return pq.Date(), convDate, nil
	case iceberg.TimeType:
		return pq.Leaf(noConvertedType{pq.TimeAdjusted(pq.Microsecond, false).Type()}), convTime, nil
	case iceberg.TimestampType:
		return pq.Leaf(noConvertedType{pq.TimestampAdjusted(pq.Microsecond, false).Type()}), convTimestamp, nil
	case iceberg.TimestampTzType:
		return pq.TimestampAdjusted(pq.Microsecond, true), convTimestamp, nil
	case iceberg.TimestampNsType:
		return pq.TimestampAdjusted(pq.Nanosecond, false), convTimestampNano, nil
	case iceberg.TimestampTzNsType:
		return pq.TimestampAdjusted(pq.Nanosecond, true), convTimestampNano, nil
	case iceberg.StringType:
		return pq.String(), convString, nil
	case iceberg.UUIDType:
		return fixedBytesLeaf(pq.UUID(), false), convUUID, nil
	case iceberg.FixedType:
		return fixedBytesLeaf(pq.Leaf(pq.FixedLenByteArrayType(t.Len())), false), convFixed(t.Len()), nil
	case iceberg.BinaryType:
		return pq.Leaf(pq.ByteArrayType), convBinary, nil
	case iceberg.DecimalType:
		p, s := t.Precision(), t.Scale()
		if p < 1 || p > 38 {
			return nil, nil, fmt.Errorf("decimal precision %d is outside 1..38", p)
		}
		kind, size := decimalPhysical(p)
		switch kind {
		case "int32":
			return pq.Decimal(s, p, pq.Int32Type), convDecimal(p, s, kind, size), nil
		case "int64":
			return pq.Decimal(s, p, pq.Int64Type), convDecimal(p, s, kind, size), nil
		default:
			return fixedBytesLeaf(pq.Decimal(s, p, pq.FixedLenByteArrayType(size)), true), convDecimal(p, s, kind, size), nil
		}
	}
	return nil, nil, fmt.Errorf("type %s is not supported by the Parquet generic model", t)
}
