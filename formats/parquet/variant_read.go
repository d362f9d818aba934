package parquet

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
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
	// first is the column of cols[0], whose levels say whether n is null:
	// the assembly asks it for every value, and the pointer spares it two
	// loads and bounds checks each time.
	first    *vcol
	children []*vnode
	// value and typed are the children of a pair group; fields, of a typed
	// object group, are its field groups in the order of the layout's
	// fields (set on first use).
	value, typed *vnode
	fields       []*vnode
	sortedFields bool // the layout's field names strictly increase
}

// fieldNodes are the field groups of the typed object group n in the
// order of l's fields, nil where the file has none.
func (n *vnode) fieldNodes(l *variant.Layout) []*vnode {
	if n.fields == nil {
		n.fields = make([]*vnode, len(l.Fields))
		n.sortedFields = true
		for i, f := range l.Fields {
			n.fields[i] = n.child(f.Name)
			if i > 0 && l.Fields[i-1].Name >= f.Name {
				n.sortedFields = false
			}
		}
	}
	return n.fields
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
//
// A column with no repetition inside the variant (direct) has exactly one
// value per occurrence: it is read in place from the cursor, taken counting
// the value the occurrence has consumed (so that a row can be rewound),
// instead of being gathered first.
type vcol struct {
	cur *cursor
	// vals are the occurrence's values: a slice of the cursor's buffer, or
	// own's memory where the occurrence crosses a refill of it.
	vals   []pq.Value
	own    []pq.Value
	pos    int
	direct bool
	taken  int
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
	asm     vassembler
	// slowRows counts the rows variant.Reconstruct assembled.
	slowRows int
	// topLevel is set on a variant that is a field of the file's root,
	// read once per row: its columns are read by nothing else, so they
	// may be read a batch of rows ahead (nextBatched), by batch, or by
	// the row path where noBatch says planBatch cannot.
	topLevel bool
	batch    *vbatch
	noBatch  bool
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
			vr.cols = append(vr.cols, vcol{cur: c, direct: f.rep == fv.rep})
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
		n.value, n.typed = n.child(variantValueName), n.child(variantTypedValueName)
		return n, nil
	}
	if vr.top, err = build(fv); err != nil {
		return nil, err
	}
	// vr.cols is complete: point every node at its first column.
	var link func(n *vnode)
	link = func(n *vnode) {
		if len(n.cols) > 0 {
			n.first = &vr.cols[n.cols[0]]
		}
		for _, c := range n.children {
			link(c)
		}
	}
	link(vr.top)
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
	src, created, err := p.variantSource(fv)
	if err != nil {
		return nil, err
	}
	n := &rnode{kind: rVariant, def: fv.def, path: path, variant: src.vr, vsrc: src}
	if created {
		n.cursors = src.cursors
		n.level = n.cursors[0]
	}
	return n, nil
}

func (r *recordReader) readVariant(n *rnode) (any, error) {
	v, null, err := r.sourceValue(n.vsrc)
	if err != nil || null {
		return nil, err
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
	if err := vr.gather(); err != nil {
		return variant.Row{}, err
	}
	row, err := vr.assemble()
	if err != nil {
		return row, fmt.Errorf("variant column %q: %w", vr.path, err)
	}
	return row, nil
}

// gather collects the next occurrence's values of every column.
func (vr *variantRead) gather() error {
	for i := range vr.cols {
		c := &vr.cols[i]
		if c.direct {
			c.taken = 0
			continue
		}
		c.pos = 0
		// In place, when the occurrence ends inside the cursor's buffer:
		// nothing refills the buffer before the next gather, and the
		// variant reader's cursors keep their pages (cursor.release).
		if cur := c.cur; cur.pos < cur.n {
			end := cur.pos + 1
			for end < cur.n && cur.buf[end].RepetitionLevel() > vr.baseRep {
				end++
			}
			if end < cur.n {
				c.vals = cur.buf[cur.pos:end:end]
				cur.pos = end
				continue
			}
		}
		c.vals = c.own[:0]
		for {
			v, err := c.cur.next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = errors.New("values end before the row group's rows do")
				}
				return fmt.Errorf("column %q: %w", c.cur.path, err)
			}
			if c.cur.pos >= c.cur.n {
				// The next peek may load another page and recycle this one.
				v = v.Clone()
			}
			c.vals = append(c.vals, v)
			nv, ok, err := c.cur.peek()
			if err != nil {
				return fmt.Errorf("column %q: %w", c.cur.path, err)
			}
			if !ok || nv.RepetitionLevel() <= vr.baseRep {
				break
			}
		}
		c.own = c.vals
	}
	return nil
}

func (vr *variantRead) peek(n *vnode) (pq.Value, error) {
	c := n.first
	if c.direct {
		return c.peekDirect(n)
	}
	if c.pos >= len(c.vals) {
		return pq.Value{}, fmt.Errorf("%s: column ended early", n.f.path)
	}
	return c.vals[c.pos], nil
}

func (c *vcol) peekDirect(n *vnode) (pq.Value, error) {
	if c.taken > 0 {
		return pq.Value{}, fmt.Errorf("%s: column ended early", n.f.path)
	}
	v, ok, err := c.cur.peek()
	if err != nil {
		return v, fmt.Errorf("column %q: %w", c.cur.path, err)
	}
	if !ok {
		return v, fmt.Errorf("column %q: values end before the row group's rows do", c.cur.path)
	}
	return v, nil
}

// skip consumes the one value every column below n has for a null subtree.
func (vr *variantRead) skip(n *vnode) error {
	for _, i := range n.cols {
		c := &vr.cols[i]
		if !c.direct {
			c.pos++
			continue
		}
		if _, err := c.peekDirect(n); err != nil {
			return err
		}
		c.cur.pos++
		c.taken++
	}
	return nil
}

// rewind moves every column back to the start of the gathered row.
func (vr *variantRead) rewind() {
	for i := range vr.cols {
		c := &vr.cols[i]
		if c.direct {
			c.cur.pos -= c.taken
			c.taken = 0
			continue
		}
		c.pos = 0
	}
}

func (vr *variantRead) null(n *vnode) (bool, error) {
	if !n.optional {
		return false, nil
	}
	c := n.first
	if c.direct {
		if cur := c.cur; c.taken == 0 && cur.pos < cur.n && cur.buf[cur.pos].DefinitionLevel() >= n.def {
			return false, nil
		}
	} else if c.pos < len(c.vals) && c.vals[c.pos].DefinitionLevel() >= n.def {
		return false, nil
	}
	v, err := vr.peek(n)
	if err != nil {
		return false, err
	}
	if v.DefinitionLevel() < n.def {
		return true, vr.skip(n)
	}
	return false, nil
}

func (vr *variantRead) leaf(n *vnode) (pq.Value, bool, error) {
	c := n.first
	// The common cases inline: the value is at hand.
	if c.direct {
		if cur := c.cur; c.taken == 0 && cur.pos < cur.n {
			v := &cur.buf[cur.pos]
			cur.pos++
			c.taken++
			return *v, v.DefinitionLevel() >= n.def, nil
		}
	} else if c.pos < len(c.vals) {
		v := &c.vals[c.pos]
		c.pos++
		return *v, v.DefinitionLevel() >= n.def, nil
	}
	v, err := vr.peek(n)
	if err != nil {
		return v, false, err
	}
	if c.direct {
		c.cur.pos++
		c.taken++
	} else {
		c.pos++
	}
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
			if err := vr.skip(typed); err != nil { // empty list
				return s, err
			}
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

// ReadVariantPath reads the value at path ($.a.b or $['a']['b']: object
// fields only) of the top-level variant column of in, for every row. It
// shares the projection's code (VariantPathsKey, variant_path.go) but
// decides per row group: where the path is shredded to a primitive
// typed_value and pathStops.residualEmpty proves that no row keeps it in a
// residual value column, the row group is read from that column alone;
// otherwise it is reconstructed whole (the reader's fast path) and the path
// looked up in each variant.
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
		tree, err := parseFileSchema(f.meta.Schema, f.fieldIDs)
		if err != nil {
			return fmt.Errorf("read %s: %w", in.Location, err)
		}
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
		vr.topLevel = true
		defer func() {
			for _, c := range cursors {
				c.close()
			}
		}()
		stops := shreddedStops(fv.node, steps)
		leafLayout := pathLayout(vr.layout, steps)
		if leafLayout == nil || leafLayout.Kind != variant.Primitive {
			stops = nil
		}
		var typed typedPathReader
		if stops != nil {
			typed = typedPathReader{stops: stops, layout: leafLayout}
		}
		// One value per row: the footer's count sizes the slice once, up
		// to a bound (it is the file's word), instead of doubling it with
		// every pointer copied again.
		const most = 1 << 20
		var total int64
		for g := range f.meta.RowGroups {
			if n := max(f.meta.RowGroups[g].NumRows, 0); n < most-total {
				total += n
			} else {
				total = most
			}
		}
		out.Values = make([]pvariant.Value, 0, total)
		for g := range f.meta.RowGroups {
			rg := &f.meta.RowGroups[g]
			if rg.NumRows == 0 {
				continue
			}
			chunks := f.file.RowGroups()[g].ColumnChunks()
			open := func(c *cursor) error {
				md := &rg.Columns[c.col].MetaData
				if err := pages.CheckChunk(f.src, md, c.leaf.rep, c.leaf.def); err != nil {
					return fmt.Errorf("read %s: column %q in row group %d: %w", in.Location, c.path, g, err)
				}
				c.reset(f.src, md, chunks[c.col])
				out.ColumnChunks++
				return nil
			}
			if stops != nil && stops.residualEmpty(rg) {
				c := cursors[stops.leaf.col]
				if err := open(c); err != nil {
					return err
				}
				vals, err := typed.read(c, rg.NumRows, out.Values)
				if err != nil {
					return fmt.Errorf("read %s: column %q: %w", in.Location, c.path, err)
				}
				out.ShreddedGroups++
				out.Values = vals
				continue
			}
			out.FallbackGroups++
			for _, vc := range vr.cols {
				if err := open(vc.cur); err != nil {
					return err
				}
			}
			for i := range rg.NumRows {
				v, null, err := vr.nextValue(variant.Refuse, rg.NumRows-i)
				if err != nil {
					return fmt.Errorf("read %s: %w", in.Location, err)
				}
				if null {
					out.Values = append(out.Values, pvariant.Value{})
					continue
				}
				out.Values = append(out.Values, lookupRaw(v, steps))
			}
		}
		return nil
	})
	return out, err
}

// typedPathReader reads a path from its typed_value leaf alone, once
// residualEmpty has proved that a row whose leaf is null has no value
// there. Each value is the lab's encoding of a typed column value
// (variant.AppendRawFromParquet), returned unvalidated as the fast path
// returns the values it assembles (variant.Assembled; the tests validate
// them all): arrow-go's validation of a primitive checks only the sizes
// that encoding writes.
type typedPathReader struct {
	stops  *pathStops
	layout *variant.Layout
	arena  valueArena
	buf    []byte
}

func (t *typedPathReader) read(c *cursor, rows int64, out []pvariant.Value) ([]pvariant.Value, error) {
	// rows is the footer's word: grow by it only up to a bound, and let
	// the values the chunk really holds grow the rest.
	out = slices.Grow(out, int(min(max(rows, 0), 1<<16)))
	for range rows {
		v, err := c.nextInPlace()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("values end before the row group's rows do")
			}
			return out, err
		}
		if v.DefinitionLevel() < t.stops.def {
			out = append(out, pvariant.Value{}) // SQL NULL, or missing
			continue
		}
		if t.buf, err = variant.AppendRawFromParquet(t.buf[:0], t.layout, *v); err != nil {
			return out, fmt.Errorf("row %d: %w", len(out), err)
		}
		owned := t.arena.copy(t.buf)
		x, ok := variant.Assembled(emptyMetadata, owned)
		if !ok || (variantCheckAssembled && !checkAssembled(emptyMetadata, owned)) {
			if x, err = pvariant.NewWithMetadata(emptyMetadata, owned); err != nil {
				return out, fmt.Errorf("row %d: %w", len(out), err)
			}
		}
		out = append(out, x)
	}
	return out, nil
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

// parseVariantPath splits a member path into its field names: "$" then
// ".name" or "['name']" steps (RFC 9535 normalized paths, as Iceberg's
// bounds and iceberg.Extract write them; in brackets \' \\ \b \t \f \n
// \r \/ and \uXXXX escapes).
func parseVariantPath(path string) ([]string, error) {
	rest, ok := strings.CutPrefix(path, "$")
	if !ok {
		return nil, fmt.Errorf("variant path %q must start with $", path)
	}
	var steps []string
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "['"):
			var sb strings.Builder
			i, closed := 2, false
			for i < len(rest) && !closed {
				c := rest[i]
				switch {
				case c == '\'' && strings.HasPrefix(rest[i:], "']"):
					closed = true
					i += 2
				case c == '\'':
					return nil, fmt.Errorf("variant path %q: unescaped quote in a member name", path)
				case c == '\\':
					if i+1 >= len(rest) {
						return nil, fmt.Errorf("variant path %q: dangling escape", path)
					}
					e := rest[i+1]
					i += 2
					switch e {
					case '\'', '\\', '/':
						sb.WriteByte(e)
					case 'b':
						sb.WriteByte('\b')
					case 't':
						sb.WriteByte('\t')
					case 'f':
						sb.WriteByte('\f')
					case 'n':
						sb.WriteByte('\n')
					case 'r':
						sb.WriteByte('\r')
					case 'u':
						if i+4 > len(rest) {
							return nil, fmt.Errorf("variant path %q: truncated \\u escape", path)
						}
						r, err := strconv.ParseUint(rest[i:i+4], 16, 32)
						if err != nil {
							return nil, fmt.Errorf("variant path %q: bad \\u escape", path)
						}
						sb.WriteRune(rune(r))
						i += 4
					default:
						return nil, fmt.Errorf("variant path %q: unknown escape \\%c", path, e)
					}
				default:
					sb.WriteByte(c)
					i++
				}
			}
			if !closed {
				return nil, fmt.Errorf("variant path %q: unterminated member selector", path)
			}
			steps = append(steps, sb.String())
			rest = rest[i:]
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("variant path %q has an empty field name", path)
			}
			steps = append(steps, rest[:end])
			rest = rest[end:]
		default:
			return nil, fmt.Errorf("variant path %q: only .field and ['field'] steps are supported", path)
		}
	}
	return steps, nil
}
