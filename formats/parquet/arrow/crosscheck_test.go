package arrow

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// arrowCrossCheckCases are schemas and rows that cover every Iceberg
// primitive type, nulls, and nested struct, list and map values, including
// the edge values a second implementation is most likely to get wrong.
func arrowCrossCheckCases() []struct {
	name   string
	schema *iceberg.Schema
	rows   [][]any
} {
	prim := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "b", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 2, Name: "i", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 3, Name: "l", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 4, Name: "f", Type: iceberg.PrimitiveTypes.Float32},
		iceberg.NestedField{ID: 5, Name: "d", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 6, Name: "dec9", Type: iceberg.DecimalTypeOf(9, 2)},
		iceberg.NestedField{ID: 7, Name: "dec18", Type: iceberg.DecimalTypeOf(18, 4)},
		iceberg.NestedField{ID: 8, Name: "dec38", Type: iceberg.DecimalTypeOf(38, 10)},
		iceberg.NestedField{ID: 9, Name: "date", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 10, Name: "time", Type: iceberg.PrimitiveTypes.Time},
		iceberg.NestedField{ID: 11, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
		iceberg.NestedField{ID: 12, Name: "tstz", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 13, Name: "s", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 14, Name: "u", Type: iceberg.PrimitiveTypes.UUID},
		iceberg.NestedField{ID: 15, Name: "fx", Type: iceberg.FixedTypeOf(5)},
		iceberg.NestedField{ID: 16, Name: "bin", Type: iceberg.PrimitiveTypes.Binary},
	)
	dec := func(v int64, scale int) iceberg.Decimal {
		return iceberg.Decimal{Val: decimal128.FromI64(v), Scale: scale}
	}
	big, _ := decimal128.FromString("-1234567890123456789012345678.0123456789", 38, 10)
	u := uuid.MustParse("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	primRows := [][]any{
		{true, int32(math.MinInt32), int64(math.MinInt64), float32(math.Inf(-1)), math.NaN(),
			dec(-99999999, 2), dec(-999999999999999999, 4), iceberg.Decimal{Val: big, Scale: 10},
			iceberg.Date(-719162), iceberg.Time(0), iceberg.Timestamp(-62135596800000000), iceberg.Timestamp(0),
			"", u, []byte{0, 0, 0, 0, 0}, []byte{}},
		{false, int32(math.MaxInt32), int64(math.MaxInt64), float32(math.Copysign(0, -1)), math.MaxFloat64,
			dec(99999999, 2), dec(1, 4), dec(0, 10),
			iceberg.Date(2932896), iceberg.Time(86399999999), iceberg.Timestamp(253402300799999999), iceberg.Timestamp(1700000000123456),
			"héllo, wörld ✓", uuid.Nil, []byte{0xff, 1, 2, 3, 0xfe}, []byte{0, 1, 0}},
		{nil, nil, int64(0), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{true, int32(0), int64(-1), float32(math.NaN()), math.Copysign(0, -1),
			dec(1, 2), dec(-1, 4), dec(-1, 10),
			iceberg.Date(0), iceberg.Time(1), iceberg.Timestamp(-1), iceberg.Timestamp(-1),
			"\x00nul inside", u, []byte("abcde"), []byte("x")},
	}

	ns := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "ts_ns", Type: iceberg.PrimitiveTypes.TimestampNs},
		iceberg.NestedField{ID: 2, Name: "tstz_ns", Type: iceberg.PrimitiveTypes.TimestampTzNs, Required: true},
	)
	nsRows := [][]any{
		{iceberg.TimestampNano(math.MinInt64 + 1), iceberg.TimestampNano(0)},
		{nil, iceberg.TimestampNano(1700000000123456789)},
		{iceberg.TimestampNano(-1), iceberg.TimestampNano(math.MaxInt64)},
	}

	inner := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 11, Name: "a", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		{ID: 12, Name: "b", Type: iceberg.PrimitiveTypes.String},
	}}
	outer := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 13, Name: "inner", Type: inner},
		{ID: 14, Name: "n", Type: iceberg.PrimitiveTypes.Float64},
	}}
	elem := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 15, Name: "k", Type: iceberg.PrimitiveTypes.String, Required: true},
		{ID: 16, Name: "v", Type: iceberg.PrimitiveTypes.Int64},
	}}
	nested := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "st", Type: outer},
		iceberg.NestedField{ID: 3, Name: "ints", Type: &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Int32}},
		iceberg.NestedField{ID: 5, Name: "req_ints", Type: &iceberg.ListType{ElementID: 6, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}, Required: true},
		iceberg.NestedField{ID: 7, Name: "structs", Type: &iceberg.ListType{ElementID: 8, Element: elem}},
		iceberg.NestedField{ID: 9, Name: "m", Type: &iceberg.MapType{KeyID: 10, KeyType: iceberg.PrimitiveTypes.String,
			ValueID: 17, ValueType: iceberg.PrimitiveTypes.Int64}},
		iceberg.NestedField{ID: 18, Name: "m_lists", Type: &iceberg.MapType{KeyID: 19, KeyType: iceberg.PrimitiveTypes.Int32,
			ValueID: 20, ValueType: &iceberg.ListType{ElementID: 21, Element: iceberg.PrimitiveTypes.String}, ValueRequired: true}},
		iceberg.NestedField{ID: 22, Name: "lists", Type: &iceberg.ListType{ElementID: 23,
			Element: &iceberg.ListType{ElementID: 24, Element: iceberg.PrimitiveTypes.Int64}}},
	)
	rec := func(st *iceberg.StructType, vs ...any) *data.Record {
		r := data.NewStructRecord(st)
		for i, v := range vs {
			r.Set(i, v)
		}
		return r
	}
	nestedRows := [][]any{
		{int64(1), rec(outer, rec(inner, int32(1), "x"), 1.5), []any{int32(1), nil, int32(3)}, []any{int32(7)},
			[]any{rec(elem, "a", int64(1)), nil, rec(elem, "b", nil)},
			data.Map{{Key: "one", Value: int64(1)}, {Key: "none", Value: nil}},
			data.Map{{Key: int32(1), Value: []any{"p", nil}}, {Key: int32(2), Value: []any{}}},
			[]any{[]any{int64(1)}, nil, []any{}, []any{nil, int64(2)}}},
		{int64(2), nil, nil, []any{}, nil, nil, nil, nil},
		{int64(3), rec(outer, nil, nil), []any{}, []any{int32(1), int32(2)}, []any{}, data.Map{}, data.Map{}, []any{}},
		{int64(4), rec(outer, rec(inner, int32(-1), nil), nil), []any{nil}, []any{}, []any{nil},
			data.Map{{Key: "", Value: int64(0)}}, nil, []any{nil}},
	}
	return []struct {
		name   string
		schema *iceberg.Schema
		rows   [][]any
	}{
		{"primitives", prim, primRows},
		{"nanosecond timestamps", ns, nsRows},
		{"nested", nested, nestedRows},
	}
}

// TestArrowCrossCheckRecordFiles writes files with the (PARQUET, *data.Record)
// model and reads them with arrow-go: once through pqarrow directly, once
// through the (PARQUET, arrow.RecordBatch) model. Both must give back the
// records, value by value, and the ids must be on the arrow fields.
func TestArrowCrossCheckRecordFiles(t *testing.T) {
	if _, err := registry.ModelFor[*data.Record](registry.Default, registry.PARQUET); err != nil {
		t.Skipf("the *data.Record Parquet model is not registered yet: %v", err)
	}
	for _, tc := range arrowCrossCheckCases() {
		t.Run(tc.name, func(t *testing.T) {
			recs := make([]*data.Record, len(tc.rows))
			for i, vs := range tc.rows {
				recs[i] = data.Of(tc.schema, vs...)
			}
			path := arrowTempPath(t, "records.parquet")
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
			if err != nil {
				t.Fatal(err)
			}
			w, err := b.Schema(tc.schema).Build()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					t.Fatalf("record model write %s: %v", r, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatalf("record model close: %v", err)
			}

			t.Run("pqarrow", func(t *testing.T) {
				arrowEqualRecords(t, arrowReadWithPqarrow(t, path, tc.schema), recs)
			})
			t.Run("arrow model", func(t *testing.T) {
				rb, err := registry.NewReadBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalInput(path))
				if err != nil {
					t.Fatal(err)
				}
				r, err := rb.Project(tc.schema).RecordsPerBatch(3).Build()
				if err != nil {
					t.Fatal(err)
				}
				arrowEqualRecords(t, arrowReadAll(t, r, tc.schema), recs)
			})
		})
	}
}

// TestArrowCrossCheckArrowFiles is the other direction: files the arrow
// model writes read back through the *data.Record model. Plain arrow-go must read them back too.
func TestArrowCrossCheckArrowFiles(t *testing.T) {
	for _, tc := range arrowCrossCheckCases() {
		t.Run(tc.name, func(t *testing.T) {
			recs := make([]*data.Record, len(tc.rows))
			for i, vs := range tc.rows {
				recs[i] = data.Of(tc.schema, vs...)
			}
			batch := arrowBatchOf(t, tc.schema, recs...)
			defer batch.Release()
			path := arrowTempPath(t, "arrow.parquet")
			arrowWriteFile(t, path, tc.schema, nil, batch)
			arrowEqualRecords(t, arrowReadWithPqarrow(t, path, tc.schema), recs)

			if _, err := registry.ModelFor[*data.Record](registry.Default, registry.PARQUET); err != nil {
				t.Skipf("the *data.Record Parquet model is not registered yet: %v", err)
			}
			rb, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
			if err != nil {
				t.Fatal(err)
			}
			r, err := rb.Project(tc.schema).Build()
			if err != nil {
				t.Fatalf("record model open: %v", err)
			}
			defer r.Close()
			var got []*data.Record
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("record model read: %v", err)
				}
				got = append(got, rec.Copy())
			}
			arrowEqualRecords(t, got, recs)
		})
	}
}

// arrowReadWithPqarrow reads a whole file with plain arrow-go (no lab code
// between the bytes and the arrays), checks that every top-level arrow field
// carries the schema's field id, and converts the rows to records.
func arrowReadWithPqarrow(t *testing.T, path string, sc *iceberg.Schema) []*data.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		t.Fatalf("arrow-go cannot open %s: %v", path, err)
	}
	defer pf.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 3}, mem)
	if err != nil {
		t.Fatal(err)
	}
	asc, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if asc.NumFields() != sc.NumFields() {
		t.Fatalf("arrow-go sees %d fields (%s), want %d", asc.NumFields(), asc, sc.NumFields())
	}
	for i, want := range sc.Fields() {
		got := asc.Field(i)
		id, _ := got.Metadata.GetValue(arrowFieldIDKey)
		if got.Name != want.Name || id != strconv.Itoa(want.ID) || got.Nullable == want.Required {
			t.Errorf("arrow-go field %d: %s (id %s, nullable %t), want %s (id %d, required %t)",
				i, got.Name, id, got.Nullable, want.Name, want.ID, want.Required)
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []*data.Record
	for rr.Next() {
		out = append(out, arrowRecordsOf(t, sc, rr.RecordBatch())...)
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("arrow-go read: %v", err)
	}
	return out
}
