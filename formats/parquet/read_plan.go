package parquet

import (
	"fmt"
	"math"
	"reflect"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

type rkind uint8

const (
	rPrim rkind = iota
	rStruct
	rList
	rMap
	rConst   // a constant, a default or a null: no column behind it
	rVariant // a VARIANT group, reconstructed from its columns
	rPos     // the _pos metadata column: the row's position in the file
	rVector  // a VECTOR column stored as elements (read_vector.go)
	// rVariantPath is a projected variant path (VariantsPathsKey).
	rVariantPath
)

// rnode is one projected value in the read plan. Levels are absolute: def
// is the definition level of a present value; for lists and maps repDef is
// the level of a non-empty one and rep the repetition level of its
// elements.
type rnode struct {
	kind        rkind
	path        string
	def         int
	repDef, rep int
	// discard marks nodes read only to keep their columns in step: a
	// struct whose projected fields are all missing from the file still
	// needs one column to tell a null struct from a present one.
	discard  bool
	level    *cursor   // a column under the node, for peeking levels
	cursors  []*cursor // every column under the node
	st       *iceberg.StructType
	children []*rnode // struct: projected fields, then discarded ones; list: element; map: key, value
	col      *cursor
	conv     readConv
	// set, when the type has a typed record setter, stores a value of
	// the primitive without boxing it (readSetter).
	set     readSet
	value   any
	variant *variantRead // rVariant
	vec     *vectorRead  // rVector
	// vsrc is the variant's shared reconstruction (rVariant); vpath the
	// projected path (rVariantPath). See variant_path.go.
	vsrc  *variantSource
	vpath *variantPathNode
}

// readPlanner matches a projection to a file's columns by field id.
type readPlanner struct {
	location  string
	constants map[int]any
	cursors   map[int]*cursor
	batch     int
	// bound are the nodes annotated with a registered binding's kind; they
	// are read once the binding recognises them (ColumnBinding.Recognize).
	bound map[*fnode]ColumnBinding
	// tree and pqRoot are the file schema in both forms: variant groups
	// derive their layout from parquet-go's node.
	tree   *fnode
	pqRoot pq.Node
	// paths are the projected variant paths (VariantPathsKey), meta the
	// footer their plans consult, sources the variants reconstructed for
	// the fields that read them.
	paths   map[string]variantPathSpec
	meta    *format.FileMetaData
	sources map[*fnode]*variantSource
	typed   map[*fnode][]*rnode
}

func (p *readPlanner) cursor(leaf *fnode) (*cursor, error) {
	if _, ok := p.cursors[leaf.col]; ok {
		return nil, fmt.Errorf("read %s: column %q is projected twice", p.location, leaf.path)
	}
	c := newCursor(leaf, p.batch)
	p.cursors[leaf.col] = c
	return c, nil
}

func (n *rnode) addCursors(children ...*rnode) {
	for _, c := range children {
		n.cursors = append(n.cursors, c.cursors...)
	}
	if len(n.cursors) > 0 {
		n.level = n.cursors[0]
	}
}

func (p *readPlanner) structNode(st *iceberg.StructType, fv *fview, path string) (*rnode, error) {
	n := &rnode{kind: rStruct, st: st, def: fv.def, path: path}
	byID := map[int]*fview{}
	for _, c := range fv.children {
		if _, dup := byID[c.id]; c.id != noID && !dup {
			byID[c.id] = c
		}
	}
	for _, f := range st.FieldList {
		fp := joinPath(path, f.Name)
		var (
			child *rnode
			err   error
		)
		if v, ok := p.constants[f.ID]; ok {
			child = &rnode{kind: rConst, value: v, path: fp}
		} else if f.ID == registry.RowPositionFieldID && path == "" {
			if _, ok := f.Type.(iceberg.Int64Type); !ok {
				return nil, fmt.Errorf("read %s: field id %d (%q) is the _pos metadata column and must be long, not %s", p.location, f.ID, f.Name, f.Type)
			}
			child = &rnode{kind: rPos, path: fp}
		} else if spec, ok := p.paths[f.Name]; ok && path == "" {
			child, err = p.variantPathNode(f, spec, fv, fp)
		} else if c, ok := byID[f.ID]; ok {
			child, err = p.node(f, c, fp)
		} else {
			child, err = p.missing(f, fp)
		}
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, child)
	}
	n.addCursors(n.children...)
	if len(n.cursors) == 0 && path != "" {
		h, err := p.hidden(fv)
		if err != nil {
			return nil, fmt.Errorf("read %s: struct %q: no column tells whether it is null: %w", p.location, path, err)
		}
		n.children = append(n.children, h)
		n.addCursors(h)
	}
	return n, nil
}

func (p *readPlanner) incompatible(f iceberg.NestedField, fv *fview, what string) error {
	return fmt.Errorf("read %s: field id %d (%q): file column %q is %s, cannot be read as %s", p.location, f.ID, f.Name, fv.path, what, f.Type)
}

func shapeName(fv *fview) string {
	switch fv.shape {
	case fStruct:
		return "a struct"
	case fList:
		return "a list"
	case fMap:
		return "a map"
	case fVariant:
		return "a variant"
	case fVector:
		return "a VECTOR (vector-repetition)"
	case fPrimitive:
		if info, err := leafType(fv.leaf.elem); err == nil {
			return "of type " + info.typ.String()
		}
		return "a primitive"
	}
	return "unsupported (" + fv.why + ")"
}

func (p *readPlanner) node(f iceberg.NestedField, fv *fview, path string) (*rnode, error) {
	if fv.shape == fUnsupported {
		return nil, fmt.Errorf("read %s: field id %d (%q): file column %q cannot be read: %s", p.location, f.ID, f.Name, fv.path, fv.why)
	}
	if fv.vec != nil {
		// A VECTOR column stored as elements reads as fixed[L]; a
		// vector-repetition one as a list too (an annotated list takes the
		// list path below).
		_, fixed := f.Type.(iceberg.FixedType)
		if fixed || fv.shape == fVector {
			return p.vectorNode(f, fv, path)
		}
	}
	if b := p.bound[fv.node]; b != nil {
		if err := recognize(b, fv); err != nil {
			return nil, fmt.Errorf("read %s: %s column %q: %w", p.location, b.Kind(), fv.path, err)
		}
	}
	switch t := f.Type.(type) {
	case *iceberg.StructType:
		if fv.shape != fStruct {
			return nil, p.incompatible(f, fv, shapeName(fv))
		}
		return p.structNode(t, fv, path)
	case *iceberg.ListType:
		if fv.shape != fList {
			return nil, p.incompatible(f, fv, shapeName(fv))
		}
		n := &rnode{kind: rList, def: fv.def, repDef: fv.repeated.def, rep: fv.repeated.rep, path: path}
		elem, err := p.node(t.ElementField(), fv.children[0], joinPath(path, listElementName))
		if err != nil {
			return nil, err
		}
		n.children = []*rnode{elem}
		n.addCursors(elem)
		return n, nil
	case *iceberg.MapType:
		if fv.shape != fMap {
			return nil, p.incompatible(f, fv, shapeName(fv))
		}
		n := &rnode{kind: rMap, def: fv.def, repDef: fv.repeated.def, rep: fv.repeated.rep, path: path}
		key, err := p.node(t.KeyField(), fv.children[0], joinPath(path, mapKeyName))
		if err != nil {
			return nil, err
		}
		value, err := p.node(t.ValueField(), fv.children[1], joinPath(path, mapValueName))
		if err != nil {
			return nil, err
		}
		n.children = []*rnode{key, value}
		n.addCursors(key, value)
		return n, nil
	case iceberg.UnknownType:
		return &rnode{kind: rConst, path: path}, nil
	case iceberg.VariantType:
		if fv.shape != fVariant {
			return nil, p.incompatible(f, fv, shapeName(fv))
		}
		return p.variantNode(fv, path)
	}
	if fv.shape != fPrimitive {
		return nil, p.incompatible(f, fv, shapeName(fv))
	}
	info, err := leafType(fv.leaf.elem)
	if err != nil {
		return nil, fmt.Errorf("read %s: field id %d (%q): file column %q: %w", p.location, f.ID, f.Name, fv.path, err)
	}
	if !data.Promotable(info.typ, f.Type) {
		return nil, p.incompatible(f, fv, "of type "+info.typ.String())
	}
	conv, err := readConverter(info, f.Type)
	if err != nil {
		return nil, fmt.Errorf("read %s: field id %d (%q): %w", p.location, f.ID, f.Name, err)
	}
	c, err := p.cursor(fv.leaf)
	if err != nil {
		return nil, err
	}
	c.release = true // conv and set copy the value before the next is read
	return &rnode{kind: rPrim, def: fv.def, path: path, col: c, conv: conv, set: readSetter(info, f.Type), cursors: []*cursor{c}, level: c}, nil
}

// missing plans a projected field the file does not have: its initial
// default, or null.
func (p *readPlanner) missing(f iceberg.NestedField, path string) (*rnode, error) {
	if f.InitialDefault != nil {
		v, err := coerceDefault(f.Type, f.InitialDefault)
		if err != nil {
			return nil, fmt.Errorf("read %s: field id %d (%q): initial default: %w", p.location, f.ID, f.Name, err)
		}
		return &rnode{kind: rConst, value: v, path: path}, nil
	}
	if _, unknown := f.Type.(iceberg.UnknownType); f.Required && !unknown {
		return nil, fmt.Errorf("read %s: field id %d (%q) is required but not in the file and has no initial default", p.location, f.ID, f.Name)
	}
	return &rnode{kind: rConst, path: path}, nil
}

// hidden plans a discarded read of the first readable leaf under fv.
func (p *readPlanner) hidden(fv *fview) (*rnode, error) {
	switch fv.shape {
	case fPrimitive:
		c, err := p.cursor(fv.leaf)
		if err != nil {
			return nil, err
		}
		return &rnode{kind: rPrim, def: fv.def, path: fv.path, col: c, discard: true, cursors: []*cursor{c}, level: c}, nil
	case fStruct:
		var last error = fmt.Errorf("struct %q has no readable column", fv.path)
		for _, c := range fv.children {
			h, err := p.hidden(c)
			if err != nil {
				last = err
				continue
			}
			n := &rnode{kind: rStruct, def: fv.def, path: fv.path, discard: true, children: []*rnode{h}}
			n.addCursors(h)
			return n, nil
		}
		return nil, last
	case fVariant:
		for _, c := range fv.node.children {
			if c.name == variantMetadataName && c.leaf() {
				cur, err := p.cursor(c)
				if err != nil {
					return nil, err
				}
				return &rnode{kind: rPrim, def: c.def, path: c.path, col: cur, discard: true, cursors: []*cursor{cur}, level: cur}, nil
			}
		}
		return nil, fmt.Errorf("variant %q has no metadata column", fv.path)
	case fList, fMap:
		h, err := p.hidden(fv.children[0])
		if err != nil {
			return nil, err
		}
		kind := rList
		children := []*rnode{h}
		if fv.shape == fMap {
			kind = rMap
			children = append(children, &rnode{kind: rConst})
		}
		n := &rnode{kind: kind, def: fv.def, repDef: fv.repeated.def, rep: fv.repeated.rep, path: fv.path, discard: true, children: children}
		n.addCursors(h)
		return n, nil
	}
	return nil, fmt.Errorf("column %q: %s", fv.path, fv.why)
}

// coerceDefault accepts a default in the record representation, or a
// number or string as JSON decoding leaves them.
func coerceDefault(t iceberg.Type, v any) (any, error) {
	if _, ok := t.(iceberg.PrimitiveType); !ok {
		return v, nil
	}
	if _, conv, err := primitiveLeaf(t); err == nil {
		if _, err := conv(v); err == nil {
			return v, nil
		}
	}
	rv := reflect.ValueOf(v)
	var f float64
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f = float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f = float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		f = rv.Float()
	default:
		return nil, fmt.Errorf("value %v (%T) is not a %s", v, v, t)
	}
	integral := f == math.Trunc(f)
	switch t.(type) {
	case iceberg.Int32Type:
		if integral && f >= math.MinInt32 && f <= math.MaxInt32 {
			return int32(f), nil
		}
	case iceberg.Int64Type:
		if rv.CanInt() {
			return rv.Int(), nil
		}
		if integral && f >= math.MinInt64 && f < math.MaxInt64 {
			return int64(f), nil
		}
	case iceberg.Float32Type:
		return float32(f), nil
	case iceberg.Float64Type:
		return f, nil
	case iceberg.DateType:
		if integral {
			return iceberg.Date(int32(f)), nil
		}
	}
	return nil, fmt.Errorf("value %v (%T) is not a %s", v, v, t)
}

// recognize asks a binding about a column of the file, read as the Iceberg
// type the file gives it. Children the file gives no field id cannot be read
// and are left out of that type.
func recognize(b ColumnBinding, fv *fview) error {
	t, err := fv.icebergType(pruneUnreadable)
	if err != nil {
		return err
	}
	return b.Recognize(t)
}
