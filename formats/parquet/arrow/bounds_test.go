package arrow

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	labpq "github.com/coltype-lab/lab/formats/parquet"
)

// boundsSchema has a column of every primitive type with bounds.
func boundsSchema() *iceberg.Schema {
	fields := []iceberg.Type{
		iceberg.PrimitiveTypes.Bool, iceberg.PrimitiveTypes.Int32, iceberg.PrimitiveTypes.Int64,
		iceberg.PrimitiveTypes.Float32, iceberg.PrimitiveTypes.Float64, iceberg.PrimitiveTypes.Date,
		iceberg.PrimitiveTypes.Time, iceberg.PrimitiveTypes.Timestamp, iceberg.PrimitiveTypes.TimestampTz,
		iceberg.PrimitiveTypes.String, iceberg.PrimitiveTypes.Binary, iceberg.FixedTypeOf(3),
		iceberg.PrimitiveTypes.UUID, iceberg.DecimalTypeOf(9, 2), iceberg.DecimalTypeOf(38, 10),
	}
	var nf []iceberg.NestedField
	for i, t := range fields {
		nf = append(nf, iceberg.NestedField{ID: i + 1, Name: "c" + string(rune('a'+i)), Type: t})
	}
	return iceberg.NewSchema(0, nf...)
}

func boundsRecords(sc *iceberg.Schema) []*data.Record {
	d := func(v int64, scale int) iceberg.Decimal {
		return iceberg.Decimal{Val: decimal128.FromI64(v), Scale: scale}
	}
	long := strings.Repeat("z", 40) // truncate(16) shortens both bounds
	rows := [][]any{
		{true, int32(-5), int64(1 << 40), float32(0), math.Copysign(0, -1), iceberg.Date(10), iceberg.Time(5), iceberg.Timestamp(-3), iceberg.Timestamp(7),
			"apple", []byte{9, 9}, []byte{1, 2, 3}, uuid.UUID{15: 1}, d(-12345, 2), d(1, 10)},
		{false, int32(7), int64(-2), float32(-1.5), 2.25, iceberg.Date(-4), iceberg.Time(86399999999), iceberg.Timestamp(1e15), iceberg.Timestamp(-9),
			long, []byte{}, []byte{0, 0, 0}, uuid.UUID{0: 0xff}, d(99, 2), d(-7, 10)},
		{true, int32(3), int64(0), float32(3), -1.0, iceberg.Date(0), iceberg.Time(0), iceberg.Timestamp(0), iceberg.Timestamp(0),
			"", []byte{0xff}, []byte{7, 7, 7}, uuid.UUID{}, d(0, 2), d(123456789, 10)},
	}
	// Row groups of two rows: the second holds only nulls, which have no
	// statistics to bound and must not cost the other groups their bounds.
	nulls := make([]any, len(rows[0]))
	rows = append(rows[:2:2], nulls, nulls, rows[2])
	out := make([]*data.Record, len(rows))
	for i, r := range rows {
		out[i] = data.Of(sc, r...)
	}
	return out
}

// The arrow model derives bounds from the footer's statistics; the record
// model observes the values. On the same rows, in several row groups, both
// must give the same bounds for every column.
func TestArrowBoundsMatchTheRecordModel(t *testing.T) {
	sc := boundsSchema()
	recs := boundsRecords(sc)
	props := map[string]string{labpq.PropRowGroupRows: "2"}

	arrowCheckedMem(t)
	batch := arrowBatchOf(t, sc, recs...)
	defer batch.Release()
	got := arrowWriteFile(t, arrowTempPath(t, "arrow.parquet"), sc, props, batch)

	want := recordWriteFile(t, arrowTempPath(t, "rec.parquet"), sc, props, recs...)

	for _, f := range sc.Fields() {
		for _, side := range []struct {
			name      string
			got, want map[int][]byte
		}{{"lower", got.LowerBoundValues(), want.LowerBoundValues()}, {"upper", got.UpperBoundValues(), want.UpperBoundValues()}} {
			g, gok := side.got[f.ID]
			w, wok := side.want[f.ID]
			if gok != wok || !bytes.Equal(g, w) {
				t.Errorf("field %d (%s, %s) %s bound: arrow model %x (%v), record model %x (%v)", f.ID, f.Name, f.Type, side.name, g, gok, w, wok)
			}
		}
	}
	if n := len(got.LowerBoundValues()); n != len(sc.Fields()) {
		t.Errorf("arrow model wrote lower bounds for %d of %d columns", n, len(sc.Fields()))
	}
	if len(got.NaNValueCounts()) != 0 {
		t.Errorf("arrow model reported NaN counts %v it cannot know", got.NaNValueCounts())
	}
}
