package parquet

import (
	"math"
	"testing"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
)

// TestReadSetterMatchesConverter holds the unboxed read path to the boxed
// one: for every type with a typed setter, every promotion into it, and a
// value of the wrong physical kind, readSetter must leave in the record
// what readConverter returns, or the same error.
func TestReadSetterMatchesConverter(t *testing.T) {
	type pair struct {
		file format.Type
		typ  iceberg.Type // the file column's Iceberg type
		want iceberg.Type
	}
	pairs := []pair{
		{format.Boolean, iceberg.PrimitiveTypes.Bool, iceberg.PrimitiveTypes.Bool},
		{format.Int32, iceberg.PrimitiveTypes.Int32, iceberg.PrimitiveTypes.Int32},
		{format.Int64, iceberg.PrimitiveTypes.Int64, iceberg.PrimitiveTypes.Int64},
		{format.Int32, iceberg.PrimitiveTypes.Int32, iceberg.PrimitiveTypes.Int64}, // int → long
		{format.Float, iceberg.PrimitiveTypes.Float32, iceberg.PrimitiveTypes.Float32},
		{format.Double, iceberg.PrimitiveTypes.Float64, iceberg.PrimitiveTypes.Float64},
		{format.Float, iceberg.PrimitiveTypes.Float32, iceberg.PrimitiveTypes.Float64}, // float → double
		{format.ByteArray, iceberg.PrimitiveTypes.String, iceberg.PrimitiveTypes.String},
	}
	values := []pq.Value{
		pq.BooleanValue(true), pq.BooleanValue(false),
		pq.Int32Value(math.MinInt32), pq.Int32Value(-1), pq.Int32Value(math.MaxInt32),
		pq.Int64Value(math.MinInt64), pq.Int64Value(math.MaxInt64),
		pq.FloatValue(float32(math.NaN())), pq.FloatValue(float32(math.Copysign(0, -1))), pq.FloatValue(float32(math.Inf(-1))),
		pq.DoubleValue(math.NaN()), pq.DoubleValue(math.SmallestNonzeroFloat64), pq.DoubleValue(math.Inf(1)),
		pq.ByteArrayValue([]byte("Ωmega")), pq.ByteArrayValue([]byte{}),
		pq.FixedLenByteArrayValue([]byte{1, 2}),
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.PrimitiveTypes.String})
	for _, p := range pairs {
		info := leafInfo{typ: p.typ, physical: p.file, scale: 1}
		conv, err := readConverter(info, p.want)
		if err != nil {
			t.Fatal(err)
		}
		set := readSetter(info, p.want)
		if set == nil {
			t.Fatalf("%s read as %s: no typed setter", p.file, p.want)
		}
		for _, v := range values {
			want, wantErr := conv(v)
			rec := data.NewRecord(schema)
			gotErr := set(rec, 0, &v)
			switch {
			case (wantErr == nil) != (gotErr == nil):
				t.Errorf("%s as %s, %v: converter error %v, setter error %v", p.file, p.want, v, wantErr, gotErr)
			case wantErr != nil && wantErr.Error() != gotErr.Error():
				t.Errorf("%s as %s, %v: converter error %q, setter error %q", p.file, p.want, v, wantErr, gotErr)
			case wantErr == nil && !data.ValuesEqual(rec.Get(0), want):
				t.Errorf("%s as %s, %v: setter stored %#v, converter gives %#v", p.file, p.want, v, rec.Get(0), want)
			}
		}
	}
	// Types without a typed setter keep the converter.
	for _, typ := range []iceberg.Type{iceberg.PrimitiveTypes.Date, iceberg.PrimitiveTypes.Timestamp, iceberg.PrimitiveTypes.Binary, iceberg.PrimitiveTypes.UUID} {
		if readSetter(leafInfo{typ: typ, physical: format.Int64}, typ) != nil {
			t.Errorf("%s has a typed setter", typ)
		}
	}
}

// The setter copies strings: parquet-go reuses the page buffer a value's
// bytes lie in.
func TestReadSetterCopiesStrings(t *testing.T) {
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.PrimitiveTypes.String})
	set := readSetter(leafInfo{typ: iceberg.PrimitiveTypes.String, physical: format.ByteArray}, iceberg.PrimitiveTypes.String)
	buf := []byte("before")
	v := pq.ByteArrayValue(buf)
	rec := data.NewRecord(schema)
	if err := set(rec, 0, &v); err != nil {
		t.Fatal(err)
	}
	copy(buf, "AFTER!")
	if got, _ := rec.GetString(0); got != "before" {
		t.Errorf("string changed with the page buffer: %q", got)
	}
}
