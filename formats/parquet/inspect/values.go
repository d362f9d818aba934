package inspect

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/internal/half"
)

// typedValue renders a PLAIN-encoded bound, of statistics or of a page
// index, of a leaf that a registered value-level type annotates
// (data/coltype: a VECTOR on a FIXED_LEN_BYTE_ARRAY leaf, a type a package
// added) with that type's formatter, in a few dozen characters; ok is
// false for any other leaf, a type the program does not link, bytes the
// leaf's physical type cannot read, or a bound the type's
// coltype.BoundFormatter says is no value of it.
func typedValue(n *Node, el *footer.SchemaElement, b []byte) (string, bool) {
	if n == nil || n.LogicalType == nil {
		return "", false
	}
	lt := n.LogicalType
	t, ok := coltype.ByAnnotation(lt.Name)
	if !ok {
		return "", false
	}
	spelling := t.Name
	if v := lt.Vector; v != nil { // the parameters the schema gives
		if v.Element == "" || v.Dim <= 0 || strings.HasPrefix(v.Layout, "invalid") {
			return "", false
		}
		spelling = fmt.Sprintf("%s<%s,%d>", t.Name, v.Element, v.Dim)
	}
	d, err := t.Parse(strings.Join(n.Path, "."), spelling)
	if err != nil {
		return "", false
	}
	v, ok := plainValue(el, b)
	if !ok {
		return "", false
	}
	if bf, ok := d.(coltype.BoundFormatter); ok {
		return bf.FormatBound(v) // a cut bound shows as bytes
	}
	return d.Format(v), true
}

// plainValue is a PLAIN-encoded value as the record model carries its
// physical type: bool, int32, int64, float32, float64 or bytes.
func plainValue(el *footer.SchemaElement, b []byte) (any, bool) {
	switch el.Type.V {
	case format.Boolean:
		return len(b) == 1 && b[0] == 1, len(b) == 1 && b[0] <= 1
	case format.Int32:
		return int32(binary.LittleEndian.Uint32(pad(b, 4))), len(b) == 4
	case format.Int64:
		return int64(binary.LittleEndian.Uint64(pad(b, 8))), len(b) == 8
	case format.Float:
		return math.Float32frombits(binary.LittleEndian.Uint32(pad(b, 4))), len(b) == 4
	case format.Double:
		return math.Float64frombits(binary.LittleEndian.Uint64(pad(b, 8))), len(b) == 8
	case format.ByteArray, format.FixedLenByteArray:
		return b, true
	}
	return nil, false
}

// pad is b, or n zero bytes when b is shorter (a value plainValue refuses).
func pad(b []byte, n int) []byte {
	if len(b) < n {
		return make([]byte, n)
	}
	return b
}

// formatValue renders a PLAIN-encoded statistics value (byte arrays without
// their length prefix) of the leaf el for people: see the package
// documentation. Whatever does not fit its type is shown as hex.
func formatValue(el *footer.SchemaElement, b []byte, maxLen int) string {
	if s, ok := decodeValue(el, b, maxLen); ok {
		return s
	}
	return hexValue(b, maxLen)
}

func hexValue(b []byte, maxLen int) string {
	if len(b) > maxLen {
		return "0x" + hex.EncodeToString(b[:maxLen]) + "…"
	}
	return "0x" + hex.EncodeToString(b)
}

func decodeValue(el *footer.SchemaElement, b []byte, maxLen int) (string, bool) {
	lt := el.LogicalType.Value
	ct, hasCT := el.ConvertedType.V, el.ConvertedType.Valid
	is := func(c deprecated.ConvertedType) bool { return lt == nil && hasCT && ct == c }
	scale := func() (int32, bool) {
		if d, ok := lt.(*format.DecimalType); ok {
			return d.Scale, true
		}
		if is(deprecated.Decimal) {
			return el.Scale.V, true
		}
		return 0, false
	}
	switch el.Type.V {
	case format.Boolean:
		if len(b) != 1 || b[0] > 1 {
			return "", false
		}
		return strconv.FormatBool(b[0] == 1), true
	case format.Int32:
		if len(b) != 4 {
			return "", false
		}
		v := int32(binary.LittleEndian.Uint32(b))
		if s, ok := scale(); ok {
			return data.DecimalString(big.NewInt(int64(v)), int(s)), true
		}
		switch t := lt.(type) {
		case *format.DateType:
			return dateString(int64(v)), true
		case *format.IntType:
			if !t.IsSigned {
				return strconv.FormatUint(uint64(uint32(v)), 10), true
			}
		case *format.TimeType:
			return timeOfDay(int64(v), t.Unit), true
		}
		switch {
		case is(deprecated.Date):
			return dateString(int64(v)), true
		case is(deprecated.TimeMillis):
			return timeOfDay(int64(v), format.TimeUnit{Value: &format.MilliSeconds{}}), true
		case is(deprecated.Uint8), is(deprecated.Uint16), is(deprecated.Uint32):
			return strconv.FormatUint(uint64(uint32(v)), 10), true
		}
		return strconv.FormatInt(int64(v), 10), true
	case format.Int64:
		if len(b) != 8 {
			return "", false
		}
		v := int64(binary.LittleEndian.Uint64(b))
		if s, ok := scale(); ok {
			return data.DecimalString(big.NewInt(v), int(s)), true
		}
		switch t := lt.(type) {
		case *format.IntType:
			if !t.IsSigned {
				return strconv.FormatUint(uint64(v), 10), true
			}
		case *format.TimestampType:
			return timestampString(v, t.Unit, t.IsAdjustedToUTC)
		case *format.TimeType:
			return timeOfDay(v, t.Unit), true
		}
		switch {
		case is(deprecated.TimestampMillis):
			return timestampString(v, format.TimeUnit{Value: &format.MilliSeconds{}}, true)
		case is(deprecated.TimestampMicros):
			return timestampString(v, format.TimeUnit{Value: &format.MicroSeconds{}}, true)
		case is(deprecated.TimeMicros):
			return timeOfDay(v, format.TimeUnit{Value: &format.MicroSeconds{}}), true
		case is(deprecated.Uint64):
			return strconv.FormatUint(uint64(v), 10), true
		}
		return strconv.FormatInt(v, 10), true
	case format.Int96:
		if len(b) != 12 {
			return "", false
		}
		// Legacy timestamps: nanoseconds of the day, then the Julian day.
		nanos := int64(binary.LittleEndian.Uint64(b[:8]))
		day := int64(binary.LittleEndian.Uint32(b[8:]))
		const julianUnixEpoch = 2440588
		t := time.Unix((day-julianUnixEpoch)*86400, 0).UTC().Add(time.Duration(nanos))
		return t.Format("2006-01-02T15:04:05.999999999"), true
	case format.Float:
		if len(b) != 4 {
			return "", false
		}
		return strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 'g', -1, 32), true
	case format.Double:
		if len(b) != 8 {
			return "", false
		}
		return strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64), true
	case format.ByteArray, format.FixedLenByteArray:
		if s, ok := scale(); ok {
			if len(b) > 64 {
				return "", false
			}
			u, err := data.BigDecimalFromBytes(b)
			if err != nil {
				return "", false
			}
			return data.DecimalString(u, int(s)), true
		}
		switch lt.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			return quoted(b, maxLen)
		case *format.UUIDType:
			u, err := uuid.FromBytes(b)
			return u.String(), err == nil
		case *format.Float16Type:
			if len(b) != 2 {
				return "", false
			}
			f := half.Float32(binary.LittleEndian.Uint16(b))
			return strconv.FormatFloat(float64(f), 'g', -1, 32), true
		}
		if is(deprecated.UTF8) || is(deprecated.Enum) || is(deprecated.Json) {
			return quoted(b, maxLen)
		}
	}
	return "", false
}

func quoted(b []byte, maxLen int) (string, bool) {
	if !utf8.Valid(b) {
		return "", false
	}
	s, cut := truncate(string(b), maxLen)
	if cut {
		return strconv.Quote(strings.TrimSuffix(s, "…")) + "…", true
	}
	return strconv.Quote(s), true
}

func dateString(days int64) string {
	return time.Unix(days*86400, 0).UTC().Format("2006-01-02")
}

func unitDuration(u format.TimeUnit) (time.Duration, bool) {
	if u.Value == nil {
		return 0, false
	}
	return u.Value.Duration(), true
}

func timestampString(v int64, u format.TimeUnit, utc bool) (string, bool) {
	d, ok := unitDuration(u)
	if !ok {
		return "", false
	}
	perSecond := int64(time.Second / d)
	t := time.Unix(v/perSecond, (v%perSecond)*int64(d)).UTC()
	if utc {
		return t.Format("2006-01-02T15:04:05.999999999Z07:00"), true
	}
	return t.Format("2006-01-02T15:04:05.999999999"), true
}

func timeOfDay(v int64, u format.TimeUnit) string {
	d, ok := unitDuration(u)
	if !ok || v < 0 || v > int64(24*time.Hour/d) {
		return strconv.FormatInt(v, 10)
	}
	t := time.Unix(0, 0).UTC().Add(time.Duration(v) * d)
	if v == int64(24*time.Hour/d) {
		return "24:00:00"
	}
	return t.Format("15:04:05.999999999")
}
