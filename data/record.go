// Package data holds the lab's generic row types: Record, Iceberg's
// GenericRecord, and PositionDelete.
//
// Values in a Record use the Go types iceberg-go's literals use:
//
//	boolean bool            int int32              long int64
//	float float32           double float64         decimal(P,S) iceberg.Decimal
//	date iceberg.Date       time iceberg.Time      timestamp(tz) iceberg.Timestamp
//	timestamp_ns(tz) iceberg.TimestampNano         string string
//	uuid uuid.UUID          fixed(L) []byte        binary []byte
//	struct *Record          list []any             map Map
//	variant variant.Value (github.com/apache/arrow-go/v18/parquet/variant,
//	        as in iceberg-go's LiteralType; a SQL NULL is nil, a Variant
//	        null is a Value of type Null)
//
// A nil value is null.
package data

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// Record is a row of a struct type: values by position, with the struct's
// fields for lookup by name.
type Record struct {
	typ    *iceberg.StructType
	values []any
	index  map[string]int
	// scalars hold the values typed setters stored unboxed (scalar.go);
	// nil until one is used. Where a scalar's kind is inValues, the value
	// is in values.
	scalars []scalar
}

// NewRecord returns a record of schema's top-level struct with every value
// null. Records of one schema share its struct type (layout.go).
func NewRecord(schema *iceberg.Schema) *Record {
	l := layoutOf(schema)
	return &Record{typ: l.st, values: make([]any, len(l.st.FieldList)), index: l.index}
}

// NewStructRecord returns a record of a struct type with every value null.
// st must not change while records of it exist.
func NewStructRecord(st *iceberg.StructType) *Record {
	return &Record{typ: st, values: make([]any, len(st.FieldList)), index: indexOf(st)}
}

// Of returns a record of schema with the given values in field order.
func Of(schema *iceberg.Schema, values ...any) *Record {
	r := NewRecord(schema)
	copy(r.values, values)
	return r
}

// Struct is the record's struct type.
func (r *Record) Struct() *iceberg.StructType { return r.typ }

// Fields are the record's fields in order.
func (r *Record) Fields() []iceberg.NestedField { return r.typ.FieldList }

// Len is the number of fields.
func (r *Record) Len() int { return len(r.values) }

// Get returns the value at position pos; nil is null. A value a typed
// setter stored is boxed for the call, which allocates; the typed getters
// do not.
func (r *Record) Get(pos int) any {
	if s := r.scalarAt(pos); s != nil {
		return s.box()
	}
	return r.values[pos]
}

// Set sets the value at position pos.
func (r *Record) Set(pos int, v any) {
	r.values[pos] = v
	if r.scalars != nil {
		r.scalars[pos] = scalar{}
	}
}

// GetField returns the value of the named field; ok is false when the
// record has no such field.
func (r *Record) GetField(name string) (v any, ok bool) {
	i, ok := r.index[name]
	if !ok {
		return nil, false
	}
	return r.Get(i), true
}

// SetField sets the named field, failing when the record has none.
func (r *Record) SetField(name string, v any) error {
	i, ok := r.index[name]
	if !ok {
		return fmt.Errorf("record has no field %q (fields: %s)", name, strings.Join(r.fieldNames(), ", "))
	}
	r.Set(i, v)
	return nil
}

// Position returns the position of the named field, or -1.
func (r *Record) Position(name string) int {
	if i, ok := r.index[name]; ok {
		return i
	}
	return -1
}

// Values returns the values in field order; the slice is the record's own,
// and writing to it sets fields. Values first boxes what typed setters
// stored into the slice, so like Set it changes the record and must not
// run alongside other uses of it.
func (r *Record) Values() []any {
	if r.scalars != nil {
		for i := range r.scalars {
			if s := &r.scalars[i]; s.kind != inValues {
				r.values[i] = s.box()
				*s = scalar{}
			}
		}
	}
	return r.values
}

func (r *Record) fieldNames() []string {
	names := make([]string, len(r.typ.FieldList))
	for i, f := range r.typ.FieldList {
		names[i] = f.Name
	}
	return names
}

// Copy returns a deep copy: nested records, lists, maps and byte slices are
// copied too, so the copy survives a reader that reuses containers.
func (r *Record) Copy() *Record {
	if r == nil {
		return nil
	}
	c := &Record{typ: r.typ, values: make([]any, len(r.values)), index: r.index}
	for i, v := range r.values {
		c.values[i] = copyValue(v)
	}
	if r.scalars != nil {
		c.scalars = slices.Clone(r.scalars)
	}
	return c
}

func copyValue(v any) any {
	switch x := v.(type) {
	case *Record:
		return x.Copy()
	case []byte:
		return bytes.Clone(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	case Map:
		out := make(Map, len(x))
		for i, e := range x {
			out[i] = MapEntry{Key: copyValue(e.Key), Value: copyValue(e.Value)}
		}
		return out
	case variant.Value:
		if x.Bytes() == nil {
			return x
		}
		return x.Clone()
	default:
		return v
	}
}

// Equal reports whether two records have equal field names and values.
// Floating-point NaN equals NaN, so a round trip through a file compares
// equal to the original.
func (r *Record) Equal(o *Record) bool {
	if r == nil || o == nil {
		return r == o
	}
	if len(r.values) != len(o.values) {
		return false
	}
	for i := range r.values {
		if r.typ.FieldList[i].Name != o.typ.FieldList[i].Name {
			return false
		}
		if !ValuesEqual(r.Get(i), o.Get(i)) {
			return false
		}
	}
	return true
}

// ValuesEqual compares two record values by the rules of Record.Equal.
func ValuesEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch x := a.(type) {
	case *Record:
		y, ok := b.(*Record)
		return ok && x.Equal(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case float32:
		y, ok := b.(float32)
		return ok && (x == y && math.Signbit(float64(x)) == math.Signbit(float64(y)) || x != x && y != y)
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y) || x != x && y != y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !ValuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case Map:
		y, ok := b.(Map)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !ValuesEqual(x[i].Key, y[i].Key) || !ValuesEqual(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case iceberg.Decimal:
		y, ok := b.(iceberg.Decimal)
		return ok && x.Scale == y.Scale && x.Val == y.Val
	case variant.Value:
		y, ok := b.(variant.Value)
		return ok && variantsEqual(x, y)
	default:
		return reflect.TypeOf(a) == reflect.TypeOf(b) && a == b
	}
}

// variantsEqual compares variant values by meaning: objects by key, so two
// encodings against different metadata dictionaries compare equal; other
// primitives by their bytes (one encoding per type), strings by content
// (short and long strings are one type). Bytes that do not decode are
// compared as bytes.
func variantsEqual(a, b variant.Value) (eq bool) {
	if bytes.Equal(a.Metadata().Bytes(), b.Metadata().Bytes()) && bytes.Equal(a.Bytes(), b.Bytes()) {
		return true
	}
	if a.Bytes() == nil || b.Bytes() == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	if a.Type() != b.Type() {
		return false
	}
	switch a.Type() {
	case variant.Object:
		oa, ob := a.Value().(variant.ObjectValue), b.Value().(variant.ObjectValue)
		if oa.NumElements() != ob.NumElements() {
			return false
		}
		for k, va := range oa.Values() {
			fb, err := ob.ValueByKey(k)
			if err != nil || !variantsEqual(va, fb.Value) {
				return false
			}
		}
		return true
	case variant.Array:
		aa, ab := a.Value().(variant.ArrayValue), b.Value().(variant.ArrayValue)
		if aa.Len() != ab.Len() {
			return false
		}
		for i := range aa.Len() {
			ea, err1 := aa.Value(i)
			eb, err2 := ab.Value(i)
			if err1 != nil || err2 != nil || !variantsEqual(ea, eb) {
				return false
			}
		}
		return true
	case variant.String:
		return fmt.Sprint(a.Value()) == fmt.Sprint(b.Value())
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// String renders the record as {name: value, ...}, with strings quoted.
func (r *Record) String() string {
	var sb strings.Builder
	r.writeTo(&sb)
	return sb.String()
}

func (r *Record) writeTo(sb *strings.Builder) {
	if r == nil {
		sb.WriteString("null")
		return
	}
	sb.WriteByte('{')
	for i, f := range r.typ.FieldList {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(f.Name)
		sb.WriteString(": ")
		writeValue(sb, r.Get(i))
	}
	sb.WriteByte('}')
}

func writeValue(sb *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
	case *Record:
		x.writeTo(sb)
	case string:
		fmt.Fprintf(sb, "%q", x)
	case []byte:
		fmt.Fprintf(sb, "0x%X", x)
	case uuid.UUID:
		sb.WriteString(x.String())
	case []any:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeValue(sb, e)
		}
		sb.WriteByte(']')
	case Map:
		sb.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeValue(sb, e.Key)
			sb.WriteString(" => ")
			writeValue(sb, e.Value)
		}
		sb.WriteByte('}')
	case fmt.Stringer:
		sb.WriteString(x.String())
	default:
		fmt.Fprint(sb, x)
	}
}

// MapEntry is one key/value pair of a map value.
type MapEntry struct {
	Key, Value any
}

// Map is a map value: entries in file order. A slice rather than a Go map,
// because Iceberg map keys may be binary or nested values that Go maps
// cannot key, and because order matters for byte-exact round trips.
type Map []MapEntry

// Get returns the value for a key compared with ValuesEqual.
func (m Map) Get(key any) (any, bool) {
	for _, e := range m {
		if ValuesEqual(e.Key, key) {
			return e.Value, true
		}
	}
	return nil, false
}
