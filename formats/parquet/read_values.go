package parquet

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
)

// readConv turns a non-null Parquet value into the record value of the
// projected type. Byte values are copied: parquet-go reuses page buffers.
type readConv func(v pq.Value) (any, error)

func kindError(v pq.Value, want format.Type) error {
	return fmt.Errorf("value of physical type %s in a %s column", v.Kind(), want)
}

// readConverter builds the converter for a leaf; data.Promotable(info.typ, want)
// holds.
func readConverter(info leafInfo, want iceberg.Type) (readConv, error) {
	phys := pq.Kind(info.physical)
	check := func(v pq.Value) error {
		if v.Kind() != phys {
			return kindError(v, info.physical)
		}
		return nil
	}
	int64Of := func(v pq.Value) int64 {
		switch {
		case phys != pq.Int32:
			return v.Int64()
		case info.unsigned:
			return int64(uint32(v.Int32()))
		}
		return int64(v.Int32())
	}
	// scaled converts a stored time value to Iceberg's unit.
	scaled := func(v pq.Value) int64 {
		if info.int96 {
			return int96Micros(v)
		}
		return int64Of(v) * info.scale
	}
	switch w := want.(type) {
	case iceberg.BooleanType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return v.Boolean(), nil
		}, nil
	case iceberg.Int32Type:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return v.Int32(), nil
		}, nil
	case iceberg.Int64Type:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return int64Of(v), nil
		}, nil
	case iceberg.Float32Type:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return v.Float(), nil
		}, nil
	case iceberg.Float64Type:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			if phys == pq.Float {
				return float64(v.Float()), nil
			}
			return v.Double(), nil
		}, nil
	case iceberg.DateType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return iceberg.Date(v.Int32()), nil
		}, nil
	case iceberg.TimeType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return iceberg.Time(scaled(v)), nil
		}, nil
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return iceberg.Timestamp(scaled(v)), nil
		}, nil
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return iceberg.TimestampNano(v.Int64()), nil
		}, nil
	case iceberg.StringType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return string(v.ByteArray()), nil
		}, nil
	case iceberg.BinaryType:
		var slab byteSlab
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			return slab.clone(v.ByteArray()), nil
		}, nil
	case iceberg.UUIDType:
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			b := v.ByteArray()
			if len(b) != 16 {
				return nil, fmt.Errorf("uuid value of %d bytes", len(b))
			}
			return uuid.UUID(b), nil
		}, nil
	case iceberg.FixedType:
		var slab byteSlab
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			b := v.ByteArray()
			if len(b) != w.Len() {
				return nil, fmt.Errorf("fixed[%d] value of %d bytes", w.Len(), len(b))
			}
			return slab.clone(b), nil
		}, nil
	case iceberg.DecimalType:
		scale := w.Scale()
		// A value must have no more digits than its precision
		// (LogicalTypes.md, DECIMAL: "precision ... the number of digits
		// in the unscaled value"), the file's or the one read as, whichever
		// is less: a wider value is corrupt data, and returned as this type
		// it would be a number the type cannot hold.
		prec := w.Precision()
		if ft, ok := info.typ.(iceberg.DecimalType); ok {
			prec = min(prec, ft.Precision())
		}
		limit := decimal128.GetScaleMultiplier(prec)
		return func(v pq.Value) (any, error) {
			if err := check(v); err != nil {
				return nil, err
			}
			var n decimal128.Num
			switch {
			case phys == pq.Int64 && info.unsigned:
				n = decimal128.FromU64(uint64(v.Int64()))
			case phys == pq.Int32, phys == pq.Int64:
				n = decimal128.FromI64(int64Of(v))
			default:
				var err error
				if n, err = data.DecimalFromBytes(v.ByteArray()); err != nil {
					return nil, err
				}
			}
			if !n.Less(limit) || !n.Greater(limit.Negate()) {
				return nil, fmt.Errorf("decimal value %s has more than the %d digits of its precision", n.ToString(int32(scale)), prec)
			}
			return iceberg.Decimal{Val: n, Scale: scale}, nil
		}, nil
	}
	return nil, fmt.Errorf("type %s cannot be read from Parquet", want)
}

// readSet stores a non-null Parquet value in a record's field: as readConv,
// but through the record's typed setters, so that the value is not boxed.
type readSet func(rec *data.Record, pos int, v *pq.Value) error

// readSetter is the typed store for the Go types the record has setters
// for (boolean, int, long, float, double, string), or nil. It converts as
// readConverter does, promotions included: a reader that boxed nothing but
// the values a caller asks for with Get read the same records.
func readSetter(info leafInfo, want iceberg.Type) readSet {
	phys := pq.Kind(info.physical)
	switch want.(type) {
	case iceberg.BooleanType:
		return func(rec *data.Record, pos int, v *pq.Value) error {
			if v.Kind() != phys {
				return kindError(*v, info.physical)
			}
			rec.SetBool(pos, v.Boolean())
			return nil
		}
	case iceberg.Int32Type:
		return func(rec *data.Record, pos int, v *pq.Value) error {
			if v.Kind() != phys {
				return kindError(*v, info.physical)
			}
			rec.SetInt32(pos, v.Int32())
			return nil
		}
	case iceberg.Int64Type:
		return func(rec *data.Record, pos int, v *pq.Value) error {
			switch k := v.Kind(); {
			case k != phys:
				return kindError(*v, info.physical)
			case k == pq.Int32 && info.unsigned:
				rec.SetInt64(pos, int64(uint32(v.Int32())))
			case k == pq.Int32:
				rec.SetInt64(pos, int64(v.Int32()))
			default:
				rec.SetInt64(pos, v.Int64())
			}
			return nil
		}
	case iceberg.Float32Type:
		return func(rec *data.Record, pos int, v *pq.Value) error {
			if v.Kind() != phys {
				return kindError(*v, info.physical)
			}
			rec.SetFloat32(pos, v.Float())
			return nil
		}
	case iceberg.Float64Type:
		return func(rec *data.Record, pos int, v *pq.Value) error {
			switch k := v.Kind(); {
			case k != phys:
				return kindError(*v, info.physical)
			case k == pq.Float:
				rec.SetFloat64(pos, float64(v.Float()))
			default:
				rec.SetFloat64(pos, v.Double())
			}
			return nil
		}
	case iceberg.StringType:
		return func(rec *data.Record, pos int, v *pq.Value) error {
			if v.Kind() != phys {
				return kindError(*v, info.physical)
			}
			// A copy: parquet-go reuses its page buffers.
			rec.SetString(pos, string(v.ByteArray()))
			return nil
		}
	}
	return nil
}

// int96Micros converts a legacy INT96 timestamp (nanoseconds of the day,
// then the Julian day) to microseconds since the Unix epoch.
func int96Micros(v pq.Value) int64 {
	x := v.Int96()
	nanos := uint64(x[1])<<32 | uint64(x[0])
	const julianEpoch = 2440588
	return (int64(x[2])-julianEpoch)*86_400_000_000 + int64(nanos/1000)
}

// byteSlab copies byte values out of pages into shared blocks: one
// allocation per slabBlock bytes instead of one per value, which for a
// scan of 768-dim vectors is most of its allocations. Each copy is capped
// (a full slice expression), so appending to one never writes into the
// next; a block is never reused, and a value keeps its block alive while
// it lives. Values over a quarter block get their own allocation.
type byteSlab struct{ free []byte }

const slabBlock = 64 << 10

func (s *byteSlab) clone(b []byte) []byte {
	switch {
	case b == nil:
		return nil
	case len(b) == 0:
		return []byte{}
	case len(b) > slabBlock/4:
		return bytes.Clone(b)
	}
	if cap(s.free)-len(s.free) < len(b) {
		s.free = make([]byte, 0, slabBlock)
	}
	n := len(s.free)
	s.free = append(s.free, b...)
	return s.free[n:len(s.free):len(s.free)]
}
