package avro

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

// convertDefault turns an initial default or an id-to-constant value into
// the Go value package data uses for t. It accepts values already in that
// form, iceberg-go literals, and the JSON single-value forms of the spec's
// Appendix D (as iceberg-go leaves them after parsing a schema: numbers as
// float64, dates and decimals as strings, binary as hex, structs as objects
// keyed by field id, maps as {"keys": [...], "values": [...]}).
func convertDefault(t iceberg.Type, v any) (any, error) {
	out, err := toValue(t, v)
	if err != nil {
		return nil, err
	}
	// The writer's encoder is the one definition of a valid value.
	enc, err := newEncoder(t)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if _, err := enc(nil, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func toValue(t iceberg.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if lit, ok := v.(iceberg.Literal); ok {
		converted, err := lit.To(t)
		if err != nil {
			return nil, err
		}
		return converted.Any(), nil
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		switch x := v.(type) {
		case *data.Record:
			return x, nil
		case map[string]any:
			rec := data.NewStructRecord(t)
			for i, f := range t.FieldList {
				fv, ok := x[strconv.Itoa(f.ID)]
				if !ok {
					continue
				}
				cv, err := toValue(f.Type, fv)
				if err != nil {
					return nil, fmt.Errorf("field %s (id %d): %w", f.Name, f.ID, err)
				}
				rec.Set(i, cv)
			}
			return rec, nil
		}
	case *iceberg.ListType:
		if x, ok := v.([]any); ok {
			out := make([]any, len(x))
			for i, e := range x {
				ce, err := toValue(t.Element, e)
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out[i] = ce
			}
			return out, nil
		}
	case *iceberg.MapType:
		switch x := v.(type) {
		case data.Map:
			return x, nil
		case map[string]any:
			keys, ok1 := x["keys"].([]any)
			values, ok2 := x["values"].([]any)
			if !ok1 || !ok2 || len(keys) != len(values) {
				return nil, fmt.Errorf("map default must be {\"keys\": [...], \"values\": [...]} of equal lengths")
			}
			out := make(data.Map, len(keys))
			for i := range keys {
				k, err := toValue(t.KeyType, keys[i])
				if err != nil {
					return nil, fmt.Errorf("key %d: %w", i, err)
				}
				val, err := toValue(t.ValueType, values[i])
				if err != nil {
					return nil, fmt.Errorf("value %d: %w", i, err)
				}
				out[i] = data.MapEntry{Key: k, Value: val}
			}
			return out, nil
		}
	case iceberg.BinaryType, iceberg.FixedType:
		if s, ok := v.(string); ok {
			b, err := hex.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("binary default %q is not hex: %w", s, err)
			}
			return b, nil
		}
		return v, nil
	case iceberg.Int32Type, iceberg.DateType:
		if n, ok, err := integral(v, math.MinInt32, math.MaxInt32); ok || err != nil {
			if _, date := t.(iceberg.DateType); date {
				return iceberg.Date(n), err
			}
			return int32(n), err
		}
	case iceberg.Int64Type, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
		iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if n, ok, err := integral(v, math.MinInt64, math.MaxInt64); ok || err != nil {
			switch t.(type) {
			case iceberg.TimeType:
				return iceberg.Time(n), err
			case iceberg.TimestampType, iceberg.TimestampTzType:
				return iceberg.Timestamp(n), err
			case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
				return iceberg.TimestampNano(n), err
			}
			return n, err
		}
	case iceberg.Float32Type:
		switch x := v.(type) {
		case float64:
			return float32(x), nil
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 32)
			return float32(f), err
		}
	case iceberg.Float64Type:
		switch x := v.(type) {
		case float32:
			return float64(x), nil
		case json.Number:
			return x.Float64()
		}
	}
	if s, ok := v.(string); ok {
		if _, isString := t.(iceberg.StringType); !isString {
			lit, err := iceberg.NewLiteral(s).To(t)
			if err != nil {
				return nil, err
			}
			return lit.Any(), nil
		}
	}
	return v, nil
}

// integral converts a JSON or Go number to an integer in [lo, hi]; ok is
// false when v is not a number at all.
func integral(v any, lo, hi int64) (int64, bool, error) {
	var n int64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x < float64(lo) || x > float64(hi) {
			return 0, true, fmt.Errorf("%v is not an integer in [%d, %d]", x, lo, hi)
		}
		return int64(x), true, nil
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			return 0, true, err
		}
		n = i
	case int:
		n = int64(x)
	case int64:
		n = x
	case int32:
		n = int64(x)
	default:
		return 0, false, nil
	}
	if n < lo || n > hi {
		return 0, true, fmt.Errorf("%d is out of range [%d, %d]", n, lo, hi)
	}
	return n, true, nil
}
