package parquet_test

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	lab "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

// allTypesSchema has every Iceberg type at the top level and nested inside
// structs, lists and maps.
func allTypesSchema() *iceberg.Schema {
	geo := structOf(opt(24, "lat", iceberg.PrimitiveTypes.Float64), opt(25, "lon", iceberg.PrimitiveTypes.Float64))
	address := structOf(opt(21, "street", iceberg.PrimitiveTypes.String), req(22, "zip", iceberg.PrimitiveTypes.Int32), opt(23, "geo", geo))
	person := structOf(req(36, "name", iceberg.PrimitiveTypes.String),
		opt(37, "phones", &iceberg.ListType{ElementID: 38, Element: iceberg.PrimitiveTypes.String}))
	inner := structOf(opt(42, "a", iceberg.PrimitiveTypes.Int32),
		opt(43, "m", &iceberg.MapType{KeyID: 44, KeyType: iceberg.PrimitiveTypes.Int32, ValueID: 45, ValueType: iceberg.PrimitiveTypes.String}))
	return iceberg.NewSchema(1,
		opt(1, "b", iceberg.PrimitiveTypes.Bool),
		opt(2, "i", iceberg.PrimitiveTypes.Int32),
		opt(3, "l", iceberg.PrimitiveTypes.Int64),
		opt(4, "f", iceberg.PrimitiveTypes.Float32),
		opt(5, "d", iceberg.PrimitiveTypes.Float64),
		opt(6, "date", iceberg.PrimitiveTypes.Date),
		opt(7, "time", iceberg.PrimitiveTypes.Time),
		opt(8, "ts", iceberg.PrimitiveTypes.Timestamp),
		opt(9, "tstz", iceberg.PrimitiveTypes.TimestampTz),
		opt(10, "tsns", iceberg.PrimitiveTypes.TimestampNs),
		opt(11, "tstzns", iceberg.PrimitiveTypes.TimestampTzNs),
		opt(12, "s", iceberg.PrimitiveTypes.String),
		opt(13, "u", iceberg.PrimitiveTypes.UUID),
		opt(14, "fx", iceberg.FixedTypeOf(3)),
		opt(15, "bin", iceberg.PrimitiveTypes.Binary),
		opt(16, "dec9", iceberg.DecimalTypeOf(9, 2)),
		opt(17, "dec18", iceberg.DecimalTypeOf(18, 4)),
		opt(18, "dec38", iceberg.DecimalTypeOf(38, 10)),
		req(19, "id", iceberg.PrimitiveTypes.Int64),
		opt(20, "address", address),
		opt(26, "tags", &iceberg.ListType{ElementID: 27, Element: iceberg.PrimitiveTypes.String}),
		opt(28, "props", &iceberg.MapType{KeyID: 29, KeyType: iceberg.PrimitiveTypes.String, ValueID: 30, ValueType: iceberg.PrimitiveTypes.Int64}),
		opt(31, "matrix", &iceberg.ListType{ElementID: 32, ElementRequired: true,
			Element: &iceberg.ListType{ElementID: 33, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}}),
		opt(34, "people", &iceberg.ListType{ElementID: 35, Element: person}),
		opt(39, "nested_map", &iceberg.MapType{KeyID: 40, KeyType: iceberg.PrimitiveTypes.String, ValueID: 41, ValueType: inner}),
		req(46, "req_list", &iceberg.ListType{ElementID: 47, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}),
	)
}

// allTypesRecords covers typical values, all nulls, empty containers, null
// elements and the extremes of every numeric type.
func allTypesRecords(t testing.TB, s *iceberg.Schema) []*data.Record {
	st := s.AsStruct()
	find := func(name string) iceberg.Type {
		f, ok := s.FindFieldByName(name)
		if !ok {
			t.Fatalf("no field %s", name)
		}
		return f.Type
	}
	address := find("address").(*iceberg.StructType)
	geo := address.FieldList[2].Type.(*iceberg.StructType)
	person := find("people").(*iceberg.ListType).Element.(*iceberg.StructType)
	inner := find("nested_map").(*iceberg.MapType).ValueType.(*iceberg.StructType)
	u := uuid.MustParse("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	negZero := math.Copysign(0, -1)
	return []*data.Record{
		rec(&st, true, int32(42), int64(-7), float32(1.5), 2.25, iceberg.Date(19000), iceberg.Time(3_600_000_000),
			iceberg.Timestamp(1_700_000_000_000_000), iceberg.Timestamp(-1), iceberg.TimestampNano(1_700_000_000_000_000_123), iceberg.TimestampNano(5),
			"héllo", u, []byte{1, 2, 3}, []byte("bin"),
			dec(t, "1234567.89", 9, 2), dec(t, "-12345678901234.5678", 18, 4), dec(t, "1234567890123456789012345678.0123456789", 38, 10),
			int64(1),
			rec(address, "Main St", int32(12345), rec(geo, 1.0, -2.0)),
			[]any{"a", nil, "c"},
			data.Map{{Key: "x", Value: int64(1)}, {Key: "y", Value: nil}},
			[]any{[]any{int32(1), int32(2)}, []any{}, []any{int32(3)}},
			[]any{rec(person, "ann", []any{"555", nil}), nil, rec(person, "bob", nil), rec(person, "cy", []any{})},
			data.Map{{Key: "k", Value: rec(inner, int32(7), data.Map{{Key: int32(1), Value: "one"}, {Key: int32(2), Value: nil}})}, {Key: "empty", Value: rec(inner, nil, data.Map{})}, {Key: "null", Value: nil}},
			[]any{int32(9)},
		),
		// Every optional value null.
		rec(&st, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
			int64(2), nil, nil, nil, nil, nil, nil, []any{}),
		// Empty containers, null struct members, maxima.
		rec(&st, false, int32(math.MaxInt32), int64(math.MaxInt64), float32(math.NaN()), math.Inf(1), iceberg.Date(0), iceberg.Time(0),
			iceberg.Timestamp(math.MaxInt64), iceberg.Timestamp(math.MinInt64), iceberg.TimestampNano(math.MaxInt64), iceberg.TimestampNano(math.MinInt64),
			"", uuid.UUID{}, []byte{0, 0, 0}, []byte{},
			dec(t, "9999999.99", 9, 2), dec(t, "99999999999999.9999", 18, 4), dec(t, "9999999999999999999999999999.9999999999", 38, 10),
			int64(math.MaxInt64),
			rec(address, nil, int32(0), nil),
			[]any{},
			data.Map{},
			[]any{},
			[]any{},
			data.Map{},
			[]any{int32(1), int32(2), int32(3)},
		),
		// Minima, negative zero and negative infinities.
		rec(&st, nil, int32(math.MinInt32), int64(math.MinInt64), float32(math.Inf(-1)), negZero, iceberg.Date(-1), iceberg.Time(86_399_999_999),
			nil, nil, nil, nil,
			"\x00nul", uuid.Max, []byte{0xff, 0xff, 0xff}, []byte{0},
			dec(t, "-9999999.99", 9, 2), dec(t, "-99999999999999.9999", 18, 4), dec(t, "-9999999999999999999999999999.9999999999", 38, 10),
			int64(math.MinInt64),
			rec(address, "", int32(-1), rec(geo, math.NaN(), negZero)),
			[]any{nil},
			data.Map{{Key: "", Value: int64(math.MinInt64)}},
			[]any{[]any{}},
			[]any{nil},
			data.Map{{Key: "n", Value: rec(inner, nil, nil)}},
			[]any{},
		),
		// Float32 extremes and the smallest 38-digit decimal step.
		rec(&st, true, int32(0), int64(0), float32(math.Copysign(0, -1)), math.NaN(), nil, nil, nil, nil, nil, nil,
			nil, nil, nil, nil,
			dec(t, "0.01", 9, 2), dec(t, "0.0001", 18, 4), iceberg.Decimal{Val: decimal128.FromI64(-1), Scale: 10},
			int64(0), nil, nil, nil, nil, nil, nil, []any{int32(math.MinInt32)}),
	}
}

func TestRecordRoundTripAllTypes(t *testing.T) {
	s := allTypesSchema()
	want := allTypesRecords(t, s)
	codecs := []string{"zstd", "snappy", "gzip", "lz4", "uncompressed"}
	for _, codec := range codecs {
		t.Run(codec, func(t *testing.T) {
			path := tempFile(t, "all.parquet")
			df := writeRecords(t, path, s, map[string]string{lab.PropCompressionCodec: codec}, want...)
			if df.Count() != int64(len(want)) {
				t.Errorf("record count %d, want %d", df.Count(), len(want))
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if df.FileSizeBytes() != st.Size() {
				t.Errorf("file size %d, want %d", df.FileSizeBytes(), st.Size())
			}
			if df.FileFormat() != iceberg.ParquetFile {
				t.Errorf("format %s", df.FileFormat())
			}
			got := readRecords(t, path, nil)
			assertRecords(t, got, want)
			// With a projection equal to the schema too, and small batches
			// so that values cross buffer refills.
			got = readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(s).RecordsPerBatch(3) })
			assertRecords(t, got, want)
		})
	}
}

func TestRecordRoundTripManyRowsAndGroups(t *testing.T) {
	s := iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "name", iceberg.PrimitiveTypes.String),
		opt(3, "vals", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Float64}),
	)
	st := s.AsStruct()
	var want []*data.Record
	for i := range 5000 {
		var name any
		if i%7 != 0 {
			name = "name-" + string(rune('a'+i%26))
		}
		vals := make([]any, i%5)
		for j := range vals {
			vals[j] = float64(i*10 + j)
		}
		if i%11 == 0 {
			vals = nil
		}
		var v any = vals
		if vals == nil {
			v = nil
		}
		want = append(want, rec(&st, int64(i), name, v))
	}
	path := tempFile(t, "many.parquet")
	df := writeRecords(t, path, s, map[string]string{lab.PropRowGroupRows: "700", lab.PropPageBytes: "1024"}, want...)
	if got := len(df.SplitOffsets()); got != 8 {
		t.Errorf("%d split offsets, want 8 row groups", got)
	}
	for _, batch := range []int{1, 7, 1024} {
		got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.RecordsPerBatch(batch) })
		assertRecords(t, got, want)
	}
}

func TestRecordReuseContainers(t *testing.T) {
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	st := s.AsStruct()
	path := tempFile(t, "reuse.parquet")
	writeRecords(t, path, s, nil, rec(&st, int64(1)), rec(&st, int64(2)))
	for _, reuse := range []bool{false, true} {
		b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
		if err != nil {
			t.Fatal(err)
		}
		if reuse {
			b.ReuseContainers()
		}
		r, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		first, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		second, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if same := first == second; same != reuse {
			t.Errorf("reuse=%v: same record returned twice = %v", reuse, same)
		}
		if second.Get(0) != int64(2) {
			t.Errorf("second record %s", second)
		}
		r.Close()
	}
}

func TestRecordModelsRegistered(t *testing.T) {
	for _, tc := range []struct {
		rowType reflect.Type
		name    string
	}{
		{reflect.TypeFor[*data.Record](), lab.RecordModelName},
		{reflect.TypeFor[data.PositionDelete](), lab.PositionDeleteModelName},
	} {
		m, err := registry.Default.Lookup(registry.PARQUET, tc.rowType)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != tc.name || m.Format() != registry.PARQUET {
			t.Errorf("model for %s: %s %s", tc.rowType, m.Name(), m.Format())
		}
	}
}

func TestRecordEmptyFile(t *testing.T) {
	s := allTypesSchema()
	path := tempFile(t, "empty.parquet")
	df := writeRecords(t, path, s, nil)
	if df.Count() != 0 || len(df.SplitOffsets()) != 0 {
		t.Errorf("count %d, split offsets %v", df.Count(), df.SplitOffsets())
	}
	if got := readRecords(t, path, nil); len(got) != 0 {
		t.Errorf("read %d records from an empty file", len(got))
	}
}

func TestRecordRowGroupSizeBytes(t *testing.T) {
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), req(2, "pad", iceberg.PrimitiveTypes.Binary))
	st := s.AsStruct()
	var recs []*data.Record
	for i := range 400 {
		recs = append(recs, rec(&st, int64(i), make([]byte, 1000)))
	}
	path := tempFile(t, "bytes.parquet")
	// About 1 KB per row uncompressed: a 50 KB limit makes several groups.
	df := writeRecords(t, path, s, map[string]string{lab.PropRowGroupBytes: "50000", lab.PropCompressionCodec: "uncompressed"}, recs...)
	if n := len(df.SplitOffsets()); n < 5 || n > 12 {
		t.Errorf("%d row groups for 400 KB with a 50 KB limit", n)
	}
	assertRecords(t, readRecords(t, path, nil), recs)
}

// TestRecordUnknownType: Iceberg's unknown type has no Parquet column, as in
// Iceberg Java; it reads back as null.
func TestRecordUnknownType(t *testing.T) {
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "u", iceberg.PrimitiveTypes.Unknown))
	st := s.AsStruct()
	path := tempFile(t, "unknown.parquet")
	writeRecords(t, path, s, nil, rec(&st, int64(1), nil))
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "u2.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec(&st, int64(1), "x")); err == nil || !strings.Contains(err.Error(), `column "u": type unknown holds only nulls`) {
		t.Errorf("non-null unknown: %v", err)
	}
	_ = w.Abort()
	got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(s) })
	assertRecords(t, got, []*data.Record{rec(&st, int64(1), nil)})
}

// TestRecordDeepNesting alternates lists, structs and maps eight levels deep.
func TestRecordDeepNesting(t *testing.T) {
	next := 100
	id := func() int { next++; return next }
	var typ iceberg.Type = iceberg.PrimitiveTypes.Int32
	var value func(i int) any = func(i int) any { return int32(i) }
	for level := range 8 {
		inner, innerValue := typ, value
		switch level % 3 {
		case 0:
			lt := &iceberg.ListType{ElementID: id(), Element: inner}
			typ = lt
			value = func(i int) any {
				if i%4 == 3 {
					return []any{}
				}
				return []any{innerValue(i), nil, innerValue(i + 1)}
			}
		case 1:
			st := structOf(opt(id(), "v", inner), req(id(), "n", iceberg.PrimitiveTypes.Int32))
			typ = st
			value = func(i int) any { return rec(st, innerValue(i), int32(i)) }
		case 2:
			mt := &iceberg.MapType{KeyID: id(), KeyType: iceberg.PrimitiveTypes.String, ValueID: id(), ValueType: inner}
			typ = mt
			value = func(i int) any {
				return data.Map{{Key: "a", Value: innerValue(i)}, {Key: "b", Value: nil}}
			}
		}
	}
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int32), opt(2, "deep", typ))
	st := s.AsStruct()
	var want []*data.Record
	for i := range 20 {
		var v any
		if i%5 != 4 {
			v = value(i)
		}
		want = append(want, rec(&st, int32(i), v))
	}
	path := tempFile(t, "deep.parquet")
	writeRecords(t, path, s, nil, want...)
	assertRecords(t, readRecords(t, path, nil), want)
}
