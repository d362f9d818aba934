package arrow

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
)

// arrowConstantArray is an array of n copies of v, a value in data.Record's
// Go types (or an iceberg.Literal of one), of arrow type dt. The reader uses
// it for id-to-constant fields and for initial defaults of missing columns.
func arrowConstantArray(mem memory.Allocator, dt arrow.DataType, v any, n int) (arrow.Array, error) {
	if v == nil {
		return array.MakeArrayOfNull(mem, dt, n), nil
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(n)
	for range n {
		if err := arrowAppendValue(b, v); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// arrowAppendValue appends one value in data.Record's Go types to b.
func arrowAppendValue(b array.Builder, v any) error {
	if lit, ok := v.(iceberg.Literal); ok {
		v = lit.Any()
	}
	if v == nil {
		b.AppendNull()
		return nil
	}
	mismatch := func() error {
		return fmt.Errorf("value %v of Go type %T does not fit arrow type %s", v, v, b.Type())
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.Int32Builder:
		x, ok := v.(int32)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.Float32Builder:
		x, ok := v.(float32)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.Float64Builder:
		x, ok := v.(float64)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.Date32Builder:
		x, ok := v.(iceberg.Date)
		if !ok {
			return mismatch()
		}
		b.Append(arrow.Date32(x))
	case *array.Time64Builder:
		x, ok := v.(iceberg.Time)
		if !ok || b.Type().(*arrow.Time64Type).Unit != arrow.Microsecond {
			return mismatch()
		}
		b.Append(arrow.Time64(x))
	case *array.TimestampBuilder:
		unit := b.Type().(*arrow.TimestampType).Unit
		switch x := v.(type) {
		case iceberg.Timestamp:
			if unit != arrow.Microsecond {
				return mismatch()
			}
			b.Append(arrow.Timestamp(x))
		case iceberg.TimestampNano:
			if unit != arrow.Nanosecond {
				return mismatch()
			}
			b.Append(arrow.Timestamp(x))
		default:
			return mismatch()
		}
	case *array.StringBuilder:
		x, ok := v.(string)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.BinaryBuilder:
		x, ok := v.([]byte)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.FixedSizeBinaryBuilder:
		x, ok := v.([]byte)
		if !ok || len(x) != b.Type().(*arrow.FixedSizeBinaryType).ByteWidth {
			return mismatch()
		}
		b.Append(x)
	case *array.Decimal128Builder:
		x, ok := v.(iceberg.Decimal)
		if !ok || int32(x.Scale) != b.Type().(*arrow.Decimal128Type).Scale {
			return mismatch()
		}
		b.Append(x.Val)
	case *extensions.UUIDBuilder:
		x, ok := v.(uuid.UUID)
		if !ok {
			return mismatch()
		}
		b.Append(x)
	case *array.StructBuilder:
		rec, ok := v.(*data.Record)
		st := b.Type().(*arrow.StructType)
		if !ok || rec.Len() != st.NumFields() {
			return mismatch()
		}
		b.Append(true)
		for i := range st.NumFields() {
			if err := arrowAppendValue(b.FieldBuilder(i), rec.Get(i)); err != nil {
				return fmt.Errorf("field %s: %w", st.Field(i).Name, err)
			}
		}
	case *array.MapBuilder: // before ListBuilder: a map is a list of entries
		m, ok := v.(data.Map)
		if !ok {
			return mismatch()
		}
		b.Append(true)
		for _, e := range m {
			if err := arrowAppendValue(b.KeyBuilder(), e.Key); err != nil {
				return fmt.Errorf("map key: %w", err)
			}
			if err := arrowAppendValue(b.ItemBuilder(), e.Value); err != nil {
				return fmt.Errorf("map value: %w", err)
			}
		}
	case *array.ListBuilder:
		l, ok := v.([]any)
		if !ok {
			return mismatch()
		}
		b.Append(true)
		for _, e := range l {
			if err := arrowAppendValue(b.ValueBuilder(), e); err != nil {
				return fmt.Errorf("list element: %w", err)
			}
		}
	default:
		return fmt.Errorf("values of arrow type %s are not supported", b.Type())
	}
	return nil
}
