package jsonrow

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
)

// AppendJSON appends rec as one JSON object, without a newline: every
// field in the record's order, nulls as null, in the form DecodeJSON reads.
func (c *Codec) AppendJSON(dst []byte, rec *data.Record) ([]byte, error) {
	dst = append(dst, '{')
	for i, f := range rec.Fields() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, f.Name)
		dst = append(dst, ':')
		v := rec.Get(i)
		var err error
		if d := c.declOf(f.Name); d != nil && v != nil {
			dst, err = d.AppendJSON(dst, v, func(dst []byte, v any) ([]byte, error) {
				return appendValue(dst, f.Type, v, f.Name)
			})
		} else {
			dst, err = appendValue(dst, f.Type, v, f.Name)
		}
		if err != nil {
			return nil, nested(f.Name, err)
		}
	}
	return append(dst, '}'), nil
}

// declOf is the registered type of the codec's column name, nil for none.
func (c *Codec) declOf(name string) coltype.Decl {
	if pos, ok := c.index[name]; ok {
		return c.columns[pos].decl
	}
	return nil
}

func mismatch(t iceberg.Type, v any) error {
	return fmt.Errorf("holds a Go %T, not a %s value", v, t)
}

func appendValue(dst []byte, t iceberg.Type, v any, path string) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(dst, b), nil
		}
	case iceberg.Int32Type:
		if x, ok := v.(int32); ok {
			return strconv.AppendInt(dst, int64(x), 10), nil
		}
	case iceberg.Int64Type:
		if x, ok := v.(int64); ok {
			return strconv.AppendInt(dst, x, 10), nil
		}
	case iceberg.Float32Type:
		if x, ok := v.(float32); ok {
			return appendFloat(dst, float64(x), 32), nil
		}
	case iceberg.Float64Type:
		if x, ok := v.(float64); ok {
			return appendFloat(dst, x, 64), nil
		}
	case iceberg.DecimalType:
		if d, ok := v.(iceberg.Decimal); ok {
			return appendString(dst, data.DecimalString(d.Val.BigInt(), t.Scale())), nil
		}
	case iceberg.StringType:
		if s, ok := v.(string); ok {
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("string %.40q is not valid UTF-8, which JSON cannot carry", s)
			}
			return appendString(dst, s), nil
		}
	case iceberg.UUIDType:
		if u, ok := v.(uuid.UUID); ok {
			return appendString(dst, u.String()), nil
		}
	case iceberg.BinaryType, iceberg.FixedType:
		if b, ok := v.([]byte); ok {
			return append(hex.AppendEncode(append(dst, '"'), b), '"'), nil
		}
	case iceberg.DateType:
		if d, ok := v.(iceberg.Date); ok {
			return appendDate(dst, d.ToTime()), nil
		}
	case iceberg.TimeType:
		if x, ok := v.(iceberg.Time); ok {
			return appendTimeOfDay(dst, int64(x)), nil
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		if x, ok := v.(iceberg.Timestamp); ok {
			_, tz := t.(iceberg.TimestampTzType)
			return appendTimestampMicros(dst, int64(x), tz), nil
		}
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if x, ok := v.(iceberg.TimestampNano); ok {
			_, tz := t.(iceberg.TimestampTzNsType)
			return appendTimestampNanos(dst, int64(x), tz), nil
		}
	case iceberg.VariantType:
		if x, ok := v.(variant.Value); ok {
			return appendVariant(dst, x)
		}
	case *iceberg.StructType:
		if r, ok := v.(*data.Record); ok {
			dst = append(dst, '{')
			for i, f := range t.FieldList {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendString(dst, f.Name)
				dst = append(dst, ':')
				var err error
				p := path + "." + f.Name
				if dst, err = appendValue(dst, f.Type, r.Get(i), p); err != nil {
					return nil, nested(p, err)
				}
			}
			return append(dst, '}'), nil
		}
	case *iceberg.ListType:
		if l, ok := v.([]any); ok {
			dst = append(dst, '[')
			for i, e := range l {
				if i > 0 {
					dst = append(dst, ',')
				}
				var err error
				p := fmt.Sprintf("%s[%d]", path, i)
				if dst, err = appendValue(dst, t.Element, e, p); err != nil {
					return nil, nested(p, err)
				}
			}
			return append(dst, ']'), nil
		}
	case *iceberg.MapType:
		if m, ok := v.(data.Map); ok {
			return appendMap(dst, t, m, path)
		}
	default:
		return nil, fmt.Errorf("type %s is not supported", t)
	}
	return nil, mismatch(t, v)
}

func appendMap(dst []byte, t *iceberg.MapType, m data.Map, path string) ([]byte, error) {
	var err error
	if _, stringKeys := t.KeyType.(iceberg.StringType); stringKeys {
		dst = append(dst, '{')
		for i, e := range m {
			if i > 0 {
				dst = append(dst, ',')
			}
			k, ok := e.Key.(string)
			if !ok {
				return nil, mismatch(t.KeyType, e.Key)
			}
			if dst, err = appendValue(dst, t.KeyType, k, path); err != nil {
				return nil, err
			}
			dst = append(dst, ':')
			p := fmt.Sprintf("%s[%q]", path, k)
			if dst, err = appendValue(dst, t.ValueType, e.Value, p); err != nil {
				return nil, nested(p, err)
			}
		}
		return append(dst, '}'), nil
	}
	dst = append(dst, `{"keys":[`...)
	for i, e := range m {
		if i > 0 {
			dst = append(dst, ',')
		}
		p := fmt.Sprintf("%s.keys[%d]", path, i)
		if dst, err = appendValue(dst, t.KeyType, e.Key, p); err != nil {
			return nil, nested(p, err)
		}
	}
	dst = append(dst, `],"values":[`...)
	for i, e := range m {
		if i > 0 {
			dst = append(dst, ',')
		}
		p := fmt.Sprintf("%s.values[%d]", path, i)
		if dst, err = appendValue(dst, t.ValueType, e.Value, p); err != nil {
			return nil, nested(p, err)
		}
	}
	return append(dst, "]}"...), nil
}

// appendFloat writes a float as every codec does (coltype.AppendJSONFloat).
func appendFloat(dst []byte, f float64, bits int) []byte {
	return coltype.AppendJSONFloat(dst, f, bits)
}

// appendString writes a JSON string. Unlike encoding/json it leaves <, >
// and & alone: the output is data, not HTML.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, fmt.Sprintf(`\u%04x`, c)...)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
