package colmetrics

import (
	"bytes"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// observer watches the non-null values of one column.
type observer interface {
	// add observes a non-null value; it fails when v is not the Go type
	// data.Record uses for the column's Iceberg type.
	add(v any) error
	// nans is the number of NaN values seen (floats only).
	nans() int64
	// bounds are the smallest and largest value seen, in Iceberg's binary
	// single-value serialization; ok is false when no value counted.
	bounds() (lower, upper []byte, ok bool)
}

// newObserver returns the observer for a column of type t, or nil when the
// column needs none. withBounds asks for bounds; float and double columns
// always count NaN values.
func newObserver(t iceberg.PrimitiveType, withBounds bool) (obs observer, nanCounted bool, err error) {
	switch t.(type) {
	case iceberg.Float32Type:
		return &floatObserver[float32]{withBounds: withBounds}, true, nil
	case iceberg.Float64Type:
		return &floatObserver[float64]{withBounds: withBounds}, true, nil
	case iceberg.GeometryType, iceberg.GeographyType:
		// Iceberg Java keeps counts only: WKB bytes have no useful order, and
		// geo bounds are bounding-box points, which this package does not compute.
		return nil, false, nil
	}
	if !withBounds {
		return nil, false, nil
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		return &boolObserver{}, false, nil
	case iceberg.Int32Type:
		return &orderedObserver[int32]{}, false, nil
	case iceberg.Int64Type:
		return &orderedObserver[int64]{}, false, nil
	case iceberg.DateType:
		return &orderedObserver[iceberg.Date]{}, false, nil
	case iceberg.TimeType:
		return &orderedObserver[iceberg.Time]{}, false, nil
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return &orderedObserver[iceberg.Timestamp]{}, false, nil
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return &orderedObserver[iceberg.TimestampNano]{}, false, nil
	case iceberg.StringType:
		return &stringObserver{}, false, nil
	case iceberg.UUIDType:
		return &uuidObserver{}, false, nil
	case iceberg.FixedType, iceberg.BinaryType:
		return &bytesObserver{}, false, nil
	case iceberg.DecimalType:
		return &decimalObserver{scale: t.Scale()}, false, nil
	}
	return nil, false, fmt.Errorf("unsupported type %s", t)
}

func wrongType(v any, want string) error {
	return fmt.Errorf("value of Go type %T, want %s", v, want)
}

// marshalBounds serializes two bounds with iceberg-go's literals, which
// implement Iceberg's binary single-value serialization. The copies keep the
// results from aliasing string memory or the observer's buffers; an empty
// value still gives a non-nil bound.
func marshalBounds[T iceberg.LiteralType](lower, upper T) ([]byte, []byte, bool) {
	lo, err := iceberg.NewLiteral(lower).MarshalBinary()
	if err != nil {
		return nil, nil, false
	}
	hi, err := iceberg.NewLiteral(upper).MarshalBinary()
	if err != nil {
		return nil, nil, false
	}
	return append([]byte{}, lo...), append([]byte{}, hi...), true
}

// integer lists the Go types of Iceberg's integer-backed types, which all
// compare as signed integers.
type integer interface {
	int32 | int64 | iceberg.Date | iceberg.Time | iceberg.Timestamp | iceberg.TimestampNano
}

type orderedObserver[T integer] struct {
	min, max T
	seen     bool
}

func (o *orderedObserver[T]) add(v any) error {
	x, ok := v.(T)
	if !ok {
		var zero T
		return wrongType(v, fmt.Sprintf("%T", zero))
	}
	if !o.seen {
		o.min, o.max, o.seen = x, x, true
		return nil
	}
	o.min = min(o.min, x)
	o.max = max(o.max, x)
	return nil
}

func (o *orderedObserver[T]) nans() int64 { return 0 }

func (o *orderedObserver[T]) bounds() ([]byte, []byte, bool) {
	if !o.seen {
		return nil, nil, false
	}
	return marshalBounds(o.min, o.max)
}

type boolObserver struct{ sawFalse, sawTrue bool }

func (o *boolObserver) add(v any) error {
	x, ok := v.(bool)
	if !ok {
		return wrongType(v, "bool")
	}
	o.observe(x)
	return nil
}

// observe takes one value; add and addValues (columnar.go) both use it.
func (o *boolObserver) observe(x bool) {
	if x {
		o.sawTrue = true
	} else {
		o.sawFalse = true
	}
}

func (o *boolObserver) nans() int64 { return 0 }

func (o *boolObserver) bounds() ([]byte, []byte, bool) {
	if !o.sawFalse && !o.sawTrue {
		return nil, nil, false
	}
	// false < true: the lower bound is false whenever false was seen.
	return marshalBounds(!o.sawFalse, o.sawTrue)
}

// floatObserver counts NaN values and keeps bounds over the others, ordered
// as Java's Float.compare and Double.compare do: -0.0 before +0.0, which is
// what the spec asks of bounds.
type floatObserver[T float32 | float64] struct {
	withBounds bool
	nanCount   int64
	min, max   T
	seen       bool
}

func (o *floatObserver[T]) add(v any) error {
	x, ok := v.(T)
	if !ok {
		var zero T
		return wrongType(v, fmt.Sprintf("%T", zero))
	}
	o.observe(x)
	return nil
}

// observe takes one value; add and addValues (columnar.go) both use it.
func (o *floatObserver[T]) observe(x T) {
	switch {
	case x != x:
		o.nanCount++
	case !o.withBounds:
	case !o.seen:
		o.min, o.max, o.seen = x, x, true
	default:
		if floatLess(x, o.min) {
			o.min = x
		}
		if floatLess(o.max, x) {
			o.max = x
		}
	}
}

// floatLess orders non-NaN floats with -0.0 < +0.0.
func floatLess[T float32 | float64](a, b T) bool {
	if a == b {
		return math.Signbit(float64(a)) && !math.Signbit(float64(b))
	}
	return a < b
}

func (o *floatObserver[T]) nans() int64 { return o.nanCount }

func (o *floatObserver[T]) bounds() ([]byte, []byte, bool) {
	if !o.seen {
		return nil, nil, false
	}
	return marshalBounds(o.min, o.max)
}

// stringObserver orders strings bytewise: for valid UTF-8 that is Unicode
// code point order, the order Iceberg Java's CharSequence comparator gives.
type stringObserver struct {
	min, max string
	seen     bool
}

func (o *stringObserver) add(v any) error {
	x, ok := v.(string)
	if !ok {
		return wrongType(v, "string")
	}
	if !o.seen {
		o.min, o.max, o.seen = x, x, true
		return nil
	}
	o.min = min(o.min, x)
	o.max = max(o.max, x)
	return nil
}

func (o *stringObserver) nans() int64 { return 0 }

func (o *stringObserver) bounds() ([]byte, []byte, bool) {
	if !o.seen {
		return nil, nil, false
	}
	return marshalBounds(o.min, o.max)
}

// bytesObserver serves binary and fixed: unsigned lexicographic order, a
// shorter prefix first. Bounds are copied because writers reuse buffers.
type bytesObserver struct {
	min, max []byte
	seen     bool
}

func (o *bytesObserver) add(v any) error {
	x, ok := v.([]byte)
	if !ok {
		return wrongType(v, "[]byte")
	}
	o.observe(x)
	return nil
}

// observe takes one value; add and addValues (columnar.go) both use it.
func (o *bytesObserver) observe(x []byte) {
	if !o.seen {
		o.min, o.max, o.seen = bytes.Clone(x), bytes.Clone(x), true
		return
	}
	if bytes.Compare(x, o.min) < 0 {
		o.min = append(o.min[:0], x...)
	}
	if bytes.Compare(x, o.max) > 0 {
		o.max = append(o.max[:0], x...)
	}
}

func (o *bytesObserver) nans() int64 { return 0 }

func (o *bytesObserver) bounds() ([]byte, []byte, bool) {
	if !o.seen {
		return nil, nil, false
	}
	return marshalBounds(o.min, o.max)
}

// uuidObserver orders UUIDs as unsigned 16-byte big-endian values: RFC 9562
// order, Parquet's UUID order, and Iceberg Java's since it stopped comparing
// java.util.UUID's signed halves (apache/iceberg#14500).
type uuidObserver struct {
	min, max uuid.UUID
	seen     bool
}

func (o *uuidObserver) add(v any) error {
	x, ok := v.(uuid.UUID)
	if !ok {
		return wrongType(v, "uuid.UUID")
	}
	o.observe(x[:])
	return nil
}

// observe takes one value of 16 bytes; add and addValues (columnar.go)
// both use it.
func (o *uuidObserver) observe(x []byte) {
	if !o.seen {
		copy(o.min[:], x)
		copy(o.max[:], x)
		o.seen = true
		return
	}
	if bytes.Compare(x, o.min[:]) < 0 {
		copy(o.min[:], x)
	}
	if bytes.Compare(x, o.max[:]) > 0 {
		copy(o.max[:], x)
	}
}

func (o *uuidObserver) nans() int64 { return 0 }

func (o *uuidObserver) bounds() ([]byte, []byte, bool) {
	if !o.seen {
		return nil, nil, false
	}
	return marshalBounds(o.min, o.max)
}

// decimalObserver compares unscaled values at the column's scale, so the
// serialized bounds mean what the column type says.
type decimalObserver struct {
	scale    int
	min, max iceberg.Decimal
	seen     bool
}

func (o *decimalObserver) add(v any) error {
	x, ok := v.(iceberg.Decimal)
	if !ok {
		return wrongType(v, "iceberg.Decimal")
	}
	if x.Scale != o.scale {
		val, err := x.Val.Rescale(int32(x.Scale), int32(o.scale))
		if err != nil {
			return fmt.Errorf("decimal %s with scale %d does not fit scale %d: %w", x, x.Scale, o.scale, err)
		}
		x = iceberg.Decimal{Val: val, Scale: o.scale}
	}
	if !o.seen {
		o.min, o.max, o.seen = x, x, true
		return nil
	}
	if x.Val.Less(o.min.Val) {
		o.min = x
	}
	if x.Val.Greater(o.max.Val) {
		o.max = x
	}
	return nil
}

func (o *decimalObserver) nans() int64 { return 0 }

func (o *decimalObserver) bounds() ([]byte, []byte, bool) {
	if !o.seen {
		return nil, nil, false
	}
	return marshalBounds(o.min, o.max)
}

// checkBounds refuses string bounds that are not UTF-8: Iceberg strings are
// UTF-8, and a reader decoding such a bound would compare against something else.
func checkBounds(col *column, lower, upper []byte) error {
	if _, ok := col.typ.(iceberg.StringType); ok {
		if !utf8.Valid(lower) || !utf8.Valid(upper) {
			return fmt.Errorf("string bound is not valid UTF-8")
		}
	}
	return nil
}
