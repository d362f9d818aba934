package parquet

import (
	"fmt"
	"sort"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/variant"
)

// The shredding writer's fast path: a validated value is split into the
// plan's columns straight from its bytes, following the layout the
// analyzer inferred (the vpair tree), without the variant.Row tree that
// variant.Shred builds, without arrow-go Builders for residual objects and
// without boxing primitives through Value.Value. It writes what
// variant.Shred followed by variantPair writes (TestVariantFastShredMatches
// compares the two on every value of the tests' corpora); variantShredSlow
// switches back to that path.
var variantShredSlow = false

// fastShred is the per-writer scratch of the fast path; residual objects
// are built in arena, which is never reused while a batch holds its bytes.
type fastShred struct {
	arena  []byte
	frames []shredFrame // one per object nesting level
	// validated says the value being walked was validated whole (it is
	// larger than variant.DepthFreeBytes), so checkSpan has nothing to do.
	validated bool
	// entry is the walked value's checked metadata.
	entry *metaEntry
	// check validates the spans the walk copies as bytes.
	check variant.ExactChecker
}

// shredFrame is the scratch of one object being shredded.
type shredFrame struct {
	obj    variant.ObjectFields
	ids    []uint32
	vals   [][]byte
	fields [][]byte // per layout field
}

// arenaBlock is how much arena a writer takes at a time.
const arenaBlock = 64 << 10

// residual encodes a residual object into the arena; its bytes stay valid
// until the batch that holds them is written (blocks are never reused).
func (f *fastShred) residual(ids []uint32, vals [][]byte) []byte {
	size := 1 + 4 + 4*len(ids) + 4*(len(ids)+1)
	for _, v := range vals {
		size += len(v)
	}
	if cap(f.arena)-len(f.arena) < size {
		f.arena = make([]byte, 0, max(arenaBlock, size))
	}
	start := len(f.arena)
	f.arena = variant.AppendObject(f.arena, ids, vals)
	out := f.arena[start:len(f.arena):len(f.arena)]
	return out
}

// shredFast writes the pair p for the encoded value b, whose enclosing
// group is present at def. b is exactly one value's span, not yet
// validated: the walk checks each container it splits (variant.ExactObject,
// ExactArray, ExactSize) and has arrow-go validate each span it writes as
// bytes (checkSpan), so it refuses what variant.NewWithMetadata refuses
// without validating the value twice.
func (s *shredder) shredFast(p *vpair, meta pvariant.Metadata, b []byte, rep, def, depth int) error {
	if p.layout == nil {
		return s.writeChecked(p, meta, b, rep, def)
	}
	switch p.layout.Kind {
	case variant.Primitive:
		if pv, ok := variant.ParquetFromRaw(p.layout, b); ok {
			if err := variant.ExactSize(b); err != nil {
				return fmt.Errorf("column %q: %w", p.path, err)
			}
			if p.value >= 0 {
				s.appendNull(p.value, rep, def)
			}
			s.cols[p.typed] = append(s.cols[p.typed], pv.Level(rep, def+1, p.typed))
			return nil
		}
	case variant.Object:
		if len(b) > 0 && b[0]&3 == 2 {
			return s.shredObjectFast(p, meta, b, rep, def, depth)
		}
	case variant.Array:
		if len(b) > 0 && b[0]&3 == 3 {
			return s.shredArrayFast(p, meta, b, rep, def, depth)
		}
	}
	if err := s.checkSpan(p, meta, b); err != nil {
		return err
	}
	if p.layout.OmitValue {
		t, _ := variant.RawType(b)
		return fmt.Errorf("column %q: %v value does not fit typed_value %s and the layout has no value column", p.path, t, p.layout)
	}
	if err := s.writeValue(p, b, rep, def); err != nil {
		return err
	}
	s.nulls(p.typedLeaves, rep, def)
	return nil
}

// checkSpan validates b as exactly one value, unless the whole value was
// validated before the walk (fastShred.validated), with arrow-go's verdict
// (variant.ExactChecker: exact walks of the containers, ExactSize of the
// primitives, which TestExactSizeMatchesArrow holds to arrow-go on every
// header). A call to arrow-go's validation costs about 400 ns however
// small the value, most of a shredded object's residual field.
func (s *shredder) checkSpan(p *vpair, meta pvariant.Metadata, b []byte) error {
	if s.fast.validated {
		return nil
	}
	if err := s.fast.check.Check(meta, s.fast.entry.keyRanks(), b); err != nil {
		return fmt.Errorf("column %q: invalid variant: %w", p.path, err)
	}
	return nil
}

// writeChecked writes b to p's value column once arrow-go has validated it.
func (s *shredder) writeChecked(p *vpair, meta pvariant.Metadata, b []byte, rep, def int) error {
	if err := s.checkSpan(p, meta, b); err != nil {
		return err
	}
	return s.writeValue(p, b, rep, def)
}

// writeValue writes b to p's value column.
func (s *shredder) writeValue(p *vpair, b []byte, rep, def int) error {
	if p.value < 0 {
		return fmt.Errorf("column %q: no value column", p.path)
	}
	if !p.valueRequired {
		def++
	}
	s.cols[p.value] = append(s.cols[p.value], pq.ByteArrayValue(b).Level(rep, def, p.value))
	return nil
}

// shredArrayFast writes the elements of an array to the elements' pair.
func (s *shredder) shredArrayFast(p *vpair, meta pvariant.Metadata, b []byte, rep, def, depth int) error {
	arr, err := variant.ExactArray(b)
	if err != nil {
		return fmt.Errorf("column %q: %w", p.path, err)
	}
	if p.value >= 0 {
		s.appendNull(p.value, rep, def)
	}
	if arr.Len() == 0 {
		s.nulls(p.typedLeaves, rep, def+1)
		return nil
	}
	for i := range arr.Len() {
		r := rep
		if i > 0 {
			r = p.listRep
		}
		if err := s.shredFast(p.elem, meta, arr.ElemSpan(i), r, def+2, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// shredObjectFast splits an object into its shredded fields and a
// residual object of the others, which keeps their field ids and value
// bytes (so the row's metadata still describes it).
func (s *shredder) shredObjectFast(p *vpair, meta pvariant.Metadata, b []byte, rep, def, depth int) error {
	f := &s.fast
	for len(f.frames) <= depth {
		f.frames = append(f.frames, shredFrame{})
	}
	fr := &f.frames[depth]
	ranks := f.entry.keyRanks()
	if err := variant.ExactObject(ranks, b, &fr.obj); err != nil {
		return fmt.Errorf("column %q: %w", p.path, err)
	}
	fields := p.layout.Fields
	found := fr.fields
	if cap(found) < len(fields) {
		found = make([][]byte, len(fields))
	}
	found = found[:len(fields)]
	clear(found)
	ids, vals := fr.ids[:0], fr.vals[:0]
	// Each of the object's fields is a layout field (found) or residual.
	// The object's names ascend (ExactObject checked), and so do the
	// layout's when namesSorted: a merge of their ranks in the dictionary
	// (fieldRanks). Otherwise the names are looked up.
	var layoutRanks []int32
	if p.namesSorted {
		layoutRanks = f.entry.fieldRanks(p.layout)
	}
	next := 0
	for i, id := range fr.obj.IDs {
		v := fr.obj.Spans[i]
		j := -1
		if layoutRanks != nil {
			r := int32(ranks[id])
			for next < len(layoutRanks) && layoutRanks[next] < r {
				next++
			}
			if next < len(layoutRanks) && layoutRanks[next] == r {
				j = next
			}
		} else {
			key, _ := meta.KeyAt(id)
			j = fieldIndex(fields, key)
		}
		if j < 0 {
			if err := s.checkSpan(p, meta, v); err != nil {
				key, _ := meta.KeyAt(id)
				return fmt.Errorf("%w (field %q)", err, key)
			}
			ids, vals = append(ids, id), append(vals, v)
			continue
		}
		found[j] = v
	}
	if p.value >= 0 {
		if len(ids) > 0 {
			s.cols[p.value] = append(s.cols[p.value], pq.ByteArrayValue(f.residual(ids, vals)).Level(rep, def+1, p.value))
		} else {
			s.appendNull(p.value, rep, def)
		}
	} else if len(ids) > 0 {
		return fmt.Errorf("column %q: object has fields the layout does not shred and no value column", p.path)
	}
	for j, c := range p.fields {
		if found[j] == nil {
			// Missing: both columns of the (required) field group null.
			if c.value >= 0 {
				s.appendNull(c.value, rep, def+1)
			}
			s.nulls(c.typedLeaves, rep, def+1)
			continue
		}
		if err := s.shredFast(c, meta, found[j], rep, def+1, depth+1); err != nil {
			return err
		}
	}
	// Keep the grown scratch, emptied of references into this value.
	clear(vals)
	clear(found)
	fr = &f.frames[depth]
	fr.fields, fr.ids, fr.vals = found, ids[:0], vals[:0]
	clear(fr.obj.Spans)
	return nil
}

// fieldIndex finds name among fields sorted by name.
// (the analyzer's order); a miss of the binary search is checked by a scan,
// so fields in another order are found too.
func fieldIndex(fields []variant.Field, name string) int {
	if len(fields) >= 16 {
		i := sort.Search(len(fields), func(i int) bool { return fields[i].Name >= name })
		if i < len(fields) && fields[i].Name == name {
			return i
		}
	}
	for i := range fields {
		if fields[i].Name == name {
			return i
		}
	}
	return -1
}
