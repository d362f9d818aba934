package avro

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
)

// valueError is a rejected value: the path of the field, element, key or
// value at fault, the id of the innermost one, and what is wrong.
type valueError struct {
	path  []string // innermost last
	id    int
	hasID bool
	msg   string
}

func (e *valueError) Error() string {
	if len(e.path) == 0 {
		return e.msg
	}
	p := strings.Join(e.path, ".")
	if e.hasID {
		return fmt.Sprintf("field %s (id %d): %s", p, e.id, e.msg)
	}
	return fmt.Sprintf("field %s: %s", p, e.msg)
}

func valueErrorf(format string, args ...any) error {
	return &valueError{msg: fmt.Sprintf(format, args...)}
}

// within prefixes err's path with seg; id names the innermost field.
func within(err error, seg string, id int) error {
	ve, ok := err.(*valueError)
	if !ok {
		return err
	}
	ve.path = append([]string{seg}, ve.path...)
	if !ve.hasID {
		ve.id, ve.hasID = id, true
	}
	return ve
}

func typeError(want string, t iceberg.Type, v any) error {
	return valueErrorf("expected %s for %s, got %T", want, t, v)
}

// encodeFn validates v and appends its Avro binary encoding to buf. On error
// buf may hold a partial encoding; callers discard it.
type encodeFn func(buf []byte, v any) ([]byte, error)

// fieldEncoder encodes one struct field, including its union branch.
type fieldEncoder struct {
	name     string
	id       int
	required bool
	// nullIsNone marks the Avro null type (Iceberg unknown): no union, no bytes.
	nullIsNone bool
	nullIndex  int64 // union branch of null; the value is the other one
	enc        encodeFn
}

// structEncoder encodes a struct's fields in order.
type structEncoder struct {
	st     *iceberg.StructType
	fields []fieldEncoder
}

func newStructEncoder(st *iceberg.StructType) (*structEncoder, error) {
	se := &structEncoder{st: st, fields: make([]fieldEncoder, len(st.FieldList))}
	for i, f := range st.FieldList {
		enc, err := newEncoder(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s (id %d): %w", f.Name, f.ID, err)
		}
		_, unknown := f.Type.(iceberg.UnknownType)
		fe := fieldEncoder{name: f.Name, id: f.ID, required: f.Required, nullIsNone: unknown, enc: enc}
		if !f.Required && !unknown {
			// The union is [T, "null"] when an Avro default leads (schema.go).
			if _, hasDef, _ := avroDefault(f); hasDef {
				fe.nullIndex = 1
			}
		}
		se.fields[i] = fe
	}
	return se, nil
}

func (se *structEncoder) encodeRecord(buf []byte, v any) ([]byte, error) {
	rec, ok := v.(*data.Record)
	if !ok || rec == nil {
		return buf, typeError("*data.Record", se.st, v)
	}
	fields := rec.Fields()
	if len(fields) != len(se.fields) {
		return buf, valueErrorf("record has %d fields, the struct has %d", len(fields), len(se.fields))
	}
	for i := range fields {
		if fields[i].ID != se.fields[i].id {
			return buf, valueErrorf("record field %d is %s (id %d), the struct has %s (id %d)",
				i, fields[i].Name, fields[i].ID, se.fields[i].name, se.fields[i].id)
		}
	}
	return se.encodeValues(buf, rec)
}

// fieldValues are a struct's values by position (a *data.Record).
type fieldValues interface{ Get(pos int) any }

func (se *structEncoder) encodeValues(buf []byte, values fieldValues) ([]byte, error) {
	var err error
	for i := range se.fields {
		f := &se.fields[i]
		v := values.Get(i)
		switch {
		case f.nullIsNone:
			if v != nil {
				return buf, within(valueErrorf("a column of type unknown must be null, got %T", v), f.name, f.id)
			}
			continue
		case v == nil:
			if f.required {
				return buf, within(valueErrorf("null value in required field"), f.name, f.id)
			}
			buf = appendLong(buf, f.nullIndex)
			continue
		case !f.required:
			buf = appendLong(buf, 1-f.nullIndex)
		}
		if buf, err = f.enc(buf, v); err != nil {
			return buf, within(err, f.name, f.id)
		}
	}
	return buf, nil
}

// newEncoder compiles the encoder of one Iceberg type; values use the Go
// types documented in package data.
func newEncoder(t iceberg.Type) (encodeFn, error) {
	switch t := t.(type) {
	case *iceberg.StructType:
		se, err := newStructEncoder(t)
		if err != nil {
			return nil, err
		}
		return se.encodeRecord, nil
	case *iceberg.ListType:
		return newListEncoder(t)
	case *iceberg.MapType:
		return newMapEncoder(t)
	case iceberg.UnknownType:
		return func(buf []byte, v any) ([]byte, error) {
			return buf, valueErrorf("a value of type unknown must be null, got %T", v)
		}, nil
	case iceberg.BooleanType:
		return func(buf []byte, v any) ([]byte, error) {
			b, ok := v.(bool)
			if !ok {
				return buf, typeError("bool", t, v)
			}
			if b {
				return append(buf, 1), nil
			}
			return append(buf, 0), nil
		}, nil
	case iceberg.Int32Type:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(int32)
			if !ok {
				return buf, typeError("int32", t, v)
			}
			return appendLong(buf, int64(x)), nil
		}, nil
	case iceberg.Int64Type:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(int64)
			if !ok {
				return buf, typeError("int64", t, v)
			}
			return appendLong(buf, x), nil
		}, nil
	case iceberg.Float32Type:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(float32)
			if !ok {
				return buf, typeError("float32", t, v)
			}
			return binary.LittleEndian.AppendUint32(buf, math.Float32bits(x)), nil
		}, nil
	case iceberg.Float64Type:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(float64)
			if !ok {
				return buf, typeError("float64", t, v)
			}
			return binary.LittleEndian.AppendUint64(buf, math.Float64bits(x)), nil
		}, nil
	case iceberg.DateType:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(iceberg.Date)
			if !ok {
				return buf, typeError("iceberg.Date", t, v)
			}
			return appendLong(buf, int64(x)), nil
		}, nil
	case iceberg.TimeType:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(iceberg.Time)
			if !ok {
				return buf, typeError("iceberg.Time", t, v)
			}
			return appendLong(buf, int64(x)), nil
		}, nil
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(iceberg.Timestamp)
			if !ok {
				return buf, typeError("iceberg.Timestamp", t, v)
			}
			return appendLong(buf, int64(x)), nil
		}, nil
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return func(buf []byte, v any) ([]byte, error) {
			x, ok := v.(iceberg.TimestampNano)
			if !ok {
				return buf, typeError("iceberg.TimestampNano", t, v)
			}
			return appendLong(buf, int64(x)), nil
		}, nil
	case iceberg.StringType:
		return func(buf []byte, v any) ([]byte, error) {
			s, ok := v.(string)
			if !ok {
				return buf, typeError("string", t, v)
			}
			// Avro strings are UTF-8; other readers reject anything else.
			if !utf8.ValidString(s) {
				return buf, valueErrorf("string is not valid UTF-8")
			}
			buf = appendLong(buf, int64(len(s)))
			return append(buf, s...), nil
		}, nil
	case iceberg.BinaryType:
		return func(buf []byte, v any) ([]byte, error) {
			b, ok := v.([]byte)
			if !ok {
				return buf, typeError("[]byte", t, v)
			}
			buf = appendLong(buf, int64(len(b)))
			return append(buf, b...), nil
		}, nil
	case iceberg.UUIDType:
		return func(buf []byte, v any) ([]byte, error) {
			u, ok := v.(uuid.UUID)
			if !ok {
				return buf, typeError("uuid.UUID", t, v)
			}
			return append(buf, u[:]...), nil
		}, nil
	case iceberg.FixedType:
		n := t.Len()
		return func(buf []byte, v any) ([]byte, error) {
			b, ok := v.([]byte)
			if !ok {
				return buf, typeError("[]byte", t, v)
			}
			if len(b) != n {
				return buf, valueErrorf("%s value has %d bytes", t, len(b))
			}
			return append(buf, b...), nil
		}, nil
	case iceberg.DecimalType:
		size := data.DecimalRequiredBytes(t.Precision())
		return func(buf []byte, v any) ([]byte, error) {
			d, ok := v.(iceberg.Decimal)
			if !ok {
				return buf, typeError("iceberg.Decimal", t, v)
			}
			if err := checkDecimal(d, t); err != nil {
				return buf, err
			}
			// checkDecimal bounds the digits, so the value fits size bytes.
			return data.AppendDecimalBytes(buf, d.Val, size)
		}, nil
	default:
		return nil, fmt.Errorf("Iceberg type %s is not supported by the Avro model", t)
	}
}

// checkDecimal is Java's DecimalWriter check: the scale must be the type's
// and the unscaled value must have at most P digits.
func checkDecimal(d iceberg.Decimal, t iceberg.DecimalType) error {
	if d.Scale != t.Scale() {
		return valueErrorf("cannot write value as %s, wrong scale: %d", t, d.Scale)
	}
	if !d.Val.FitsInPrecision(int32(t.Precision())) {
		return valueErrorf("cannot write value as %s, its precision is larger: %s", t, d)
	}
	return nil
}

func newListEncoder(t *iceberg.ListType) (encodeFn, error) {
	elem, err := newEncoder(t.Element)
	if err != nil {
		return nil, fmt.Errorf("element (id %d): %w", t.ElementID, err)
	}
	_, unknown := t.Element.(iceberg.UnknownType)
	required := t.ElementRequired
	return func(buf []byte, v any) ([]byte, error) {
		list, ok := v.([]any)
		if !ok {
			return buf, typeError("[]any", t, v)
		}
		if len(list) == 0 {
			return append(buf, 0), nil
		}
		buf = appendLong(buf, int64(len(list)))
		for i, e := range list {
			switch {
			case unknown:
				if e != nil {
					return buf, within(valueErrorf("a value of type unknown must be null, got %T", e), "element["+strconv.Itoa(i)+"]", t.ElementID)
				}
				continue
			case e == nil:
				if required {
					return buf, within(valueErrorf("null element in a list of required elements"), "element["+strconv.Itoa(i)+"]", t.ElementID)
				}
				buf = append(buf, 0) // union branch 0: null
				continue
			case !required:
				buf = append(buf, 2) // union branch 1, zig-zag encoded
			}
			if buf, err = elem(buf, e); err != nil {
				return buf, within(err, "element["+strconv.Itoa(i)+"]", t.ElementID)
			}
		}
		return append(buf, 0), nil
	}, nil
}

func newMapEncoder(t *iceberg.MapType) (encodeFn, error) {
	key, err := newEncoder(t.KeyType)
	if err != nil {
		return nil, fmt.Errorf("key (id %d): %w", t.KeyID, err)
	}
	value, err := newEncoder(t.ValueType)
	if err != nil {
		return nil, fmt.Errorf("value (id %d): %w", t.ValueID, err)
	}
	if _, unknown := t.KeyType.(iceberg.UnknownType); unknown {
		return nil, fmt.Errorf("key (id %d): map keys cannot be of type unknown", t.KeyID)
	}
	_, unknownValue := t.ValueType.(iceberg.UnknownType)
	required := t.ValueRequired
	return func(buf []byte, v any) ([]byte, error) {
		m, ok := v.(data.Map)
		if !ok {
			return buf, typeError("data.Map", t, v)
		}
		if len(m) == 0 {
			return append(buf, 0), nil
		}
		if err := checkDistinctKeys(m); err != nil {
			return buf, within(err, "key", t.KeyID)
		}
		buf = appendLong(buf, int64(len(m)))
		for i, e := range m {
			seg := "[" + strconv.Itoa(i) + "]"
			if e.Key == nil {
				return buf, within(valueErrorf("null map key"), "key"+seg, t.KeyID)
			}
			if buf, err = key(buf, e.Key); err != nil {
				return buf, within(err, "key"+seg, t.KeyID)
			}
			switch {
			case unknownValue:
				if e.Value != nil {
					return buf, within(valueErrorf("a value of type unknown must be null, got %T", e.Value), "value"+seg, t.ValueID)
				}
				continue
			case e.Value == nil:
				if required {
					return buf, within(valueErrorf("null value in a map of required values"), "value"+seg, t.ValueID)
				}
				buf = append(buf, 0)
				continue
			case !required:
				buf = append(buf, 2)
			}
			if buf, err = value(buf, e.Value); err != nil {
				return buf, within(err, "value"+seg, t.ValueID)
			}
		}
		return append(buf, 0), nil
	}, nil
}

// checkDistinctKeys refuses duplicate keys, which a reader building a hash
// map would silently collapse. Keys that Go cannot hash (structs, lists,
// maps) are compared pairwise.
func checkDistinctKeys(m data.Map) error {
	if len(m) < 2 {
		return nil
	}
	seen := make(map[any]int, len(m))
	var unhashable []int
	for i, e := range m {
		var k any
		switch x := e.Key.(type) {
		case []byte:
			k = struct{ b string }{string(x)}
		case *data.Record, []any, data.Map:
			unhashable = append(unhashable, i)
			continue
		case float32:
			if x != x {
				k = struct{ nan32 bool }{true}
			} else {
				k = x
			}
		case float64:
			if x != x {
				k = struct{ nan64 bool }{true}
			} else {
				k = x
			}
		default:
			k = x
		}
		if j, dup := seen[k]; dup {
			return valueErrorf("duplicate map key %v at entries %d and %d", e.Key, j, i)
		}
		seen[k] = i
	}
	for a := 0; a < len(unhashable); a++ {
		for b := a + 1; b < len(unhashable); b++ {
			i, j := unhashable[a], unhashable[b]
			if data.ValuesEqual(m[i].Key, m[j].Key) {
				return valueErrorf("duplicate map key at entries %d and %d", i, j)
			}
		}
	}
	return nil
}

// appendLong appends Avro's zig-zag varint encoding of x (int and long alike).
func appendLong(buf []byte, x int64) []byte {
	u := uint64(x<<1) ^ uint64(x>>63)
	for u >= 0x80 {
		buf = append(buf, byte(u)|0x80)
		u >>= 7
	}
	return append(buf, byte(u))
}
