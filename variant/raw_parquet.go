package variant

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
)

// ParquetFromRaw converts an encoded primitive to the typed_value column
// value of a Primitive layout, when it fits: the exact type (fitsPrimitive)
// and, for decimals, the layout's scale and at most its precision. Strings
// and binaries point into b. decimal16 needs the FIXED_LEN_BYTE_ARRAY width
// of the layout's precision, which the caller's column has.
func ParquetFromRaw(l *Layout, b []byte) (parquet.Value, bool) {
	t, ok := RawType(b)
	if !ok || t != l.Type {
		return parquet.Value{}, false
	}
	n, err := RawSize(b)
	if err != nil {
		return parquet.Value{}, false
	}
	b = b[:n]
	switch l.Type {
	case variant.Bool:
		return parquet.BooleanValue(b[0]>>2 == primTrue), true
	case variant.Int8:
		return parquet.Int32Value(int32(int8(b[1]))), true
	case variant.Int16:
		return parquet.Int32Value(int32(int16(binary.LittleEndian.Uint16(b[1:])))), true
	case variant.Int32, variant.Date:
		return parquet.Int32Value(int32(binary.LittleEndian.Uint32(b[1:]))), true
	case variant.Int64, variant.Time, variant.TimestampMicros, variant.TimestampMicrosNTZ, variant.TimestampNanos, variant.TimestampNanosNTZ:
		return parquet.Int64Value(int64(binary.LittleEndian.Uint64(b[1:]))), true
	case variant.Float:
		return parquet.FloatValue(math.Float32frombits(binary.LittleEndian.Uint32(b[1:]))), true
	case variant.Double:
		return parquet.DoubleValue(math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))), true
	case variant.Decimal4:
		u := int64(int32(binary.LittleEndian.Uint32(b[2:])))
		if int(b[1]) != l.Scale || !fitsDigits(u, l.Precision) {
			return parquet.Value{}, false
		}
		return parquet.Int32Value(int32(u)), true
	case variant.Decimal8:
		u := int64(binary.LittleEndian.Uint64(b[2:]))
		if int(b[1]) != l.Scale || !fitsDigits(u, l.Precision) {
			return parquet.Value{}, false
		}
		return parquet.Int64Value(u), true
	case variant.Decimal16:
		num := decimal128.New(int64(binary.LittleEndian.Uint64(b[10:])), binary.LittleEndian.Uint64(b[2:]))
		if int(b[1]) != l.Scale || l.Precision < 1 || l.Precision > 38 || num.Abs().Cmp(decimal128.GetScaleMultiplier(l.Precision)) >= 0 {
			return parquet.Value{}, false
		}
		out, err := data.AppendDecimalBytes(nil, num, data.DecimalRequiredBytes(l.Precision))
		if err != nil {
			return parquet.Value{}, false
		}
		return parquet.FixedLenByteArrayValue(out), true
	case variant.String:
		if b[0]&3 == basicShortStr {
			return parquet.ByteArrayValue(b[1:]), true
		}
		return parquet.ByteArrayValue(b[5:]), true
	case variant.Binary:
		return parquet.ByteArrayValue(b[5:]), true
	case variant.UUID:
		return parquet.FixedLenByteArrayValue(b[1:17]), true
	}
	return parquet.Value{}, false
}

var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// fitsDigits: |u| has at most p decimal digits.
func fitsDigits(u int64, p int) bool {
	if p >= 19 {
		return true
	}
	if p < 1 {
		return false
	}
	if u < 0 {
		if u == math.MinInt64 {
			return false
		}
		u = -u
	}
	return u < pow10[p]
}

// AppendRawFromParquet appends the variant encoding of a typed_value column
// value of a Primitive layout: PrimitiveFromParquet without the Builder,
// byte for byte what arrow-go's Builder writes (the tests compare them).
func AppendRawFromParquet(dst []byte, l *Layout, v parquet.Value) ([]byte, error) {
	head := func(id byte) []byte { return append(dst, id<<2) }
	switch l.Type {
	case variant.Bool:
		if v.Boolean() {
			return head(primTrue), nil
		}
		return head(primFalse), nil
	case variant.Int8:
		x := v.Int32()
		if int32(int8(x)) != x {
			return dst, fmt.Errorf("value %d out of range for int8", x)
		}
		return append(head(primInt8), byte(x)), nil
	case variant.Int16:
		x := v.Int32()
		if int32(int16(x)) != x {
			return dst, fmt.Errorf("value %d out of range for int16", x)
		}
		return binary.LittleEndian.AppendUint16(head(primInt16), uint16(x)), nil
	case variant.Int32:
		return binary.LittleEndian.AppendUint32(head(primInt32), uint32(v.Int32())), nil
	case variant.Int64:
		return binary.LittleEndian.AppendUint64(head(primInt64), uint64(v.Int64())), nil
	case variant.Float:
		return binary.LittleEndian.AppendUint32(head(primFloat), math.Float32bits(v.Float())), nil
	case variant.Double:
		return binary.LittleEndian.AppendUint64(head(primDouble), math.Float64bits(v.Double())), nil
	case variant.Decimal4:
		return binary.LittleEndian.AppendUint32(append(head(primDecimal4), byte(l.Scale)), uint32(v.Int32())), nil
	case variant.Decimal8:
		return binary.LittleEndian.AppendUint64(append(head(primDecimal8), byte(l.Scale)), uint64(v.Int64())), nil
	case variant.Decimal16:
		n, err := data.DecimalFromBytes(v.ByteArray())
		if err != nil {
			return dst, err
		}
		out := append(head(primDecimal16), byte(l.Scale))
		out = binary.LittleEndian.AppendUint64(out, n.LowBits())
		return binary.LittleEndian.AppendUint64(out, uint64(n.HighBits())), nil
	case variant.Date:
		return binary.LittleEndian.AppendUint32(head(primDate), uint32(v.Int32())), nil
	case variant.Time:
		return binary.LittleEndian.AppendUint64(head(primTime), uint64(v.Int64())), nil
	case variant.TimestampMicros:
		return binary.LittleEndian.AppendUint64(head(primTimestamp), uint64(v.Int64())), nil
	case variant.TimestampMicrosNTZ:
		return binary.LittleEndian.AppendUint64(head(primTimestampNTZ), uint64(v.Int64())), nil
	case variant.TimestampNanos:
		return binary.LittleEndian.AppendUint64(head(primTimestampNs), uint64(v.Int64())), nil
	case variant.TimestampNanosNTZ:
		return binary.LittleEndian.AppendUint64(head(primTimestampNsNTZ), uint64(v.Int64())), nil
	case variant.String:
		s := v.ByteArray()
		if len(s) <= 63 {
			return append(append(dst, byte(len(s))<<2|basicShortStr), s...), nil
		}
		return append(binary.LittleEndian.AppendUint32(head(primString), uint32(len(s))), s...), nil
	case variant.Binary:
		s := v.ByteArray()
		return append(binary.LittleEndian.AppendUint32(head(primBinary), uint32(len(s))), s...), nil
	case variant.UUID:
		s := v.ByteArray()
		if len(s) != 16 {
			return dst, fmt.Errorf("invalid UUID: %d bytes", len(s))
		}
		return append(head(primUUID), s...), nil
	}
	return dst, fmt.Errorf("no conversion for %s", typeName(l.Type))
}
