package arrow

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// arrowBatchOf builds a batch of the schema's arrow form from records.
func arrowBatchOf(t testing.TB, sc *iceberg.Schema, recs ...*data.Record) arrow.RecordBatch {
	t.Helper()
	asc, err := table.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		t.Fatalf("arrow schema: %v", err)
	}
	b := array.NewRecordBuilder(arrowMem, asc)
	defer b.Release()
	for r, rec := range recs {
		for i := range asc.NumFields() {
			if err := arrowAppendValue(b.Field(i), rec.Get(i)); err != nil {
				t.Fatalf("record %d field %s: %v", r, asc.Field(i).Name, err)
			}
		}
	}
	return b.NewRecordBatch()
}

// arrowRecordsOf converts a batch back into records of the Iceberg schema,
// matching columns by position. Each value is converted by its Iceberg type
// into data.Record's Go types, so the result compares with ValuesEqual.
func arrowRecordsOf(t testing.TB, sc *iceberg.Schema, batch arrow.RecordBatch) []*data.Record {
	t.Helper()
	if int(batch.NumCols()) != sc.NumFields() {
		t.Fatalf("batch has %d columns, schema %d: %s", batch.NumCols(), sc.NumFields(), batch.Schema())
	}
	out := make([]*data.Record, batch.NumRows())
	for r := range out {
		rec := data.NewRecord(sc)
		for i, f := range sc.Fields() {
			v, err := arrowGoValue(batch.Column(i), r, f.Type)
			if err != nil {
				t.Fatalf("row %d field %s (id %d): %v", r, f.Name, f.ID, err)
			}
			rec.Set(i, v)
		}
		out[r] = rec
	}
	return out
}

// arrowGoValue is slot i of arr as a data.Record value of Iceberg type typ.
func arrowGoValue(arr arrow.Array, i int, typ iceberg.Type) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	wrong := func() (any, error) {
		return nil, fmt.Errorf("arrow array %s cannot hold Iceberg %s", arr.DataType(), typ)
	}
	switch tt := typ.(type) {
	case iceberg.BooleanType:
		if a, ok := arr.(*array.Boolean); ok {
			return a.Value(i), nil
		}
	case iceberg.Int32Type:
		if a, ok := arr.(*array.Int32); ok {
			return a.Value(i), nil
		}
	case iceberg.Int64Type:
		if a, ok := arr.(*array.Int64); ok {
			return a.Value(i), nil
		}
	case iceberg.Float32Type:
		if a, ok := arr.(*array.Float32); ok {
			return a.Value(i), nil
		}
	case iceberg.Float64Type:
		if a, ok := arr.(*array.Float64); ok {
			return a.Value(i), nil
		}
	case iceberg.DecimalType:
		if a, ok := arr.(*array.Decimal128); ok && int(a.DataType().(*arrow.Decimal128Type).Scale) == tt.Scale() {
			return iceberg.Decimal{Val: a.Value(i), Scale: tt.Scale()}, nil
		}
	case iceberg.DateType:
		if a, ok := arr.(*array.Date32); ok {
			return iceberg.Date(a.Value(i)), nil
		}
	case iceberg.TimeType:
		if a, ok := arr.(*array.Time64); ok && a.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			return iceberg.Time(a.Value(i)), nil
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		if a, ok := arr.(*array.Timestamp); ok && arrowTZMatches(a, typ) && a.DataType().(*arrow.TimestampType).Unit == arrow.Microsecond {
			return iceberg.Timestamp(a.Value(i)), nil
		}
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if a, ok := arr.(*array.Timestamp); ok && arrowTZMatches(a, typ) && a.DataType().(*arrow.TimestampType).Unit == arrow.Nanosecond {
			return iceberg.TimestampNano(a.Value(i)), nil
		}
	case iceberg.StringType:
		if a, ok := arr.(*array.String); ok {
			return a.Value(i), nil
		}
	case iceberg.UUIDType:
		switch a := arr.(type) {
		case *extensions.UUIDArray:
			return a.Value(i), nil
		case *array.FixedSizeBinary:
			return uuid.FromBytes(a.Value(i))
		}
	case iceberg.FixedType:
		if a, ok := arr.(*array.FixedSizeBinary); ok && len(a.Value(i)) == tt.Len() {
			return append([]byte{}, a.Value(i)...), nil
		}
	case iceberg.BinaryType:
		if a, ok := arr.(*array.Binary); ok {
			return append([]byte{}, a.Value(i)...), nil
		}
	case *iceberg.StructType:
		a, ok := arr.(*array.Struct)
		if !ok || a.NumField() != len(tt.FieldList) {
			return wrong()
		}
		rec := data.NewStructRecord(tt)
		for j, f := range tt.FieldList {
			v, err := arrowGoValue(a.Field(j), i, f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			rec.Set(j, v)
		}
		return rec, nil
	case *iceberg.ListType:
		a, ok := arr.(*array.List)
		if !ok {
			return wrong()
		}
		s, e := a.ValueOffsets(i)
		out := make([]any, 0, e-s)
		for k := s; k < e; k++ {
			v, err := arrowGoValue(a.ListValues(), int(k), tt.Element)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", k-s, err)
			}
			out = append(out, v)
		}
		return out, nil
	case *iceberg.MapType:
		a, ok := arr.(*array.Map)
		if !ok {
			return wrong()
		}
		s, e := a.ValueOffsets(i)
		out := make(data.Map, 0, e-s)
		for k := s; k < e; k++ {
			key, err := arrowGoValue(a.Keys(), int(k), tt.KeyType)
			if err != nil {
				return nil, fmt.Errorf("key %d: %w", k-s, err)
			}
			val, err := arrowGoValue(a.Items(), int(k), tt.ValueType)
			if err != nil {
				return nil, fmt.Errorf("value %d: %w", k-s, err)
			}
			out = append(out, data.MapEntry{Key: key, Value: val})
		}
		return out, nil
	}
	return wrong()
}

// arrowTZMatches: Iceberg's tz variants are UTC-adjusted, the others are not.
func arrowTZMatches(a *array.Timestamp, typ iceberg.Type) bool {
	tz := a.DataType().(*arrow.TimestampType).TimeZone
	switch typ.(type) {
	case iceberg.TimestampTzType, iceberg.TimestampTzNsType:
		return tz == "UTC" || tz == "+00:00"
	default:
		return tz == ""
	}
}

// arrowReadAll reads every batch of a (PARQUET, arrow.RecordBatch) reader
// into records of sc, releasing each batch.
func arrowReadAll(t testing.TB, rd registry.Reader[arrow.RecordBatch], sc *iceberg.Schema) []*data.Record {
	t.Helper()
	defer rd.Close()
	var out []*data.Record
	for {
		b, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		out = append(out, arrowRecordsOf(t, sc, b)...)
		b.Release()
	}
}

// arrowWriteFile writes batches through the registry's data writer and
// returns the DataFile's location and metrics holder.
func arrowWriteFile(t testing.TB, path string, sc *iceberg.Schema, props map[string]string, batches ...arrow.RecordBatch) iceberg.DataFile {
	t.Helper()
	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).SetAll(props).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range batches {
		if err := w.Write(batch); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return w.DataFile()
}

// recordWriteFile writes recs with the record model, the arrow model's
// reference in these tests, and returns its DataFile.
func recordWriteFile(t testing.TB, path string, sc *iceberg.Schema, props map[string]string, recs ...*data.Record) iceberg.DataFile {
	t.Helper()
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).SetAll(props).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.DataFile()
}

// arrowEqualRecords reports the first difference between two record lists.
func arrowEqualRecords(t testing.TB, got, want []*data.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("row %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

func arrowTempPath(t testing.TB, name string) string {
	return filepath.Join(t.TempDir(), name)
}
