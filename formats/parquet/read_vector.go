package parquet

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// VECTOR columns stored as elements (spec/VECTOR.md's list and
// vector-repetition layouts) read as the Iceberg type the writer had: a
// fixed[dim × width] column, whose element carries no field id, reads as
// its cells, each vector's elements re-encoded little-endian; a column
// written from list<float> or list<double>, whose element keeps its id,
// reads as that list, null elements included. A projection may ask either
// of a vector-repetition column, and fixed[L] of an annotated list.
//
// parquet-go reads PR #592's VECTOR-repeated middle group as REQUIRED,
// which gives the element leaf exactly the levels PR #592 defines (the
// middle level adds none) and one "row" per element slot: the cursor's
// values are the slots, dim per row, null vectors included.

// The element types are derived from the leaf's schema element, not from
// a VECTOR package: FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY(2) annotated
// FLOAT16 and INT32 annotated INT(8) are the element types PR #592's
// VECTOR repetition and spec/VECTOR.md's list layout take, each with its
// width in a fixed[L] cell. What a list annotation means (that its lists
// have one length) is the annotating binding's to say
// (FixedListBinding); the VECTOR repetition is the schema's own (PR #592's
// FieldRepetitionType), read here whatever binding is registered.

// vectorStorage is how a fixed-length column stores its elements.
type vectorStorage uint8

const (
	// vectorList is the 3-level LIST whose lists all have the length its
	// binding's annotation gives (spec/VECTOR.md's list layout).
	vectorList vectorStorage = iota + 1
	// vectorRepetition is PR #592's VECTOR-repeated middle group.
	vectorRepetition
)

// vectorElement is a leaf's element type in a fixed[L] cell.
type vectorElement uint8

const (
	elemFloat32 vectorElement = iota + 1
	elemFloat64
	elemFloat16
	elemInt8
)

// String is the element's name in a VECTOR declaration.
func (e vectorElement) String() string {
	switch e {
	case elemFloat32:
		return "float32"
	case elemFloat64:
		return "float64"
	case elemFloat16:
		return "float16"
	case elemInt8:
		return "int8"
	}
	return fmt.Sprintf("vectorElement(%d)", uint8(e))
}

// vectorElementFooterNames are the elements' names in
// footer.VectorElementWidths (the annotation mirror's "element"), the one
// table of their widths.
var vectorElementFooterNames = [...]string{elemFloat32: "FLOAT", elemFloat64: "DOUBLE", elemFloat16: "FLOAT16", elemInt8: "INT8"}

// width is the element's bytes in a fixed[L] cell, 0 for no element.
func (e vectorElement) width() int {
	if int(e) >= len(vectorElementFooterNames) {
		return 0
	}
	return int(footer.VectorElementWidths[vectorElementFooterNames[e]])
}

// vectorView is a fixed-length column found in the file's schema.
type vectorView struct {
	layout  vectorStorage
	dim     int
	element vectorElement // 0: the leaf is none of the elements above
	leaf    *fnode
	// elementID is the element's field id in the file, noID when it has
	// none (a fixed[L] column's).
	elementID int
}

// vectorElementOf is the element type of a list or vector-repetition
// leaf: FLOAT, DOUBLE, FLOAT16, INT32 annotated INT(8); 0 for any other.
func vectorElementOf(e *format.SchemaElement) vectorElement {
	switch e.Type.V {
	case format.Float:
		return elemFloat32
	case format.Double:
		return elemFloat64
	case format.FixedLenByteArray:
		if _, ok := e.LogicalType.Value.(*format.Float16Type); ok && e.TypeLength.V == 2 {
			return elemFloat16
		}
	case format.Int32:
		if it, ok := e.LogicalType.Value.(*format.IntType); ok && it.BitWidth == 8 && it.IsSigned {
			return elemInt8
		}
		if e.LogicalType.Value == nil && e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Int8 {
			return elemInt8
		}
	}
	return 0
}

// setVectorLengths copies the footer's vector_length onto the nodes
// (openedFile.vectorLengths, by schema element).
func setVectorLengths(n *fnode, lengths []int32) {
	if n.index < len(lengths) {
		n.vectorLength = int(lengths[n.index])
	}
	for _, c := range n.children {
		setVectorLengths(c, lengths)
	}
}

// vectorRepetitionGroup reports whether n is PR #592's outer group: one
// VECTOR-repeated middle group over one leaf (openedFile.check let only
// that shape through).
func vectorRepetitionGroup(n *fnode) bool {
	if n.leaf() || len(n.children) != 1 {
		return false
	}
	m := n.children[0]
	return m.repType == format.FieldRepetitionType(footer.Vector) && m.vectorLength > 0 && len(m.children) == 1 && m.children[0].leaf()
}

func vectorRepetitionView(v *fview, n *fnode) *fview {
	leaf := n.children[0].children[0]
	v.shape = fVector
	v.children = []*fview{viewOf(leaf, false)}
	v.vec = &vectorView{layout: vectorRepetition, dim: n.children[0].vectorLength,
		element: vectorElementOf(leaf.elem), leaf: leaf, elementID: leaf.id}
	return v
}

// markVectorLists finds the top-level lists whose annotation, by a
// registered FixedListBinding, gives their length (VECTOR's list layout),
// before any id is filled in for their elements.
func markVectorLists(root *fview, anns []footer.Annotation) {
	for _, a := range anns {
		if len(a.Path) != 1 {
			continue
		}
		b, ok := bindingOf(a.Kind).(FixedListBinding)
		if !ok {
			continue
		}
		dim, ok := b.FixedListLength(a)
		if !ok || dim <= 0 {
			continue
		}
		for _, c := range root.children {
			if c.name != a.Path[0] || c.shape != fList || c.vec != nil {
				continue
			}
			e := c.children[0]
			if e.shape != fPrimitive || e.leaf == c.repeated {
				continue // not the 3-level list of a leaf
			}
			c.vec = &vectorView{layout: vectorList, dim: dim,
				element: vectorElementOf(e.leaf.elem), leaf: e.leaf, elementID: e.id}
		}
	}
}

// icebergType is the column's type in the file's schema.
func (vv *vectorView) icebergType(v *fview, mode schemaMode) (iceberg.Type, error) {
	if vv.elementID == noID {
		if vv.element == 0 {
			return nil, fmt.Errorf("column %q: VECTOR element %s %s is not float32, float64, float16 or int8", v.path, vv.leaf.elem.Type.V, annotationName(vv.leaf.elem))
		}
		return iceberg.FixedTypeOf(vv.dim * vv.element.width()), nil
	}
	e := v.children[0]
	t, err := e.icebergType(mode)
	if err != nil {
		return nil, err
	}
	return &iceberg.ListType{ElementID: e.id, Element: t, ElementRequired: !e.optional}, nil
}

// vectorRead is how an rVector node assembles its values.
type vectorRead struct {
	layout  vectorStorage
	dim     int
	element vectorElement
	fixed   bool     // fixed[L] cells, else []any lists
	conv    readConv // list elements
	leafDef int      // definition level of a present element
	width   int
}

// vectorNode plans the read of a VECTOR column stored as elements as
// fixed[L] or as a list.
func (p *readPlanner) vectorNode(f iceberg.NestedField, fv *fview, path string) (*rnode, error) {
	vv := fv.vec
	leaf := vv.leaf
	if (vv.layout == vectorRepetition && leaf.rep > 0) || leaf.rep > 1 {
		return nil, fmt.Errorf("read %s: field id %d (%q): a VECTOR column inside a list or map is not read", p.location, f.ID, f.Name)
	}
	vr := &vectorRead{layout: vv.layout, dim: vv.dim, element: vv.element, leafDef: leaf.def}
	n := &rnode{kind: rVector, def: fv.def, path: path, vec: vr}
	if vv.layout == vectorList {
		n.repDef, n.rep = fv.repeated.def, fv.repeated.rep
	}
	switch t := f.Type.(type) {
	case iceberg.FixedType:
		if vv.element == 0 {
			return nil, p.incompatible(f, fv, fmt.Sprintf("a VECTOR of %s %s elements", leaf.elem.Type.V, annotationName(leaf.elem)))
		}
		if want := vv.dim * vv.element.width(); t.Len() != want {
			return nil, p.incompatible(f, fv, fmt.Sprintf("a VECTOR of %d %s (fixed[%d])", vv.dim, vv.element, want))
		}
		vr.fixed, vr.width = true, vv.element.width()
	case *iceberg.ListType:
		info, err := leafType(leaf.elem)
		if err != nil {
			return nil, fmt.Errorf("read %s: field id %d (%q): file column %q: %w", p.location, f.ID, f.Name, fv.path, err)
		}
		if !data.Promotable(info.typ, t.Element) {
			return nil, p.incompatible(f, fv, "a VECTOR of "+info.typ.String())
		}
		if vr.conv, err = readConverter(info, t.Element); err != nil {
			return nil, fmt.Errorf("read %s: field id %d (%q): %w", p.location, f.ID, f.Name, err)
		}
	default:
		return nil, p.incompatible(f, fv, "a VECTOR")
	}
	c, err := p.cursor(leaf)
	if err != nil {
		return nil, err
	}
	c.release = true // every value is converted before the next is read
	if vv.layout == vectorRepetition {
		c.vectorSlots = int64(vv.dim)
	}
	n.col, n.cursors, n.level = c, []*cursor{c}, c
	return n, nil
}

// readVector assembles one row of an rVector node: nil for a null vector,
// else its fixed[L] cell or its list.
func (r *recordReader) readVector(n *rnode) (any, error) {
	vr, c := n.vec, n.col
	first, err := c.next()
	if err != nil {
		return nil, r.columnError(c, err)
	}
	list := vr.layout == vectorList
	if first.DefinitionLevel() < n.def {
		if !list {
			// PR #592: a null vector still has its dim slots, all null.
			for j := 1; j < vr.dim; j++ {
				v, err := c.next()
				if err != nil {
					return nil, r.columnError(c, err)
				}
				if v.DefinitionLevel() >= n.def {
					return nil, fmt.Errorf("read %s: column %q: row %d: slot 0 says the vector is null, slot %d holds a value", r.location, c.path, r.pos, j)
				}
			}
			return nil, nil
		}
		return nil, r.skipNullContinuations(n, c)
	}
	if list && first.DefinitionLevel() < n.repDef {
		return nil, fmt.Errorf("read %s: column %q: row %d: an empty list is not a VECTOR of dimension %d", r.location, c.path, r.pos, vr.dim)
	}
	var cell []byte
	var items []any
	if vr.fixed {
		cell = make([]byte, vr.dim*vr.width)
	} else {
		items = make([]any, vr.dim)
	}
	for j := 0; j < vr.dim; j++ {
		v := first
		if j > 0 {
			if list {
				lv, ok, err := c.peek()
				if err != nil {
					return nil, r.columnError(c, err)
				}
				if !ok || lv.RepetitionLevel() != n.rep {
					return nil, fmt.Errorf("read %s: column %q: row %d has %d elements, the VECTOR dimension is %d", r.location, c.path, r.pos, j, vr.dim)
				}
			}
			if v, err = c.next(); err != nil {
				return nil, r.columnError(c, err)
			}
			if !list && v.DefinitionLevel() < n.def {
				return nil, fmt.Errorf("read %s: column %q: row %d: slot %d is null in a present vector", r.location, c.path, r.pos, j)
			}
		}
		if v.DefinitionLevel() < vr.leafDef {
			if vr.fixed {
				return nil, fmt.Errorf("read %s: column %q: row %d: element %d is null, which a fixed[%d] cell cannot hold: project the column as a list", r.location, c.path, r.pos, j, len(cell))
			}
			continue // items[j] stays nil
		}
		if !vr.fixed {
			if items[j], err = vr.conv(v); err != nil {
				return nil, fmt.Errorf("read %s: column %q: %w", r.location, c.path, err)
			}
			continue
		}
		if err := putVectorElement(cell[j*vr.width:], vr.element, v); err != nil {
			return nil, fmt.Errorf("read %s: column %q: row %d, element %d: %w", r.location, c.path, r.pos, j, err)
		}
	}
	if list {
		if lv, ok, err := c.peek(); err != nil {
			return nil, r.columnError(c, err)
		} else if ok && lv.RepetitionLevel() == n.rep {
			return nil, fmt.Errorf("read %s: column %q: row %d has more than the VECTOR dimension's %d elements", r.location, c.path, r.pos, vr.dim)
		}
	}
	if vr.fixed {
		return cell, nil
	}
	return items, nil
}

// putVectorElement stores v, a leaf value of element type t, in dst as a
// fixed[L] cell holds it: little-endian, int8 as one byte.
func putVectorElement(dst []byte, t vectorElement, v pq.Value) error {
	switch t {
	case elemFloat32:
		if v.Kind() != pq.Float {
			return kindError(v, format.Float)
		}
		binary.LittleEndian.PutUint32(dst, math.Float32bits(v.Float()))
	case elemFloat64:
		if v.Kind() != pq.Double {
			return kindError(v, format.Double)
		}
		binary.LittleEndian.PutUint64(dst, math.Float64bits(v.Double()))
	case elemFloat16:
		b := v.ByteArray()
		if v.Kind() != pq.FixedLenByteArray || len(b) != 2 {
			return kindError(v, format.FixedLenByteArray)
		}
		copy(dst, b)
	case elemInt8:
		if v.Kind() != pq.Int32 {
			return kindError(v, format.Int32)
		}
		x := v.Int32()
		if x < math.MinInt8 || x > math.MaxInt8 {
			return fmt.Errorf("INT(8) element holds %d", x)
		}
		dst[0] = byte(int8(x))
	default:
		return fmt.Errorf("element type %v has no fixed cell", t)
	}
	return nil
}
