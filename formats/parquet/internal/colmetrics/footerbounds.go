package colmetrics

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// FooterMetrics returns the metrics of a Parquet file whose values were not
// observed: a file another writer wrote (arrow-go's, for the arrow model),
// or one imported into a table. Counts and sizes come from the footer as in
// Metrics; bounds come from the column chunks' statistics, as Iceberg Java's
// ParquetUtil.footerMetrics derives them for a file without writer metrics
// (ParquetConversions.fromParquetPrimitive), merged over row groups and
// truncated by the metrics mode. NaN counts are left out: the statistics do
// not carry them, and a count of 0 would claim there are none.
//
// A bound is kept only where every row group holding a non-null value of
// the column states it under the type-defined order (column_orders; the
// deprecated min/max used signed order and are not read), so the bounds
// hold every value of the file. A column of a type whose statistics do not
// translate exactly (INT96, TIME in millis, unsigned integers, ...) gets no
// bounds.
func (c *Collector) FooterMetrics(footer *format.FileMetaData) registry.Metrics {
	m, schema := c.metrics(footer)
	clear(m.NaNValueCounts)
	if schema == nil {
		return m
	}
	leaves := schema.leafIndexes()
	ids := schema.leafFieldIDs()
	usable := map[int]bool{}
	for _, rg := range footer.RowGroups {
		for i := range rg.Columns {
			md := &rg.Columns[i].MetaData
			key := pathKey(md.PathInSchema)
			id, ok := ids[key]
			if !ok {
				continue
			}
			col := c.columns[id]
			if col == nil || col.obs == nil || col.nested || col.failed {
				continue
			}
			if _, seen := usable[id]; !seen {
				usable[id] = true
			}
			st := md.Statistics
			if md.NumValues > 0 && st.NullCount >= md.NumValues {
				continue // only nulls: nothing to bound
			}
			el := &footer.Schema[leaves[key]]
			typeOrder := i < len(footer.ColumnOrders) && isTypeDefined(footer.ColumnOrders[i])
			lo, okLo := statValue(col.typ, el, st.MinValue, false)
			hi, okHi := statValue(col.typ, el, st.MaxValue, true)
			if !typeOrder || !okLo || !okHi || col.obs.add(lo) != nil || col.obs.add(hi) != nil {
				usable[id] = false
			}
		}
	}
	for id, ok := range usable {
		col := c.columns[id]
		if !ok {
			continue
		}
		lower, upper, has := col.obs.bounds()
		if !has || checkBounds(col, lower, upper) != nil {
			continue
		}
		lower, upper, hasUpper := truncateBounds(col.typ, col.mode, lower, upper)
		m.LowerBounds[id] = lower
		if hasUpper {
			m.UpperBounds[id] = upper
		}
	}
	return m
}

func isTypeDefined(o format.ColumnOrder) bool {
	_, ok := o.Value.(*format.TypeDefinedOrder)
	return ok
}

// statValue decodes a min_value or max_value (PLAIN, without a length prefix
// for byte arrays) into the Go value data.Record uses for t, when the leaf's
// physical and logical types make that translation exact. A nil b is an
// absent statistic; an empty one is the empty string or binary: parquet-go's
// thrift decoder (v0.32.0, compactReader.ReadBytes) returns a non-nil slice
// for every field it reads, so the two stay apart.
func statValue(t iceberg.PrimitiveType, el *format.SchemaElement, b []byte, isMax bool) (any, bool) {
	phys := el.Type.V
	lt := el.LogicalType.Value
	if it, ok := lt.(*format.IntType); ok && !it.IsSigned {
		return nil, false // Iceberg has no unsigned integers
	}
	if b == nil {
		return nil, false
	}
	fixed := func(n int) bool { return len(b) == n }
	switch t := t.(type) {
	case iceberg.BooleanType:
		if phys == format.Boolean && fixed(1) {
			return b[0] != 0, true
		}
	case iceberg.Int32Type:
		if phys == format.Int32 && fixed(4) {
			return int32(binary.LittleEndian.Uint32(b)), true
		}
	case iceberg.Int64Type:
		switch {
		case phys == format.Int64 && fixed(8):
			return int64(binary.LittleEndian.Uint64(b)), true
		case phys == format.Int32 && fixed(4):
			return int64(int32(binary.LittleEndian.Uint32(b))), true
		}
	case iceberg.Float32Type:
		if phys == format.Float && fixed(4) {
			return floatBound(math.Float32frombits(binary.LittleEndian.Uint32(b)), isMax)
		}
	case iceberg.Float64Type:
		switch {
		case phys == format.Double && fixed(8):
			return floatBound(math.Float64frombits(binary.LittleEndian.Uint64(b)), isMax)
		case phys == format.Float && fixed(4):
			return floatBound(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), isMax)
		}
	case iceberg.DateType:
		if phys == format.Int32 && fixed(4) {
			return iceberg.Date(int32(binary.LittleEndian.Uint32(b))), true
		}
	case iceberg.TimeType:
		if phys == format.Int64 && fixed(8) && timeUnit(el) == "MICROS" {
			return iceberg.Time(int64(binary.LittleEndian.Uint64(b))), true
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		if phys == format.Int64 && fixed(8) && timeUnit(el) == "MICROS" {
			return iceberg.Timestamp(int64(binary.LittleEndian.Uint64(b))), true
		}
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if phys == format.Int64 && fixed(8) && timeUnit(el) == "NANOS" {
			return iceberg.TimestampNano(int64(binary.LittleEndian.Uint64(b))), true
		}
	case iceberg.StringType:
		if phys == format.ByteArray && utf8.Valid(b) {
			return string(b), true
		}
	case iceberg.BinaryType:
		if phys == format.ByteArray {
			return append([]byte{}, b...), true
		}
	case iceberg.FixedType:
		if phys == format.FixedLenByteArray && fixed(t.Len()) && t.Len() > 0 {
			return append([]byte{}, b...), true
		}
	case iceberg.UUIDType:
		if phys == format.FixedLenByteArray && fixed(16) {
			return uuid.UUID(b), true
		}
	case iceberg.DecimalType:
		return decimalStat(t, el, b)
	}
	return nil, false
}

// floatBound applies parquet-format's reading rule for float statistics
// (parquet.thrift, ColumnOrder): a NaN min or max says nothing, a min of +0
// may hide -0 values and a max of -0 may hide +0, so those widen to -0 and
// +0; Iceberg orders -0 below +0.
func floatBound[T float32 | float64](x T, isMax bool) (any, bool) {
	if x != x {
		return nil, false
	}
	if x == 0 {
		if isMax {
			x = 0
		} else {
			x = T(math.Copysign(0, -1))
		}
	}
	return x, true
}

// timeUnit is a TIME or TIMESTAMP leaf's unit, from its logical type or its
// legacy converted type; "" when it has neither.
func timeUnit(el *format.SchemaElement) string {
	switch lt := el.LogicalType.Value.(type) {
	case *format.TimestampType:
		return lt.Unit.String()
	case *format.TimeType:
		return lt.Unit.String()
	}
	if el.ConvertedType.Valid {
		switch el.ConvertedType.V {
		case deprecated.TimestampMicros, deprecated.TimeMicros:
			return "MICROS"
		}
	}
	return ""
}

// decimalStat reads a DECIMAL statistic at the leaf's scale: INT32 and
// INT64 little-endian, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY big-endian two's
// complement (LogicalTypes.md, DECIMAL). The observer rescales it to the
// column's scale.
func decimalStat(t iceberg.DecimalType, el *format.SchemaElement, b []byte) (any, bool) {
	scale := t.Scale()
	if dt, ok := el.LogicalType.Value.(*format.DecimalType); ok {
		scale = int(dt.Scale)
	} else if el.Scale.Valid {
		scale = int(el.Scale.V)
	}
	var unscaled int64
	switch el.Type.V {
	case format.Int32:
		if len(b) != 4 {
			return nil, false
		}
		unscaled = int64(int32(binary.LittleEndian.Uint32(b)))
	case format.Int64:
		if len(b) != 8 {
			return nil, false
		}
		unscaled = int64(binary.LittleEndian.Uint64(b))
	case format.FixedLenByteArray, format.ByteArray:
		n, err := data.DecimalFromBytes(b)
		if err != nil {
			return nil, false
		}
		return iceberg.Decimal{Val: n, Scale: scale}, true
	default:
		return nil, false
	}
	return iceberg.Decimal{Val: decimal128.FromI64(unscaled), Scale: scale}, true
}

// leafIndexes maps every leaf's path to its schema element's index.
func (s *footerSchema) leafIndexes() map[string]int {
	out := map[string]int{}
	s.walk(func(i int, path []string, leaf bool) {
		if leaf {
			out[pathKey(path)] = i
		}
	})
	return out
}
