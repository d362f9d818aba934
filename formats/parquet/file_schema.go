package parquet

import (
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
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
	// id is the element's field_id, or noID when the footer has none. The
	// footer's own optional marks presence: 0 is an id (DuckDB's
	// FIELD_IDS 'auto' starts there), not "none".
	id int
	// index is the element's position in the footer's schema;
	// vectorLength its vector_length when it is VECTOR-repeated (set by
	// setVectorLengths), 0 otherwise.
	index        int
	vectorLength int
}

// noID marks a node without a field id.
const noID = -1

func (n *fnode) leaf() bool { return n.col >= 0 }

// parseFileSchema rebuilds the tree of a footer's flattened schema, walked
// by footer.SchemaTree. openParquet has refused any schema that is not one
// well-formed tree (checkFooter builds the same tree over the same list), so
// an error here is a caller that skipped it; it is returned all the same.
// ids holds each element's field id or noID (openedFile.fieldIDs).
func parseFileSchema(elems []format.SchemaElement, ids []int) (*fnode, error) {
	tree, err := footer.NewFormatSchemaTree(elems)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	// Depth-first order puts every parent before its children, and a
	// column's index is its rank among the columns (tree.Leaf) in that
	// order, the index of its chunk in every row group.
	nodes := make([]*fnode, len(elems))
	col := 0
	for i := range elems {
		e := &elems[i]
		n := &fnode{elem: e, name: e.Name, col: -1, id: noID, index: i}
		nodes[i] = n
		if i < len(ids) {
			n.id = ids[i]
		}
		if tree.Leaf(i) {
			n.col = col
			col++
		}
		p := tree.Parent(i)
		if p < 0 {
			continue
		}
		parent := nodes[p]
		parent.children = append(parent.children, n)
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
	return nodes[0], nil
}

type fshape uint8

const (
	fPrimitive fshape = iota
	fStruct
	fList
	fMap
	fVariant // a VARIANT group, shredded or not: read whole (variant_read.go)
	fUnsupported
	// fVector is PR #592's vector-repetition group (read_vector.go): its
	// element view is the only child.
	fVector
)

// fview is the Iceberg reading of a file node: a struct, list, map or
// primitive, whatever Parquet encoding (3-level list, legacy 2-level list,
// bare repeated field) carries it.
type fview struct {
	shape    fshape
	name     string
	path     string
	id       int // noID when the file has none and no mapping gave one
	def      int // definition level of a present value
	optional bool
	node     *fnode   // the node that carries the field id
	repeated *fnode   // list, map: the repeated node
	children []*fview // struct: fields; list: element; map: key, value
	leaf     *fnode   // primitive
	why      string   // fUnsupported: the reason
	// vec describes a VECTOR column stored as elements: fVector, or an
	// fList annotated VECTOR (read_vector.go).
	vec *vectorView
}

// viewOf reads n as an Iceberg value. asElement is set when n is the
// repeated node of a legacy list that is its own element.
func viewOf(n *fnode, asElement bool) *fview {
	v := &fview{name: n.name, path: n.path, id: n.id, def: n.def, node: n, optional: n.repType == format.Optional}
	if n.repType == format.Repeated && !asElement {
		// A bare repeated field: a required list of required elements.
		elem := viewOf(n, true)
		elem.id, elem.path = noID, joinPath(n.path, listElementName)
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
	if vectorRepetitionGroup(n) {
		return vectorRepetitionView(v, n)
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
		if c.id != noID || hasFieldIDs(c) {
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
				c.id = max(m.ID(), noID)
				applyNameMapping(c, m.Fields)
			} else {
				c.id = noID
				clearIDs(c)
			}
		}
	case fList, fVector:
		mapChild(v.children[0], find(listElementName))
	case fMap:
		mapChild(v.children[0], find(mapKeyName))
		mapChild(v.children[1], find(mapValueName))
	}
}

func mapChild(c *fview, m *iceberg.MappedField) {
	if m == nil {
		c.id = noID
		clearIDs(c)
		return
	}
	c.id = max(m.ID(), noID)
	applyNameMapping(c, m.Fields)
}

func clearIDs(v *fview) {
	for _, c := range v.children {
		c.id = noID
		clearIDs(c)
	}
}

// leafInfo is how a Parquet leaf encodes an Iceberg primitive.
type leafInfo struct {
	typ      iceberg.Type
	physical format.Type
	scale    int64 // time units: values are multiplied (>0) or divided (<0) to reach Iceberg's unit
	int96    bool
	// unsigned marks UINT_8..UINT_64: the stored bits are an unsigned
	// number, read into the next wider Iceberg type (readConverter), and
	// their statistics are in unsigned order (no row-group pruning).
	unsigned bool
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
			case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32:
				return unsignedInfo(info, map[deprecated.ConvertedType]int{deprecated.Uint8: 8, deprecated.Uint16: 16, deprecated.Uint32: 32}[conv])
			case deprecated.Date:
				info.typ = iceberg.PrimitiveTypes.Date
			case deprecated.TimeMillis:
				info.typ, info.scale = iceberg.PrimitiveTypes.Time, 1000
			}
		case *format.IntType:
			if !x.IsSigned {
				return unsignedInfo(info, int(x.BitWidth))
			}
			if x.BitWidth <= 32 {
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
			case deprecated.Uint64:
				return unsignedInfo(info, 64)
			case deprecated.TimeMicros:
				info.typ = iceberg.PrimitiveTypes.Time
			case deprecated.TimestampMicros:
				info.typ = iceberg.PrimitiveTypes.TimestampTz
			case deprecated.TimestampMillis:
				info.typ, info.scale = iceberg.PrimitiveTypes.TimestampTz, 1000
			}
		case *format.IntType:
			switch {
			case !x.IsSigned:
				return unsignedInfo(info, int(x.BitWidth))
			case x.BitWidth == 64:
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
		case *format.Float16Type:
			// Iceberg has no float16; Iceberg Java reads the column by its
			// physical type, the two bytes, and so does the lab.
			if length == 2 {
				info.typ = iceberg.FixedTypeOf(length)
			}
		case nil:
			// INTERVAL (three little-endian uint32: months, days, ms) has
			// no Iceberg type either; Iceberg Java reads its 12 bytes as
			// fixed[12] (MessageTypeToType falls back to the physical type).
			if conv == -1 || conv == deprecated.Interval && length == 12 {
				info.typ = iceberg.FixedTypeOf(length)
			}
		}
	}
	if info.typ == nil {
		return leafInfo{}, fmt.Errorf("%s %s has no Iceberg type", phys, annotationName(e))
	}
	return info, nil
}

// unsignedInfo reads an unsigned integer of the given width into the
// narrowest Iceberg type that holds every value: int for 8 and 16 bits and
// long for 32, as Iceberg Java's MessageTypeToType does, and
// decimal(20, 0) for 64 bits, where Iceberg Java refuses the column and
// Spark reads the same decimal.
func unsignedInfo(info leafInfo, bits int) (leafInfo, error) {
	info.unsigned = true
	switch {
	case bits == 8 || bits == 16:
		if info.physical == format.Int32 {
			info.typ = iceberg.PrimitiveTypes.Int32
		}
	case bits == 32:
		if info.physical == format.Int32 {
			info.typ = iceberg.PrimitiveTypes.Int64
		}
	case bits == 64:
		if info.physical == format.Int64 {
			info.typ = iceberg.DecimalTypeOf(20, 0)
		}
	}
	if info.typ == nil {
		return leafInfo{}, fmt.Errorf("%s holds an unsigned integer of %d bits, which it cannot", info.physical, bits)
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

// schemaMode says what icebergType does with a field it cannot read.
type schemaMode uint8

const (
	// pruneUnreadable leaves such fields out, as Iceberg prunes columns it
	// cannot address: a projection chooses the columns read.
	pruneUnreadable schemaMode = iota
	// pruneUnmapped is for the schema of a file read through a caller's
	// name mapping: the fields it does not map are left out (the mapping
	// says which columns the caller means), a mapped field whose type
	// Iceberg lacks is an error naming it.
	pruneUnmapped
	// strictSchema is for the schema of a file read whole: a field without
	// an id or with a type Iceberg lacks is an error naming it, never a
	// column left out in silence.
	strictSchema
)

// icebergType is the Iceberg type of a view, for the schema of a file read
// without projection; mode says what becomes of fields it cannot read.
func (v *fview) icebergType(mode schemaMode) (iceberg.Type, error) {
	switch v.shape {
	case fPrimitive:
		info, err := leafType(v.leaf.elem)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", v.path, err)
		}
		return info.typ, nil
	case fStruct:
		fields, err := v.icebergFields(mode)
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
	case fVector:
		return v.vec.icebergType(v, mode)
	case fList:
		if v.vec != nil && v.vec.elementID == noID {
			return v.vec.icebergType(v, mode)
		}
		e := v.children[0]
		if e.id == noID {
			return nil, fmt.Errorf("column %q: list element has no field id", e.path)
		}
		t, err := e.icebergType(mode)
		if err != nil {
			return nil, err
		}
		return &iceberg.ListType{ElementID: e.id, Element: t, ElementRequired: !e.optional}, nil
	case fMap:
		k, val := v.children[0], v.children[1]
		if k.id == noID || val.id == noID {
			return nil, fmt.Errorf("column %q: map key or value has no field id", v.path)
		}
		kt, err := k.icebergType(mode)
		if err != nil {
			return nil, err
		}
		vt, err := val.icebergType(mode)
		if err != nil {
			return nil, err
		}
		return &iceberg.MapType{KeyID: k.id, KeyType: kt, ValueID: val.id, ValueType: vt, ValueRequired: !val.optional}, nil
	}
	return nil, fmt.Errorf("column %q: %s", v.path, v.why)
}

// icebergFields lists a struct view's fields; see icebergType for mode.
func (v *fview) icebergFields(mode schemaMode) ([]iceberg.NestedField, error) {
	var fields []iceberg.NestedField
	for _, c := range v.children {
		if c.id == noID {
			if mode == strictSchema {
				return nil, fmt.Errorf("column %q has no field id while other columns of the file have one: give the file a name mapping, or project the columns to read", c.path)
			}
			continue
		}
		t, err := c.icebergType(mode)
		if err != nil {
			if mode != pruneUnreadable {
				return nil, err
			}
			continue
		}
		fields = append(fields, iceberg.NestedField{ID: c.id, Name: c.name, Type: t, Required: !c.optional})
	}
	return fields, nil
}

// fileSchema is the Iceberg schema of a file, by its field ids; mode as
// for icebergType.
func fileSchema(root *fview, mode schemaMode) (*iceberg.Schema, error) {
	fields, err := root.icebergFields(mode)
	if err != nil {
		return nil, err
	}
	if err := checkUniqueIDs(fields); err != nil {
		return nil, err
	}
	return iceberg.NewSchema(0, fields...), nil
}

// deriveFieldIDs numbers a file written without field ids from its own
// schema, as Iceberg numbers a new schema (TypeUtil.assignFreshIds): the
// fields of a struct first, in order, then what lies inside each. The
// top-level columns so get 1..n, the ids Iceberg Java's
// ParquetSchemaUtil.addFallbackIds gives them when it reads such a file
// without a name mapping, so a projection by those ids reads the same
// columns in both.
func deriveFieldIDs(root *fview) {
	next := 1
	assignFreshIDs(root, &next, true)
}

// fillElementIDs gives ids to the list elements and map keys and values
// that a file with ids left without one (DuckDB cannot put ids on the
// elements of FLOAT[N]). Those positions are matched by structure, never
// by id, so a fresh id above the file's largest names them without
// colliding with anything a projection asks for. Struct fields without ids
// stay without: which column a projection means by them is unknown.
func fillElementIDs(root *fview) {
	next := maxFieldID(root) + 1
	assignFreshIDs(root, &next, false)
}

func assignFreshIDs(v *fview, next *int, structFields bool) {
	switch v.shape {
	case fStruct, fList, fMap, fVector:
	default:
		return // a variant's children are its encoding, not fields
	}
	if v.shape != fStruct || structFields {
		for _, c := range v.children {
			if c.id == noID {
				c.id = *next
				*next++
			}
		}
	}
	for _, c := range v.children {
		assignFreshIDs(c, next, structFields)
	}
}

func maxFieldID(v *fview) int {
	m := v.id
	for _, c := range v.children {
		m = max(m, maxFieldID(c))
	}
	return m
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
