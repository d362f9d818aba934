package avro

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/apache/iceberg-go"
	hamba "github.com/hamba/avro/v2"

	"github.com/coltype-lab/lab/data"
)

// fnode is a file's Avro schema node with Iceberg ids resolved, from the
// schema's properties or, for files written without ids, a name mapping.
// Each occurrence of a named type gets its own node because a name mapping
// may give the same named type different ids at different paths.
type fnode struct {
	kind    hamba.Type
	name    string // full name of a named type
	logical string
	// decimal: precision and scale, decimalOK when they are usable.
	precision, scale int
	decimalOK        bool
	size             int   // fixed
	adjustToUTC      *bool // timestamps
	symbols          []string
	fields           []ffield // record
	items            *fnode   // array
	values           *fnode   // map
	branches         []*fnode // union
	// Ids of an array's element, a map's key and value; an array of
	// key/value records with logicalType "map" (isMap) uses key and value.
	elementID, keyID, valueID          int
	hasElementID, hasKeyID, hasValueID bool
	isMap                              bool
	// recursive points at an enclosing record of the same name: Avro allows
	// recursive types, Iceberg does not, but a reader must still skip them.
	recursive *fnode
}

type ffield struct {
	name        string // Avro name
	icebergName string // iceberg-field-name when the Avro name was sanitized
	id          int
	hasID       bool
	node        *fnode
}

// maxSchemaNodes bounds the node tree: a small hostile schema that reuses a
// named type at every level would otherwise expand exponentially.
const maxSchemaNodes = 1 << 16

type fileSchemaBuilder struct {
	useIDs bool // the file has ids: take them from properties only
	nodes  int
	stack  []*fnode // enclosing records, for recursion
	// depth is the level of the type being built (a top-level field's is
	// 1), column the top-level field it is in.
	depth  int
	column string
}

// deeper enters a type one level down (a field's, an array's items, a
// map's values), refusing to go past the lab's schema limit: past it,
// iceberg-go's name index over the schema, quadratic in the depth, took
// 21 s and 1 GB for 3,000 nested records. leave goes back up.
func (b *fileSchemaBuilder) deeper() error {
	b.depth++
	if b.depth > data.MaxSchemaDepth {
		return fmt.Errorf("Avro schema: column %q: types nest deeper than %d levels: %w", b.column, data.MaxSchemaDepth, data.ErrSchemaTooDeep)
	}
	return nil
}

func (b *fileSchemaBuilder) leave() { b.depth-- }

// buildFileSchema resolves ids on the file's schema. With ids present in
// the file the mapping is ignored, as Java's NameMappingDatumReader does.
func buildFileSchema(s hamba.Schema, mapping iceberg.NameMapping) (*fnode, error) {
	b := &fileSchemaBuilder{useIDs: hasIDs(s, map[string]bool{})}
	var scope []iceberg.MappedField
	if !b.useIDs {
		scope = mapping
	}
	root, err := b.node(s, scope)
	if err == nil && !b.useIDs && mapping == nil {
		// Other writers' files: ids derived from the file's own schema,
		// as the Parquet model derives them (Iceberg's fresh-id order).
		deriveIDs(root)
	}
	return root, err
}

// deriveIDs numbers a schema without ids as Iceberg numbers a new one
// (TypeUtil.assignFreshIds): a record's fields first, in order, then what
// lies inside each; list elements, map keys and values as they come.
func deriveIDs(root *fnode) {
	next := 1
	id := func() int { next++; return next - 1 }
	var visit func(n *fnode)
	visit = func(n *fnode) {
		if n == nil || n.recursive != nil {
			return
		}
		switch {
		case n.kind == hamba.Record:
			for i := range n.fields {
				n.fields[i].id, n.fields[i].hasID = id(), true
			}
			for i := range n.fields {
				visit(n.fields[i].node)
			}
		case n.kind == hamba.Array && n.isMap:
			n.keyID, n.hasKeyID = id(), true
			n.valueID, n.hasValueID = id(), true
			n.items.fields[0].id, n.items.fields[0].hasID = n.keyID, true
			n.items.fields[1].id, n.items.fields[1].hasID = n.valueID, true
			visit(n.items.fields[0].node)
			visit(n.items.fields[1].node)
		case n.kind == hamba.Array:
			n.elementID, n.hasElementID = id(), true
			visit(n.items)
		case n.kind == hamba.Map:
			n.keyID, n.hasKeyID = id(), true
			n.valueID, n.hasValueID = id(), true
			visit(n.values)
		case n.kind == hamba.Union:
			for _, b := range n.branches {
				visit(b)
			}
		}
	}
	visit(root)
}

func (b *fileSchemaBuilder) node(s hamba.Schema, scope []iceberg.MappedField) (*fnode, error) {
	b.nodes++
	if b.nodes > maxSchemaNodes {
		return nil, fmt.Errorf("Avro schema expands to more than %d nodes", maxSchemaNodes)
	}
	if ref, ok := s.(*hamba.RefSchema); ok {
		s = ref.Schema()
	}
	n := &fnode{kind: s.Type()}
	if named, ok := s.(hamba.NamedSchema); ok {
		n.name = named.FullName()
	}
	switch s := s.(type) {
	case *hamba.NullSchema:
	case *hamba.PrimitiveSchema:
		n.logical = logicalName(s.Logical(), s.Prop(logicalTypeProp))
		if d, ok := s.Logical().(*hamba.DecimalLogicalSchema); ok {
			n.precision, n.scale, n.decimalOK = d.Precision(), d.Scale(), true
		}
		n.adjustToUTC = boolProp(s.Prop(adjustToUTCProp))
	case *hamba.FixedSchema:
		n.size = s.Size()
		n.logical = logicalName(s.Logical(), s.Prop(logicalTypeProp))
		if d, ok := s.Logical().(*hamba.DecimalLogicalSchema); ok {
			n.precision, n.scale, n.decimalOK = d.Precision(), d.Scale(), true
		}
	case *hamba.EnumSchema:
		n.symbols = s.Symbols()
	case *hamba.RecordSchema:
		for _, anc := range b.stack {
			if anc.name == n.name {
				return &fnode{kind: hamba.Record, name: n.name, recursive: anc}, nil
			}
		}
		b.stack = append(b.stack, n)
		defer func() { b.stack = b.stack[:len(b.stack)-1] }()
		n.fields = make([]ffield, len(s.Fields()))
		for i, f := range s.Fields() {
			ff := ffield{name: f.Name()}
			if name, ok := f.Prop(icebergFieldNameProp).(string); ok {
				ff.icebergName = name
			}
			var sub []iceberg.MappedField
			if b.useIDs {
				ff.id, ff.hasID = intProp(f.Prop(fieldIDProp))
			} else if mf := findMapped(scope, f.Name()); mf != nil {
				ff.id, ff.hasID = mf.ID(), mf.FieldID != nil
				sub = mf.Fields
			}
			if b.depth == 0 {
				b.column = f.Name()
			}
			if err := b.deeper(); err != nil {
				return nil, err
			}
			child, err := b.node(f.Type(), sub)
			b.leave()
			if err != nil {
				return nil, err
			}
			ff.node = child
			n.fields[i] = ff
		}
	case *hamba.ArraySchema:
		n.logical, _ = s.Prop(logicalTypeProp).(string)
		items := s.Items()
		if ref, ok := items.(*hamba.RefSchema); ok {
			items = ref.Schema()
		}
		if kv, ok := items.(*hamba.RecordSchema); ok && len(kv.Fields()) == 2 &&
			(n.logical == "map" || !b.useIDs && findMapped(scope, "key") != nil && findMapped(scope, "value") != nil) {
			// Key/value records: the map representation for non-string keys.
			n.isMap = true
			var keyScope, valueScope []iceberg.MappedField
			if b.useIDs {
				n.keyID, n.hasKeyID = intProp(kv.Fields()[0].Prop(fieldIDProp))
				n.valueID, n.hasValueID = intProp(kv.Fields()[1].Prop(fieldIDProp))
			} else {
				if mf := findMapped(scope, "key"); mf != nil {
					n.keyID, n.hasKeyID, keyScope = mf.ID(), mf.FieldID != nil, mf.Fields
				}
				if mf := findMapped(scope, "value"); mf != nil {
					n.valueID, n.hasValueID, valueScope = mf.ID(), mf.FieldID != nil, mf.Fields
				}
			}
			b.nodes++
			rec := &fnode{kind: hamba.Record, name: kv.FullName(), fields: make([]ffield, 2)}
			for i, sc := range [][]iceberg.MappedField{keyScope, valueScope} {
				f := kv.Fields()[i]
				if err := b.deeper(); err != nil {
					return nil, err
				}
				child, err := b.node(f.Type(), sc)
				b.leave()
				if err != nil {
					return nil, err
				}
				rec.fields[i] = ffield{name: f.Name(), node: child}
			}
			rec.fields[0].id, rec.fields[0].hasID = n.keyID, n.hasKeyID
			rec.fields[1].id, rec.fields[1].hasID = n.valueID, n.hasValueID
			n.items = rec
			return n, nil
		}
		var sub []iceberg.MappedField
		if b.useIDs {
			n.elementID, n.hasElementID = intProp(s.Prop(elementIDProp))
		} else if mf := findMapped(scope, "element"); mf != nil {
			n.elementID, n.hasElementID, sub = mf.ID(), mf.FieldID != nil, mf.Fields
		}
		if err := b.deeper(); err != nil {
			return nil, err
		}
		child, err := b.node(s.Items(), sub)
		b.leave()
		if err != nil {
			return nil, err
		}
		n.items = child
	case *hamba.MapSchema:
		var sub []iceberg.MappedField
		if b.useIDs {
			n.keyID, n.hasKeyID = intProp(s.Prop(keyIDProp))
			n.valueID, n.hasValueID = intProp(s.Prop(valueIDProp))
		} else {
			if mf := findMapped(scope, "key"); mf != nil {
				n.keyID, n.hasKeyID = mf.ID(), mf.FieldID != nil
			}
			if mf := findMapped(scope, "value"); mf != nil {
				n.valueID, n.hasValueID, sub = mf.ID(), mf.FieldID != nil, mf.Fields
			}
		}
		if err := b.deeper(); err != nil {
			return nil, err
		}
		child, err := b.node(s.Values(), sub)
		b.leave()
		if err != nil {
			return nil, err
		}
		n.values = child
	case *hamba.UnionSchema:
		for _, t := range s.Types() {
			child, err := b.node(t, scope)
			if err != nil {
				return nil, err
			}
			n.branches = append(n.branches, child)
		}
	default:
		return nil, fmt.Errorf("unsupported Avro schema %T", s)
	}
	return n, nil
}

// hasIDs reports whether any node carries an Iceberg id (Java's HasIds).
func hasIDs(s hamba.Schema, seen map[string]bool) bool {
	if ref, ok := s.(*hamba.RefSchema); ok {
		s = ref.Schema()
	}
	if named, ok := s.(hamba.NamedSchema); ok {
		if seen[named.FullName()] {
			return false
		}
		seen[named.FullName()] = true
	}
	switch s := s.(type) {
	case *hamba.RecordSchema:
		for _, f := range s.Fields() {
			if f.Prop(fieldIDProp) != nil || hasIDs(f.Type(), seen) {
				return true
			}
		}
	case *hamba.ArraySchema:
		return s.Prop(elementIDProp) != nil || hasIDs(s.Items(), seen)
	case *hamba.MapSchema:
		return s.Prop(keyIDProp) != nil || s.Prop(valueIDProp) != nil || hasIDs(s.Values(), seen)
	case *hamba.UnionSchema:
		return slices.ContainsFunc(s.Types(), func(t hamba.Schema) bool { return hasIDs(t, seen) })
	}
	return false
}

func findMapped(scope []iceberg.MappedField, name string) *iceberg.MappedField {
	for i := range scope {
		if slices.Contains(scope[i].Names, name) {
			return &scope[i]
		}
	}
	return nil
}

func logicalName(l hamba.LogicalSchema, prop any) string {
	if l != nil {
		return string(l.Type())
	}
	s, _ := prop.(string)
	return s
}

// intProp reads an id property: a JSON integer, or a string holding one
// (Java's AvroSchemaUtil.toInt accepts both).
func intProp(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt32 && x <= math.MaxInt32 {
			return int(x), true
		}
	case int:
		return x, true
	case int64:
		return int(x), true
	case json.Number:
		n, err := strconv.Atoi(string(x))
		return n, err == nil
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

func boolProp(v any) *bool {
	switch x := v.(type) {
	case bool:
		return &x
	case string:
		b, err := strconv.ParseBool(x)
		if err == nil {
			return &b
		}
	}
	return nil
}

// option splits a nullable union into its value branch; ok is false for a
// node that is not a union. A union of null alone gives a null node.
func (n *fnode) option() (value *fnode, nullIndex int64, ok bool, err error) {
	if n.kind != hamba.Union {
		return n, -1, false, nil
	}
	switch len(n.branches) {
	case 1:
		return n.branches[0], -1, true, nil
	case 2:
		if n.branches[0].kind == hamba.Null {
			return n.branches[1], 0, true, nil
		}
		if n.branches[1].kind == hamba.Null {
			return n.branches[0], 1, true, nil
		}
	}
	return nil, 0, true, fmt.Errorf("Avro union of %d types is not an Iceberg optional type (only [\"null\", T] unions are)", len(n.branches))
}

// icebergType derives the Iceberg type of a file node, as Java's
// SchemaToType does; ok is false for nodes Iceberg cannot represent (no id
// for a nested element, a general union, a recursive record), which a
// projection-less read leaves out.
func (n *fnode) icebergType() (t iceberg.Type, required bool, ok bool) {
	required = true
	if n.kind == hamba.Union {
		v, nullIndex, _, err := n.option()
		if err != nil {
			return nil, false, false
		}
		required = nullIndex < 0
		n = v
	}
	switch n.kind {
	case hamba.Null:
		return iceberg.UnknownType{}, false, true
	case hamba.Record:
		if n.recursive != nil {
			return nil, false, false
		}
		fields := make([]iceberg.NestedField, 0, len(n.fields))
		for _, f := range n.fields {
			if !f.hasID {
				continue
			}
			ft, req, ok := f.node.icebergType()
			if !ok {
				continue
			}
			name := f.name
			if f.icebergName != "" {
				name = f.icebergName
			}
			fields = append(fields, iceberg.NestedField{ID: f.id, Name: name, Type: ft, Required: req})
		}
		if len(fields) == 0 && len(n.fields) > 0 {
			// Reading such a record as an empty struct would hide its data.
			return nil, false, false
		}
		return &iceberg.StructType{FieldList: fields}, required, true
	case hamba.Array:
		if n.isMap {
			if !n.hasKeyID || !n.hasValueID {
				return nil, false, false
			}
			kt, _, ok1 := n.items.fields[0].node.icebergType()
			vt, vreq, ok2 := n.items.fields[1].node.icebergType()
			if !ok1 || !ok2 {
				return nil, false, false
			}
			return &iceberg.MapType{KeyID: n.keyID, KeyType: kt, ValueID: n.valueID, ValueType: vt, ValueRequired: vreq}, required, true
		}
		if !n.hasElementID {
			return nil, false, false
		}
		et, ereq, ok := n.items.icebergType()
		if !ok {
			return nil, false, false
		}
		return &iceberg.ListType{ElementID: n.elementID, Element: et, ElementRequired: ereq}, required, true
	case hamba.Map:
		if !n.hasKeyID || !n.hasValueID {
			return nil, false, false
		}
		vt, vreq, ok := n.values.icebergType()
		if !ok {
			return nil, false, false
		}
		return &iceberg.MapType{KeyID: n.keyID, KeyType: iceberg.PrimitiveTypes.String, ValueID: n.valueID, ValueType: vt, ValueRequired: vreq}, required, true
	}
	pt, err := n.primitiveType()
	if err != nil {
		return nil, false, false
	}
	return pt, required, true
}

// primitiveType maps an Avro primitive, fixed or enum node to the Iceberg
// type it stores. adjust-to-utc defaults to false (spec, Avro note 1).
func (n *fnode) primitiveType() (iceberg.Type, error) {
	utc := n.adjustToUTC != nil && *n.adjustToUTC
	switch n.kind {
	case hamba.Boolean:
		return iceberg.PrimitiveTypes.Bool, nil
	case hamba.Int:
		switch n.logical {
		case "date":
			return iceberg.PrimitiveTypes.Date, nil
		case "time-millis":
			return iceberg.PrimitiveTypes.Time, nil
		}
		return iceberg.PrimitiveTypes.Int32, nil
	case hamba.Long:
		switch n.logical {
		case "time-micros":
			return iceberg.PrimitiveTypes.Time, nil
		case "timestamp-millis", "timestamp-micros":
			if utc {
				return iceberg.PrimitiveTypes.TimestampTz, nil
			}
			return iceberg.PrimitiveTypes.Timestamp, nil
		case "timestamp-nanos":
			if utc {
				return iceberg.PrimitiveTypes.TimestampTzNs, nil
			}
			return iceberg.PrimitiveTypes.TimestampNs, nil
		case "local-timestamp-millis", "local-timestamp-micros":
			return iceberg.PrimitiveTypes.Timestamp, nil
		case "local-timestamp-nanos":
			return iceberg.PrimitiveTypes.TimestampNs, nil
		}
		return iceberg.PrimitiveTypes.Int64, nil
	case hamba.Float:
		return iceberg.PrimitiveTypes.Float32, nil
	case hamba.Double:
		return iceberg.PrimitiveTypes.Float64, nil
	case hamba.String:
		if n.logical == "uuid" {
			return iceberg.PrimitiveTypes.UUID, nil
		}
		return iceberg.PrimitiveTypes.String, nil
	case hamba.Enum:
		return iceberg.PrimitiveTypes.String, nil
	case hamba.Bytes:
		if n.logical == "decimal" {
			if !n.decimalOK || n.precision > 38 {
				return nil, fmt.Errorf("Avro bytes with an invalid decimal annotation")
			}
			return iceberg.DecimalTypeOf(n.precision, n.scale), nil
		}
		return iceberg.PrimitiveTypes.Binary, nil
	case hamba.Fixed:
		switch n.logical {
		case "decimal":
			if !n.decimalOK || n.precision > 38 {
				return nil, fmt.Errorf("Avro fixed(%d) with an invalid decimal annotation", n.size)
			}
			return iceberg.DecimalTypeOf(n.precision, n.scale), nil
		case "uuid":
			if n.size == 16 {
				return iceberg.PrimitiveTypes.UUID, nil
			}
		}
		if n.size <= 0 {
			return nil, fmt.Errorf("Avro fixed of size %d", n.size)
		}
		return iceberg.FixedTypeOf(n.size), nil
	}
	return nil, fmt.Errorf("Avro %s is not a primitive type", n.kind)
}

// describe names a node's type for errors.
func (n *fnode) describe() string {
	s := string(n.kind)
	if n.logical != "" {
		s += " (" + n.logical + ")"
	}
	if n.kind == hamba.Fixed {
		s += "(" + strconv.Itoa(n.size) + ")"
	}
	return s
}
