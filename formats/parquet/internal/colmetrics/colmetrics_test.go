package colmetrics

import (
	"bytes"
	"encoding/hex"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// h decodes hex written with optional spaces: h("fe ff ff ff").
func h(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

var negZero32 = float32(math.Copysign(0, -1))

// writeFooter writes rows with parquet-go, opens the file and returns its footer.
func writeFooter[T any](t *testing.T, rows []T, opts ...parquet.WriterOption) *format.FileMetaData {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatalf("write rows: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close writer: %v", err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("open file: %v", err)
	}
	return f.Metadata()
}

// expected is a test's hand-computed metrics. Column sizes are checked
// against the footer: paths names every leaf (dotted path_in_schema) whose
// chunk sizes must be summed under its field id.
type expected struct {
	paths        map[string]int
	values       map[int]int64
	nulls        map[int]int64
	nans         map[int]int64
	lower, upper map[int][]byte
}

func footerSizes(footer *format.FileMetaData, paths map[string]int) map[int]int64 {
	sizes := map[int]int64{}
	for _, rg := range footer.RowGroups {
		for _, c := range rg.Columns {
			if id, ok := paths[strings.Join(c.MetaData.PathInSchema, ".")]; ok {
				sizes[id] += c.MetaData.TotalCompressedSize
			}
		}
	}
	return sizes
}

func checkMetrics(t *testing.T, got registry.Metrics, footer *format.FileMetaData, want expected) {
	t.Helper()
	if got.RecordCount != footer.NumRows {
		t.Errorf("RecordCount = %d, want %d", got.RecordCount, footer.NumRows)
	}
	wantSizes := footerSizes(footer, want.paths)
	if len(wantSizes) != len(want.paths) {
		t.Fatalf("footer has chunks for %d of the %d expected paths %v", len(wantSizes), len(want.paths), slices.Sorted(maps.Keys(want.paths)))
	}
	for id, size := range wantSizes {
		if size <= 0 {
			t.Errorf("footer size of field %d is %d", id, size)
		}
	}
	checkCounts(t, "ColumnSizes", got.ColumnSizes, wantSizes)
	checkCounts(t, "ValueCounts", got.ValueCounts, want.values)
	checkCounts(t, "NullValueCounts", got.NullValueCounts, want.nulls)
	checkCounts(t, "NaNValueCounts", got.NaNValueCounts, want.nans)
	checkBytes(t, "LowerBounds", got.LowerBounds, want.lower)
	checkBytes(t, "UpperBounds", got.UpperBounds, want.upper)
}

func checkCounts(t *testing.T, name string, got, want map[int]int64) {
	t.Helper()
	if want == nil {
		want = map[int]int64{}
	}
	if !maps.Equal(got, want) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func checkBytes(t *testing.T, name string, got, want map[int][]byte) {
	t.Helper()
	if want == nil {
		want = map[int][]byte{}
	}
	for _, id := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[id]
		switch {
		case !ok:
			t.Errorf("%s[%d] missing, want % x", name, id, want[id])
		case g == nil || !bytes.Equal(g, want[id]):
			t.Errorf("%s[%d] = % x (%q), want % x (%q)", name, id, g, g, want[id], want[id])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[id]; !ok {
			t.Errorf("%s[%d] = % x, want no entry", name, id, got[id])
		}
	}
}

func collect(t *testing.T, schema *iceberg.Schema, cfg registry.MetricsConfig, records [][]any, footer *format.FileMetaData) (registry.Metrics, *Collector) {
	t.Helper()
	c, err := NewCollector(schema, cfg)
	if err != nil {
		t.Fatalf("NewCollector: %v", err)
	}
	for _, values := range records {
		c.Add(data.Of(schema, values...))
	}
	return c.Metrics(footer), c
}

func opt(id int, name string, typ iceberg.Type) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: typ}
}

func req(id int, name string, typ iceberg.Type) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: typ, Required: true}
}

func dec(unscaled int64, scale int) iceberg.Decimal {
	return iceberg.Decimal{Val: decimal128.FromI64(unscaled), Scale: scale}
}

func record(st *iceberg.StructType, values ...any) *data.Record {
	r := data.NewStructRecord(st)
	for i, v := range values {
		r.Set(i, v)
	}
	return r
}

// --- all primitive types, top level ---

type allTypesRow struct {
	B    *bool    `parquet:"b,optional,id(1)"`
	I    *int32   `parquet:"i,optional,id(2)"`
	L    *int64   `parquet:"l,optional,id(3)"`
	F    *float32 `parquet:"f,optional,id(4)"`
	D    *float64 `parquet:"d,optional,id(5)"`
	Dt   *int32   `parquet:"dt,optional,date,id(6)"`
	T    *int64   `parquet:"t,optional,id(7)"` // parquet-go takes no time tag on a pointer
	Ts   *int64   `parquet:"ts,optional,timestamp(microsecond:local),id(8)"`
	Tstz *int64   `parquet:"tstz,optional,timestamp(microsecond),id(9)"`
	Tsn  *int64   `parquet:"tsn,optional,timestamp(nanosecond:local),id(10)"`
	S    *string  `parquet:"s,optional,id(11)"`
	U    [16]byte `parquet:"u,uuid,id(12)"`
	Fx   [3]byte  `parquet:"fx,id(13)"`
	Bin  []byte   `parquet:"bin,optional,id(14)"`
	Dec  int64    `parquet:"dec,decimal(2:18),id(15)"`
	Big  [16]byte `parquet:"big,decimal(10:38),id(16)"`
}

var allTypesSchema = iceberg.NewSchema(0,
	opt(1, "b", iceberg.PrimitiveTypes.Bool),
	opt(2, "i", iceberg.PrimitiveTypes.Int32),
	opt(3, "l", iceberg.PrimitiveTypes.Int64),
	opt(4, "f", iceberg.PrimitiveTypes.Float32),
	opt(5, "d", iceberg.PrimitiveTypes.Float64),
	opt(6, "dt", iceberg.PrimitiveTypes.Date),
	opt(7, "t", iceberg.PrimitiveTypes.Time),
	opt(8, "ts", iceberg.PrimitiveTypes.Timestamp),
	opt(9, "tstz", iceberg.PrimitiveTypes.TimestampTz),
	opt(10, "tsn", iceberg.PrimitiveTypes.TimestampNs),
	opt(11, "s", iceberg.PrimitiveTypes.String),
	req(12, "u", iceberg.PrimitiveTypes.UUID),
	req(13, "fx", iceberg.FixedTypeOf(3)),
	opt(14, "bin", iceberg.PrimitiveTypes.Binary),
	req(15, "dec", iceberg.DecimalTypeOf(9, 2)),
	req(16, "big", iceberg.DecimalTypeOf(38, 10)),
)

var (
	uuidLow  = uuid.MustParse("00000000-0000-0000-0000-000000000001")
	uuidSign = uuid.MustParse("80000000-0000-0000-0000-000000000000")
	uuidMid  = uuid.MustParse("7fffffff-ffff-ffff-ffff-ffffffffffff")
)

func TestAllTypes(t *testing.T) {
	rows := []allTypesRow{
		{B: ptr(false), I: ptr[int32](1), L: ptr[int64](-5), F: ptr[float32](1.5), D: ptr(math.NaN()),
			Dt: ptr[int32](1), T: ptr[int64](1_000_000), Ts: ptr[int64](10), Tstz: ptr[int64](-10), Tsn: ptr[int64](7),
			S: ptr("abc"), U: uuidLow, Fx: [3]byte{1, 2, 3}, Bin: []byte{0}},
		{U: uuidSign},
		{B: ptr(true), I: ptr[int32](-2), L: ptr[int64](7), F: ptr(negZero32), D: ptr(-3.25),
			Dt: ptr[int32](3), T: ptr[int64](5), Ts: ptr[int64](20), Tstz: ptr[int64](30), Tsn: ptr[int64](-7),
			S: ptr("abd"), U: uuidMid, Fx: [3]byte{0xFF, 0, 0}, Bin: []byte{}},
	}
	records := [][]any{
		{false, int32(1), int64(-5), float32(1.5), math.NaN(), iceberg.Date(1), iceberg.Time(1_000_000),
			iceberg.Timestamp(10), iceberg.Timestamp(-10), iceberg.TimestampNano(7), "abc", uuidLow,
			[]byte{1, 2, 3}, []byte{0}, dec(100, 2), dec(128, 10)},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, uuidSign, []byte{0, 0, 0}, nil, dec(-128, 2), dec(-129, 10)},
		{true, int32(-2), int64(7), negZero32, -3.25, iceberg.Date(3), iceberg.Time(5),
			iceberg.Timestamp(20), iceberg.Timestamp(30), iceberg.TimestampNano(-7), "abd", uuidMid,
			[]byte{0xFF, 0, 0}, []byte{}, dec(127, 2), dec(0, 10)},
	}
	footer := writeFooter(t, rows)
	got, c := collect(t, allTypesSchema, registry.DefaultMetricsConfig(), records, footer)
	if c.Err() != nil {
		t.Fatalf("Err() = %v", c.Err())
	}
	all := func(v int64) map[int]int64 {
		m := map[int]int64{}
		for id := 1; id <= 16; id++ {
			m[id] = v
		}
		return m
	}
	nulls := all(1)
	for _, id := range []int{12, 13, 15, 16} {
		nulls[id] = 0
	}
	checkMetrics(t, got, footer, expected{
		paths: map[string]int{"b": 1, "i": 2, "l": 3, "f": 4, "d": 5, "dt": 6, "t": 7, "ts": 8, "tstz": 9,
			"tsn": 10, "s": 11, "u": 12, "fx": 13, "bin": 14, "dec": 15, "big": 16},
		values: all(3),
		nulls:  nulls,
		nans:   map[int]int64{4: 0, 5: 1},
		lower: map[int][]byte{
			1:  h("00"),
			2:  h("fe ff ff ff"),
			3:  h("fb ff ff ff ff ff ff ff"),
			4:  h("00 00 00 80"), // -0.0 precedes 1.5
			5:  h("00 00 00 00 00 00 0a c0"),
			6:  h("01 00 00 00"),
			7:  h("05 00 00 00 00 00 00 00"),
			8:  h("0a 00 00 00 00 00 00 00"),
			9:  h("f6 ff ff ff ff ff ff ff"),
			10: h("f9 ff ff ff ff ff ff ff"),
			11: []byte("abc"),
			12: h("00000000 0000 0000 0000 000000000001"),
			13: h("00 00 00"),
			14: {},
			15: h("80"),    // -128: one byte
			16: h("ff 7f"), // -129 needs two
		},
		upper: map[int][]byte{
			1:  h("01"),
			2:  h("01 00 00 00"),
			3:  h("07 00 00 00 00 00 00 00"),
			4:  h("00 00 c0 3f"),
			5:  h("00 00 00 00 00 00 0a c0"), // NaN is no bound
			6:  h("03 00 00 00"),
			7:  h("40 42 0f 00 00 00 00 00"),
			8:  h("14 00 00 00 00 00 00 00"),
			9:  h("1e 00 00 00 00 00 00 00"),
			10: h("07 00 00 00 00 00 00 00"),
			11: []byte("abd"),
			// Unsigned: 80... is the largest. Java's old signed compare picked 7fff....
			12: h("80000000 0000 0000 0000 000000000000"),
			13: h("ff 00 00"),
			14: h("00"),
			15: h("7f"),
			16: h("00 80"),
		},
	})
}

// --- nested: structs get counts and bounds; leaves in lists and maps only
// their column size (ParquetMetrics.MetricsVisitor.list/map return no field
// metrics; TestMetrics.testMetricsForListAndMapElements) ---

type nestedInner struct {
	Y *string `parquet:"y,optional,id(5)"`
}

type nestedS struct {
	X     *int32       `parquet:"x,optional,id(3)"`
	Inner *nestedInner `parquet:"inner,optional,id(4)"`
}

type nestedPt struct {
	Z *float64 `parquet:"z,optional,id(13)"`
}

type nestedRow struct {
	ID   int32             `parquet:"id,id(1)"`
	S    *nestedS          `parquet:"s,optional,id(2)"`
	Tags []*string         `parquet:"tags,optional,list,id(6)" parquet-element:",optional,id(7)"`
	M    map[string]*int64 `parquet:"m,optional,id(8)" parquet-key:",id(9)" parquet-value:",optional,id(10)"`
	Pts  []nestedPt        `parquet:"pts,optional,list,id(11)" parquet-element:",id(12)"`
}

var (
	innerType    = &iceberg.StructType{FieldList: []iceberg.NestedField{opt(5, "y", iceberg.PrimitiveTypes.String)}}
	sType        = &iceberg.StructType{FieldList: []iceberg.NestedField{opt(3, "x", iceberg.PrimitiveTypes.Int32), opt(4, "inner", innerType)}}
	ptType       = &iceberg.StructType{FieldList: []iceberg.NestedField{opt(13, "z", iceberg.PrimitiveTypes.Float64)}}
	nestedSchema = iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int32),
		opt(2, "s", sType),
		opt(6, "tags", &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.String}),
		opt(8, "m", &iceberg.MapType{KeyID: 9, KeyType: iceberg.PrimitiveTypes.String, ValueID: 10, ValueType: iceberg.PrimitiveTypes.Int64}),
		opt(11, "pts", &iceberg.ListType{ElementID: 12, Element: ptType, ElementRequired: true}),
	)
)

func TestNested(t *testing.T) {
	rows := []nestedRow{
		{ID: 1, S: &nestedS{X: ptr[int32](10), Inner: &nestedInner{Y: ptr("b")}}, Tags: []*string{ptr("x"), nil},
			M: map[string]*int64{"k1": ptr[int64](5)}, Pts: []nestedPt{{Z: ptr(1.0)}, {Z: ptr(math.NaN())}}},
		{ID: 2},
		{ID: 3, S: &nestedS{}, Tags: []*string{}, M: map[string]*int64{"k2": nil}, Pts: []nestedPt{{}}},
		{ID: 4, S: &nestedS{X: ptr[int32](-1), Inner: &nestedInner{Y: ptr("a")}}, Tags: []*string{ptr("y")},
			M: map[string]*int64{}, Pts: []nestedPt{}},
	}
	records := [][]any{
		{int32(1), record(sType, int32(10), record(innerType, "b")), []any{"x", nil},
			data.Map{{Key: "k1", Value: int64(5)}}, []any{record(ptType, 1.0), record(ptType, math.NaN())}},
		{int32(2), nil, nil, nil, nil},
		{int32(3), record(sType, nil, nil), []any{}, data.Map{{Key: "k2"}}, []any{record(ptType, nil)}},
		{int32(4), record(sType, int32(-1), record(innerType, "a")), []any{"y"}, data.Map{}, []any{}},
	}
	want := expected{
		paths: map[string]int{"id": 1, "s.x": 3, "s.inner.y": 5, "tags.list.element": 7,
			"m.key_value.key": 9, "m.key_value.value": 10, "pts.list.element.z": 13},
		// tags.list.element (7), the map's key and value (9, 10) and
		// pts.list.element.z (13) have a column size only: no value, null
		// or NaN counts (the NaN in pts is not counted either).
		values: map[int]int64{1: 4, 3: 4, 5: 4},
		nulls:  map[int]int64{1: 0, 3: 2, 5: 2},
		lower:  map[int][]byte{1: h("01 00 00 00"), 3: h("ff ff ff ff"), 5: []byte("a")},
		upper:  map[int][]byte{1: h("04 00 00 00"), 3: h("0a 00 00 00"), 5: []byte("b")},
	}
	for _, tc := range []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"one row group", nil},
		{"one row per row group", []parquet.WriterOption{parquet.MaxRowsPerRowGroup(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			footer := writeFooter(t, rows, tc.opts...)
			if tc.opts != nil && len(footer.RowGroups) != 4 {
				t.Fatalf("file has %d row groups, want 4", len(footer.RowGroups))
			}
			got, c := collect(t, nestedSchema, registry.DefaultMetricsConfig(), records, footer)
			if c.Err() != nil {
				t.Fatalf("Err() = %v", c.Err())
			}
			checkMetrics(t, got, footer, want)
		})
	}
}

// --- truncate(N) ---

type truncRow struct {
	S1 *string  `parquet:"s1,optional,id(1)"`
	S2 *string  `parquet:"s2,optional,id(2)"`
	S3 *string  `parquet:"s3,optional,id(3)"`
	S4 *string  `parquet:"s4,optional,id(4)"`
	B1 []byte   `parquet:"b1,optional,id(5)"`
	B2 []byte   `parquet:"b2,optional,id(6)"`
	B3 []byte   `parquet:"b3,optional,id(7)"`
	Fx [3]byte  `parquet:"fx,id(8)"`
	I  int32    `parquet:"i,id(9)"`
	S5 *string  `parquet:"s5,optional,id(10)"`
	S6 *string  `parquet:"s6,optional,id(11)"`
	D  *float64 `parquet:"d,optional,id(12)"`
}

var truncSchema = iceberg.NewSchema(0,
	opt(1, "s1", iceberg.PrimitiveTypes.String),
	opt(2, "s2", iceberg.PrimitiveTypes.String),
	opt(3, "s3", iceberg.PrimitiveTypes.String),
	opt(4, "s4", iceberg.PrimitiveTypes.String),
	opt(5, "b1", iceberg.PrimitiveTypes.Binary),
	opt(6, "b2", iceberg.PrimitiveTypes.Binary),
	opt(7, "b3", iceberg.PrimitiveTypes.Binary),
	req(8, "fx", iceberg.FixedTypeOf(3)),
	req(9, "i", iceberg.PrimitiveTypes.Int32),
	opt(10, "s5", iceberg.PrimitiveTypes.String),
	opt(11, "s6", iceberg.PrimitiveTypes.String),
	opt(12, "d", iceberg.PrimitiveTypes.Float64),
)

func TestTruncate(t *testing.T) {
	rows := []truncRow{
		{S1: ptr("abcdef"), S2: ptr("a\U0010FFFFzz"), S3: ptr("\U0010FFFF\U0010FFFFz"), S4: ptr("abcdef"),
			B1: []byte{1, 2, 3}, B2: []byte{0xFF, 0xFF, 0}, B3: []byte{1, 0xFF, 5}, Fx: [3]byte{1, 2, 3}, I: 1,
			S5: ptr("日本語"), S6: ptr("a\uD7FFz"), D: ptr(123456.5)},
		{S1: ptr("abc"), S2: ptr("a"), S4: ptr("abc"), B1: []byte{1, 2}, Fx: [3]byte{0, 0, 9}, I: 5},
	}
	records := [][]any{
		{"abcdef", "a\U0010FFFFzz", "\U0010FFFF\U0010FFFFz", "abcdef", []byte{1, 2, 3}, []byte{0xFF, 0xFF, 0},
			[]byte{1, 0xFF, 5}, []byte{1, 2, 3}, int32(1), "日本語", "a\uD7FFz", 123456.5},
		{"abc", "a", nil, "abc", []byte{1, 2}, nil, nil, []byte{0, 0, 9}, int32(5), nil, nil, nil},
	}
	cfg := registry.MetricsConfig{
		Default: registry.MetricsMode{Kind: registry.MetricsTruncate, Length: 2},
		Columns: map[string]registry.MetricsMode{"s4": {Kind: registry.MetricsFull}},
	}
	footer := writeFooter(t, rows)
	got, _ := collect(t, truncSchema, cfg, records, footer)
	checkMetrics(t, got, footer, expected{
		paths: map[string]int{"s1": 1, "s2": 2, "s3": 3, "s4": 4, "b1": 5, "b2": 6, "b3": 7, "fx": 8, "i": 9,
			"s5": 10, "s6": 11, "d": 12},
		values: map[int]int64{1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 2},
		nulls:  map[int]int64{1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 1, 7: 1, 8: 0, 9: 0, 10: 1, 11: 1, 12: 1},
		nans:   map[int]int64{12: 0},
		lower: map[int][]byte{
			1:  []byte("ab"),
			2:  []byte("a"), // not longer than 2: whole
			3:  []byte("\U0010FFFF\U0010FFFF"),
			4:  []byte("abc"), // full
			5:  h("01 02"),
			6:  h("ff ff"),
			7:  h("01 ff"),
			8:  h("00 00 09"), // fixed is never truncated
			9:  h("01 00 00 00"),
			10: []byte("日本"),
			11: []byte("a\uD7FF"),
			12: h("00 00 00 00 08 24 fe 40"), // doubles are never truncated
		},
		upper: map[int][]byte{
			1: []byte("ac"),
			2: []byte("b"), // U+10FFFF cannot grow: carry into "a"
			// 3: no upper bound of two code points exists
			4: []byte("abcdef"),
			5: h("01 03"),
			// 6: all 0xFF, dropped
			7:  h("02"),
			8:  h("01 02 03"),
			9:  h("05 00 00 00"),
			10: []byte("日札"),      // U+672C + 1
			11: []byte("a\uE000"), // skips the surrogates
			12: h("00 00 00 00 08 24 fe 40"),
		},
	})
}

// --- floats: NaN and signed zeros ---

type floatRow struct {
	F1 *float32            `parquet:"f1,optional,id(1)"`
	D1 *float64            `parquet:"d1,optional,id(2)"`
	D2 *float64            `parquet:"d2,optional,id(3)"`
	F2 *float32            `parquet:"f2,optional,id(4)"`
	F3 *float32            `parquet:"f3,optional,id(5)"`
	DL []*float64          `parquet:"dl,optional,list,id(6)" parquet-element:",optional,id(7)"`
	FM map[string]*float32 `parquet:"fm,optional,id(8)" parquet-key:",id(9)" parquet-value:",optional,id(10)"`
}

var floatSchema = iceberg.NewSchema(0,
	opt(1, "f1", iceberg.PrimitiveTypes.Float32),
	opt(2, "d1", iceberg.PrimitiveTypes.Float64),
	opt(3, "d2", iceberg.PrimitiveTypes.Float64),
	opt(4, "f2", iceberg.PrimitiveTypes.Float32),
	opt(5, "f3", iceberg.PrimitiveTypes.Float32),
	opt(6, "dl", &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.Float64}),
	opt(8, "fm", &iceberg.MapType{KeyID: 9, KeyType: iceberg.PrimitiveTypes.String, ValueID: 10, ValueType: iceberg.PrimitiveTypes.Float32}),
)

func TestFloats(t *testing.T) {
	nan32 := float32(math.NaN())
	rows := []floatRow{
		{F1: ptr[float32](0), D1: ptr(math.NaN()), D2: ptr(math.NaN()), F2: ptr[float32](1), F3: ptr(nan32),
			DL: []*float64{ptr(math.NaN()), ptr(1.0)}, FM: map[string]*float32{"a": ptr(nan32)}},
		{F1: ptr(negZero32), D1: ptr(2.5), D2: ptr(math.NaN()), F2: ptr(nan32), F3: ptr[float32](2),
			FM: map[string]*float32{"b": ptr[float32](1), "c": ptr(nan32)}},
		{D1: ptr(-1.0), DL: []*float64{nil}},
	}
	records := [][]any{
		{float32(0), math.NaN(), math.NaN(), float32(1), nan32, []any{math.NaN(), 1.0}, data.Map{{Key: "a", Value: nan32}}},
		{negZero32, 2.5, math.NaN(), nan32, float32(2), nil, data.Map{{Key: "b", Value: float32(1)}, {Key: "c", Value: nan32}}},
		{nil, -1.0, nil, nil, nil, []any{nil}, nil},
	}
	cfg := registry.MetricsConfig{
		Default: registry.MetricsMode{Kind: registry.MetricsFull},
		Columns: map[string]registry.MetricsMode{"f2": {Kind: registry.MetricsCounts}, "f3": {Kind: registry.MetricsNone}},
	}
	footer := writeFooter(t, rows)
	got, _ := collect(t, floatSchema, cfg, records, footer)
	checkMetrics(t, got, footer, expected{
		paths: map[string]int{"f1": 1, "d1": 2, "d2": 3, "f2": 4,
			"dl.list.element": 7, "fm.key_value.key": 9, "fm.key_value.value": 10},
		// 7, 9 and 10 lie in a list or a map: column sizes only, no NaN counts.
		values: map[int]int64{1: 3, 2: 3, 3: 3, 4: 3},
		nulls:  map[int]int64{1: 1, 2: 0, 3: 1, 4: 1},
		nans:   map[int]int64{1: 0, 2: 1, 3: 2, 4: 1},
		lower: map[int][]byte{
			1: h("00 00 00 80"), // -0.0 precedes +0.0
			2: h("00 00 00 00 00 00 f0 bf"),
			// 3: NaN only, no bounds; 4: counts; 7 and 10: inside a list or map
		},
		upper: map[int][]byte{
			1: h("00 00 00 00"),
			2: h("00 00 00 00 00 00 04 40"),
		},
	})
}

// --- metrics modes per column, by full dotted name ---

type modesS struct {
	X *int32  `parquet:"x,optional,id(5)"`
	Y *string `parquet:"y,optional,id(6)"`
	Z *int64  `parquet:"z,optional,id(9)"`
}

type modesRow struct {
	A *int32  `parquet:"a,optional,id(1)"`
	B *int32  `parquet:"b,optional,id(2)"`
	C *int32  `parquet:"c,optional,id(3)"`
	S *modesS `parquet:"s,optional,id(4)"`
	L []int32 `parquet:"l,optional,list,id(7)" parquet-element:",id(8)"`
}

var (
	modesSType  = &iceberg.StructType{FieldList: []iceberg.NestedField{opt(5, "x", iceberg.PrimitiveTypes.Int32), opt(6, "y", iceberg.PrimitiveTypes.String), opt(9, "z", iceberg.PrimitiveTypes.Int64)}}
	modesSchema = iceberg.NewSchema(0,
		opt(1, "a", iceberg.PrimitiveTypes.Int32),
		opt(2, "b", iceberg.PrimitiveTypes.Int32),
		opt(3, "c", iceberg.PrimitiveTypes.Int32),
		opt(4, "s", modesSType),
		opt(7, "l", &iceberg.ListType{ElementID: 8, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}),
	)
)

func TestModes(t *testing.T) {
	rows := []modesRow{
		{A: ptr[int32](1), B: ptr[int32](2), C: ptr[int32](3), S: &modesS{X: ptr[int32](4), Y: ptr("q"), Z: ptr[int64](6)}, L: []int32{1}},
		{},
	}
	records := [][]any{
		{int32(1), int32(2), int32(3), record(modesSType, int32(4), "q", int64(6)), []any{int32(1)}},
		{nil, nil, nil, nil, nil},
	}
	cfg := registry.MetricsConfig{
		Default: registry.MetricsMode{Kind: registry.MetricsFull},
		Columns: map[string]registry.MetricsMode{
			"a":         {Kind: registry.MetricsNone},
			"b":         {Kind: registry.MetricsCounts},
			"s.x":       {Kind: registry.MetricsNone},
			"s.y":       {Kind: registry.MetricsCounts},
			"l.element": {Kind: registry.MetricsNone},
			// A column the schema lacks, as a table config gives a delete file.
			"gone": {Kind: registry.MetricsNone},
		},
	}
	footer := writeFooter(t, rows)
	got, _ := collect(t, modesSchema, cfg, records, footer)
	checkMetrics(t, got, footer, expected{
		paths:  map[string]int{"b": 2, "c": 3, "s.y": 6, "s.z": 9},
		values: map[int]int64{2: 2, 3: 2, 6: 2, 9: 2},
		nulls:  map[int]int64{2: 1, 3: 1, 6: 1, 9: 1},
		lower:  map[int][]byte{3: h("03 00 00 00"), 9: h("06 00 00 00 00 00 00 00")},
		upper:  map[int][]byte{3: h("03 00 00 00"), 9: h("06 00 00 00 00 00 00 00")},
	})
}

// --- a value of the wrong Go type drops that column's NaN count and bounds ---

type mismatchRow struct {
	I *int32   `parquet:"i,optional,id(1)"`
	F *float32 `parquet:"f,optional,id(2)"`
	S *struct {
		X *int64 `parquet:"x,optional,id(4)"`
	} `parquet:"s,optional,id(3)"`
	J *int32 `parquet:"j,optional,id(5)"`
}

func TestMismatchedValues(t *testing.T) {
	sx := &iceberg.StructType{FieldList: []iceberg.NestedField{opt(4, "x", iceberg.PrimitiveTypes.Int64)}}
	schema := iceberg.NewSchema(0,
		opt(1, "i", iceberg.PrimitiveTypes.Int32),
		opt(2, "f", iceberg.PrimitiveTypes.Float32),
		opt(3, "s", sx),
		opt(5, "j", iceberg.PrimitiveTypes.Int32),
	)
	footer := writeFooter(t, []mismatchRow{{}, {}})
	c, err := NewCollector(schema, registry.DefaultMetricsConfig())
	if err != nil {
		t.Fatal(err)
	}
	c.Add(data.Of(schema, int32(1), float32(1), record(sx, int64(1)), int32(7)))
	c.Add(data.Of(schema, int64(2), 1.5, "not a struct", int32(8)))
	got := c.Metrics(footer)
	if c.Err() == nil || !strings.Contains(c.Err().Error(), "field 1 (i)") {
		t.Errorf("Err() = %v, want it to name field 1 (i)", c.Err())
	}
	checkMetrics(t, got, footer, expected{
		paths:  map[string]int{"i": 1, "f": 2, "s.x": 4, "j": 5},
		values: map[int]int64{1: 2, 2: 2, 4: 2, 5: 2},
		nulls:  map[int]int64{1: 2, 2: 2, 4: 2, 5: 2}, // the footer's, from the rows written
		lower:  map[int][]byte{5: h("07 00 00 00")},
		upper:  map[int][]byte{5: h("08 00 00 00")},
	})

	c.Add(nil)
	if c.Err() == nil {
		t.Error("Err() after Add(nil) = nil")
	}
}

// Bounds of one column from values alone; the footer plays no part in them.
func TestSingleColumnBounds(t *testing.T) {
	full := registry.MetricsMode{Kind: registry.MetricsFull}
	for _, tc := range []struct {
		name         string
		typ          iceberg.Type
		mode         registry.MetricsMode
		values       []any
		lower, upper []byte // nil: no entry
		wantErr      string
	}{
		{name: "only true", typ: iceberg.PrimitiveTypes.Bool, mode: full,
			values: []any{true, nil, true}, lower: h("01"), upper: h("01")},
		{name: "only false", typ: iceberg.PrimitiveTypes.Bool, mode: full,
			values: []any{false}, lower: h("00"), upper: h("00")},
		{name: "only nulls", typ: iceberg.PrimitiveTypes.Int64, mode: full, values: []any{nil, nil}},
		{name: "decimal rescaled to the column's scale", typ: iceberg.DecimalTypeOf(9, 2), mode: full,
			values: []any{dec(0, 2), dec(-5, 1)}, lower: h("ce"), upper: h("00")}, // -0.5 is -50 at scale 2
		{name: "decimal that loses digits at the column's scale", typ: iceberg.DecimalTypeOf(9, 2), mode: full,
			values: []any{dec(0, 2), dec(1234, 3)}, wantErr: "field 1 (c)"},
		{name: "empty string", typ: iceberg.PrimitiveTypes.String, mode: full,
			values: []any{""}, lower: []byte{}, upper: []byte{}},
		{name: "default truncate(16)", typ: iceberg.PrimitiveTypes.String, mode: registry.DefaultMetricsMode,
			values: []any{"abcdefghijklmnopqrst"}, lower: []byte("abcdefghijklmnop"), upper: []byte("abcdefghijklmnoq")},
		{name: "full keeps long strings", typ: iceberg.PrimitiveTypes.String, mode: full,
			values: []any{"abcdefghijklmnopqrst"}, lower: []byte("abcdefghijklmnopqrst"), upper: []byte("abcdefghijklmnopqrst")},
		{name: "timestamp_ns with zone", typ: iceberg.PrimitiveTypes.TimestampTzNs, mode: full,
			values: []any{iceberg.TimestampNano(-1), iceberg.TimestampNano(256)},
			lower:  h("ff ff ff ff ff ff ff ff"), upper: h("00 01 00 00 00 00 00 00")},
		{name: "wrong Go type", typ: iceberg.PrimitiveTypes.Int32, mode: full,
			values: []any{int32(1), int64(2)}, wantErr: "field 1 (c): value of Go type int64, want int32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := iceberg.NewSchema(0, opt(1, "c", tc.typ))
			c, err := NewCollector(schema, registry.MetricsConfig{Default: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tc.values {
				c.Add(data.Of(schema, v))
			}
			got := c.Metrics(&format.FileMetaData{})
			switch {
			case tc.wantErr == "" && c.Err() != nil:
				t.Errorf("Err() = %v", c.Err())
			case tc.wantErr != "" && (c.Err() == nil || !strings.Contains(c.Err().Error(), tc.wantErr)):
				t.Errorf("Err() = %v, want it to contain %q", c.Err(), tc.wantErr)
			}
			want := func(b []byte) map[int][]byte {
				if b == nil {
					return nil
				}
				return map[int][]byte{1: b}
			}
			checkBytes(t, "LowerBounds", got.LowerBounds, want(tc.lower))
			checkBytes(t, "UpperBounds", got.UpperBounds, want(tc.upper))
		})
	}
}

func TestInvalidUTF8Bounds(t *testing.T) {
	schema := iceberg.NewSchema(0, opt(1, "s", iceberg.PrimitiveTypes.String))
	c, err := NewCollector(schema, registry.DefaultMetricsConfig())
	if err != nil {
		t.Fatal(err)
	}
	c.Add(data.Of(schema, "ok"))
	c.Add(data.Of(schema, "\xff"))
	got := c.Metrics(&format.FileMetaData{})
	if len(got.LowerBounds) != 0 || len(got.UpperBounds) != 0 {
		t.Errorf("bounds = %v / %v, want none", got.LowerBounds, got.UpperBounds)
	}
	if c.Err() == nil || !strings.Contains(c.Err().Error(), "field 1") {
		t.Errorf("Err() = %v, want it to name field 1", c.Err())
	}
}

// Metrics may be called again and its maps are the caller's.
func TestMetricsRepeatable(t *testing.T) {
	schema := iceberg.NewSchema(0, opt(1, "s", iceberg.PrimitiveTypes.String), opt(2, "b", iceberg.PrimitiveTypes.Binary))
	c, err := NewCollector(schema, registry.DefaultMetricsConfig())
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte{5, 6}
	c.Add(data.Of(schema, "x", buf))
	buf[0] = 9 // a writer reusing its buffer must not move the bound
	first := c.Metrics(&format.FileMetaData{})
	first.LowerBounds[1][0] = 'z'
	first.LowerBounds[2][0] = 7
	second := c.Metrics(&format.FileMetaData{})
	checkBytes(t, "LowerBounds", second.LowerBounds, map[int][]byte{1: []byte("x"), 2: h("05 06")})
}

func TestNewCollectorErrors(t *testing.T) {
	schema := iceberg.NewSchema(0, opt(1, "a", iceberg.PrimitiveTypes.Int32))
	for _, tc := range []struct {
		name   string
		schema *iceberg.Schema
		cfg    registry.MetricsConfig
		want   string
	}{
		{"nil schema", nil, registry.DefaultMetricsConfig(), "schema is nil"},
		{"truncate(0) default", schema, registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsTruncate}}, "truncate length"},
		{"unknown kind on a column", schema, registry.MetricsConfig{Default: registry.DefaultMetricsMode,
			Columns: map[string]registry.MetricsMode{"a": {Kind: 42}}}, "field 1 (a)"},
		{"bad mode on a missing column", schema, registry.MetricsConfig{Default: registry.DefaultMetricsMode,
			Columns: map[string]registry.MetricsMode{"zz": {Kind: registry.MetricsTruncate, Length: -1}}}, `column "zz"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCollector(tc.schema, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewCollector error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// --- Iceberg's TestMetrics.testMetricsForListAndMapElements ---

type listMapLeaf struct {
	LeafInt    int32   `parquet:"leafIntCol,id(1)"`
	LeafString *string `parquet:"leafStringCol,optional,id(2)"`
}

type listMapRow struct {
	IntList []int32                `parquet:"intListCol,optional,list,id(3)" parquet-element:",id(4)"`
	Map     map[string]listMapLeaf `parquet:"mapCol,optional,id(5)" parquet-key:",id(6)" parquet-value:",id(7)"`
}

// The Java test's schema and record: every leaf lies in a list or a map,
// and Java asserts null value and null counts and null bounds for all of
// them (core/src/test/java/org/apache/iceberg/TestMetrics.java). Their
// column sizes stay, as ParquetMetrics.columnSizes counts every leaf.
func TestListAndMapElements(t *testing.T) {
	leafType := &iceberg.StructType{FieldList: []iceberg.NestedField{
		req(1, "leafIntCol", iceberg.PrimitiveTypes.Int32),
		opt(2, "leafStringCol", iceberg.PrimitiveTypes.String),
	}}
	schema := iceberg.NewSchema(0,
		opt(3, "intListCol", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}),
		opt(5, "mapCol", &iceberg.MapType{KeyID: 6, KeyType: iceberg.PrimitiveTypes.String, ValueID: 7, ValueType: leafType, ValueRequired: true}),
	)
	footer := writeFooter(t, []listMapRow{{IntList: []int32{10, 11, 12},
		Map: map[string]listMapLeaf{"4": {LeafInt: 1, LeafString: ptr("BBB")}}}})
	records := [][]any{{[]any{int32(10), int32(11), int32(12)},
		data.Map{{Key: "4", Value: record(leafType, int32(1), "BBB")}}}}
	for _, mode := range []registry.MetricsMode{registry.DefaultMetricsMode, {Kind: registry.MetricsFull}} {
		got, c := collect(t, schema, registry.MetricsConfig{Default: mode}, records, footer)
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		checkMetrics(t, got, footer, expected{
			paths: map[string]int{"intListCol.list.element": 4, "mapCol.key_value.key": 6,
				"mapCol.key_value.value.leafIntCol": 1, "mapCol.key_value.value.leafStringCol": 2},
		})
	}
}
