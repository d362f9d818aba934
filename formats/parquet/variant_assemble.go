package parquet

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/coltype-lab/lab/variant"
)

// The reader's fast path: a row's value is encoded straight from the
// leveled column values into an arena, the typed columns converted by
// variant.AppendRawFromParquet, the residual bytes copied, the objects'
// field ids taken from the row's metadata. arrow-go validates every
// residual value, the bytes that come from the file, where fastPair reads
// it; the value assembled around them is the lab's own encoding and is
// returned unvalidated (variant.Assembled), except under a layout nested
// deeper than trustedLayoutDepth, where arrow-go validates the whole
// value as variant.Reconstruct validates what it built. Metadata is parsed
// and checked once per distinct metadata
// (metaCache); the values of a reader share the parsed Metadata of equal
// metadata bytes.
//
// Whatever the fast path cannot do, or finds wrong, goes to
// variant.Reconstruct for the row: a conflict the spec calls invalid is
// refused there with its path-naming message, a shredded field name that
// the metadata lacks is added there, and a read policy other than Refuse
// is applied there.

// metaEntry is a parsed and checked metadata and the ids of the shredded
// field names of each object layout in it (-1: not in the dictionary).
type metaEntry struct {
	id   int // in the order the cache met them
	meta pvariant.Metadata
	ids  map[*variant.Layout][]int32
	err  error
}

// metaCacheMax bounds the distinct metadata a reader keeps parsed.
const metaCacheMax = 4096

type metaCache struct {
	m    map[string]*metaEntry
	made int
}

func (c *metaCache) get(b []byte) *metaEntry {
	if e, ok := c.m[string(b)]; ok {
		return e
	}
	if c.m == nil || len(c.m) >= metaCacheMax {
		c.m = map[string]*metaEntry{}
	}
	owned := append([]byte(nil), b...)
	c.made++
	e := &metaEntry{id: c.made}
	e.meta, e.err = variant.DecodeMetadata(owned)
	c.m[string(owned)] = e
	return e
}

// fieldIDs are the metadata ids of l's shredded field names.
func (e *metaEntry) fieldIDs(l *variant.Layout) []int32 {
	if ids, ok := e.ids[l]; ok {
		return ids
	}
	if e.ids == nil {
		e.ids = map[*variant.Layout][]int32{}
	}
	ids := make([]int32, len(l.Fields))
	for i, f := range l.Fields {
		ids[i] = -1
		if found := e.meta.IdFor(f.Name); len(found) == 1 {
			ids[i] = int32(found[0])
		}
	}
	e.ids[l] = ids
	return ids
}

// valueArena hands out the bytes of returned values: blocks are never
// reused, so a value stays valid for as long as it is referenced.
type valueArena struct{ buf []byte }

const valueArenaBlock = 256 << 10

func (a *valueArena) copy(b []byte) []byte {
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(valueArenaBlock, len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

// assembler is the scratch of the fast path.
type vassembler struct {
	cache metaCache
	arena valueArena
	check struct { // checkPending's scratch
		offs      []int
		data, arr []byte
	}
	// trust is 1 when assembled values skip validation
	// (trustAssembled), -1 when not, 0 before the first row.
	trust int8
	// The rows nextValue assembled ahead (readAhead) and the next to hand
	// out; pending are their residuals, validated together.
	ahead   []aheadValue
	aheadAt int
	pending []pendingResidual
	// deferring is set while readAhead assembles: fastPair records each
	// residual in pending (row: the row's index in ahead) instead of
	// having arrow-go validate it alone.
	deferring bool
	row       int
	out       []byte
	// frames are per nesting level: the field entries and element offsets
	// of the object or array being built.
	// Pointers, so that a deeper level growing the slice moves no frame.
	frames []*vframe
}

type vframe struct {
	entries []ventry
	rkeys   []string // the residual fields' names (ventry.field < 0)
	offs    []int
	data    []byte
}

// ventry is one field of the object being built. It holds no pointer, so
// that appending one costs no write barrier (it did, a tenth of fastObject):
// the name is a layout field's (field >= 0) or the frame's residual key
// -1-field.
type ventry struct {
	id    uint32
	field int32
	start int // in data
}

func (f *vframe) key(l *variant.Layout, e ventry) string {
	if e.field >= 0 {
		return l.Fields[e.field].Name
	}
	return f.rkeys[-1-e.field]
}

// variantReadSlow sends every row to variant.Reconstruct (for the tests
// that compare the two paths).
var variantReadSlow = false

// errSlow sends a row to variant.Reconstruct.
var errSlow = errors.New("variant: slow path")

// fastRow assembles the row vr has gathered (vr.next without assemble).
func (vr *variantRead) fastRow() (pvariant.Value, bool, error) {
	a := &vr.asm
	if null, err := vr.null(vr.top); err != nil || null {
		return pvariant.Value{}, true, err
	}
	mv, ok, err := vr.leaf(vr.meta)
	if err != nil {
		return pvariant.Value{}, false, err
	}
	if !ok {
		return pvariant.Value{}, false, fmt.Errorf("%s: metadata is null", vr.meta.f.path)
	}
	e := a.cache.get(mv.ByteArray())
	if e.err != nil {
		return pvariant.Value{}, false, errSlow
	}
	out, present, err := vr.fastPair(e, vr.layout, vr.value, vr.typed, a.out[:0], 0)
	if err != nil {
		return pvariant.Value{}, false, err
	}
	if !present {
		out = append(out, 0) // Variant null
	}
	a.out = out
	owned := a.arena.copy(out)
	if vr.trustAssembled() {
		v, ok := variant.Assembled(e.meta, owned)
		if ok && (!variantCheckAssembled || vr.checkAssembled(e.meta, owned)) {
			return v, false, nil
		}
	}
	v, err := pvariant.NewWithMetadata(e.meta, owned)
	if err != nil {
		return pvariant.Value{}, false, errSlow
	}
	return v, false, nil
}

// variantCheckAssembled has arrow-go validate every value the fast path
// assembled without validation, and panics on one it refuses: the tests
// set it, so that a bug in the lab's encoding fails them instead of
// reaching a caller.
var variantCheckAssembled = false

func (vr *variantRead) checkAssembled(meta pvariant.Metadata, b []byte) bool {
	if _, err := pvariant.NewWithMetadata(meta, b); err != nil && !vr.residualRefused() {
		panic(fmt.Sprintf("variant fast path assembled an invalid value %x: %v", b, err))
	}
	return true
}

// residualRefused reports whether arrow-go refuses a residual of the row
// readAhead is assembling: checkPending refuses that row, so its value is
// invalid through no fault of the assembly.
func (vr *variantRead) residualRefused() bool {
	a := &vr.asm
	for i := len(a.pending) - 1; i >= 0 && a.pending[i].row == a.row; i-- {
		if _, err := pvariant.NewWithMetadata(a.pending[i].meta.meta, a.pending[i].b); err != nil {
			return true
		}
	}
	return false
}

// trustedLayoutDepth bounds the nesting of a shredded layout whose
// assembled values are returned without validation (variant.Assembled).
// arrow-go bounds a validated value's nesting at 1024 levels; a residual
// is validated alone, so an assembled value nests at most this much
// deeper than one.
const trustedLayoutDepth = 32

// trustAssembled reports whether fastRow returns its values without
// validating them whole: the residual bytes are validated where fastPair
// reads them, and the rest is the lab's own encoding.
func (vr *variantRead) trustAssembled() bool {
	if vr.asm.trust == 0 {
		vr.asm.trust = -1
		if layoutDepth(vr.layout) <= trustedLayoutDepth {
			vr.asm.trust = 1
		}
	}
	return vr.asm.trust > 0
}

func layoutDepth(l *variant.Layout) int {
	if l == nil {
		return 0
	}
	d := 0
	for _, f := range l.Fields {
		d = max(d, layoutDepth(f.Layout))
	}
	return 1 + max(d, layoutDepth(l.Element))
}

func (a *vassembler) frame(depth int) *vframe {
	for len(a.frames) <= depth {
		a.frames = append(a.frames, &vframe{})
	}
	f := a.frames[depth]
	clear(f.rkeys) // they point into a row's metadata
	f.entries, f.rkeys, f.offs, f.data = f.entries[:0], f.rkeys[:0], f.offs[:0], f.data[:0]
	return f
}

// fastPair appends the value of one pair to out and reports whether it was
// present; columns are consumed exactly as pair consumes them.
func (vr *variantRead) fastPair(e *metaEntry, l *variant.Layout, value, typed *vnode, out []byte, depth int) ([]byte, bool, error) {
	var residual []byte
	if value != nil {
		v, ok, err := vr.leaf(value)
		if err != nil {
			return out, false, err
		}
		if ok {
			residual = v.ByteArray()
			if residual == nil {
				residual = []byte{}
			}
			// Bytes from the file: arrow-go validates them here, since
			// fastRow does not validate the value they go into.
			switch {
			case vr.asm.deferring:
				vr.asm.pending = append(vr.asm.pending, pendingResidual{row: vr.asm.row, meta: e, value: value, b: residual})
			case vr.trustAssembled():
				if _, err := pvariant.NewWithMetadata(e.meta, residual); err != nil {
					return out, false, errSlow
				}
			}
		}
	}
	if typed == nil || l == nil || l.Kind == variant.Unshredded {
		if residual == nil {
			return out, false, nil
		}
		return append(out, residual...), true, nil
	}
	switch l.Kind {
	case variant.Primitive:
		v, ok, err := vr.leaf(typed)
		if err != nil {
			return out, false, err
		}
		if !ok {
			break
		}
		if residual != nil {
			return out, false, errSlow // conflicting value and typed_value
		}
		out, err = variant.AppendRawFromParquet(out, l, v)
		if err != nil {
			return out, false, errSlow
		}
		return out, true, nil
	case variant.Object:
		null, err := vr.null(typed)
		if err != nil {
			return out, false, err
		}
		if null {
			break
		}
		return vr.fastObject(e, l, typed, residual, out, depth)
	case variant.Array:
		null, err := vr.null(typed)
		if err != nil {
			return out, false, err
		}
		if null {
			break
		}
		if residual != nil {
			return out, false, errSlow
		}
		return vr.fastArray(e, l, typed, out, depth)
	}
	if residual == nil {
		return out, false, nil
	}
	return append(out, residual...), true, nil
}

func (vr *variantRead) fastArray(e *metaEntry, l *variant.Layout, typed *vnode, out []byte, depth int) ([]byte, bool, error) {
	if len(typed.children) != 1 || len(typed.children[0].children) != 1 {
		return out, false, errSlow
	}
	rep := typed.children[0]
	elem := rep.children[0]
	first, err := vr.peek(typed)
	if err != nil {
		return out, false, err
	}
	f := vr.asm.frame(depth)
	if first.DefinitionLevel() >= rep.def {
		ev, et := elem.value, elem.typed
		for {
			f.offs = append(f.offs, len(f.data))
			var present bool
			f.data, present, err = vr.fastPair(e, l.Element, ev, et, f.data, depth+1)
			if err != nil {
				return out, false, err
			}
			if !present {
				f.data = append(f.data, 0) // a missing element reads as Variant null
			}
			c := &vr.cols[rep.cols[0]]
			if c.pos >= len(c.vals) || c.vals[c.pos].RepetitionLevel() != rep.rep {
				break
			}
		}
	} else if err := vr.skip(typed); err != nil { // empty list
		return out, false, err
	}
	out = variant.AppendArrayHeader(out, len(f.offs), len(f.data))
	out = variant.AppendOffsets(out, f.offs, len(f.data))
	return append(out, f.data...), true, nil
}

func (vr *variantRead) fastObject(e *metaEntry, l *variant.Layout, typed *vnode, residual []byte, out []byte, depth int) ([]byte, bool, error) {
	ids := e.fieldIDs(l)
	f := vr.asm.frame(depth)
	nodes := typed.fieldNodes(l)
	for i, fl := range l.Fields {
		fn := nodes[i]
		if fn == nil {
			return out, false, errSlow
		}
		null, err := vr.null(fn)
		if err != nil {
			return out, false, err
		}
		if null {
			continue
		}
		start := len(f.data)
		var present bool
		f.data, present, err = vr.fastPair(e, fl.Layout, fn.value, fn.typed, f.data, depth+1)
		if err != nil {
			return out, false, err
		}
		if !present {
			continue
		}
		if ids[i] < 0 {
			return out, false, errSlow // the metadata lacks the name
		}
		f.entries = append(f.entries, ventry{id: uint32(ids[i]), field: int32(i), start: start})
	}
	shredded := len(f.entries)
	if residual != nil {
		obj, err := variant.ParseObject(residual)
		if err != nil {
			return out, false, errSlow // not an object, or broken: Reconstruct names it
		}
		prev := ""
		for i := range obj.Len() {
			id := obj.FieldID(i)
			key, err := e.meta.KeyAt(id)
			if err != nil {
				return out, false, errSlow
			}
			// VariantEncoding.md: an object's fields are in the order of
			// their names. The merge below sorts, which would repair a
			// residual that breaks the rule; Reconstruct applies the read
			// policy to it instead (refused by default, repair-key-order).
			if i > 0 && key <= prev {
				return out, false, errSlow
			}
			prev = key
			if variantFieldIndex(l.Fields, key) >= 0 {
				return out, false, errSlow // a shredded field in the residual
			}
			b, err := obj.Field(i)
			if err != nil {
				return out, false, errSlow
			}
			start := len(f.data)
			f.data = append(f.data, b...)
			f.rkeys = append(f.rkeys, key)
			f.entries = append(f.entries, ventry{id: id, field: int32(-len(f.rkeys)), start: start})
		}
	}
	// Shredded fields alone come in the layout's order: sorted and unique
	// when its names are (typed.sortedFields), which needs no check. The
	// residual's keys are sorted and unique too, and none is a layout
	// field's (both checked above), so where the last shredded key sorts
	// before the first residual one the entries are in order as they are.
	inOrder := typed.sortedFields && (len(f.entries) == shredded || shredded == 0 ||
		f.key(l, f.entries[shredded-1]) < f.key(l, f.entries[shredded]))
	if !inOrder {
		byKey := func(a, b ventry) int { return cmp.Compare(f.key(l, a), f.key(l, b)) }
		if !slices.IsSortedFunc(f.entries, byKey) {
			slices.SortFunc(f.entries, byKey)
		}
		for i := 1; i < len(f.entries); i++ {
			if f.key(l, f.entries[i]) == f.key(l, f.entries[i-1]) {
				return out, false, errSlow
			}
		}
	}
	return variant.AppendObjectSpans(out, len(f.entries), func(i int) (uint32, int) {
		return f.entries[i].id, f.entries[i].start
	}, f.data), true, nil
}

// variantFieldIndex finds name among a layout's fields.
func variantFieldIndex(fields []variant.Field, name string) int { return fieldIndex(fields, name) }

// nextValue reads the next variant of vr: the fast path, or
// variant.ReconstructWith for what it leaves. null reports a SQL NULL.
// left is how many rows the row group still holds for the read, this one
// included: the fast path assembles up to aheadRows of them at once
// (readAhead).
func (vr *variantRead) nextValue(p variant.Policy, left int64) (pvariant.Value, bool, error) {
	a := &vr.asm
	if a.aheadAt < len(a.ahead) {
		r := a.ahead[a.aheadAt]
		a.ahead[a.aheadAt] = aheadValue{}
		a.aheadAt++
		return r.v, r.null, r.err
	}
	// Only a variant that occurs once a row (no repetition above it): left
	// counts rows, not the occurrences of a variant in a list.
	if left > 1 && vr.baseRep == 0 && (p == variant.Refuse || p == variant.NullInvalid) && !variantReadSlow && vr.trustAssembled() {
		return vr.readAhead(p, int(min(left, aheadRows)))
	}
	return vr.oneValue(p)
}

// aheadRows is how many rows readAhead assembles before arrow-go validates
// their residuals.
const aheadRows = 256

type aheadValue struct {
	v    pvariant.Value
	null bool
	err  error
}

// pendingResidual is a residual value of row, from the value column of
// value, not validated yet.
type pendingResidual struct {
	row   int
	meta  *metaEntry
	value *vnode
	b     []byte
}

// readAhead assembles n rows, then has arrow-go validate all their
// residuals with one call per metadata (valueBatch), and returns the
// first. Validated alone, a residual cost a call that clears arrow-go's
// validation stack, as much as the rest of its row's assembly; most rows
// have one (a field the layout does not shred). A row whose residual
// arrow-go refuses is refused as the slow path refuses it, naming the
// path (read as null under NullInvalid); the rows before and after it are
// as read.
func (vr *variantRead) readAhead(p variant.Policy, n int) (pvariant.Value, bool, error) {
	a := &vr.asm
	a.ahead, a.aheadAt, a.pending = a.ahead[:0], 0, a.pending[:0]
	a.deferring = true
	for i := range n {
		a.row = i
		v, null, err := vr.oneValue(p)
		a.ahead = append(a.ahead, aheadValue{v: v, null: null, err: err})
		if err != nil {
			break // the columns' positions are not known past an error
		}
	}
	a.deferring = false
	vr.checkPending(p)
	return vr.nextValue(p, 0)
}

// checkPending validates the pending residuals, a batch per metadata, and
// turns the row of each one arrow-go refuses into its error.
func (vr *variantRead) checkPending(p variant.Policy) {
	a := &vr.asm
	if len(a.pending) == 0 {
		return
	}
	// Group by metadata; most row groups have a handful.
	slices.SortStableFunc(a.pending, func(x, y pendingResidual) int {
		return cmp.Compare(x.meta.id, y.meta.id)
	})
	for start := 0; start < len(a.pending); {
		end := start + 1
		for end < len(a.pending) && a.pending[end].meta == a.pending[start].meta {
			end++
		}
		group := a.pending[start:end]
		if !vr.validGroup(group) {
			for _, r := range group {
				if _, err := pvariant.NewWithMetadata(r.meta.meta, r.b); err != nil {
					vr.refuseAhead(p, r, err)
				}
			}
		}
		start = end
	}
	clear(a.pending) // they point into pages
	a.pending = a.pending[:0]
}

// validGroup reports whether arrow-go accepts every residual of group,
// laid out as the elements of one array under their metadata.
func (vr *variantRead) validGroup(group []pendingResidual) bool {
	b := &vr.asm.check
	b.offs, b.data = b.offs[:0], b.data[:0]
	for _, r := range group {
		if len(r.b) == 0 {
			return false // an empty value is no value; NewWithMetadata says so
		}
		b.offs = append(b.offs, len(b.data))
		b.data = append(b.data, r.b...)
	}
	buf := b.arr[:0]
	buf = variant.AppendArrayHeader(buf, len(b.offs), len(b.data))
	buf = variant.AppendOffsets(buf, b.offs, len(b.data))
	buf = append(buf, b.data...)
	b.arr = buf
	_, err := pvariant.NewWithMetadata(group[0].meta.meta, buf)
	return err == nil
}

// refuseAhead makes the row of r, read ahead, fail as the slow path fails
// a residual arrow-go refuses.
func (vr *variantRead) refuseAhead(p variant.Policy, r pendingResidual, err error) {
	a := &vr.asm
	if r.row >= len(a.ahead) || a.ahead[r.row].err != nil {
		return
	}
	err = fmt.Errorf("%s: value column: %w", variantPathOf(r.value), err)
	if p == variant.NullInvalid {
		err = &variant.InvalidAsNull{Err: err}
	}
	a.ahead[r.row] = aheadValue{err: fmt.Errorf("variant column %q: %w", vr.path, err)}
}

// variantPathOf is the variant path ("$.user", "$.items[]") of the value
// column of a pair: its Parquet path within the variant, without the
// typed_value groups and the LIST levels.
func variantPathOf(value *vnode) string {
	parts := strings.Split(value.f.path, ".")
	var sb strings.Builder
	sb.WriteString("$")
	for i := 1; i < len(parts)-1; i++ {
		switch {
		case parts[i] == variantTypedValueName:
		case parts[i] == "list" && i+1 < len(parts)-1 && parts[i+1] == "element":
			sb.WriteString("[]")
			i++
		default:
			sb.WriteString("." + parts[i])
		}
	}
	return sb.String()
}

// oneValue reads the next row's value with its residuals validated alone.
func (vr *variantRead) oneValue(p variant.Policy) (pvariant.Value, bool, error) {
	if err := vr.gather(); err != nil {
		return pvariant.Value{}, false, err
	}
	if (p == variant.Refuse || p == variant.NullInvalid) && !variantReadSlow {
		mark := len(vr.asm.pending)
		v, null, err := vr.fastRow()
		switch {
		case err == nil:
			return v, null, nil
		case !errors.Is(err, errSlow):
			return pvariant.Value{}, false, fmt.Errorf("variant column %q: %w", vr.path, err)
		}
		// The slow path checks what it reads itself.
		clear(vr.asm.pending[mark:])
		vr.asm.pending = vr.asm.pending[:mark]
		vr.rewind()
	}
	vr.slowRows++
	row, err := vr.assemble()
	if err != nil {
		return pvariant.Value{}, false, fmt.Errorf("variant column %q: %w", vr.path, err)
	}
	if row.Null {
		return pvariant.Value{}, true, nil
	}
	v, err := variant.ReconstructWith(vr.layout, row, p)
	if err != nil {
		return v, false, fmt.Errorf("variant column %q: %w", vr.path, err)
	}
	return v, false, nil
}

// valueBatch validates many encoded values of one metadata with one
// arrow-go call. arrow-go offers no constructor without validation
// (NewWithMetadata and New both validate), and a call per value cost more
// in the call than in the checks: each clears a validation stack of about
// 4 KB, half of the time of a one-path read. So the values are laid out
// as the elements of one variant array, which NewWithMetadata validates
// whole (every element, exactly as it validates a value alone), and each
// value is then handed out as that array's element, which arrow-go does
// without validating again. The array's bytes are never reused, so the
// values stay valid for as long as they are referenced; as with any child
// value arrow-go hands out, a value's Bytes() has capacity past its end.
type valueBatch struct {
	offs  []int // element starts in data
	slots []int // where each element goes in the caller's slice
	data  []byte
}

// valueBatchBytes and valueBatchValues bound a batch: a large array keeps
// every value of it alive.
const (
	valueBatchBytes  = 256 << 10
	valueBatchValues = 4096
)

func (b *valueBatch) full() bool {
	return len(b.data) >= valueBatchBytes || len(b.offs) >= valueBatchValues
}

// add records that data[start:] is the value for out[slot].
func (b *valueBatch) add(start, slot int) {
	b.offs = append(b.offs, start)
	b.slots = append(b.slots, slot)
}

// flush validates the batch and stores each value in its slot of out. A
// batch that fails validation is validated value by value, so that the
// error names the slot at fault.
func (b *valueBatch) flush(meta pvariant.Metadata, out []pvariant.Value) error {
	n := len(b.offs)
	if n == 0 {
		return nil
	}
	defer func() { b.offs, b.slots, b.data = b.offs[:0], b.slots[:0], b.data[:0] }()
	buf := make([]byte, 0, 1+4+4*(n+1)+len(b.data))
	buf = variant.AppendArrayHeader(buf, n, len(b.data))
	buf = variant.AppendOffsets(buf, b.offs, len(b.data))
	buf = append(buf, b.data...)
	arr, err := pvariant.NewWithMetadata(meta, buf)
	if err == nil {
		a, ok := arr.Value().(pvariant.ArrayValue)
		if !ok || int(a.Len()) != n {
			return fmt.Errorf("variant batch of %d values did not read back as an array", n)
		}
		for i := range n {
			e, err := a.Value(uint32(i))
			if err != nil {
				return err
			}
			out[b.slots[i]] = e
		}
		return nil
	}
	data := buf[len(buf)-len(b.data):]
	for i, start := range b.offs {
		end := len(data)
		if i+1 < n {
			end = b.offs[i+1]
		}
		if _, err := pvariant.NewWithMetadata(meta, data[start:end:end]); err != nil {
			return &batchValueError{slot: b.slots[i], err: err}
		}
	}
	return err // the array is at fault, not a value: a bug here
}

// batchValueError is a value of a batch that arrow-go refused.
type batchValueError struct {
	slot int
	err  error
}

func (e *batchValueError) Error() string { return e.err.Error() }
func (e *batchValueError) Unwrap() error { return e.err }
