package jsonrow

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/coltype-lab/lab/data"
	"github.com/google/uuid"
)

// appendVariant writes a variant value as JSON. It does not use arrow-go's
// Value.MarshalJSON, which prints an empty array as null (v18.8.0:
// json.Marshal of a nil slice) and NTZ timestamps in the machine's local
// zone. The mapping (VariantEncoding.md's types to JSON):
//
//	null, boolean, string     as themselves
//	int8 .. int64             integers
//	float, double             shortest numbers; non-finite as "NaN" etc.
//	decimal4/8/16             numbers with exactly scale digits after the
//	                          point ("1.50"), which read back as decimals
//	date, time, timestamps    strings in the Iceberg forms lab write uses
//	                          (timestamptz "...+00:00", NTZ without zone)
//	binary                    a lowercase hex string, as binary columns print
//	                          (Spark's to_json prints base64; one form here)
//	uuid                      a string
//	object, array             objects (keys in the value's order) and arrays
//
// JSON has fewer types than Variant, so these read back as strings or
// numbers of the JSON-derived types: a write of what was read is stable, but
// not the original encoding of a date or a binary.
func appendVariant(dst []byte, v variant.Value) (out []byte, err error) {
	// Value decodes untrusted bytes and can panic on a malformed value.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("malformed variant value: %v", r)
		}
	}()
	return appendVariantValue(dst, v)
}

func appendVariantValue(dst []byte, v variant.Value) ([]byte, error) {
	switch v.Type() {
	case variant.Object:
		obj := v.Value().(variant.ObjectValue)
		dst = append(dst, '{')
		first := true
		for k, fv := range obj.Values() {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendVariantValue(dst, fv); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case variant.Array:
		arr := v.Value().(variant.ArrayValue)
		dst = append(dst, '[')
		for i := range arr.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			ev, err := arr.Value(i)
			if err != nil {
				return nil, err
			}
			if dst, err = appendVariantValue(dst, ev); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	switch x := v.Value().(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float32:
		return appendFloat(dst, float64(x), 32), nil
	case float64:
		return appendFloat(dst, x, 64), nil
	case string:
		return appendString(dst, x), nil
	case []byte:
		return append(hex.AppendEncode(append(dst, '"'), x), '"'), nil
	case uuid.UUID:
		return appendString(dst, x.String()), nil
	case variant.DecimalValue[decimal.Decimal32]:
		return append(dst, data.DecimalString(big.NewInt(int64(x.Value.(decimal.Decimal32))), int(x.Scale))...), nil
	case variant.DecimalValue[decimal.Decimal64]:
		return append(dst, data.DecimalString(big.NewInt(int64(x.Value.(decimal.Decimal64))), int(x.Scale))...), nil
	case variant.DecimalValue[decimal.Decimal128]:
		return append(dst, data.DecimalString(x.Value.(decimal.Decimal128).BigInt(), int(x.Scale))...), nil
	case arrow.Date32:
		return appendDate(dst, x.ToTime()), nil
	case arrow.Time64:
		return appendTimeOfDay(dst, int64(x)), nil
	case arrow.Timestamp:
		switch v.Type() {
		case variant.TimestampMicros, variant.TimestampMicrosNTZ:
			return appendTimestampMicros(dst, int64(x), v.Type() == variant.TimestampMicros), nil
		case variant.TimestampNanos, variant.TimestampNanosNTZ:
			return appendTimestampNanos(dst, int64(x), v.Type() == variant.TimestampNanos), nil
		}
	}
	return nil, fmt.Errorf("variant type %d has no JSON form here", int(v.Type()))
}
