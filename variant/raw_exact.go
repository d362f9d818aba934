package variant

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Exact walks, for the shredding writer: it splits a value into columns
// walking its headers anyway, so it checks there what arrow-go's
// validation checks of each container it splits, checks primitives by
// their exact size (ExactSize, arrow-go's verdict on every header:
// TestExactSizeMatchesArrow), and leaves to arrow-go only the containers
// it writes as bytes (residual objects and arrays, values that do not fit
// the layout). Each container is checked exactly as
// variant.NewWithMetadata checks it: header sizes, field ids in the
// metadata's dictionary, field names strictly ascending, offsets within the
// data, array offsets starting at zero and never falling, and children
// that fill the data without gap, overlap or trailing bytes. The last is
// what the spans give: a child's span runs from its offset to the next
// child's in data order, and the caller validates each span as exactly
// one value (ExactSize, a nested exact container, or arrow-go on the
// span), which makes the children tile the data precisely when arrow-go's
// validation says they do. FuzzExactMatchesArrow holds the two to the
// same verdicts.

// DepthFreeBytes is the largest value that cannot nest deeper than
// arrow-go's validation allows (1024 levels): a non-empty container takes
// at least 4 bytes, so a value this size holds fewer than 1025 of them
// inside each other. An exact walk checks no depth; a larger value is
// validated whole first.
const DepthFreeBytes = 4096

// KeyRanks ranks a metadata's keys by name: ranks[id] is the number of
// distinct keys that sort before key id, so that comparing two ids' ranks
// compares their names, equal ranks meaning equal names (a dictionary
// without sorted_strings may repeat a key). Under a sorted dictionary,
// whose keys DecodeMetadata has checked to ascend strictly, the ranks are
// the ids. A writer computes them once per distinct metadata, so that the
// objects under it compare integers instead of strings.
func KeyRanks(meta variant.Metadata) []uint32 {
	n := meta.DictionarySize()
	ranks := make([]uint32, n)
	if meta.SortedAndUnique() {
		for id := range n {
			ranks[id] = id
		}
		return ranks
	}
	keys := make([]string, n)
	order := make([]uint32, n)
	for id := range n {
		keys[id], _ = meta.KeyAt(id)
		order[id] = id
	}
	slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(keys[x], keys[y]) })
	r := uint32(0)
	for i, id := range order {
		if i > 0 && keys[id] != keys[order[i-1]] {
			r++
		}
		ranks[id] = r
	}
	return ranks
}

// ObjectFields are the fields of an object ExactObject checked, in the
// object's (name) order; the slices are reused from call to call.
type ObjectFields struct {
	IDs   []uint32
	Spans [][]byte
	order []uint64 // offset<<32 | field index, sorted while spans are cut
	offs  []int
}

// ExactObject checks the object that is all of b, short of its fields'
// values, and fills f with its fields. ranks are meta's KeyRanks: names
// ascend strictly when ranks do.
func ExactObject(ranks []uint32, b []byte, f *ObjectFields) error {
	o, err := ParseObject(b)
	if err != nil {
		return err
	}
	if o.size != len(b) {
		return errors.New("invalid variant value: trailing bytes after an object")
	}
	n := o.n
	dataSize := o.size - o.dataAt
	f.IDs, f.Spans, f.offs = f.IDs[:0], f.Spans[:0], f.offs[:0]
	dict := uint32(len(ranks))
	sorted := true
	for i := range n {
		id := o.FieldID(i)
		if id >= dict {
			return fmt.Errorf("invalid variant value: object field %d has invalid field ID %d: dictionary has %d keys", i, id, dict)
		}
		if i > 0 && ranks[id] <= ranks[f.IDs[i-1]] {
			return fmt.Errorf("invalid variant value: object field names are not strictly sorted at field %d", i)
		}
		at := o.offStart + i*o.offSize
		off := int(le(b[at : at+o.offSize]))
		if off > dataSize {
			return fmt.Errorf("invalid variant value: object field %d offset %d is out of range", i, off)
		}
		sorted = sorted && (i == 0 || off > f.offs[i-1])
		f.IDs, f.offs = append(f.IDs, id), append(f.offs, off)
	}
	f.Spans = slices.Grow(f.Spans, n)[:n]
	if n == 0 {
		if dataSize != 0 {
			return errors.New("invalid variant value: object data has trailing bytes")
		}
		return nil
	}
	data := b[o.dataAt:]
	if sorted {
		// The usual case: values in field order.
		if f.offs[0] != 0 {
			return errors.New("invalid variant value: object data has a gap before field 0")
		}
		for i := range n {
			end := dataSize
			if i+1 < n {
				end = f.offs[i+1]
			}
			f.Spans[i] = data[f.offs[i]:end:end]
		}
		return nil
	}
	// Values out of field order (arrow-go's Builder keeps them in the
	// order they were appended): cut the spans in offset order, sorting
	// offset and field index packed in one word.
	f.order = f.order[:0]
	for i, off := range f.offs {
		f.order = append(f.order, uint64(off)<<32|uint64(i))
	}
	slices.Sort(f.order)
	if f.order[0]>>32 != 0 {
		return fmt.Errorf("invalid variant value: object data has a gap before field %d", uint32(f.order[0]))
	}
	for k, packed := range f.order {
		i, off := int(uint32(packed)), int(packed>>32)
		end := dataSize
		if k+1 < n {
			end = int(f.order[k+1] >> 32)
		}
		if k+1 < n && end == off {
			return fmt.Errorf("invalid variant value: object fields %d and %d overlap", i, uint32(f.order[k+1]))
		}
		f.Spans[i] = data[off:end:end]
	}
	return nil
}

// ExactArray checks the array that is all of b, short of its elements'
// values; ElemSpan then cuts the elements.
func ExactArray(b []byte) (RawArray, error) {
	a, err := ParseArray(b)
	if err != nil {
		return a, err
	}
	if a.size != len(b) {
		return a, errors.New("invalid variant value: trailing bytes after an array")
	}
	prev := 0
	for i := 0; i <= a.n; i++ {
		at := a.offStart + i*a.offSize
		off := int(le(b[at : at+a.offSize]))
		switch {
		case i == 0 && off != 0:
			return a, fmt.Errorf("invalid variant value: array first offset must be zero, got %d", off)
		case off < prev:
			return a, errors.New("invalid variant value: array offsets are not monotonic")
		}
		prev = off
	}
	return a, nil
}

// ElemSpan is element i of an array ExactArray checked: the bytes between
// its offset and the next, which the caller validates as exactly one
// value.
func (a *RawArray) ElemSpan(i int) []byte {
	at := a.offStart + i*a.offSize
	lo := a.dataAt + int(le(a.b[at:at+a.offSize]))
	hi := a.dataAt + int(le(a.b[at+a.offSize:at+2*a.offSize]))
	return a.b[lo:hi:hi]
}

// ExactSize checks that b is exactly one primitive or short string: a
// known type whose encoding takes all of b.
func ExactSize(b []byte) error {
	n, err := RawSize(b)
	if err != nil {
		return err
	}
	if n != len(b) {
		return errors.New("invalid variant value: trailing bytes")
	}
	return nil
}

// ExactChecker validates whole encoded values by exact walks, giving
// arrow-go's verdict (variant.NewWithMetadata's) without its fixed cost: a
// call to arrow-go clears a validation stack of about 4 KB however small the
// value, which made validating a shredded row's residual object, a few
// bytes, most of that field's read. Objects are checked by ExactObject,
// arrays by ExactArray, primitives and short strings by ExactSize, each
// child span as exactly one value; a value larger than DepthFreeBytes, which
// could nest past arrow-go's depth bound that a walk does not count, goes
// to arrow-go whole. FuzzCheckerMatchesArrow holds the two to the same
// verdicts. The zero ExactChecker is ready; it reuses its scratch from call
// to call, so one serves one goroutine.
type ExactChecker struct {
	fields []*ObjectFields // per nesting depth
}

// Check validates b as exactly one value under meta, whose KeyRanks are
// ranks.
func (c *ExactChecker) Check(meta variant.Metadata, ranks []uint32, b []byte) error {
	if len(b) > DepthFreeBytes {
		_, err := DecodeValue(meta, b)
		return err
	}
	return c.check(ranks, b, 0)
}

func (c *ExactChecker) check(ranks []uint32, b []byte, depth int) error {
	if len(b) == 0 {
		return errShort
	}
	switch b[0] & 3 {
	case basicObject:
		for len(c.fields) <= depth {
			c.fields = append(c.fields, &ObjectFields{})
		}
		f := c.fields[depth]
		if err := ExactObject(ranks, b, f); err != nil {
			return err
		}
		for _, s := range f.Spans {
			if err := c.check(ranks, s, depth+1); err != nil {
				return err
			}
		}
		return nil
	case basicArray:
		a, err := ExactArray(b)
		if err != nil {
			return err
		}
		for i := range a.Len() {
			if err := c.check(ranks, a.ElemSpan(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return ExactSize(b)
}
