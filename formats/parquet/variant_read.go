package parquet

import (
	"errors"
	"fmt"
	"io"
	"strings"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// A variant column reads as a pvariant.Value, reconstructed from whatever
// columns the file has (shredded or not, by the lab or by others): the
// Layout comes from the file schema (variant.LayoutFromParquet) and each
// occurrence's leveled values are assembled into a variant.Row, then
// variant.Reconstruct rebuilds the value.

// vnode is a node of a variant group with the levels assembly needs.
type vnode struct {
	f        *fnode
	name     string
	optional bool
	def, rep int
	cols     []int // indices into variantRead.cols of the leaves below
	children []*vnode
}

func (n *vnode) child(name string) *vnode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// vcol is one leaf column of a variant: its cursor and the values of the
// occurrence being assembled.
type vcol struct {
	cur  *cursor
	vals []pq.Value
	pos  int
}

// variantRead reads one variant column occurrence at a time.
type variantRead struct {
	path    string
	layout  *variant.Layout
	top     *vnode
	meta    *vnode
	value   *vnode
	typed   *vnode
	cols    []vcol
	baseRep int // repetition level of an occurrence of the group
}

// newVariantRead plans the read of the variant group fv. cursorOf makes
// the cursor of a leaf; pqNode is the group's parquet-go node, which
// variant.LayoutFromParquet reads.
func newVariantRead(fv *fnode, pqNode pq.Node, cursorOf func(*fnode) (*cursor, error)) (*variantRead, error) {
	layout, err := variant.LayoutFromParquet(pqNode, fv.path)
	if err != nil {
		return nil, err
	}
	vr := &variantRead{path: fv.path, layout: layout, baseRep: fv.rep}
	var build func(f *fnode) (*vnode, error)
	build = func(f *fnode) (*vnode, error) {
		n := &vnode{f: f, name: f.name, optional: f.repType == format.Optional, def: f.def, rep: f.rep}
		if f.leaf() {
			c, err := cursorOf(f)
			if err != nil {
				return nil, err
			}
			n.cols = []int{len(vr.cols)}
			vr.cols = append(vr.cols, vcol{cur: c})
			return n, nil
		}
		for _, ch := range f.children {
			c, err := build(ch)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
			n.cols = append(n.cols, c.cols...)
		}
		return n, nil
	}
	if vr.top, err = build(fv); err != nil {
		return nil, err
	}
	vr.meta, vr.value, vr.typed = vr.top.child(variantMetadataName), vr.top.child(variantValueName), vr.top.child(variantTypedValueName)
	if vr.meta == nil || !vr.meta.f.leaf() {
		return nil, fmt.Errorf("variant %q has no metadata column", fv.path)
	}
	if vr.value == nil && vr.typed == nil {
		return nil, fmt.Errorf("variant %q has neither value nor typed_value", fv.path)
	}
	return vr, nil
}

// pqNodeOf finds the parquet-go node of target, walking the file schema
// tree and parquet-go's schema in step (both keep the footer's order).
func pqNodeOf(root *fnode, node pq.Node, target *fnode) pq.Node {
	if root == target {
		return node
	}
	fields := node.Fields()
	for i, c := range root.children {
		if i >= len(fields) {
			return nil
		}
		if n := pqNodeOf(c, fields[i], target); n != nil {
			return n
		}
	}
	return nil
}

func (p *readPlanner) variantNode(fv *fview, path string) (*rnode, error) {
	pn := pqNodeOf(p.tree, p.pqRoot, fv.node)
	if pn == nil {
		return nil, fmt.Errorf("read %s: variant %q: no parquet-go node", p.location, fv.path)
	}
	vr, err := newVariantRead(fv.node, pn, p.cursor)
	if err != nil {
		return nil, fmt.Errorf("read %s: variant %q: %w", p.location, fv.path, err)
	}
	n := &rnode{kind: rVariant, def: fv.def, path: path, variant: vr}
	for _, c := range vr.cols {
		n.cursors = append(n.cursors, c.cur)
	}
	n.level = n.cursors[0]
	return n, nil
}

func (r *recordReader) readVariant(n *rnode) (any, error) {
	row, err := n.variant.next()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.location, err)
	}
	if row.Null {
		return nil, nil
	}
	v, err := variant.ReconstructWith(n.variant.layout, row, r.variantPolicy)
	var asNull *variant.InvalidAsNull
	if errors.As(err, &asNull) {
		r.invalid = append(r.invalid, InvalidValue{Row: r.row, Column: n.variant.path, Err: asNull.Err})
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: variant column %q: %w", r.location, n.variant.path, err)
	}
	return v, nil
}

// InvalidValue is a value a read policy read as null.
type InvalidValue struct {
	Row    int64 // the row's number in the file's rows the read returns
	Column string
	Err    error
}

func (v InvalidValue) String() string {
	return fmt.Sprintf("row %d: column %q: %v: read as null", v.Row, v.Column, v.Err)
}

// TakeInvalid returns the values read as null since the last call: a
// reader set to read invalid values as null reports each one.
func (r *recordReader) TakeInvalid() []InvalidValue {
	out := r.invalid
	r.invalid = nil
	return out
}

// next assembles the next occurrence's row.
func (vr *variantRead) next() (variant.Row, error) {
	for i := range vr.cols {
		c := &vr.cols[i]
		c.vals, c.pos = c.vals[:0], 0
		for {
			v, err := c.cur.next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = errors.New("values end before the row group's rows do")
				}
				return variant.Row{}, fmt.Errorf("column %q: %w", c.cur.path, err)
			}
			if c.cur.pos >= c.cur.n {
				// The next peek may load another page and recycle this one.
				v = v.Clone()
			}
			c.vals = append(c.vals, v)
			nv, ok, err := c.cur.peek()
			if err != nil {
				return variant.Row{}, fmt.Errorf("column %q: %w", c.cur.path, err)
			}
			if !ok || nv.RepetitionLevel() <= vr.baseRep {
				break
			}
		}
	}
	row, err := vr.assemble()
	if err != nil {
		return row, fmt.Errorf("variant column %q: %w", vr.path, err)
	}
	return row, nil
}

func (vr *variantRead) peek(n *vnode) (pq.Value, error) {
	c := &vr.cols[n.cols[0]]
	if c.pos >= len(c.vals) {
		return pq.Value{}, fmt.Errorf("%s: column ended early", n.f.path)
	}
	return c.vals[c.pos], nil
}

func (vr *variantRead) skip(n *vnode) {
	for _, i := range n.cols {
		vr.cols[i].pos++
	}
}

func (vr *variantRead) null(n *vnode) (bool, error) {
	if !n.optional {
		return false, nil
	}
	v, err := vr.peek(n)
	if err != nil {
		return false, err
	}
	if v.DefinitionLevel() < n.def {
		vr.skip(n)
		return true, nil
	}
	return false, nil
}

func (vr *variantRead) leaf(n *vnode) (pq.Value, bool, error) {
	v, err := vr.peek(n)
	if err != nil {
		return v, false, err
	}
	vr.cols[n.cols[0]].pos++
	return v, v.DefinitionLevel() >= n.def, nil
}

func (vr *variantRead) assemble() (variant.Row, error) {
	if null, err := vr.null(vr.top); err != nil || null {
		return variant.Row{Null: true}, err
	}
	mv, ok, err := vr.leaf(vr.meta)
	if err != nil {
		return variant.Row{}, err
	}
	if !ok {
		return variant.Row{}, fmt.Errorf("%s: metadata is null", vr.meta.f.path)
	}
	row := variant.Row{Metadata: mv.ByteArray()}
	row.Shredded, err = vr.pair(vr.layout, vr.value, vr.typed)
	return row, err
}

func (vr *variantRead) pair(l *variant.Layout, value, typed *vnode) (variant.Shredded, error) {
	var s variant.Shredded
	if value != nil {
		v, ok, err := vr.leaf(value)
		if err != nil {
			return s, err
		}
		if ok {
			s.Value = v.ByteArray()
		}
	}
	if typed == nil || l == nil {
		return s, nil
	}
	switch l.Kind {
	case variant.Primitive:
		v, ok, err := vr.leaf(typed)
		if err != nil || !ok {
			return s, err
		}
		s.HasTyped = true
		if s.Primitive, err = variant.PrimitiveFromParquet(l, v); err != nil {
			return s, fmt.Errorf("%s: %w", typed.f.path, err)
		}
	case variant.Object:
		if null, err := vr.null(typed); err != nil || null {
			return s, err
		}
		s.HasTyped = true
		s.Fields = make([]variant.Shredded, len(l.Fields))
		for i, f := range l.Fields {
			fn := typed.child(f.Name)
			if fn == nil {
				return s, fmt.Errorf("%s: no group for field %q", typed.f.path, f.Name)
			}
			if null, err := vr.null(fn); err != nil {
				return s, err
			} else if null {
				continue
			}
			var err error
			if s.Fields[i], err = vr.pair(f.Layout, fn.child(variantValueName), fn.child(variantTypedValueName)); err != nil {
				return s, err
			}
		}
	case variant.Array:
		if null, err := vr.null(typed); err != nil || null {
			return s, err
		}
		s.HasTyped = true
		if len(typed.children) != 1 || len(typed.children[0].children) != 1 {
			return s, fmt.Errorf("%s: LIST must have one repeated group with one element", typed.f.path)
		}
		rep := typed.children[0]
		elem := rep.children[0]
		first, err := vr.peek(typed)
		if err != nil {
			return s, err
		}
		if first.DefinitionLevel() < rep.def {
			vr.skip(typed) // empty list
			s.Elements = []variant.Shredded{}
			return s, nil
		}
		for {
			e, err := vr.pair(l.Element, elem.child(variantValueName), elem.child(variantTypedValueName))
			if err != nil {
				return s, err
			}
			s.Elements = append(s.Elements, e)
			c := &vr.cols[rep.cols[0]]
			if c.pos >= len(c.vals) || c.vals[c.pos].RepetitionLevel() != rep.rep {
				break
			}
		}
	}
	return s, nil
}

// VariantPathRead is what ReadVariantPath returns.
type VariantPathRead struct {
	// Values holds one value per row: the value at the path, or the zero
	// pvariant.Value (Bytes() == nil) where the row is null or the path
	// is missing.
	Values []pvariant.Value
	// ShreddedGroups counts the row groups read from the path's
	// typed_value column alone; FallbackGroups those reconstructed whole.
	ShreddedGroups, FallbackGroups int
	// ColumnChunks counts the column chunks read.
	ColumnChunks int
}

// ReadVariantPath reads the value at path ("$.a.b": object fields only)
// of the top-level variant column of in, for every row. Where the path is
// shredded to a primitive typed_value, a row group is first read from that
// column alone: its definition levels say, per row, whether the value is
// there or at which pair the path stops. A stop at a pair whose residual
// value column is not entirely null (by the chunk statistics) could hide
// the value in that residual, so such a row group is then reconstructed
// whole and the path looked up in each variant.
func ReadVariantPath(in registry.InputFile, column, path string) (*VariantPathRead, error) {
	steps, err := parseVariantPath(path)
	if err != nil {
		return nil, err
	}
	f, err := openParquet(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &VariantPathRead{}
	err = guard(in.Location, "read", func() error {
		tree := parseFileSchema(f.meta.Schema, f.fieldIDs)
		var fv *fview
		for _, c := range tree.children {
			if c.name == column {
				fv = viewOf(c, false)
			}
		}
		if fv == nil || fv.shape != fVariant {
			return fmt.Errorf("read %s: no top-level variant column %q", in.Location, column)
		}
		pn := pqNodeOf(tree, f.file.Schema(), fv.node)
		cursors := map[int]*cursor{}
		vr, err := newVariantRead(fv.node, pn, func(leaf *fnode) (*cursor, error) {
			c := newCursor(leaf, defaultRecordsPerBatch)
			cursors[leaf.col] = c
			return c, nil
		})
		if err != nil {
			return fmt.Errorf("read %s: %w", in.Location, err)
		}
		defer func() {
			for _, c := range cursors {
				c.close()
			}
		}()
		ref := shreddedPath(vr, steps)
		for g := range f.meta.RowGroups {
			rg := &f.meta.RowGroups[g]
			if rg.NumRows == 0 {
				continue
			}
			chunks := f.file.RowGroups()[g].ColumnChunks()
			open := func(c *cursor) error {
				md := &rg.Columns[c.col].MetaData
				if err := checkChunkPages(f.src, md); err != nil {
					return fmt.Errorf("read %s: column %q in row group %d: %w", in.Location, c.path, g, err)
				}
				c.reset(f.src, md, chunks[c.col])
				out.ColumnChunks++
				return nil
			}
			if ref != nil {
				c := cursors[ref.f.col]
				if err := open(c); err != nil {
					return err
				}
				vals, ok, err := ref.readTyped(c, rg.NumRows, rg.Columns)
				if err != nil {
					return fmt.Errorf("read %s: column %q: %w", in.Location, c.path, err)
				}
				if ok {
					out.ShreddedGroups++
					out.Values = append(out.Values, vals...)
					continue
				}
			}
			out.FallbackGroups++
			for _, vc := range vr.cols {
				if err := open(vc.cur); err != nil {
					return err
				}
			}
			for range rg.NumRows {
				row, err := vr.next()
				if err != nil {
					return fmt.Errorf("read %s: %w", in.Location, err)
				}
				if row.Null {
					out.Values = append(out.Values, pvariant.Value{})
					continue
				}
				v, err := variant.Reconstruct(vr.layout, row)
				if err != nil {
					return fmt.Errorf("read %s: variant column %q: %w", in.Location, column, err)
				}
				out.Values = append(out.Values, lookupPath(v, steps))
			}
		}
		return nil
	})
	return out, err
}

// typedLeafRef is the typed_value column a shredded path reads, with the
// pairs on the way: pairs[k] is the k-th value/typed_value pair (the
// variant's own first, the path's leaf last).
type typedLeafRef struct {
	f      *fnode
	def    int
	layout *variant.Layout
	topDef int // definition level of a present variant group
	pairs  []pathPair
}

// pathPair is one pair on a shredded path: its typed_value is present from
// typedDef on; below that, the pair's value column decides.
type pathPair struct {
	typedDef int
	valueCol int // -1 when the layout has no value column
}

// shreddedPath follows steps through the layout to a primitive typed_value
// leaf, or returns nil when the path is not shredded to a primitive.
func shreddedPath(vr *variantRead, steps []string) *typedLeafRef {
	l, value, typed := vr.layout, vr.value, vr.typed
	ref := &typedLeafRef{topDef: vr.top.def}
	pair := func() {
		p := pathPair{typedDef: typed.def, valueCol: -1}
		if value != nil {
			p.valueCol = value.f.col
		}
		ref.pairs = append(ref.pairs, p)
	}
	for _, step := range steps {
		if l == nil || l.Kind != variant.Object || typed == nil {
			return nil
		}
		i := -1
		for j := range l.Fields {
			if l.Fields[j].Name == step {
				i = j
			}
		}
		g := typed.child(step)
		if i < 0 || g == nil {
			return nil
		}
		pair()
		l, value, typed = l.Fields[i].Layout, g.child(variantValueName), g.child(variantTypedValueName)
	}
	if l == nil || l.Kind != variant.Primitive || typed == nil || !typed.f.leaf() {
		return nil
	}
	pair()
	ref.f, ref.def, ref.layout = typed.f, typed.def, l
	return ref
}

// readTyped reads the path from the typed_value leaf alone. A row whose
// leaf is not defined stops at some pair whose typed_value is null; then
// that pair's value column decides, which is only known without reading it
// when the chunk statistics say it is entirely null (the path is missing).
// Otherwise ok is false and the row group must be reconstructed.
func (ref *typedLeafRef) readTyped(c *cursor, rows int64, chunks []format.ColumnChunk) (out []pvariant.Value, ok bool, err error) {
	known := make([]bool, len(ref.pairs))
	for k, p := range ref.pairs {
		known[k] = p.valueCol < 0 || allNull(chunks, []int{p.valueCol})
	}
	out = make([]pvariant.Value, 0, rows)
	for range rows {
		v, err := c.next()
		if err != nil {
			return nil, false, err
		}
		d := v.DefinitionLevel()
		switch {
		case d < ref.topDef:
			out = append(out, pvariant.Value{}) // SQL NULL
			continue
		case d >= ref.def:
			pv, err := variant.PrimitiveFromParquet(ref.layout, v)
			if err != nil {
				return nil, false, err
			}
			out = append(out, pv)
			continue
		}
		for k, p := range ref.pairs {
			if d < p.typedDef {
				if !known[k] {
					return nil, false, nil
				}
				break
			}
		}
		out = append(out, pvariant.Value{})
	}
	return out, true, nil
}

// allNull reports whether the chunk statistics say every listed column is
// entirely null. Missing statistics count as "not known to be null".
func allNull(chunks []format.ColumnChunk, cols []int) bool {
	for _, c := range cols {
		md := &chunks[c].MetaData
		if md.NumValues == 0 || md.Statistics.NullCount != md.NumValues {
			return false
		}
	}
	return true
}

// parseVariantPath splits "$.a.b" into its field names.
func parseVariantPath(path string) ([]string, error) {
	rest, ok := strings.CutPrefix(path, "$")
	if !ok {
		return nil, fmt.Errorf("variant path %q must start with $", path)
	}
	if rest == "" {
		return nil, nil
	}
	if !strings.HasPrefix(rest, ".") {
		return nil, fmt.Errorf("variant path %q: only .field steps are supported", path)
	}
	steps := strings.Split(rest[1:], ".")
	for _, s := range steps {
		if s == "" {
			return nil, fmt.Errorf("variant path %q has an empty field name", path)
		}
	}
	return steps, nil
}

// lookupPath returns the value at steps, or the zero value when missing.
func lookupPath(v pvariant.Value, steps []string) pvariant.Value {
	for _, s := range steps {
		if v.Type() != pvariant.Object {
			return pvariant.Value{}
		}
		f, err := v.Value().(pvariant.ObjectValue).ValueByKey(s)
		if err != nil {
			return pvariant.Value{}
		}
		v = f.Value
	}
	return v
}
