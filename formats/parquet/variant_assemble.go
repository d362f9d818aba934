package parquet

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/coltype-lab/lab/variant"
)

// The reader's fast path: a row's value is encoded straight from the
// leveled column values into an arena, the typed columns converted by
// variant.AppendRawFromParquet, the residual bytes copied, the objects'
// field ids taken from the row's metadata. Every residual value, the bytes
// that come from the file, is validated where fastPair reads it, with
// arrow-go's verdict (variant.ExactChecker, fuzzed against arrow-go); the
// value assembled around them is the lab's own encoding and is returned
// unvalidated (variant.Assembled), except under a layout nested
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
	meta pvariant.Metadata
	ids  map[*variant.Layout][]int32
	err  error
	// ranks and rankOf serve the writer's object walk (keyRanks,
	// fieldRanks).
	ranks  []uint32
	rankOf map[*variant.Layout][]int32
}

// metaCacheMax bounds the distinct metadata a reader keeps parsed.
const metaCacheMax = 4096

type metaCache struct {
	m map[string]*metaEntry
}

func (c *metaCache) get(b []byte) *metaEntry {
	if e, ok := c.m[string(b)]; ok {
		return e
	}
	if c.m == nil || len(c.m) >= metaCacheMax {
		c.m = map[string]*metaEntry{}
	}
	owned := append([]byte(nil), b...)
	e := &metaEntry{}
	e.meta, e.err = variant.DecodeMetadata(owned)
	c.m[string(owned)] = e
	return e
}

// keyRanks are the metadata's variant.KeyRanks, computed on first use.
func (e *metaEntry) keyRanks() []uint32 {
	if e.ranks == nil {
		e.ranks = variant.KeyRanks(e.meta)
	}
	return e.ranks
}

// fieldRanks are the ranks (keyRanks) of l's shredded field names in the
// dictionary, -1 for a name it lacks: they ascend, past the -1s, when the
// names do. A name an unsorted dictionary repeats has one rank.
func (e *metaEntry) fieldRanks(l *variant.Layout) []int32 {
	return perField(&e.rankOf, l, func(name string) int32 {
		if ids := e.meta.IdFor(name); len(ids) > 0 {
			return int32(e.keyRanks()[ids[0]])
		}
		return -1
	})
}

// fieldIDs are the metadata ids of l's shredded field names (-1: not in
// the dictionary, or in it more than once).
func (e *metaEntry) fieldIDs(l *variant.Layout) []int32 {
	return perField(&e.ids, l, func(name string) int32 {
		if ids := e.meta.IdFor(name); len(ids) == 1 {
			return int32(ids[0])
		}
		return -1
	})
}

// perField is of(name) for each of l's field names, kept in *cache.
func perField(cache *map[*variant.Layout][]int32, l *variant.Layout, of func(name string) int32) []int32 {
	if v, ok := (*cache)[l]; ok {
		return v
	}
	if *cache == nil {
		*cache = map[*variant.Layout][]int32{}
	}
	v := make([]int32, len(l.Fields))
	for i, f := range l.Fields {
		v[i] = of(f.Name)
	}
	(*cache)[l] = v
	return v
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
	check variant.ExactChecker
	// trust is 1 when assembled values skip validation
	// (trustAssembled), -1 when not, 0 before the first row.
	trust int8
	out   []byte
	// frames are per nesting level: the field entries and element offsets
	// of the object or array being built.
	// Pointers, so that a deeper level growing the slice moves no frame.
	frames []*vframe
}

type vframe struct {
	entries []ventry
	rkeys   []string // the residual fields' names (ventry.field < 0)
	ids     []uint32 // an object's field ids, as AppendObjectSpans takes them
	offs    []int    // an array's element offsets, or an object's field offsets
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
		if ok && (!variantCheckAssembled || checkAssembled(e.meta, owned)) {
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

func checkAssembled(meta pvariant.Metadata, b []byte) bool {
	if _, err := pvariant.NewWithMetadata(meta, b); err != nil {
		panic(fmt.Sprintf("variant fast path assembled an invalid value %x: %v", b, err))
	}
	return true
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
			// Bytes from the file: validated here, with arrow-go's verdict
			// (variant.ExactChecker), since fastRow does not validate the
			// value they go into.
			if vr.trustAssembled() {
				if err := vr.asm.check.Check(e.meta, e.keyRanks(), residual); err != nil {
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
	f.ids, f.offs = f.ids[:0], f.offs[:0]
	for _, e := range f.entries {
		f.ids, f.offs = append(f.ids, e.id), append(f.offs, e.start)
	}
	return variant.AppendObjectSpans(out, f.ids, f.offs, f.data), true, nil
}

// variantFieldIndex finds name among a layout's fields.
func variantFieldIndex(fields []variant.Field, name string) int { return fieldIndex(fields, name) }

// nextValue reads the next variant of vr: the column-wise assembly of a
// top-level variant (nextBatched), or the row path. null reports a SQL
// NULL; rows is how many rows the row group still has, this one included.
func (vr *variantRead) nextValue(p variant.Policy, rows int64) (pvariant.Value, bool, error) {
	if vr.topLevel && (p == variant.Refuse || p == variant.NullInvalid) && !variantReadSlow && !variantReadRows {
		if vr.batch == nil && !vr.noBatch {
			vr.batch, _ = vr.planBatch()
			vr.noBatch = vr.batch == nil
		}
		if vr.batch != nil {
			return vr.nextBatched(p, rows)
		}
	}
	if err := vr.gather(); err != nil {
		return pvariant.Value{}, false, err
	}
	return vr.rowValue(p)
}

// rowValue reads the row vr has gathered: the fast path, or
// variant.ReconstructWith for what it leaves.
func (vr *variantRead) rowValue(p variant.Policy) (pvariant.Value, bool, error) {
	if (p == variant.Refuse || p == variant.NullInvalid) && !variantReadSlow {
		v, null, err := vr.fastRow()
		switch {
		case err == nil:
			return v, null, nil
		case !errors.Is(err, errSlow):
			return pvariant.Value{}, false, fmt.Errorf("variant column %q: %w", vr.path, err)
		}
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
