package variant

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Row is one shredded VARIANT cell: the top-level group of the column.
//
// A Parquet writer emits it column by column: Metadata goes to the required
// `metadata` column, and the embedded Shredded pair to `value` and
// `typed_value` as described on Shredded. Null marks a SQL NULL cell (the
// optional VARIANT group itself is null), which is distinct from a Variant
// null value (Value = {0x00}).
type Row struct {
	Null     bool
	Metadata []byte
	Shredded
}

// Shredded is one value/typed_value pair, mirroring the Parquet group whose
// Layout describes it:
//
//   - Value is the residual `value` column: variant value bytes encoded
//     against the row's Metadata; nil means the column is null.
//   - HasTyped says `typed_value` is non-null. Then, by Layout.Kind:
//     Primitive holds the value as a variant primitive of exactly
//     Layout.Type (the writer converts it to the Parquet type the layout
//     names); Fields holds one pair per Layout.Fields entry, in the same
//     order (each a required group: both columns null means the field is
//     missing); Elements holds one pair per list element (the LIST's
//     required element group).
//
// The four value/typed_value combinations mean what VariantShredding.md
// "Value Shredding" says: both null is a missing object field, both set is
// a partially shredded object.
type Shredded struct {
	Value     []byte
	HasTyped  bool
	Primitive variant.Value
	Fields    []Shredded
	Elements  []Shredded
}

// Missing reports whether neither column is set (an absent object field).
func (s *Shredded) Missing() bool { return s.Value == nil && !s.HasTyped }

// Shred splits v into the columns layout defines. Values that do not match
// the layout exactly (another type, a narrower integer, a decimal of
// another width or scale) stay in the residual value, so Reconstruct
// returns them unchanged. A nil layout stores everything in value.
func Shred(layout *Layout, v variant.Value) (Row, error) {
	row := Row{Metadata: v.Metadata().Bytes()}
	s, err := shred(layout, v, "$")
	row.Shredded = s
	return row, err
}

func shred(l *Layout, v variant.Value, path string) (Shredded, error) {
	var s Shredded
	if l == nil || l.Kind == Unshredded {
		s.Value = v.Bytes()
		return s, nil
	}
	switch l.Kind {
	case Primitive:
		if fitsPrimitive(l, v) {
			s.HasTyped, s.Primitive = true, v
			return s, nil
		}
	case Array:
		if v.Type() == variant.Array {
			arr := v.Value().(variant.ArrayValue)
			s.HasTyped = true
			s.Elements = make([]Shredded, 0, arr.Len())
			for i := range arr.Len() {
				e, err := arr.Value(i)
				if err != nil {
					return s, fmt.Errorf("%s[%d]: %w", path, i, err)
				}
				es, err := shred(l.Element, e, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return s, err
				}
				s.Elements = append(s.Elements, es)
			}
			return s, nil
		}
	case Object:
		if v.Type() == variant.Object {
			return shredObject(l, v, path)
		}
	}
	if l.OmitValue {
		return s, fmt.Errorf("%s: %s value does not fit typed_value %s and the layout has no value column", path, typeName(v.Type()), l)
	}
	s.Value = v.Bytes()
	return s, nil
}

func shredObject(l *Layout, v variant.Value, path string) (Shredded, error) {
	obj := v.Value().(variant.ObjectValue)
	s := Shredded{HasTyped: true, Fields: make([]Shredded, len(l.Fields))}
	var residual []string
	for name := range obj.Values() {
		if l.field(name) < 0 {
			residual = append(residual, name)
		}
	}
	for i, f := range l.Fields {
		fv, err := obj.ValueByKey(f.Name)
		if err != nil {
			continue // absent: both columns stay null
		}
		fs, err := shred(f.Layout, fv.Value, path+"."+f.Name)
		if err != nil {
			return s, err
		}
		s.Fields[i] = fs
	}
	if len(residual) > 0 {
		// A partially shredded object: the residual object keeps only the
		// unshredded fields, encoded against the same metadata so that the
		// field ids and nested values can be copied verbatim.
		b := variant.NewBuilderFromMeta(v.Metadata())
		start := b.Offset()
		entries := make([]variant.FieldEntry, 0, len(residual))
		for _, name := range residual {
			fv, err := obj.ValueByKey(name)
			if err != nil {
				return s, fmt.Errorf("%s.%s: %w", path, name, err)
			}
			entries = append(entries, b.NextField(start, name))
			if err := b.UnsafeAppendEncoded(fv.Value.Bytes()); err != nil {
				return s, err
			}
		}
		if err := b.FinishObject(start, entries); err != nil {
			return s, fmt.Errorf("%s: residual object: %w", path, err)
		}
		s.Value = b.BuildWithoutMeta()
	}
	return s, nil
}

// fitsPrimitive: exact type, and for decimals the layout's scale and
// precision, so that reconstruction returns the identical value.
func fitsPrimitive(l *Layout, v variant.Value) bool {
	if v.Type() != l.Type {
		return false
	}
	if !isDecimal(l.Type) {
		return true
	}
	u, scale, ok := decimalParts(v)
	return ok && scale == l.Scale && decimalDigits(u) <= l.Precision
}
