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
// field ids taken from the row's metadata, and the result validated once by
// arrow-go (pvariant.NewWithMetadata), as variant.Reconstruct validates
// what it built. Metadata is parsed and checked once per distinct metadata
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
	out   []byte
	// frames are per nesting level: the field entries and element offsets
	// of the object or array being built.
	// Pointers, so that a deeper level growing the slice moves no frame.
	frames []*vframe
}

type vframe struct {
	entries []ventry
	offs    []int
	data    []byte
}

type ventry struct {
	key   string
	id    uint32
	start int // in data
	end   int
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
	v, err := pvariant.NewWithMetadata(e.meta, a.arena.copy(out))
	if err != nil {
		return pvariant.Value{}, false, errSlow
	}
	return v, false, nil
}

func (a *vassembler) frame(depth int) *vframe {
	for len(a.frames) <= depth {
		a.frames = append(a.frames, &vframe{})
	}
	f := a.frames[depth]
	f.entries, f.offs, f.data = f.entries[:0], f.offs[:0], f.data[:0]
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
		f.entries = append(f.entries, ventry{key: fl.Name, id: uint32(ids[i]), start: start, end: len(f.data)})
	}
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
			f.entries = append(f.entries, ventry{key: key, id: id, start: start, end: len(f.data)})
		}
	}
	if !slices.IsSortedFunc(f.entries, func(a, b ventry) int { return cmp.Compare(a.key, b.key) }) {
		slices.SortFunc(f.entries, func(a, b ventry) int { return cmp.Compare(a.key, b.key) })
	}
	for i := 1; i < len(f.entries); i++ {
		if f.entries[i].key == f.entries[i-1].key {
			return out, false, errSlow
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
func (vr *variantRead) nextValue(p variant.Policy) (pvariant.Value, bool, error) {
	if err := vr.gather(); err != nil {
		return pvariant.Value{}, false, err
	}
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
