package variant

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Policy says what a reader does with a variant value the spec forbids,
// as the FILE column type's read policy does for invalid references.
type Policy uint8

const (
	// Refuse fails the read with an error naming the row and path.
	Refuse Policy = iota
	// RepairKeyOrder also reads objects whose field ids are not in the
	// order of their names. VariantEncoding.md: "The field ids and field
	// offsets must be in lexicographical order of the corresponding field
	// names in the metadata dictionary"; the order carries no meaning, so
	// sorting the (id, offset) pairs gives the value its writer meant. Any
	// other defect, duplicate names included, is still refused.
	RepairKeyOrder
	// NullInvalid reads every invalid value as null; the caller reports
	// each one.
	NullInvalid
)

// ReadPolicyKey is the read property that sets the Policy: "error" (the
// default), "repair-key-order" or "null".
const ReadPolicyKey = "read.variant.invalid"

// ParsePolicy parses a ReadPolicyKey value; "" is Refuse.
func ParsePolicy(s string) (Policy, error) {
	switch strings.ToLower(s) {
	case "", "error":
		return Refuse, nil
	case "repair-key-order":
		return RepairKeyOrder, nil
	case "null":
		return NullInvalid, nil
	}
	return Refuse, fmt.Errorf("%s=%q: want error, repair-key-order or null", ReadPolicyKey, s)
}

// ReconstructWith is Reconstruct under a policy. With NullInvalid an
// invalid value returns ErrInvalidAsNull wrapping the reason.
func ReconstructWith(layout *Layout, row Row, p Policy) (variant.Value, error) {
	if p == RepairKeyOrder && !row.Null {
		meta, err := DecodeMetadata(row.Metadata)
		if err != nil {
			return variant.Value{}, fmt.Errorf("$: metadata: %w", err)
		}
		repaired, err := repairShredded(meta, row.Shredded)
		if err != nil {
			return variant.Value{}, err
		}
		row.Shredded = repaired
	}
	v, err := Reconstruct(layout, row)
	if err != nil && p == NullInvalid && !errors.Is(err, ErrNullRow) {
		return variant.Value{}, &InvalidAsNull{Err: err}
	}
	return v, err
}

// InvalidAsNull is the error ReconstructWith returns for a value read as
// null under NullInvalid: the caller stores null and reports Err.
type InvalidAsNull struct{ Err error }

func (e *InvalidAsNull) Error() string { return "invalid variant read as null: " + e.Err.Error() }
func (e *InvalidAsNull) Unwrap() error { return e.Err }

func repairShredded(meta variant.Metadata, s Shredded) (Shredded, error) {
	if s.Value != nil {
		v, err := SortObjectKeys(meta, s.Value)
		if err != nil {
			return s, err
		}
		s.Value = v
	}
	for _, list := range []*[]Shredded{&s.Fields, &s.Elements} {
		if len(*list) == 0 {
			continue
		}
		out := make([]Shredded, len(*list))
		for i, c := range *list {
			r, err := repairShredded(meta, c)
			if err != nil {
				return s, err
			}
			out[i] = r
		}
		*list = out
	}
	return s, nil
}

// SortObjectKeys returns value with the (field id, offset) pairs of every
// object, at any depth, in the order of their names. The field values stay
// where they are: the spec lets them lie in any order, so every object
// keeps its size. value itself is not changed; a value already in order is
// returned as it is. Bytes it cannot walk are returned unchanged for the
// decoder to refuse.
func SortObjectKeys(meta variant.Metadata, value []byte) ([]byte, error) {
	out := value
	copied := false
	var walk func(at int, depth int) error
	walk = func(at int, depth int) error {
		if depth > maxRepairDepth {
			return fmt.Errorf("invalid variant value: nested deeper than %d", maxRepairDepth)
		}
		if at >= len(out) {
			return nil
		}
		header := out[at]
		info := header >> 2
		switch header & 3 {
		case 2: // object
			idSize := int(info>>2&3) + 1
			offSize := int(info&3) + 1
			sizeBytes := 1
			if info>>4&1 == 1 {
				sizeBytes = 4
			}
			pos := at + 1
			if pos+sizeBytes > len(out) {
				return nil
			}
			n := int(readLE(out[pos : pos+sizeBytes]))
			ids := pos + sizeBytes
			offs := ids + n*idSize
			data := offs + (n+1)*offSize
			if n < 0 || data > len(out) {
				return nil
			}
			type field struct {
				key     string
				id, off uint32
			}
			fields := make([]field, n)
			for i := range n {
				id := uint32(readLE(out[ids+i*idSize : ids+(i+1)*idSize]))
				key, err := meta.KeyAt(id)
				if err != nil {
					return nil // the decoder names it
				}
				fields[i] = field{key, id, uint32(readLE(out[offs+i*offSize : offs+(i+1)*offSize]))}
			}
			sorted := slices.IsSortedFunc(fields, func(a, b field) int { return cmp.Compare(a.key, b.key) })
			if !sorted {
				slices.SortStableFunc(fields, func(a, b field) int { return cmp.Compare(a.key, b.key) })
			}
			for i := 1; i < n; i++ {
				if fields[i].key == fields[i-1].key {
					return fmt.Errorf("invalid variant value: object has field %q twice", fields[i].key)
				}
			}
			if !sorted {
				if !copied {
					out, copied = slices.Clone(out), true
				}
				for i, f := range fields {
					writeLE(out[ids+i*idSize:ids+(i+1)*idSize], f.id)
					writeLE(out[offs+i*offSize:offs+(i+1)*offSize], f.off)
				}
			}
			for _, f := range fields {
				if err := walk(data+int(f.off), depth+1); err != nil {
					return err
				}
			}
		case 3: // array
			offSize := int(info&3) + 1
			sizeBytes := 1
			if info>>2&1 == 1 {
				sizeBytes = 4
			}
			pos := at + 1
			if pos+sizeBytes > len(out) {
				return nil
			}
			n := int(readLE(out[pos : pos+sizeBytes]))
			offs := pos + sizeBytes
			data := offs + (n+1)*offSize
			if n < 0 || data > len(out) {
				return nil
			}
			for i := range n {
				off := int(readLE(out[offs+i*offSize : offs+(i+1)*offSize]))
				if err := walk(data+off, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(0, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// maxRepairDepth matches the nesting arrow-go's validation accepts.
const maxRepairDepth = 1024

func readLE(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

func writeLE(b []byte, v uint32) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}
