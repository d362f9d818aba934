package jsonrow

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
)

func want(what string, n *node) error {
	return fmt.Errorf("want %s, got %s", what, describe(n))
}

func describe(n *node) string {
	switch n.kind {
	case kNumber, kBool:
		return fmt.Sprintf("%s %s", n.kind, n.text)
	case kString:
		return fmt.Sprintf("%s %.40q", n.kind, n.text)
	}
	return n.kind.String()
}

// decodeValue converts a non-null JSON value into the Go value data.Record
// holds for t. path names the value in errors of nested values.
func decodeValue(t iceberg.Type, n *node, path string) (any, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		if n.kind != kBool {
			return nil, want("true or false", n)
		}
		return n.text == "true", nil
	case iceberg.Int32Type:
		v, err := parseInt(n, 32, "int")
		return int32(v), err
	case iceberg.Int64Type:
		return parseInt(n, 64, "long")
	case iceberg.Float32Type:
		v, err := parseFloat(n, 32, "float")
		return float32(v), err
	case iceberg.Float64Type:
		return parseFloat(n, 64, "double")
	case iceberg.DecimalType:
		if n.kind != kString && n.kind != kNumber {
			return nil, want(fmt.Sprintf("a %s as a string such as \"14.20\"", t), n)
		}
		return parseDecimal(n.text, t.Precision(), t.Scale())
	case iceberg.StringType:
		if n.kind != kString {
			return nil, want("a string", n)
		}
		return n.text, nil
	case iceberg.UUIDType:
		if n.kind != kString {
			return nil, want("a uuid string", n)
		}
		u, err := uuid.Parse(n.text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a uuid: %w", n.text, err)
		}
		return u, nil
	case iceberg.BinaryType:
		return parseHex(n, -1)
	case iceberg.FixedType:
		return parseHex(n, t.Len())
	case iceberg.DateType:
		tm, err := parseTime(n, "2006-01-02", "a date \"2017-11-16\"", 0)
		if err != nil {
			return nil, err
		}
		return iceberg.Date(tm.Unix() / 86400), nil
	case iceberg.TimeType:
		tm, err := parseTime(n, "15:04:05.999999", "a time \"22:31:08.123456\"", 6)
		if err != nil {
			return nil, err
		}
		return iceberg.Time(tm.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)).Microseconds()), nil
	case iceberg.TimestampType:
		tm, err := parseTime(n, "2006-01-02T15:04:05.999999", "a timestamp \"2017-11-16T22:31:08.123456\" (no zone)", 6)
		if err != nil {
			return nil, err
		}
		return iceberg.Timestamp(tm.UnixMicro()), nil
	case iceberg.TimestampTzType:
		tm, err := parseTime(n, "2006-01-02T15:04:05.999999Z07:00", "a timestamp with zone \"2017-11-16T22:31:08.123456+00:00\"", 6)
		if err != nil {
			return nil, err
		}
		return iceberg.Timestamp(tm.UnixMicro()), nil
	case iceberg.TimestampNsType:
		tm, err := parseTime(n, "2006-01-02T15:04:05.999999999", "a timestamp \"2017-11-16T22:31:08.123456789\" (no zone)", 9)
		if err != nil {
			return nil, err
		}
		return nanos(tm)
	case iceberg.TimestampTzNsType:
		tm, err := parseTime(n, "2006-01-02T15:04:05.999999999Z07:00", "a timestamp with zone \"2017-11-16T22:31:08.123456789+00:00\"", 9)
		if err != nil {
			return nil, err
		}
		return nanos(tm)
	case iceberg.VariantType:
		v, err := variant.ParseJSONBytes(n.raw, false)
		if err != nil {
			return nil, fmt.Errorf("variant: %w", err)
		}
		return v, nil
	case *iceberg.StructType:
		return decodeStruct(t, n, path)
	case *iceberg.ListType:
		if n.kind != kArray {
			return nil, want("a JSON array", n)
		}
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			if e.kind == kNull {
				continue
			}
			p := fmt.Sprintf("%s[%d]", path, i)
			v, err := decodeValue(t.Element, e, p)
			if err != nil {
				return nil, nested(p, err)
			}
			out[i] = v
		}
		return out, nil
	case *iceberg.MapType:
		return decodeMap(t, n, path)
	}
	return nil, fmt.Errorf("type %s is not supported", t)
}

// nested wraps an error in the path of the value that caused it, unless a
// deeper value already did.
func nested(path string, err error) error {
	var ce *ColumnError
	if errors.As(err, &ce) {
		return err
	}
	return &ColumnError{path, err}
}

func decodeStruct(t *iceberg.StructType, n *node, path string) (any, error) {
	if n.kind != kObject {
		return nil, want("a JSON object", n)
	}
	rec := data.NewStructRecord(t)
	seen := make([]bool, len(t.FieldList))
	for i, key := range n.keys {
		pos := rec.Position(key)
		if pos < 0 {
			names := make([]string, len(t.FieldList))
			for j, f := range t.FieldList {
				names[j] = f.Name
			}
			return nil, fmt.Errorf("no field %q (fields: %s)", key, strings.Join(names, ", "))
		}
		if seen[pos] {
			return nil, fmt.Errorf("field %q appears twice", key)
		}
		seen[pos] = true
		if n.elems[i].kind == kNull {
			continue
		}
		p := path + "." + key
		v, err := decodeValue(t.FieldList[pos].Type, n.elems[i], p)
		if err != nil {
			return nil, nested(p, err)
		}
		rec.Set(pos, v)
	}
	return rec, nil
}

func decodeMap(t *iceberg.MapType, n *node, path string) (any, error) {
	if _, stringKeys := t.KeyType.(iceberg.StringType); stringKeys {
		if n.kind != kObject {
			return nil, want("a JSON object (a map with string keys)", n)
		}
		out := make(data.Map, len(n.keys))
		seen := make(map[string]bool, len(n.keys))
		for i, k := range n.keys {
			if seen[k] {
				return nil, fmt.Errorf("map key %q appears twice", k)
			}
			seen[k] = true
			out[i].Key = k
			if n.elems[i].kind == kNull {
				continue
			}
			p := fmt.Sprintf("%s[%q]", path, k)
			v, err := decodeValue(t.ValueType, n.elems[i], p)
			if err != nil {
				return nil, nested(p, err)
			}
			out[i].Value = v
		}
		return out, nil
	}
	// Appendix D: {"keys": [...], "values": [...]}.
	if n.kind != kObject || len(n.keys) != 2 || n.keys[0] != "keys" || n.keys[1] != "values" ||
		n.elems[0].kind != kArray || n.elems[1].kind != kArray {
		return nil, want(`{"keys": [...], "values": [...]} (a map whose keys are not strings)`, n)
	}
	keys, values := n.elems[0].elems, n.elems[1].elems
	if len(keys) != len(values) {
		return nil, fmt.Errorf("map has %d keys and %d values", len(keys), len(values))
	}
	out := make(data.Map, len(keys))
	for i := range keys {
		p := fmt.Sprintf("%s.keys[%d]", path, i)
		if keys[i].kind == kNull {
			return nil, &ColumnError{p, errors.New("map keys are required, but this one is null")}
		}
		k, err := decodeValue(t.KeyType, keys[i], p)
		if err != nil {
			return nil, nested(p, err)
		}
		if _, dup := out[:i].Get(k); dup {
			return nil, &ColumnError{p, errors.New("map key appears twice")}
		}
		out[i].Key = k
		if values[i].kind == kNull {
			continue
		}
		p = fmt.Sprintf("%s.values[%d]", path, i)
		v, err := decodeValue(t.ValueType, values[i], p)
		if err != nil {
			return nil, nested(p, err)
		}
		out[i].Value = v
	}
	return out, nil
}

func parseInt(n *node, bits int, name string) (int64, error) {
	if n.kind != kNumber {
		return 0, want("an integer", n)
	}
	return coltype.ParseIntText(n.text, bits, name)
}

func parseFloat(n *node, bits int, name string) (float64, error) {
	switch n.kind {
	case kString:
		return coltype.ParseNonFinite(n.text)
	case kNumber:
		return coltype.ParseFloatText(n.text, bits, name)
	}
	return 0, want("a number", n)
}

// parseDecimal reads a decimal exactly: digits with an optional point, no
// exponent, at most scale digits after the point and precision digits in all.
func parseDecimal(s string, precision, scale int) (iceberg.Decimal, error) {
	bad := func(format string, args ...any) (iceberg.Decimal, error) {
		return iceberg.Decimal{}, fmt.Errorf("%q: "+format, append([]any{s}, args...)...)
	}
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	whole, frac, _ := strings.Cut(digits, ".")
	if whole == "" && frac == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return bad("not a decimal number (digits with an optional point; no exponent)")
	}
	if len(frac) > scale {
		return bad("has %d digits after the point, decimal(%d,%d) keeps %d (no rounding)", len(frac), precision, scale, scale)
	}
	unscaled := strings.TrimLeft(whole, "0") + frac + strings.Repeat("0", scale-len(frac))
	if significant := strings.TrimLeft(unscaled, "0"); len(significant) > precision {
		return bad("needs %d digits, decimal(%d,%d) holds %d", len(significant), precision, scale, precision)
	}
	v, ok := new(big.Int).SetString("0"+unscaled, 10)
	if !ok {
		return bad("not a decimal number")
	}
	if strings.HasPrefix(s, "-") {
		v.Neg(v)
	}
	return iceberg.Decimal{Val: decimal128.FromBigInt(v), Scale: scale}, nil
}

// parseTime parses a time value and refuses more fraction digits than the
// type keeps, rather than truncating them.
func parseTime(n *node, layout, what string, maxFraction int) (time.Time, error) {
	if n.kind != kString {
		return time.Time{}, want(what, n)
	}
	tm, err := time.Parse(layout, n.text)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not %s", n.text, what)
	}
	if f := fractionDigits(n.text); f > maxFraction {
		return time.Time{}, fmt.Errorf("%q has %d fraction digits, the type keeps %d (no rounding)", n.text, f, maxFraction)
	}
	return tm.UTC(), nil
}

func fractionDigits(s string) int {
	i := strings.IndexByte(s, '.') // dates and zones have none; it follows the seconds
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	return n
}

func nanos(tm time.Time) (any, error) {
	if tm.Before(time.Unix(0, math.MinInt64)) || tm.After(time.Unix(0, math.MaxInt64)) {
		return nil, fmt.Errorf("%s is outside the range of nanosecond timestamps (years 1677 to 2262)", tm.Format(time.RFC3339))
	}
	return iceberg.TimestampNano(tm.UnixNano()), nil
}

func parseHex(n *node, length int) ([]byte, error) {
	if n.kind != kString {
		return nil, want("a hex string", n)
	}
	b, err := hex.DecodeString(n.text)
	if err != nil {
		return nil, fmt.Errorf("%.40q is not hex: %w", n.text, err)
	}
	if length >= 0 && len(b) != length {
		return nil, fmt.Errorf("%d bytes, fixed[%d] needs %d", len(b), length, length)
	}
	return b, nil
}
