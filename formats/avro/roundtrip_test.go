package avro_test

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	"github.com/hamba/avro/v2/ocf"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

func TestRoundTripTypes(t *testing.T) {
	point := &iceberg.StructType{FieldList: []iceberg.NestedField{
		field(20, "x", iceberg.PrimitiveTypes.Float64, true),
		field(21, "label", iceberg.PrimitiveTypes.String, false),
	}}
	pointOf := func(x float64, label any) *data.Record {
		r := data.NewStructRecord(point)
		r.Set(0, x)
		r.Set(1, label)
		return r
	}
	keyStruct := &iceberg.StructType{FieldList: []iceberg.NestedField{field(30, "k", iceberg.PrimitiveTypes.Int32, true)}}
	keyOf := func(k int32) *data.Record {
		r := data.NewStructRecord(keyStruct)
		r.Set(0, k)
		return r
	}
	nested := &iceberg.ListType{ElementID: 40, ElementRequired: true, Element: &iceberg.MapType{
		KeyID: 41, KeyType: iceberg.PrimitiveTypes.String, ValueID: 42, ValueRequired: false,
		ValueType: &iceberg.ListType{ElementID: 43, Element: point, ElementRequired: false},
	}}
	big38 := strings.Repeat("9", 38)

	cases := []struct {
		name   string
		typ    iceberg.Type
		values []any
	}{
		{"boolean", iceberg.PrimitiveTypes.Bool, []any{true, false}},
		{"int", iceberg.PrimitiveTypes.Int32, []any{int32(0), int32(1), int32(-1), int32(math.MaxInt32), int32(math.MinInt32)}},
		{"long", iceberg.PrimitiveTypes.Int64, []any{int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64)}},
		{"float", iceberg.PrimitiveTypes.Float32, []any{float32(0), float32(math.Copysign(0, -1)), float32(1.5),
			float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}},
		{"double", iceberg.PrimitiveTypes.Float64, []any{0.0, math.Copysign(0, -1), -2.25, math.NaN(), math.Inf(1), math.Inf(-1),
			math.MaxFloat64, math.SmallestNonzeroFloat64}},
		{"decimal(9,2)", iceberg.DecimalTypeOf(9, 2), []any{dec(t, "0", 2), dec(t, "1234567", 2), dec(t, "999999999", 2), dec(t, "-999999999", 2)}},
		{"decimal(18,4)", iceberg.DecimalTypeOf(18, 4), []any{dec(t, "1", 4), dec(t, "999999999999999999", 4), dec(t, "-999999999999999999", 4)}},
		{"decimal(38,10)", iceberg.DecimalTypeOf(38, 10), []any{dec(t, big38, 10), dec(t, "-"+big38, 10),
			dec(t, "12345678901234567890123456789012345678", 10), dec(t, "-1", 10)}},
		{"date", iceberg.PrimitiveTypes.Date, []any{iceberg.Date(0), iceberg.Date(-719162), iceberg.Date(19700), iceberg.Date(math.MaxInt32)}},
		{"time", iceberg.PrimitiveTypes.Time, []any{iceberg.Time(0), iceberg.Time(86_399_999_999), iceberg.Time(45_296_789_012)}},
		{"timestamp", iceberg.PrimitiveTypes.Timestamp, []any{iceberg.Timestamp(0), iceberg.Timestamp(-1),
			iceberg.Timestamp(1_700_000_000_123_456), iceberg.Timestamp(math.MaxInt64), iceberg.Timestamp(math.MinInt64)}},
		{"timestamptz", iceberg.PrimitiveTypes.TimestampTz, []any{iceberg.Timestamp(1_700_000_000_123_456), iceberg.Timestamp(-62_135_596_800_000_000)}},
		{"timestamp_ns", iceberg.PrimitiveTypes.TimestampNs, []any{iceberg.TimestampNano(1_700_000_000_123_456_789), iceberg.TimestampNano(math.MinInt64)}},
		{"timestamptz_ns", iceberg.PrimitiveTypes.TimestampTzNs, []any{iceberg.TimestampNano(1), iceberg.TimestampNano(math.MaxInt64)}},
		{"string", iceberg.PrimitiveTypes.String, []any{"", "plain", "héllo wörld", "日本語 🎉", strings.Repeat("x", 70_000)}},
		{"uuid", iceberg.PrimitiveTypes.UUID, []any{uuid.MustParse("f79c3e09-677c-4bbd-a479-512f87f77acf"), uuid.Nil, uuid.Max}},
		{"fixed(3)", iceberg.FixedTypeOf(3), []any{[]byte{1, 2, 3}, []byte{0, 0, 0}, []byte{0xff, 0, 0x80}}},
		{"binary", iceberg.PrimitiveTypes.Binary, []any{[]byte{}, []byte{0, 0xff}, bytes.Repeat([]byte{7}, 100_000)}},
		{"struct", point, []any{pointOf(1.5, "a"), pointOf(math.NaN(), nil)}},
		{"list", &iceberg.ListType{ElementID: 50, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: false},
			[]any{[]any{}, []any{int32(1), nil, int32(math.MinInt32)}, []any{nil}}},
		{"list of required structs", &iceberg.ListType{ElementID: 51, Element: point, ElementRequired: true},
			[]any{[]any{}, []any{pointOf(1, "p"), pointOf(math.Inf(-1), nil)}}},
		{"map string keys", &iceberg.MapType{KeyID: 52, KeyType: iceberg.PrimitiveTypes.String, ValueID: 53,
			ValueType: iceberg.PrimitiveTypes.Int64, ValueRequired: false},
			[]any{data.Map{}, data.Map{{Key: "a", Value: int64(1)}, {Key: "", Value: nil}, {Key: "ü", Value: int64(math.MaxInt64)}}}},
		{"map int keys", &iceberg.MapType{KeyID: 54, KeyType: iceberg.PrimitiveTypes.Int32, ValueID: 55,
			ValueType: iceberg.PrimitiveTypes.String, ValueRequired: false},
			[]any{data.Map{}, data.Map{{Key: int32(3), Value: "three"}, {Key: int32(-1), Value: nil}}}},
		{"map struct keys required values", &iceberg.MapType{KeyID: 56, KeyType: keyStruct, ValueID: 57,
			ValueType: iceberg.PrimitiveTypes.Binary, ValueRequired: true},
			[]any{data.Map{{Key: keyOf(1), Value: []byte("v1")}, {Key: keyOf(2), Value: []byte{}}}}},
		{"nested", nested, []any{
			[]any{},
			[]any{data.Map{}},
			[]any{data.Map{{Key: "k", Value: []any{pointOf(2, "two"), nil}}, {Key: "empty", Value: []any{}}, {Key: "null", Value: nil}}},
		}},
		{"unknown", iceberg.PrimitiveTypes.Unknown, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, unknown := tc.typ.(iceberg.UnknownType)
			_, primitive := tc.typ.(iceberg.PrimitiveType)
			// A nested type's ids may appear once in a schema, so nested
			// types get the optional column only.
			withRequired := primitive && !unknown
			fields := []iceberg.NestedField{field(1, "id", iceberg.PrimitiveTypes.Int32, true)}
			if withRequired {
				fields = append(fields, field(2, "req", tc.typ, true))
			}
			fields = append(fields, field(3, "opt", tc.typ, false))
			schema := iceberg.NewSchema(0, fields...)
			var rows []*data.Record
			row := func(vals ...any) {
				rows = append(rows, data.Of(schema, append([]any{int32(len(rows))}, vals...)...))
			}
			for _, v := range tc.values {
				if withRequired {
					row(v, v)
				} else {
					row(v)
				}
			}
			if withRequired {
				row(tc.values[0], nil)
			} else {
				row(nil)
			}
			path := tempPath(t, "types.avro")
			df := writeRecords(t, path, schema, rows, nil)
			if df.Count() != int64(len(rows)) {
				t.Errorf("DataFile.Count() = %d, want %d", df.Count(), len(rows))
			}
			if df.FileFormat() != iceberg.AvroFile {
				t.Errorf("DataFile.FileFormat() = %s, want AVRO", df.FileFormat())
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if df.FileSizeBytes() != st.Size() {
				t.Errorf("DataFile.FileSizeBytes() = %d, file is %d bytes", df.FileSizeBytes(), st.Size())
			}
			if df.ColumnSizes() != nil || df.LowerBoundValues() != nil {
				t.Errorf("Avro DataFile carries column metrics; Iceberg's Avro appender reports the row count only")
			}
			assertRows(t, mustRead(t, path, nil), rows)
			assertRows(t, mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(schema) }), rows)
			assertIndependentReader(t, path, len(rows))
		})
	}
}

// assertIndependentReader decodes the file with hamba's own OCF decoder, a
// second implementation, to show the bytes are plain Avro.
func assertIndependentReader(t *testing.T, path string, wantRows int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		t.Fatalf("hamba decoder: %v", err)
	}
	n := 0
	for dec.HasNext() {
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("hamba decode row %d: %v", n, err)
		}
		n++
	}
	if err := dec.Error(); err != nil {
		t.Fatalf("hamba decoder: %v", err)
	}
	if n != wantRows {
		t.Errorf("hamba decoded %d rows, want %d", n, wantRows)
	}
}

func TestCodecs(t *testing.T) {
	schema := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true), field(2, "s", iceberg.PrimitiveTypes.String, false))
	var rows []*data.Record
	for i := range 3000 {
		rows = append(rows, data.Of(schema, int64(i), strings.Repeat("abc", i%50)))
	}
	cases := []struct {
		props     map[string]string
		wantCodec string
	}{
		{nil, "deflate"}, // Iceberg's default, gzip
		{map[string]string{"write.avro.compression-codec": "uncompressed"}, "null"},
		{map[string]string{"write.avro.compression-codec": "SNAPPY"}, "snappy"},
		{map[string]string{"write.avro.compression-codec": "gzip", "write.avro.compression-level": "1"}, "deflate"},
		{map[string]string{"write.avro.compression-codec": "zstd"}, "zstandard"},
		{map[string]string{"write.avro.compression-codec": "zstd", "write.avro.compression-level": "9"}, "zstandard"},
	}
	for _, tc := range cases {
		t.Run(tc.wantCodec+"/"+tc.props["write.avro.compression-level"], func(t *testing.T) {
			path := tempPath(t, "codec.avro")
			writeRecords(t, path, schema, rows, tc.props)
			assertRows(t, mustRead(t, path, nil), rows)
			meta := metadata(t, path)
			if meta["avro.codec"] != tc.wantCodec {
				t.Errorf("avro.codec = %q, want %q", meta["avro.codec"], tc.wantCodec)
			}
			assertIndependentReader(t, path, len(rows))
		})
	}
}

func TestReuseContainers(t *testing.T) {
	inner := &iceberg.StructType{FieldList: []iceberg.NestedField{field(3, "n", iceberg.PrimitiveTypes.Int32, true)}}
	schema := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "s", inner, false),
		field(4, "l", &iceberg.ListType{ElementID: 5, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}, false))
	var rows []*data.Record
	for i := range 5 {
		s := data.NewStructRecord(inner)
		s.Set(0, int32(i*10))
		rows = append(rows, data.Of(schema, int64(i), s, []any{strings.Repeat("z", i)}))
	}
	rows = append(rows, data.Of(schema, int64(5), nil, nil))
	path := tempPath(t, "reuse.avro")
	writeRecords(t, path, schema, rows, nil)

	b, err := registry.NewReadBuilder[*data.Record](registry.AVRO, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.ReuseContainers().Build()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var first *data.Record
	for i, want := range rows {
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if got != first {
			t.Errorf("row %d: reader returned a new record despite ReuseContainers", i)
		}
		if !got.Equal(want) {
			t.Errorf("row %d: got %s, want %s", i, got, want)
		}
	}
}

func metadata(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		t.Fatalf("hamba decoder: %v", err)
	}
	out := map[string]string{}
	for k, v := range dec.Metadata() {
		out[k] = string(v)
	}
	return out
}
