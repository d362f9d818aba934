package colmetrics

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/registry"
)

// parquetValue is the Parquet value a writer stores for a record value of
// a flat column (nil is null), as formats/parquet's converters build it.
func parquetValue(t *testing.T, v any) parquet.Value {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return parquet.Value{}
	case bool:
		return parquet.BooleanValue(x)
	case int32:
		return parquet.Int32Value(x)
	case int64:
		return parquet.Int64Value(x)
	case float32:
		return parquet.FloatValue(x)
	case float64:
		return parquet.DoubleValue(x)
	case iceberg.Date:
		return parquet.Int32Value(int32(x))
	case iceberg.Time:
		return parquet.Int64Value(int64(x))
	case iceberg.Timestamp:
		return parquet.Int64Value(int64(x))
	case iceberg.TimestampNano:
		return parquet.Int64Value(int64(x))
	case string:
		return parquet.ByteArrayValue([]byte(x))
	case []byte:
		return parquet.ByteArrayValue(x)
	case uuid.UUID:
		return parquet.FixedLenByteArrayValue(x[:])
	}
	t.Fatalf("no Parquet value for %T", v)
	return parquet.Value{}
}

// TestObserveValuesMatchesAdd feeds the same values to one collector as
// records (Add) and to another as Parquet column batches (ObserveValues),
// and requires the same metrics, under every mode, with nulls, NaN, signed
// zeros, infinities and the extremes of every type.
func TestObserveValuesMatchesAdd(t *testing.T) {
	nan32, nan64 := float32(math.NaN()), math.NaN()
	negZero64 := math.Copysign(0, -1)
	u1 := uuid.MustParse("00000000-0000-0000-0000-000000000001")
	u2 := uuid.MustParse("ffffffff-0000-0000-0000-000000000000")
	u3 := uuid.MustParse("80000000-0000-0000-0000-000000000000")
	columns := []struct {
		typ    iceberg.Type
		values []any // one per row; nil is null
	}{
		{iceberg.PrimitiveTypes.Bool, []any{true, nil, true, false}},
		{iceberg.PrimitiveTypes.Bool, []any{true, nil, true, true}},
		{iceberg.PrimitiveTypes.Int32, []any{int32(0), int32(math.MinInt32), nil, int32(math.MaxInt32)}},
		{iceberg.PrimitiveTypes.Int64, []any{int64(-1), nil, int64(math.MaxInt64), int64(math.MinInt64)}},
		{iceberg.PrimitiveTypes.Float32, []any{nan32, float32(0), negZero32, float32(math.Inf(-1))}},
		{iceberg.PrimitiveTypes.Float32, []any{nan32, nil, nan32, nan32}},
		{iceberg.PrimitiveTypes.Float64, []any{float64(0), negZero64, nan64, math.MaxFloat64}},
		{iceberg.PrimitiveTypes.Float64, []any{math.Inf(1), -math.SmallestNonzeroFloat64, nil, nan64}},
		{iceberg.PrimitiveTypes.Date, []any{iceberg.Date(-719162), nil, iceberg.Date(2932896), iceberg.Date(0)}},
		{iceberg.PrimitiveTypes.Time, []any{iceberg.Time(86_399_999_999), iceberg.Time(0), nil, iceberg.Time(1)}},
		{iceberg.PrimitiveTypes.Timestamp, []any{iceberg.Timestamp(math.MinInt64), nil, iceberg.Timestamp(-1), iceberg.Timestamp(1)}},
		{iceberg.PrimitiveTypes.TimestampTz, []any{iceberg.Timestamp(5), iceberg.Timestamp(math.MaxInt64), nil, nil}},
		{iceberg.PrimitiveTypes.TimestampNs, []any{iceberg.TimestampNano(math.MaxInt64), iceberg.TimestampNano(-5), nil, nil}},
		{iceberg.PrimitiveTypes.String, []any{"héllo wörld, a long string", "", nil, "\U0010ffff\U0010ffff tail"}},
		{iceberg.PrimitiveTypes.String, []any{"zz", "z", "日本語のテキスト", nil}},
		{iceberg.PrimitiveTypes.Binary, []any{[]byte{0xff, 0xff}, []byte{}, []byte{0x00}, nil}},
		{iceberg.FixedTypeOf(3), []any{[]byte{1, 2, 3}, []byte{0xff, 0, 0}, nil, []byte{0, 0, 0}}},
		{iceberg.PrimitiveTypes.UUID, []any{u2, u1, nil, u3}},
		{iceberg.PrimitiveTypes.Int64, []any{nil, nil, nil, nil}},
	}
	var fields []iceberg.NestedField
	for i, c := range columns {
		fields = append(fields, opt(i+1, "c"+string(rune('a'+i)), c.typ))
	}
	schema := iceberg.NewSchema(0, fields...)
	st := schema.AsStruct()
	rows := len(columns[0].values)

	modes := map[string]registry.MetricsMode{
		"full":        {Kind: registry.MetricsFull},
		"truncate(2)": {Kind: registry.MetricsTruncate, Length: 2},
		"counts":      {Kind: registry.MetricsCounts},
		"none":        {Kind: registry.MetricsNone},
	}
	for name, mode := range modes {
		// Each batch size splits the rows differently, so the observers
		// carry their state across batches.
		for _, batch := range []int{1, 3, rows} {
			t.Run(fmt.Sprintf("%s/batch%d", name, batch), func(t *testing.T) {
				cfg := registry.MetricsConfig{Default: mode}
				byRecord, err := NewCollector(schema, cfg)
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < rows; r++ {
					values := make([]any, len(columns))
					for i, c := range columns {
						values[i] = c.values[r]
					}
					byRecord.Add(record(&st, values...))
				}

				byColumn, err := NewCollector(schema, cfg)
				if err != nil {
					t.Fatal(err)
				}
				for i := range columns {
					if !byColumn.Columnar(i + 1) {
						t.Fatalf("Columnar(%d) = false for a top-level %s", i+1, columns[i].typ)
					}
				}
				if byColumn.NeedsRecords() {
					t.Fatal("NeedsRecords after every field went columnar")
				}
				for start := 0; start < rows; start += batch {
					end := min(start+batch, rows)
					for i, c := range columns {
						var vals []parquet.Value
						for _, v := range c.values[start:end] {
							vals = append(vals, parquetValue(t, v))
						}
						byColumn.ObserveValues(i+1, vals)
					}
				}

				want, got := byRecord.Metrics(nil), byColumn.Metrics(nil)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("batch %d:\ncolumnar:  %+v\nby record: %+v", batch, got, want)
				}
				if byRecord.Err() != nil || byColumn.Err() != nil {
					t.Errorf("errors: by record %v, columnar %v", byRecord.Err(), byColumn.Err())
				}
				if name == "full" && len(want.LowerBounds) == 0 {
					t.Fatal("full mode kept no bounds: the comparison would prove nothing")
				}
			})
		}
	}
}

// TestColumnar covers which fields Columnar takes and what it leaves to Add.
func TestColumnar(t *testing.T) {
	point := &iceberg.StructType{FieldList: []iceberg.NestedField{opt(11, "x", iceberg.PrimitiveTypes.Int64)}}
	schema := iceberg.NewSchema(0,
		opt(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "amount", iceberg.DecimalTypeOf(9, 2)),
		opt(3, "point", point),
		opt(4, "tags", &iceberg.ListType{ElementID: 41, Element: iceberg.PrimitiveTypes.String}),
		opt(5, "note", iceberg.PrimitiveTypes.String),
	)
	cfg := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull},
		Columns: map[string]registry.MetricsMode{"note": {Kind: registry.MetricsCounts}}}
	c, err := NewCollector(schema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   int
		want bool
		why  string
	}{
		{1, true, "top-level long"},
		{1, true, "taking a field twice"},
		{2, false, "decimals order as numbers, not as their bytes"},
		{3, false, "a struct is not a flat column"},
		{11, false, "a struct's field is not top-level"},
		{41, false, "a list element is not top-level"},
		{5, true, "counts only: nothing to observe"},
		{99, false, "no such field"},
	} {
		if got := c.Columnar(tc.id); got != tc.want {
			t.Errorf("Columnar(%d) = %t, want %t (%s)", tc.id, got, tc.want, tc.why)
		}
	}
	if !c.NeedsRecords() {
		t.Fatal("NeedsRecords = false, but the decimal and nested fields are observed from records")
	}

	// Add now skips the long, whose values come from ObserveValues.
	st := schema.AsStruct()
	c.Add(record(&st, int64(100), dec(12345, 2), record(point, int64(7)), []any{"b", "a"}, "x"))
	c.ObserveValues(1, []parquet.Value{parquet.Int64Value(-3), {}, parquet.Int64Value(4)})
	c.ObserveValues(2, []parquet.Value{parquet.Int32Value(1)}) // not columnar: ignored
	m := c.Metrics(nil)
	if got := m.LowerBounds[1]; !reflect.DeepEqual(got, le64(-3)) {
		t.Errorf("lower bound of id = %x, want %x (from the batch only)", got, le64(-3))
	}
	if got := m.UpperBounds[1]; !reflect.DeepEqual(got, le64(4)) {
		t.Errorf("upper bound of id = %x, want %x", got, le64(4))
	}
	if got, want := m.LowerBounds[2], []byte{0x30, 0x39}; !reflect.DeepEqual(got, want) {
		t.Errorf("lower bound of amount = %x, want %x (from the record)", got, want)
	}
	if got := m.LowerBounds[11]; !reflect.DeepEqual(got, le64(7)) {
		t.Errorf("lower bound of point.x = %x, want %x", got, le64(7))
	}
	if _, ok := m.LowerBounds[5]; ok {
		t.Error("counts mode kept a bound")
	}
}

// TestObserveValuesBadUUID drops the bounds of a column given a value no
// UUID column holds, and says why.
func TestObserveValuesBadUUID(t *testing.T) {
	schema := iceberg.NewSchema(0, opt(1, "u", iceberg.PrimitiveTypes.UUID))
	c, err := NewCollector(schema, registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}})
	if err != nil {
		t.Fatal(err)
	}
	c.Columnar(1)
	c.ObserveValues(1, []parquet.Value{parquet.FixedLenByteArrayValue([]byte{1, 2, 3})})
	if _, ok := c.Metrics(nil).LowerBounds[1]; ok {
		t.Error("kept a bound from a 3-byte uuid")
	}
	if c.Err() == nil {
		t.Error("Err = nil after a 3-byte uuid")
	}
}

func le64(v int64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(uint64(v) >> (8 * i))
	}
	return b
}
