package parquet

import (
	"bytes"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
)

// converter turns a non-nil record value into a Parquet value, or says why
// the value does not belong in the column.
type converter func(v any) (pq.Value, error)

func wrongType(want string, v any) error {
	return fmt.Errorf("expected %s, got %T", want, v)
}

func convBool(v any) (pq.Value, error) {
	if x, ok := v.(bool); ok {
		return pq.BooleanValue(x), nil
	}
	return pq.Value{}, wrongType("bool", v)
}

func convInt32(v any) (pq.Value, error) {
	if x, ok := v.(int32); ok {
		return pq.Int32Value(x), nil
	}
	return pq.Value{}, wrongType("int32", v)
}

func convInt64(v any) (pq.Value, error) {
	if x, ok := v.(int64); ok {
		return pq.Int64Value(x), nil
	}
	return pq.Value{}, wrongType("int64", v)
}

func convFloat32(v any) (pq.Value, error) {
	if x, ok := v.(float32); ok {
		return pq.FloatValue(x), nil
	}
	return pq.Value{}, wrongType("float32", v)
}

func convFloat64(v any) (pq.Value, error) {
	if x, ok := v.(float64); ok {
		return pq.DoubleValue(x), nil
	}
	return pq.Value{}, wrongType("float64", v)
}

func convDate(v any) (pq.Value, error) {
	if x, ok := v.(iceberg.Date); ok {
		return pq.Int32Value(int32(x)), nil
	}
	return pq.Value{}, wrongType("iceberg.Date", v)
}

func convTime(v any) (pq.Value, error) {
	if x, ok := v.(iceberg.Time); ok {
		return pq.Int64Value(int64(x)), nil
	}
	return pq.Value{}, wrongType("iceberg.Time", v)
}

func convTimestamp(v any) (pq.Value, error) {
	if x, ok := v.(iceberg.Timestamp); ok {
		return pq.Int64Value(int64(x)), nil
	}
	return pq.Value{}, wrongType("iceberg.Timestamp", v)
}

func convTimestampNano(v any) (pq.Value, error) {
	if x, ok := v.(iceberg.TimestampNano); ok {
		return pq.Int64Value(int64(x)), nil
	}
	return pq.Value{}, wrongType("iceberg.TimestampNano", v)
}

func convString(v any) (pq.Value, error) {
	if x, ok := v.(string); ok {
		if !utf8.ValidString(x) {
			return pq.Value{}, fmt.Errorf("string is not valid UTF-8")
		}
		// Strings are immutable and parquet-go copies values into its page
		// buffers without writing to them, so the bytes need no copy.
		return pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(x), len(x))), nil
	}
	return pq.Value{}, wrongType("string", v)
}

func convUUID(v any) (pq.Value, error) {
	if x, ok := v.(uuid.UUID); ok {
		b := x
		return pq.FixedLenByteArrayValue(b[:]), nil
	}
	return pq.Value{}, wrongType("uuid.UUID", v)
}

func convBinary(v any) (pq.Value, error) {
	if x, ok := v.([]byte); ok {
		return pq.ByteArrayValue(bytes.Clone(x)), nil // rows wait in a batch; the caller may reuse x
	}
	return pq.Value{}, wrongType("[]byte", v)
}

func convFixed(length int) converter {
	return func(v any) (pq.Value, error) {
		x, ok := v.([]byte)
		if !ok {
			return pq.Value{}, wrongType(fmt.Sprintf("[]byte of length %d", length), v)
		}
		if len(x) != length {
			return pq.Value{}, fmt.Errorf("expected %d bytes for fixed[%d], got %d", length, length, len(x))
		}
		return pq.FixedLenByteArrayValue(bytes.Clone(x)), nil
	}
}

// fitsPrecision reports whether |n| < 10^p. decimal128's FitsInPrecision
// takes Abs, which overflows for the most negative 128-bit value.
func fitsPrecision(n decimal128.Num, p int) bool {
	limit := decimal128.GetScaleMultiplier(p)
	neg := limit.Negate()
	return n.Less(limit) && n.Greater(neg)
}

func convDecimal(precision, scale int, kind string, size int) converter {
	return func(v any) (pq.Value, error) {
		x, ok := v.(iceberg.Decimal)
		if !ok {
			return pq.Value{}, wrongType(fmt.Sprintf("iceberg.Decimal for decimal(%d, %d)", precision, scale), v)
		}
		if x.Scale != scale {
			return pq.Value{}, fmt.Errorf("decimal(%d, %d) value has scale %d", precision, scale, x.Scale)
		}
		if !fitsPrecision(x.Val, precision) {
			return pq.Value{}, fmt.Errorf("decimal value %s has more than %d digits", x.Val.ToString(int32(scale)), precision)
		}
		switch kind {
		case "int32":
			return pq.Int32Value(int32(x.Val.LowBits())), nil
		case "int64":
			return pq.Int64Value(int64(x.Val.LowBits())), nil
		default:
			b, err := data.AppendDecimalBytes(nil, x.Val, size)
			if err != nil {
				return pq.Value{}, err
			}
			return pq.FixedLenByteArrayValue(b), nil
		}
	}
}
