package parquet

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/variant"
)

// VariantPathsKey is the read property that projects variant paths:
//
//	read.variant.paths = <field>=<variant column>:<path>[;<field>=<column>:<path>...]
//
// e.g. "user_id=v:$.user.id". Each <field> names a top-level field of the
// projection (Project) that the file does not have: it reads as the value
// at <path> of the file's top-level variant column <variant column>, the
// value Iceberg's extract term gives (iceberg.Extract(ref, path, type),
// which is how iceberg-go v0.7.0 and Spark's variant_get name a value
// inside a variant): the field's type is the extract's target type. A
// VariantType field gets the variant at the path itself; a primitive type
// gets it cast as iceberg.CastVariantLiteral casts (int8..int32 widen to
// long, a mismatched type reads as null). A row whose variant is null or
// lacks the path reads null. Paths are RFC 9535 member paths as Iceberg
// writes them: $.a.b or $['a']['b'].
//
// The projected field is the carrier rather than the variant column's own
// field because a projection names each file field once, by id, and a
// path is a new value with a type of its own, as an Iceberg engine's
// extract column is: this keeps Project the one place that says what is
// read and in which type, and a property says where it comes from, as the
// other read.* properties do.
//
// Where the path is shredded to a primitive typed_value and the residual
// value columns on the way are provably empty for it in every row group
// (pathResidualEmpty), the field is read from that typed_value column
// alone, with its own type when the projection type is one Iceberg
// promotes it to: a plain column read. Otherwise the reader reconstructs
// the variant and looks the path up, as VariantShredding.md allows
// ("readers ... can read the value column"); the choice is per file.
const VariantPathsKey = "read.variant.paths"

// variantPathSpec is one entry of VariantPathsKey.
type variantPathSpec struct {
	column string
	path   string
	steps  []string
}

func parseVariantPaths(s string) (map[string]variantPathSpec, error) {
	out := map[string]variantPathSpec{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, entry := range strings.Split(s, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		field, rest, ok := strings.Cut(entry, "=")
		column, path, ok2 := strings.Cut(rest, ":")
		field, column, path = strings.TrimSpace(field), strings.TrimSpace(column), strings.TrimSpace(path)
		if !ok || !ok2 || field == "" || column == "" {
			return nil, fmt.Errorf("%s: %q: want <field>=<variant column>:<path>", VariantPathsKey, entry)
		}
		steps, err := parseVariantPath(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", VariantPathsKey, err)
		}
		if _, dup := out[field]; dup {
			return nil, fmt.Errorf("%s: field %q given twice", VariantPathsKey, field)
		}
		out[field] = variantPathSpec{column: column, path: path, steps: steps}
	}
	return out, nil
}

// pathPair is one pair on a shredded path: its typed_value is present from
// typedDef on; below that, the pair's value column (-1: none) decides.
type pathPair struct {
	typedDef int
	valueCol int
}

// pathStops is where a path can stop in a row: the pairs on the way,
// the typed_value leaf at its end.
type pathStops struct {
	topDef int          // definition level of a present variant group
	pairs  []pathPair   // the variant's own pair first, the leaf's last
	leaf   *fnode       // the primitive typed_value leaf
	def    int          // its definition level when present
	typ    iceberg.Type // its Iceberg type (leafType)
}

// shreddedStops follows steps from the variant group g to a primitive
// typed_value leaf, or returns nil when the path is not shredded to one.
func shreddedStops(g *fnode, steps []string) *pathStops {
	child := func(n *fnode, name string) *fnode {
		if n == nil {
			return nil
		}
		for _, c := range n.children {
			if c.name == name {
				return c
			}
		}
		return nil
	}
	ps := &pathStops{topDef: g.def}
	pair := g
	add := func(p *fnode) *fnode {
		typed := child(p, variantTypedValueName)
		if typed == nil {
			return nil
		}
		pp := pathPair{typedDef: typed.def, valueCol: -1}
		if v := child(p, variantValueName); v != nil && v.leaf() {
			pp.valueCol = v.col
		}
		ps.pairs = append(ps.pairs, pp)
		return typed
	}
	for _, step := range steps {
		typed := add(pair)
		if typed == nil || typed.leaf() {
			return nil
		}
		pair = child(typed, step)
		if pair == nil || pair.leaf() {
			return nil
		}
	}
	typed := add(pair)
	if typed == nil || !typed.leaf() || typed.repType == format.Repeated || typed.rep != g.rep {
		return nil
	}
	info, err := leafType(typed.elem)
	if err != nil {
		return nil
	}
	ps.leaf, ps.def, ps.typ = typed, typed.def, info.typ
	return ps
}

// residualEmpty reports whether, in row group rg, no row can hold the
// path in a residual value column: for every pair on the way, the rows
// that stop there (its typed_value null) find its value column null.
// Proofs: the pair has no value column; the chunk statistics say the value
// column is all null; or the typed_value leaf's definition-level histogram
// (SizeStatistics, parquet-format 2.10) counts no row stopping at the pair.
// Anything else is "not known", and the path must be reconstructed.
func (ps *pathStops) residualEmpty(rg *format.RowGroup) bool {
	var hist []int64
	if ps.leaf.col < len(rg.Columns) {
		hist = rg.Columns[ps.leaf.col].MetaData.SizeStatistics.DefinitionLevelHistogram
	}
	return ps.stopsKnown(func(lo, hi int) bool {
		if len(hist) <= ps.def {
			return false
		}
		for d := lo; d < hi; d++ {
			if hist[d] != 0 {
				return false
			}
		}
		return true
	}, func(col int) bool { return allNull(rg.Columns, []int{col}) })
}

// stopsKnown applies the proofs: none(lo, hi) says no row has a definition
// level in [lo, hi); null(col) says the value column is all null.
func (ps *pathStops) stopsKnown(none func(lo, hi int) bool, null func(col int) bool) bool {
	lo := ps.topDef
	for _, p := range ps.pairs {
		if p.valueCol >= 0 && !null(p.valueCol) && !none(lo, p.typedDef) {
			return false
		}
		lo = p.typedDef
	}
	return true
}

// variantPathNode plans the projected field f of spec.
func (p *readPlanner) variantPathNode(f iceberg.NestedField, spec variantPathSpec, root *fview, path string) (*rnode, error) {
	var fv *fview
	for _, c := range root.children {
		if c.name == spec.column {
			fv = c
		}
	}
	if fv == nil || fv.shape != fVariant {
		return nil, fmt.Errorf("read %s: %s: field %q: no top-level variant column %q", p.location, VariantPathsKey, f.Name, spec.column)
	}
	if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
		if _, v := f.Type.(iceberg.VariantType); !v {
			return nil, fmt.Errorf("read %s: %s: field %q: a variant path reads as a variant or a primitive, not %s", p.location, VariantPathsKey, f.Name, f.Type)
		}
	}
	vp := &variantPathNode{field: f, spec: spec}
	_, haveSource := p.sources[fv.node]
	if ps := shreddedStops(fv.node, spec.steps); ps != nil && p.meta != nil && p.cursors[ps.leaf.col] == nil && !haveSource {
		typed := true
		for i := range p.meta.RowGroups {
			if rg := &p.meta.RowGroups[i]; rg.NumRows > 0 && !ps.residualEmpty(rg) {
				typed = false
			}
		}
		if typed {
			if info, err := leafType(ps.leaf.elem); err == nil && data.Promotable(info.typ, f.Type) {
				// A plain column read of the typed_value leaf.
				conv, err := readConverter(info, f.Type)
				if err != nil {
					return nil, fmt.Errorf("read %s: field %q: %w", p.location, f.Name, err)
				}
				c, err := p.cursor(ps.leaf)
				if err != nil {
					return nil, err
				}
				c.release = true
				n := &rnode{kind: rPrim, def: ps.def, path: path, col: c, conv: conv, set: readSetter(info, f.Type), cursors: []*cursor{c}, level: c, vpath: vp}
				p.typedPaths(fv.node, n)
				return n, nil
			}
			pn := pqNodeOf(p.tree, p.pqRoot, fv.node)
			if pn == nil {
				return nil, fmt.Errorf("read %s: variant %q: no parquet-go node", p.location, fv.path)
			}
			l, err := variant.LayoutFromParquet(pn, fv.path)
			if err != nil {
				return nil, fmt.Errorf("read %s: variant %q: %w", p.location, fv.path, err)
			}
			if vp.layout = pathLayout(l, spec.steps); vp.layout != nil && vp.layout.Kind == variant.Primitive {
				c, err := p.cursor(ps.leaf)
				if err != nil {
					return nil, err
				}
				c.release = true
				vp.stops = ps
				n := &rnode{kind: rVariantPath, path: path, vpath: vp, col: c, cursors: []*cursor{c}, level: c}
				p.typedPaths(fv.node, n)
				return n, nil
			}
		}
	}
	src, created, err := p.variantSource(fv)
	if err != nil {
		return nil, err
	}
	vp.src = src
	n := &rnode{kind: rVariantPath, path: path, vpath: vp}
	if created {
		n.cursors = src.cursors
		n.level = n.cursors[0]
	}
	return n, nil
}

// typedPaths remembers a path node read from a typed_value leaf of the
// variant group g, in case the variant is reconstructed after all.
func (p *readPlanner) typedPaths(g *fnode, n *rnode) {
	if p.typed == nil {
		p.typed = map[*fnode][]*rnode{}
	}
	p.typed[g] = append(p.typed[g], n)
}

// pathLayout is the layout at steps below l, or nil.
func pathLayout(l *variant.Layout, steps []string) *variant.Layout {
	for _, s := range steps {
		if l == nil || l.Kind != variant.Object {
			return nil
		}
		i := fieldIndex(l.Fields, s)
		if i < 0 {
			return nil
		}
		l = l.Fields[i].Layout
	}
	return l
}

// variantPathNode is a projected variant path (rVariantPath): read from
// its typed_value column (col, layout, stops) or from the reconstructed
// variant (src).
type variantPathNode struct {
	field  iceberg.NestedField
	spec   variantPathSpec
	layout *variant.Layout
	stops  *pathStops
	src    *variantSource
	buf    []byte
	arena  valueArena
}

// emptyMetadata is the metadata of values that need none (primitives).
var emptyMetadata = func() pvariant.Metadata {
	m, err := pvariant.NewMetadata(pvariant.EmptyMetadataBytes[:])
	if err != nil {
		panic(err)
	}
	return m
}()

func (r *recordReader) readVariantPath(n *rnode) (any, error) {
	vp := n.vpath
	var v pvariant.Value
	if vp.src != nil {
		full, null, err := r.sourceValue(vp.src)
		if err != nil {
			return nil, err
		}
		if null {
			return nil, nil
		}
		if v = lookupRaw(full, vp.spec.steps); v.Bytes() == nil {
			return nil, nil
		}
	} else {
		pv, err := n.col.nextInPlace()
		if err != nil {
			return nil, r.columnError(n.col, err)
		}
		if pv.DefinitionLevel() < vp.stops.def {
			return nil, nil
		}
		vp.buf, err = variant.AppendRawFromParquet(vp.buf[:0], vp.layout, *pv)
		if err != nil {
			return nil, fmt.Errorf("read %s: column %q: %w", r.location, n.col.path, err)
		}
		if v, err = pvariant.NewWithMetadata(emptyMetadata, vp.arena.copy(vp.buf)); err != nil {
			return nil, fmt.Errorf("read %s: column %q: %w", r.location, n.col.path, err)
		}
	}
	if _, ok := vp.field.Type.(iceberg.VariantType); ok {
		return v, nil
	}
	lit, ok := iceberg.CastVariantLiteral(v, vp.field.Type.(iceberg.PrimitiveType))
	if !ok {
		return nil, nil
	}
	return lit.Any(), nil
}

// variantSource is one variant column reconstructed once per row for the
// nodes that read it: the variant itself and the paths that fall back.
type variantSource struct {
	vr      *variantRead
	cursors []*cursor
	row     int64 // the reader row of v; -1 before the first
	v       pvariant.Value
	null    bool
}

// variantSource returns the source of fv, made (and its cursors
// registered) on first use.
func (p *readPlanner) variantSource(fv *fview) (*variantSource, bool, error) {
	if s, ok := p.sources[fv.node]; ok {
		return s, false, nil
	}
	pn := pqNodeOf(p.tree, p.pqRoot, fv.node)
	if pn == nil {
		return nil, false, fmt.Errorf("read %s: variant %q: no parquet-go node", p.location, fv.path)
	}
	// A path planned before from its typed_value column alone now reads
	// from the reconstruction: it hands its cursor over.
	vr, err := newVariantRead(fv.node, pn, func(leaf *fnode) (*cursor, error) {
		if c := p.cursors[leaf.col]; c != nil {
			c.release = false // the variant reader keeps values of a row
			return c, nil
		}
		return p.cursor(leaf)
	})
	if err != nil {
		return nil, false, fmt.Errorf("read %s: variant %q: %w", p.location, fv.path, err)
	}
	vr.topLevel = slices.Contains(p.tree.children, fv.node)
	s := &variantSource{vr: vr, row: -1}
	for _, n := range p.typed[fv.node] {
		*n = rnode{kind: rVariantPath, path: n.path, vpath: n.vpath}
		n.vpath.src, n.vpath.stops, n.vpath.layout = s, nil, nil
	}
	delete(p.typed, fv.node)
	for _, c := range vr.cols {
		s.cursors = append(s.cursors, c.cur)
	}
	if p.sources == nil {
		p.sources = map[*fnode]*variantSource{}
	}
	p.sources[fv.node] = s
	return s, true, nil
}

// sourceValue is the current row's variant of s, read on first use in
// the row. A value the read policy reads as null is reported once.
func (r *recordReader) sourceValue(s *variantSource) (pvariant.Value, bool, error) {
	if s.row == r.row {
		return s.v, s.null, nil
	}
	v, null, err := s.vr.nextValue(r.variantPolicy, r.left)
	var invalid *variant.InvalidAsNull
	if err != nil && errors.As(err, &invalid) {
		r.invalid = append(r.invalid, InvalidValue{Row: r.row, Column: s.vr.path, Err: invalid.Err})
		v, null, err = pvariant.Value{}, true, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("read %s: %w", r.location, err)
	}
	s.row, s.v, s.null = r.row, v, null
	return v, null, nil
}

// lookupRaw is the value at steps (object fields), or the zero value when
// the path is missing; it walks the encoding without boxing.
func lookupRaw(v pvariant.Value, steps []string) pvariant.Value {
	b := v.Bytes()
	meta := v.Metadata()
	for _, s := range steps {
		obj, err := variant.ParseObject(b)
		if err != nil {
			return pvariant.Value{}
		}
		next := []byte(nil)
		for i := range obj.Len() {
			if k, err := meta.KeyAt(obj.FieldID(i)); err == nil && k == s {
				next, _ = obj.Field(i)
				break
			}
		}
		if next == nil {
			return pvariant.Value{}
		}
		b = next
	}
	out, err := pvariant.NewWithMetadata(meta, b)
	if err != nil {
		return pvariant.Value{}
	}
	return out
}

// FilterWarnings say which predicates of the read's filter the reader
// could not push down, and why (a variant path shredded as a type the
// predicate does not read it as). Such a predicate prunes nothing; the
// caller applies the filter to the rows as always.
func (r *recordReader) FilterWarnings() []string {
	if r.filter != nil {
		// The page-level evaluation (keptRanges) may add to them.
		return slices.Clone(r.filter.warnings)
	}
	return slices.Clone(r.filterWarnings)
}
