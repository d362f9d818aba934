package parquet

import (
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// fnode is one element of a file's Parquet schema, with the levels a
// present value of it reaches.
type fnode struct {
	elem     *format.SchemaElement
	name     string
	repType  format.FieldRepetitionType
	children []*fnode
	col      int // leaf column index, -1 for groups
	def, rep int
	path     string
}

func (n *fnode) leaf() bool { return n.col >= 0 }

// parseFileSchema rebuilds the tree of a footer's flattened schema, which
// openParquet has already checked for consistent child counts.
func parseFileSchema(elems []format.SchemaElement) *fnode {
	col := 0
	var build func(i int, parent *fnode) (*fnode, int)
	build = func(i int, parent *fnode) (*fnode, int) {
		e := &elems[i]
		n := &fnode{elem: e, name: e.Name, col: -1}
		if parent != nil {
			n.repType = e.RepetitionType.V
			if !e.RepetitionType.Valid {
				n.repType = format.Required
			}
			n.def, n.rep = parent.def, parent.rep
			switch n.repType {
			case format.Optional:
				n.def++
			case format.Repeated:
				n.def++
				n.rep++
			}
			n.path = joinPath(parent.path, e.Name)
		}
		next := i + 1
		if e.NumChildren.Valid && e.NumChildren.V > 0 {
			for range int(e.NumChildren.V) {
				var c *fnode
				c, next = build(next, n)
				n.children = append(n.children, c)
			}
		} else {
			n.col = col
			col++
		}
		return n, next
	}
	root, _ := build(0, nil)
	return root
}

type fshape uint8

const (
	fPrimitive fshape = iota
	fStruct
	fList
	fMap
	fVariant // a VARIANT group, shredded or not: read whole (variant_read.go)
	fUnsupported
)

// fview is the Iceberg reading of a file node: a struct, list, map or
// primitive, whatever Parquet encoding (3-level list, legacy 2-level list,
// bare repeated field) carries it.
type fview struct {
	shape    fshape
	name     string
	path     string
	id       int // 0 when the file has none and no mapping gave one
	def      int // definition level of a present value
	optional bool
	node     *fnode   // the node that carries the field id
	repeated *fnode   // list, map: the repeated node
	children []*fview // struct: fields; list: element; map: key, value
	leaf     *fnode   // primitive
	why      string   // fUnsupported: the reason
}

// viewOf reads n as an Iceberg value. asElement is set when n is the
// repeated node of a legacy list that is its own element.
func viewOf(n *fnode, asElement bool) *fview {
	v := &fview{name: n.name, path: n.path, id: int(n.elem.FieldID), def: n.def, node: n, optional: n.repType == format.Optional}
	if n.repType == format.Repeated && !asElement {
		// A bare repeated field: a required list of required elements.
		elem := viewOf(n, true)
		elem.id, elem.path = 0, joinPath(n.path, listElementName)
		v.shape, v.repeated, v.children = fList, n, []*fview{elem}
		v.def--
		return v
	}
	if asElement {
		v.optional = false
	}
	if _, ok := n.elem.LogicalType.Value.(*format.VariantType); ok {
		v.shape = fVariant
		return v
	}
	switch {
	case isAnnotated(n.elem, deprecated.List, func(lt format.LogicalTypeValue) bool { _, ok := lt.(*format.ListType); return ok }):
		if len(n.children) != 1 || n.children[0].repType != format.Repeated {
			return unsupported(v, "LIST group without exactly one repeated child")
		}
		r := n.children[0]
		var elem *fview
		if !r.leaf() && len(r.children) == 1 && r.name != "array" && r.name != n.name+"_tuple" {
			elem = viewOf(r.children[0], false)
		} else {
			elem = viewOf(r, true) // legacy 2-level list: the repeated node is the element
		}
		v.shape, v.repeated, v.children = fList, r, []*fview{elem}
	case isAnnotated(n.elem, deprecated.Map, func(lt format.LogicalTypeValue) bool { _, ok := lt.(*format.MapType); return ok }) ||
		isAnnotated(n.elem, deprecated.MapKeyValue, nil):
		if len(n.children) != 1 || n.children[0].repType != format.Repeated || len(n.children[0].children) != 2 {
			return unsupported(v, "MAP group without one repeated key/value group")
		}
		r := n.children[0]
		key, value := viewOf(r.children[0], false), viewOf(r.children[1], false)
		if key.optional {
			key.optional = false // keys are required by the spec; some writers say otherwise
		}
		v.shape, v.repeated, v.children = fMap, r, []*fview{key, value}
	case !n.leaf():
		v.shape = fStruct
		for _, c := range n.children {
			v.children = append(v.children, viewOf(c, false))
		}
	default:
		v.shape, v.leaf = fPrimitive, n
	}
	return v
}

func unsupported(v *fview, why string) *fview {
	v.shape, v.why = fUnsupported, why
	return v
}

func isAnnotated(e *format.SchemaElement, conv deprecated.ConvertedType, logical func(format.LogicalTypeValue) bool) bool {
	if e.LogicalType.Value != nil && logical != nil {
		return logical(e.LogicalType.Value)
	}
	return e.ConvertedType.Valid && e.ConvertedType.V == conv
}

// hasFieldIDs reports whether any node below the root carries a field id.
func hasFieldIDs(n *fnode) bool {
	for _, c := range n.children {
		if c.elem.FieldID != 0 || hasFieldIDs(c) {
			return true
		}
	}
	return false
}

// applyNameMapping assigns ids by name, as Iceberg's ApplyNameMapping does
// for files written without ids: struct fields by their names, list
// elements as "element", map keys and values as "key" and "value".
func applyNameMapping(v *fview, fields []iceberg.MappedField) {
	find := func(name string) *iceberg.MappedField {
		for i := range fields {
			for _, n := range fields[i].Names {
				if n == name {
					return &fields[i]
				}
			}
		}
		return nil
	}
	switch v.shape {
	case fStruct:
		for _, c := range v.children {
			if m := find(c.name); m != nil {
				c.id = max(m.ID(), 0)
				applyNameMapping(c, m.Fields)
			} else {
				c.id = 0
				clearIDs(c)
			}
		}
	case fList:
		mapChild(v.children[0], find(listElementName))
	case fMap:
		mapChild(v.children[0], find(mapKeyName))
		mapChild(v.children[1], find(mapValueName))
	}
}

func mapChild(c *fview, m *iceberg.MappedField) {
	if m == nil {
		c.id = 0
		clearIDs(c)
		return
	}
	c.id = max(m.ID(), 0)
	applyNameMapping(c, m.Fields)
}

func clearIDs(v *fview) {
	for _, c := range v.children {
		c.id = 0
		clearIDs(c)
	}
}

// leafInfo is how a Parquet leaf encodes an Iceberg primitive.
type leafInfo struct {
	typ      iceberg.Type
	physical format.Type
	scale    int64 // time units: values are multiplied (>0) or divided (<0) to reach Iceberg's unit
	int96    bool
}

// leafType maps a Parquet leaf to the Iceberg type it carries, by its
// physical type and logical (or legacy converted) annotation.
func leafType(e *format.SchemaElement) (leafInfo, error) {
	if !e.Type.Valid {
		return leafInfo{}, fmt.Errorf("leaf has no physical type")
	}
	phys := e.Type.V
	info := leafInfo{physical: phys, scale: 1}
	lt := e.LogicalType.Value
	conv := deprecated.ConvertedType(-1)
	if e.ConvertedType.Valid {
		conv = e.ConvertedType.V
	}
	decimal := func(p, s int32) (leafInfo, error) {
		if p < 1 || p > 38 || s < 0 || s > p {
			return leafInfo{}, fmt.Errorf("decimal(%d, %d) is outside Iceberg's range", p, s)
		}
		info.typ = iceberg.DecimalTypeOf(int(p), int(s))
		return info, nil
	}
	if d, ok := lt.(*format.DecimalType); ok {
		return decimal(d.Precision, d.Scale)
	}
	if lt == nil && conv == deprecated.Decimal {
		return decimal(e.Precision.V, e.Scale.V)
	}
	switch phys {
	case format.Boolean:
		info.typ = iceberg.PrimitiveTypes.Bool
	case format.Int32:
		switch x := lt.(type) {
		case nil:
			switch conv {
			case -1, deprecated.Int8, deprecated.Int16, deprecated.Int32:
				info.typ = iceberg.PrimitiveTypes.Int32
			case deprecated.Date:
				info.typ = iceberg.PrimitiveTypes.Date
			case deprecated.TimeMillis:
				info.typ, info.scale = iceberg.PrimitiveTypes.Time, 1000
			}
		case *format.IntType:
			if x.IsSigned {
				info.typ = iceberg.PrimitiveTypes.Int32
			}
		case *format.DateType:
			info.typ = iceberg.PrimitiveTypes.Date
		case *format.TimeType:
			if isUnit[*format.MilliSeconds](x.Unit) {
				info.typ, info.scale = iceberg.PrimitiveTypes.Time, 1000
			}
		}
	case format.Int64:
		switch x := lt.(type) {
		case nil:
			switch conv {
			case -1, deprecated.Int64:
				info.typ = iceberg.PrimitiveTypes.Int64
			case deprecated.TimeMicros:
				info.typ = iceberg.PrimitiveTypes.Time
			case deprecated.TimestampMicros:
				info.typ = iceberg.PrimitiveTypes.TimestampTz
			case deprecated.TimestampMillis:
				info.typ, info.scale = iceberg.PrimitiveTypes.TimestampTz, 1000
			}
		case *format.IntType:
			if x.IsSigned && x.BitWidth == 64 {
				info.typ = iceberg.PrimitiveTypes.Int64
			}
		case *format.TimeType:
			if isUnit[*format.MicroSeconds](x.Unit) {
				info.typ = iceberg.PrimitiveTypes.Time
			}
		case *format.TimestampType:
			switch {
			case isUnit[*format.NanoSeconds](x.Unit):
				info.typ = iceberg.PrimitiveTypes.TimestampNs
				if x.IsAdjustedToUTC {
					info.typ = iceberg.PrimitiveTypes.TimestampTzNs
				}
			default:
				if isUnit[*format.MilliSeconds](x.Unit) {
					info.scale = 1000
				}
				info.typ = iceberg.PrimitiveTypes.Timestamp
				if x.IsAdjustedToUTC {
					info.typ = iceberg.PrimitiveTypes.TimestampTz
				}
			}
		}
	case format.Int96:
		// Legacy Impala/Spark timestamps, read as timestamptz as Iceberg does.
		info.typ, info.int96 = iceberg.PrimitiveTypes.TimestampTz, true
	case format.Float:
		info.typ = iceberg.PrimitiveTypes.Float32
	case format.Double:
		info.typ = iceberg.PrimitiveTypes.Float64
	case format.ByteArray:
		switch lt.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			info.typ = iceberg.PrimitiveTypes.String
		case *format.BsonType:
			info.typ = iceberg.PrimitiveTypes.Binary
		case nil:
			switch conv {
			case deprecated.UTF8, deprecated.Enum, deprecated.Json:
				info.typ = iceberg.PrimitiveTypes.String
			case -1, deprecated.Bson:
				info.typ = iceberg.PrimitiveTypes.Binary
			}
		}
	case format.FixedLenByteArray:
		length := int(e.TypeLength.V)
		if !e.TypeLength.Valid || length <= 0 {
			return leafInfo{}, fmt.Errorf("FIXED_LEN_BYTE_ARRAY without a positive type length")
		}
		switch lt.(type) {
		case *format.UUIDType:
			if length == 16 {
				info.typ = iceberg.PrimitiveTypes.UUID
			}
		case nil:
			if conv == -1 {
				info.typ = iceberg.FixedTypeOf(length)
			}
		}
	}
	if info.typ == nil {
		return leafInfo{}, fmt.Errorf("%s %s has no Iceberg type", phys, annotationName(e))
	}
	return info, nil
}

func isUnit[T any](u format.TimeUnit) bool {
	_, ok := u.Value.(T)
	return ok
}

func annotationName(e *format.SchemaElement) string {
	switch {
	case e.LogicalType.Value != nil:
		return "(" + e.LogicalType.Value.String() + ")"
	case e.ConvertedType.Valid:
		return fmt.Sprintf("(converted type %d)", e.ConvertedType.V)
	}
	return "without annotation"
}

// icebergType is the Iceberg type of a view, for the schema of a file read
// without projection. Fields without ids are left out, as Iceberg prunes
// columns it cannot address.
func (v *fview) icebergType() (iceberg.Type, error) {
	switch v.shape {
	case fPrimitive:
		info, err := leafType(v.leaf.elem)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", v.path, err)
		}
		return info.typ, nil
	case fStruct:
		fields, err := v.icebergFields()
		if err != nil {
			return nil, err
		}
		if len(fields) == 0 {
			// Nothing to read, and no column to tell null from present.
			return nil, fmt.Errorf("column %q: struct has no readable field with an id", v.path)
		}
		return &iceberg.StructType{FieldList: fields}, nil
	case fVariant:
		return iceberg.VariantType{}, nil
	case fList:
		e := v.children[0]
		if e.id == 0 {
			return nil, fmt.Errorf("column %q: list element has no field id", e.path)
		}
		t, err := e.icebergType()
		if err != nil {
			return nil, err
		}
		return &iceberg.ListType{ElementID: e.id, Element: t, ElementRequired: !e.optional}, nil
	case fMap:
		k, val := v.children[0], v.children[1]
		if k.id == 0 || val.id == 0 {
			return nil, fmt.Errorf("column %q: map key or value has no field id", v.path)
		}
		kt, err := k.icebergType()
		if err != nil {
			return nil, err
		}
		vt, err := val.icebergType()
		if err != nil {
			return nil, err
		}
		return &iceberg.MapType{KeyID: k.id, KeyType: kt, ValueID: val.id, ValueType: vt, ValueRequired: !val.optional}, nil
	}
	return nil, fmt.Errorf("column %q: %s", v.path, v.why)
}

// icebergFields lists a struct view's fields that have ids and a readable
// type; the others are skipped.
func (v *fview) icebergFields() ([]iceberg.NestedField, error) {
	var fields []iceberg.NestedField
	for _, c := range v.children {
		if c.id == 0 {
			continue
		}
		t, err := c.icebergType()
		if err != nil {
			continue
		}
		fields = append(fields, iceberg.NestedField{ID: c.id, Name: c.name, Type: t, Required: !c.optional})
	}
	return fields, nil
}

// fileSchema is the Iceberg schema of a file, by its field ids.
func fileSchema(root *fview) (*iceberg.Schema, error) {
	fields, err := root.icebergFields()
	if err != nil {
		return nil, err
	}
	if err := checkUniqueIDs(fields); err != nil {
		return nil, err
	}
	return iceberg.NewSchema(0, fields...), nil
}

func checkUniqueIDs(fields []iceberg.NestedField) error {
	seen := map[int]string{}
	var walk func(prefix string, t iceberg.Type, id int, name string) error
	walk = func(prefix string, t iceberg.Type, id int, name string) error {
		path := joinPath(prefix, name)
		if old, ok := seen[id]; ok {
			return fmt.Errorf("field id %d is used by both %q and %q", id, old, path)
		}
		seen[id] = path
		if nt, ok := t.(iceberg.NestedType); ok {
			for _, f := range nt.Fields() {
				if err := walk(path, f.Type, f.ID, f.Name); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, f := range fields {
		if err := walk("", f.Type, f.ID, f.Name); err != nil {
			return err
		}
	}
	return nil
}
