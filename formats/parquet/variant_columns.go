package parquet

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/variant"
)

// The column-wise assembly. A top-level variant column is read a batch of
// rows at a time: every leaf column's values for the batch are taken from
// its cursor at once, and the layout is walked once per batch instead of
// once per row, each pair (value, typed_value) encoding all of its slots
// in one loop over its columns before its parent encodes its own. The
// row-at-a-time walk (fastPair) paid a call, a cursor check and a
// recursion per value and per row: half of a shredded full read's CPU
// time in its profile.
//
// The result is byte for byte the row path's: each slot is encoded by the
// same rules as fastPair, fastObject and fastArray, and whatever the row
// path would send to variant.Reconstruct, or would refuse, marks the row
// slow. A slow row is then read by the row path itself (rowValue) from
// the batch's values of that row, so its value or its error is the row
// path's.
//
// Slots: the pairs outside any typed array have one slot per row; the
// pairs inside a typed array have one slot per entry of the array's
// element columns (an element, or the one entry a null or empty array or a
// null ancestor leaves). Arrays inside array elements, and layouts nested
// deeper than trustedLayoutDepth, are read by the row path.

// variantBatchRows bounds the rows of a batch.
const variantBatchRows = 1024

// variantReadRows turns the column-wise assembly off (for the tests that
// compare the two).
var variantReadRows = false

// Row states of a batch.
const (
	rowFast uint8 = iota
	rowNull
	rowSlow
)

// bspace is one slot space of a batch: the rows (space 0), or the entries
// of one typed array's element columns.
type bspace struct {
	n        int     // slots
	rowStart []int32 // per row, its first slot, and the end (list spaces)
	slotRow  []int32 // the row of each slot (list spaces)
	// consumed marks the rows whose entries the space's array read as
	// elements.
	consumed []bool
}

// bnull is the null test of a group: its first column's definition level
// at a slot (of the group's own space, or via rowStart, of a list space,
// for an array group tested at a row).
type bnull struct {
	optional bool
	def      int
	col      int
	via      int // the list space of col when the test is at a row, else 0
}

// bpair is one pair of the layout in the batch plan, with its encoded
// value per slot.
type bpair struct {
	l               *variant.Layout
	space           int
	value, typed    int // leaf columns, -1: none (typed: a Primitive's)
	valueDef        int
	typedDef        int
	typedNull       bnull  // an Object's or Array's typed group
	group           *bnull // an object field's group
	fields          []*bpair
	typedNode       *vnode
	elem            *bpair
	repFirst        int // an Array's: the first column of its repeated group
	repDef          int
	start, end      []int32 // per slot: its bytes in data; end < 0 when absent
	data            []byte
	sortedFieldKeys bool
}

// vbatch is the column-wise state of one variant reader.
type vbatch struct {
	vals     [][]pq.Value // per column: the batch's values
	starts   [][]int32    // per column of a list space: each row's first value, and the end
	colSpace []int
	direct   []bool // the columns' own vcol.direct, restored after a view
	spaces   []bspace
	top      *bpair
	topNull  bnull
	meta     int
	metaDef  int

	rows   int // rows of the batch, the error row included
	next   int
	errRow int // the row whose read fails with err (rows when none)
	err    error
	state  []uint8
	metas  []*metaEntry

	// scratch of the objects and arrays being encoded
	entries []ventry
	rkeys   []string
	parts   [][]byte
	ids     []uint32
	offs    []int
}

// planBatch builds vr's batch plan, or reports that the column-wise
// assembly cannot read vr's layout.
func (vr *variantRead) planBatch() (*vbatch, bool) {
	if vr.baseRep != 0 || !vr.trustAssembled() || !vr.meta.f.leaf() || vr.meta.f.rep != 0 {
		return nil, false
	}
	b := &vbatch{
		vals:     make([][]pq.Value, len(vr.cols)),
		starts:   make([][]int32, len(vr.cols)),
		colSpace: make([]int, len(vr.cols)),
		direct:   make([]bool, len(vr.cols)),
		spaces:   []bspace{{}},
		meta:     vr.meta.cols[0],
		metaDef:  vr.meta.def,
	}
	for i := range vr.cols {
		b.direct[i] = vr.cols[i].direct
	}
	used := map[int]bool{b.meta: true}
	top, ok := b.planPair(vr, vr.layout, vr.value, vr.typed, 0, used)
	if !ok || len(used) != len(vr.cols) {
		return nil, false
	}
	b.top = top
	b.topNull = b.nullOf(vr.top, 0)
	return b, true
}

// nullOf is the null test of group n at the slots of space.
func (b *vbatch) nullOf(n *vnode, space int) bnull {
	t := bnull{optional: n.optional, def: n.def, col: n.cols[0]}
	if cs := b.colSpace[t.col]; cs != space {
		t.via = cs
	}
	return t
}

// isNull reports whether the group of t is null at slot k.
func (b *vbatch) isNull(t *bnull, k int) bool {
	if !t.optional {
		return false
	}
	if t.via > 0 {
		k = int(b.spaces[t.via].rowStart[k])
	}
	return b.vals[t.col][k].DefinitionLevel() < t.def
}

// leafOf checks that n is a leaf of the space whose repetition level is
// rep, and records its column as read.
func (b *vbatch) leafOf(n *vnode, space, rep int, used map[int]bool) (int, bool) {
	if n == nil || !n.f.leaf() || n.f.rep != rep || used[n.cols[0]] {
		return -1, false
	}
	used[n.cols[0]] = true
	b.colSpace[n.cols[0]] = space
	return n.cols[0], true
}

func (b *vbatch) planPair(vr *variantRead, l *variant.Layout, value, typed *vnode, space int, used map[int]bool) (*bpair, bool) {
	rep := 0
	if space > 0 {
		rep = 1
	}
	p := &bpair{l: l, space: space, value: -1, typed: -1}
	if value != nil {
		c, ok := b.leafOf(value, space, rep, used)
		if !ok {
			return nil, false
		}
		p.value, p.valueDef = c, value.def
	}
	if typed == nil {
		return p, true
	}
	if l == nil {
		return nil, false // typed columns the row path would not read
	}
	p.typedNode = typed
	switch l.Kind {
	case variant.Primitive:
		c, ok := b.leafOf(typed, space, rep, used)
		if !ok {
			return nil, false
		}
		p.typed, p.typedDef = c, typed.def
	case variant.Object:
		if typed.f.leaf() {
			return nil, false
		}
		nodes := typed.fieldNodes(l)
		p.sortedFieldKeys = typed.sortedFields
		for i, fl := range l.Fields {
			fn := nodes[i]
			if fn == nil || fn.f.leaf() {
				return nil, false
			}
			f, ok := b.planPair(vr, fl.Layout, fn.value, fn.typed, space, used)
			if !ok {
				return nil, false
			}
			p.fields = append(p.fields, f)
		}
		for i, fn := range nodes {
			g := b.nullOf(fn, space)
			p.fields[i].group = &g
		}
		p.typedNull = b.nullOf(typed, space)
	case variant.Array:
		if space != 0 || typed.f.leaf() || len(typed.children) != 1 || len(typed.children[0].children) != 1 {
			return nil, false
		}
		repNode := typed.children[0]
		if repNode.rep != 1 {
			return nil, false
		}
		b.spaces = append(b.spaces, bspace{})
		ls := len(b.spaces) - 1
		elem := repNode.children[0]
		e, ok := b.planPair(vr, l.Element, elem.value, elem.typed, ls, used)
		if !ok {
			return nil, false
		}
		for _, c := range repNode.cols {
			if !used[c] || b.colSpace[c] != ls {
				return nil, false // a column the element's pairs do not read
			}
		}
		p.elem, p.repFirst, p.repDef = e, repNode.cols[0], repNode.def
		p.typedNull = b.nullOf(typed, space)
	default:
		return nil, false
	}
	return p, true
}

// fill reads the next batch of up to rows rows.
func (b *vbatch) fill(vr *variantRead, rows int) {
	b.rows, b.next, b.errRow, b.err = rows, 0, rows, nil
	for c := range vr.cols {
		cur := vr.cols[c].cur
		var err error
		if b.colSpace[c] == 0 {
			b.vals[c], err = cur.appendN(b.vals[c][:0], rows)
			if err != nil {
				// The row path reads these columns while it assembles the
				// row, and names the variant.
				b.fail(len(b.vals[c]), cur, err, vr.path)
			}
			continue
		}
		b.vals[c], b.starts[c], err = cur.appendRows(b.vals[c][:0], b.starts[c][:0], rows, vr.baseRep)
		if err != nil {
			// starts ends with the end of the last row begun: at the end
			// of the chunk the next row has no value; another error is
			// the row path's at the row being read (gather peeks past
			// each value).
			r := len(b.starts[c]) - 1
			if !errors.Is(err, io.EOF) {
				r = max(r-1, 0)
			}
			b.fail(r, cur, err, "")
		}
	}
	b.rows = min(b.rows, b.errRow+1)
	n := b.errRow // rows assembled
	for s := 1; s < len(b.spaces); s++ {
		b.spaces[s].rowStart = b.spaces[s].rowStart[:0]
	}
	b.state = slices.Grow(b.state[:0], n)[:n]
	clear(b.state)
	for c := range vr.cols {
		s := b.colSpace[c]
		if s == 0 {
			continue
		}
		sp := &b.spaces[s]
		st := b.starts[c]
		if len(sp.rowStart) == 0 {
			sp.rowStart = append(sp.rowStart, st[:n+1]...)
			continue
		}
		// A column whose rows have other lengths than its space's: from
		// the first such row on, its values no longer sit at the space's
		// slots, and the row path reads every row (each column from its
		// own starts), saying what is wrong where something is.
		for r := range n {
			if st[r+1]-st[r] != sp.rowStart[r+1]-sp.rowStart[r] {
				for ; r < n; r++ {
					b.state[r] = rowSlow
				}
				break
			}
		}
	}
	for s := 1; s < len(b.spaces); s++ {
		sp := &b.spaces[s]
		sp.n = int(sp.rowStart[n])
		sp.slotRow = slices.Grow(sp.slotRow[:0], sp.n)[:sp.n]
		for r := range n {
			for k := sp.rowStart[r]; k < sp.rowStart[r+1]; k++ {
				sp.slotRow[k] = int32(r)
			}
		}
		sp.consumed = slices.Grow(sp.consumed[:0], n)[:n]
		clear(sp.consumed)
	}
	b.spaces[0].n = n
	b.prepareRows(vr, n)
	b.eval(vr, b.top)
	for s := 1; s < len(b.spaces); s++ {
		sp := &b.spaces[s]
		for r := range n {
			if b.state[r] == rowFast && !sp.consumed[r] && sp.rowStart[r+1]-sp.rowStart[r] > 1 {
				b.state[r] = rowSlow // entries the row path would leave unread
			}
		}
	}
}

// fail records that column cur ends (or fails) at row r of the batch;
// variant names the variant column in the error, where the row path does.
func (b *vbatch) fail(r int, cur *cursor, err error, variant string) {
	if r >= b.errRow {
		return
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("values end before the row group's rows do")
	}
	b.errRow, b.err = r, fmt.Errorf("column %q: %w", cur.path, err)
	if variant != "" {
		b.err = fmt.Errorf("variant column %q: %w", variant, b.err)
	}
}

// prepareRows finds the null rows and each row's metadata.
func (b *vbatch) prepareRows(vr *variantRead, n int) {
	b.metas = slices.Grow(b.metas[:0], n)[:n]
	metaCol := b.vals[b.meta]
	var last []byte
	var lastEntry *metaEntry
	for r := range n {
		if b.isNull(&b.topNull, r) {
			b.state[r] = rowNull
			continue
		}
		mv := &metaCol[r]
		if mv.DefinitionLevel() < b.metaDef {
			b.state[r] = rowSlow // the row path says the metadata is null
			continue
		}
		mb := mv.ByteArray()
		if lastEntry == nil || string(mb) != string(last) {
			last, lastEntry = mb, vr.asm.cache.get(mb)
		}
		b.metas[r] = lastEntry
		if lastEntry.err != nil {
			b.state[r] = rowSlow
		}
	}
}

// absent and slow end slot k of p without a value, the latter sending its
// row to the row path.
func (p *bpair) absent(k int) { p.start[k], p.end[k] = 0, -1 }

func (b *vbatch) slow(p *bpair, k, row int) {
	b.state[row] = rowSlow
	p.absent(k)
}

// eval encodes every slot of p, its fields and elements first.
func (b *vbatch) eval(vr *variantRead, p *bpair) {
	for _, f := range p.fields {
		b.eval(vr, f)
	}
	if p.elem != nil {
		b.eval(vr, p.elem)
	}
	sp := &b.spaces[p.space]
	n := sp.n
	p.start = slices.Grow(p.start[:0], n)[:n]
	p.end = slices.Grow(p.end[:0], n)[:n]
	p.data = p.data[:0]
	var values, typed []pq.Value
	if p.value >= 0 {
		values = b.vals[p.value]
	}
	if p.typed >= 0 {
		typed = b.vals[p.typed]
	}
	for k := range n {
		row := k
		if p.space > 0 {
			row = int(sp.slotRow[k])
		}
		if b.state[row] != rowFast {
			p.absent(k)
			continue
		}
		var residual []byte
		hasResidual := false
		if values != nil {
			if v := &values[k]; v.DefinitionLevel() >= p.valueDef {
				residual, hasResidual = v.ByteArray(), true
				e := b.metas[row]
				if err := vr.asm.check.Check(e.meta, e.keyRanks(), residual); err != nil {
					b.slow(p, k, row)
					continue
				}
			}
		}
		start := len(p.data)
		typedPresent := false
		if p.typedNode != nil {
			switch p.l.Kind {
			case variant.Primitive:
				if t := &typed[k]; t.DefinitionLevel() >= p.typedDef {
					if hasResidual {
						b.slow(p, k, row) // conflicting value and typed_value
						continue
					}
					var err error
					if p.data, err = variant.AppendRawFromParquet(p.data, p.l, *t); err != nil {
						b.slow(p, k, row)
						continue
					}
					typedPresent = true
				}
			case variant.Object:
				if !b.isNull(&p.typedNull, k) {
					if !b.object(p, k, row, residual, hasResidual) {
						b.slow(p, k, row)
						continue
					}
					typedPresent = true
				}
			case variant.Array:
				if !b.isNull(&p.typedNull, k) {
					if hasResidual || !b.array(p, k) {
						b.slow(p, k, row)
						continue
					}
					typedPresent = true
				}
			}
		}
		switch {
		case typedPresent:
		case hasResidual:
			p.data = append(p.data, residual...)
		default:
			p.absent(k)
			continue
		}
		p.start[k], p.end[k] = int32(start), int32(len(p.data))
	}
}

// object encodes the typed object of p at slot k, merging the residual
// object's fields as fastObject does; false sends the row to the row path.
func (b *vbatch) object(p *bpair, k, row int, residual []byte, hasResidual bool) bool {
	e := b.metas[row]
	ids := e.fieldIDs(p.l)
	b.entries, b.parts, b.rkeys = b.entries[:0], b.parts[:0], b.rkeys[:0]
	at := 0 // where the next part starts in the object's data
	for i, f := range p.fields {
		if b.isNull(f.group, k) || f.end[k] < 0 {
			continue
		}
		if ids[i] < 0 {
			return false // the metadata lacks the name
		}
		part := f.data[f.start[k]:f.end[k]]
		b.entries = append(b.entries, ventry{id: uint32(ids[i]), field: int32(i), start: at})
		b.parts = append(b.parts, part)
		at += len(part)
	}
	shredded := len(b.entries)
	if hasResidual {
		obj, err := variant.ParseObject(residual)
		if err != nil {
			return false
		}
		prev := ""
		for i := range obj.Len() {
			id := obj.FieldID(i)
			key, err := e.meta.KeyAt(id)
			if err != nil || (i > 0 && key <= prev) || variantFieldIndex(p.l.Fields, key) >= 0 {
				return false // as fastObject: Reconstruct names it, or applies the policy
			}
			prev = key
			part, err := obj.Field(i)
			if err != nil {
				return false
			}
			b.rkeys = append(b.rkeys, key)
			b.entries = append(b.entries, ventry{id: id, field: int32(-len(b.rkeys)), start: at})
			b.parts = append(b.parts, part)
			at += len(part)
		}
	}
	key := func(e ventry) string {
		if e.field >= 0 {
			return p.l.Fields[e.field].Name
		}
		return b.rkeys[-1-e.field]
	}
	inOrder := p.sortedFieldKeys && (len(b.entries) == shredded || shredded == 0 ||
		key(b.entries[shredded-1]) < key(b.entries[shredded]))
	if !inOrder {
		byKey := func(x, y ventry) int { return cmp.Compare(key(x), key(y)) }
		if !slices.IsSortedFunc(b.entries, byKey) {
			slices.SortFunc(b.entries, byKey)
		}
		for i := 1; i < len(b.entries); i++ {
			if key(b.entries[i]) == key(b.entries[i-1]) {
				return false
			}
		}
	}
	b.ids, b.offs = b.ids[:0], b.offs[:0]
	for _, e := range b.entries {
		b.ids, b.offs = append(b.ids, e.id), append(b.offs, e.start)
	}
	p.data = variant.AppendObjectParts(p.data, b.ids, b.offs, b.parts)
	return true
}

// variantNull is the encoding of Variant null, which a missing array
// element reads as.
var variantNull = []byte{0}

// array encodes the typed array of p at row k from its element slots, as
// fastArray does; false sends the row to the row path.
func (b *vbatch) array(p *bpair, k int) bool {
	sp := &b.spaces[p.elem.space]
	first, end := int(sp.rowStart[k]), int(sp.rowStart[k+1])
	e := p.elem
	if b.vals[p.repFirst][first].DefinitionLevel() < p.repDef {
		if end-first > 1 {
			return false // entries the row path would leave unread
		}
		p.data = variant.AppendArrayHeader(p.data, 0, 0)
		p.data = variant.AppendOffsets(p.data, nil, 0)
		return true
	}
	sp.consumed[k] = true
	b.offs, b.parts = b.offs[:0], b.parts[:0]
	size := 0
	for j := first; j < end; j++ {
		part := variantNull
		if e.end[j] >= 0 {
			part = e.data[e.start[j]:e.end[j]]
		}
		b.offs, b.parts = append(b.offs, size), append(b.parts, part)
		size += len(part)
	}
	p.data = variant.AppendArrayHeader(p.data, len(b.offs), size)
	p.data = variant.AppendOffsets(p.data, b.offs, size)
	for _, part := range b.parts {
		p.data = append(p.data, part...)
	}
	return true
}

// nextBatched is nextValue for a top-level variant read column-wise; rows
// is how many rows the row group still has, this one included.
func (vr *variantRead) nextBatched(p variant.Policy, rows int64) (pvariant.Value, bool, error) {
	b := vr.batch
	if b.next >= b.rows {
		b.fill(vr, int(max(min(rows, variantBatchRows), 1)))
	}
	r := b.next
	b.next++
	if r == b.errRow {
		return pvariant.Value{}, false, b.err
	}
	switch b.state[r] {
	case rowNull:
		return pvariant.Value{}, true, nil
	case rowFast:
		if v, ok := b.value(vr, r); ok {
			return v, false, nil
		}
	}
	b.view(vr, r)
	defer b.endView(vr)
	return vr.rowValue(p)
}

// value is the assembled value of row r, as fastRow returns it; false
// sends the row to the row path.
func (b *vbatch) value(vr *variantRead, r int) (pvariant.Value, bool) {
	e := b.metas[r]
	out := variantNull
	if t := b.top; t.end[r] >= 0 {
		out = t.data[t.start[r]:t.end[r]]
	}
	owned := vr.asm.arena.copy(out)
	v, ok := variant.Assembled(e.meta, owned)
	if ok && (!variantCheckAssembled || checkAssembled(e.meta, owned)) {
		return v, true
	}
	v, err := pvariant.NewWithMetadata(e.meta, owned)
	return v, err == nil
}

// view points every column of vr at the batch's values of row r, for the
// row path to read them as a gathered row.
func (b *vbatch) view(vr *variantRead, r int) {
	for c := range vr.cols {
		col := &vr.cols[c]
		col.direct, col.pos = false, 0
		if b.colSpace[c] == 0 {
			col.vals = b.vals[c][r : r+1 : r+1]
			continue
		}
		st := b.starts[c]
		col.vals = b.vals[c][st[r]:st[r+1]:st[r+1]]
	}
}

func (b *vbatch) endView(vr *variantRead) {
	for c := range vr.cols {
		vr.cols[c].direct, vr.cols[c].vals = b.direct[c], nil
	}
}

// appendN appends the next n values of c to dst.
func (c *cursor) appendN(dst []pq.Value, n int) ([]pq.Value, error) {
	for n > 0 {
		if c.pos >= c.n {
			if err := c.fill(); err != nil {
				return dst, err
			}
		}
		m := min(n, c.n-c.pos)
		dst = append(dst, c.buf[c.pos:c.pos+m]...)
		c.pos += m
		n -= m
	}
	return dst, nil
}

// appendRows appends the values of the next n rows of c to dst, and where
// each row starts in dst to starts, then the end. A row is its first value
// and the values after it that repeat deeper than base, as gather takes
// them.
func (c *cursor) appendRows(dst []pq.Value, starts []int32, n, base int) ([]pq.Value, []int32, error) {
	rows := 0
	for {
		if c.pos >= c.n {
			if err := c.fill(); err != nil {
				if errors.Is(err, io.EOF) && rows == n {
					break
				}
				return dst, append(starts, int32(len(dst))), err
			}
		}
		// The buffer's values up to the next row past the n-th are
		// appended at once.
		buf := c.buf[c.pos:c.n]
		i := 0
		for ; i < len(buf); i++ {
			if rows == 0 || buf[i].RepetitionLevel() <= base {
				if rows == n {
					break
				}
				starts = append(starts, int32(len(dst)+i))
				rows++
			}
		}
		dst = append(dst, buf[:i]...)
		c.pos += i
		if i < len(buf) {
			break
		}
	}
	return dst, append(starts, int32(len(dst))), nil
}
