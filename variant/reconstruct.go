package variant

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// ErrNullRow is returned for a Row whose VARIANT group is null (SQL NULL):
// there is no variant value to reconstruct.
var ErrNullRow = errors.New("variant: row is null")

// Reconstruct rebuilds the variant value of a shredded row, following
// construct_variant in VariantShredding.md "Reconstructing a Shredded
// Variant". It fails, naming the path, where the spec's assertions fail:
// value and typed_value both set for a primitive or an array, a non-object
// value next to shredded fields, a shredded field also present in the
// residual object. A top-level value or array element that is missing
// reads as Variant null, as the spec requires for required contexts.
func Reconstruct(layout *Layout, row Row) (v variant.Value, err error) {
	if row.Null {
		return variant.Value{}, ErrNullRow
	}
	meta, err := DecodeMetadata(row.Metadata)
	if err != nil {
		return variant.Value{}, fmt.Errorf("$: metadata: %w", err)
	}
	defer recoverAs(&err, "shredded variant")
	r := rebuilder{meta: meta, b: variant.NewBuilderFromMeta(meta)}
	present, err := r.build(layout, &row.Shredded, "$")
	if err != nil {
		return variant.Value{}, err
	}
	if !present {
		if err := r.b.AppendNull(); err != nil {
			return variant.Value{}, err
		}
	}
	built, err := r.b.Build()
	if err != nil {
		return variant.Value{}, err
	}
	// Re-validate: residual bytes were spliced in verbatim. Keep the row's
	// own metadata unless the builder had to add a key (a shredded field
	// name missing from the dictionary): arrow-go's Build sets
	// sorted_strings on sorted but non-unique dictionaries, which the
	// original, unsorted one did not claim (found by FuzzDecodeVariant).
	if built.Metadata().DictionarySize() == meta.DictionarySize() {
		return decodeValue(meta, built.Bytes())
	}
	mb := append([]byte{}, built.Metadata().Bytes()...)
	if !strictlySorted(built.Metadata()) {
		mb[0] &^= 0x10
	}
	return Decode(mb, built.Bytes())
}

type rebuilder struct {
	meta variant.Metadata
	b    *variant.Builder
}

func (r *rebuilder) residual(value []byte, path string) (variant.Value, error) {
	v, err := decodeValue(r.meta, value)
	if err != nil {
		return v, fmt.Errorf("%s: value column: %w", path, err)
	}
	return v, nil
}

// build appends the value of one pair and reports whether it was present.
func (r *rebuilder) build(l *Layout, s *Shredded, path string) (bool, error) {
	if s.HasTyped && l != nil && l.Kind != Unshredded {
		switch l.Kind {
		case Primitive:
			if s.Value != nil {
				return false, fmt.Errorf("%s: Invalid variant, conflicting value and typed_value", path)
			}
			return true, r.b.UnsafeAppendEncoded(s.Primitive.Bytes())
		case Array:
			if s.Value != nil {
				return false, fmt.Errorf("%s: Invalid variant, conflicting value and typed_value", path)
			}
			start := r.b.Offset()
			offsets := make([]int, 0, len(s.Elements))
			for i := range s.Elements {
				ep := fmt.Sprintf("%s[%d]", path, i)
				offsets = append(offsets, r.b.NextElement(start))
				present, err := r.build(l.Element, &s.Elements[i], ep)
				if err != nil {
					return false, err
				}
				if !present {
					// An element is a required context, so a missing one
					// reads as Variant null ("Value Shredding"; parquet-testing
					// case 85 expects this rather than an error).
					if err := r.b.AppendNull(); err != nil {
						return false, err
					}
				}
			}
			return true, r.b.FinishArray(start, offsets)
		case Object:
			return true, r.buildObject(l, s, path)
		}
	}
	if s.Value != nil {
		v, err := r.residual(s.Value, path)
		if err != nil {
			return false, err
		}
		return true, r.b.UnsafeAppendEncoded(v.Bytes())
	}
	return false, nil
}

func (r *rebuilder) buildObject(l *Layout, s *Shredded, path string) error {
	if len(s.Fields) != len(l.Fields) {
		return fmt.Errorf("%s: %d shredded fields for a layout of %d", path, len(s.Fields), len(l.Fields))
	}
	var rest variant.ObjectValue
	if s.Value != nil {
		v, err := r.residual(s.Value, path)
		if err != nil {
			return err
		}
		if v.Type() != variant.Object {
			return fmt.Errorf("%s: Invalid variant, non-object value with shredded fields (value is %s)", path, typeName(v.Type()))
		}
		rest = v.Value().(variant.ObjectValue)
		for name := range rest.Values() {
			if l.field(name) >= 0 {
				return fmt.Errorf("%s.%s: Invalid variant, shredded field is also present in the residual value", path, name)
			}
		}
	}
	start := r.b.Offset()
	entries := make([]variant.FieldEntry, 0, len(l.Fields)+int(rest.NumElements()))
	for i, f := range l.Fields {
		if s.Fields[i].Missing() {
			continue
		}
		entries = append(entries, r.b.NextField(start, f.Name))
		present, err := r.build(f.Layout, &s.Fields[i], path+"."+f.Name)
		if err != nil {
			return err
		}
		if !present {
			return fmt.Errorf("%s.%s: typed_value set for a field the layout does not shred", path, f.Name)
		}
	}
	if s.Value != nil {
		for name, fv := range rest.Values() {
			entries = append(entries, r.b.NextField(start, name))
			if err := r.b.UnsafeAppendEncoded(fv.Bytes()); err != nil {
				return err
			}
		}
	}
	if err := r.b.FinishObject(start, entries); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func strictlySorted(m variant.Metadata) bool {
	var prev string
	for id := range m.DictionarySize() {
		k, err := m.KeyAt(id)
		if err != nil || (id > 0 && k <= prev) {
			return false
		}
		prev = k
	}
	return true
}
