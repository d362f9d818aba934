package colmetrics

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// Variant bounds follow spec.md "Bounds for Variant" as Iceberg Java's
// ParquetMetrics.MetricsVisitor.variant and MetricsVariantVisitor produce
// them (parquet/src/test/java/org/apache/iceberg/parquet/TestVariantMetrics.java
// has Java's cases). The footers here are built by hand, so that each
// statistics case is exact; formats/parquet's iceberg_metrics_test.go checks
// the same through the lab's shredding writer.

// el is one schema element of a hand-built footer.
type el struct {
	name  string
	typ   format.Type // for a leaf
	tlen  int32
	lt    format.LogicalTypeValue
	id    int32
	kids  []el
	group bool
}

func leaf(name string, typ format.Type, lt format.LogicalTypeValue) el {
	return el{name: name, typ: typ, lt: lt}
}

func grp(name string, lt format.LogicalTypeValue, kids ...el) el {
	return el{name: name, lt: lt, kids: kids, group: true}
}

func withID(e el, id int32) el { e.id = id; return e }

func flatten(e el, out []format.SchemaElement) []format.SchemaElement {
	se := format.SchemaElement{Name: e.name, FieldID: e.id, LogicalType: format.LogicalType{Value: e.lt}}
	if e.group {
		se.NumChildren.Valid, se.NumChildren.V = true, int32(len(e.kids))
	} else {
		se.Type.Valid, se.Type.V = true, e.typ
		if e.tlen > 0 {
			se.TypeLength.Valid, se.TypeLength.V = true, e.tlen
		}
	}
	out = append(out, se)
	for _, k := range e.kids {
		out = flatten(k, out)
	}
	return out
}

// stat is one column chunk: its values (nulls included), nulls, and the
// PLAIN-encoded min and max (nil: none).
type stat struct {
	values, nulls int64
	min, max      []byte
}

// footerOf builds a footer whose row group i has, for every path (its
// elements joined by "/"), chunks[path][i].
func footerOf(rows int64, fields []el, chunks map[string][]stat) *format.FileMetaData {
	schema := flatten(grp("schema", nil, fields...), nil)
	groups := 0
	for _, cs := range chunks {
		groups = max(groups, len(cs))
	}
	f := &format.FileMetaData{NumRows: rows, Schema: schema, RowGroups: make([]format.RowGroup, groups)}
	for path, cs := range chunks {
		for i, c := range cs {
			f.RowGroups[i].Columns = append(f.RowGroups[i].Columns, format.ColumnChunk{MetaData: format.ColumnMetaData{
				PathInSchema: strings.Split(path, "/"), NumValues: c.values, TotalCompressedSize: 10,
				Statistics: format.Statistics{NullCount: c.nulls, MinValue: c.min, MaxValue: c.max},
			}})
		}
	}
	return f
}

func le32(x int32) []byte    { return binary.LittleEndian.AppendUint32(nil, uint32(x)) }
func f32(x float32) []byte   { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(x)) }
func f64(x float64) []byte   { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)) }
func allNull(n int64) stat   { return stat{values: n, nulls: n} }
func vnulls(n, k int64) stat { return stat{values: n, nulls: n - k, min: []byte{0}, max: []byte{0}} } // k Variant nulls

var variantSchemaV = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
)

func variantMetrics(t *testing.T, schema *iceberg.Schema, cfg registry.MetricsConfig, footer *format.FileMetaData) registry.Metrics {
	t.Helper()
	c, err := NewCollector(schema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c.Metrics(footer)
}

// bound decodes a variant bound and returns its object's fields.
func bound(t *testing.T, b []byte) map[string]pvariant.Value {
	t.Helper()
	v, err := variant.DecodeConcatenated(b)
	if err != nil {
		t.Fatalf("bound % x does not decode: %v", b, err)
	}
	obj, ok := v.Value().(pvariant.ObjectValue)
	if !ok {
		t.Fatalf("bound is a %v, not an object", v.Type())
	}
	out := map[string]pvariant.Value{}
	for k, fv := range obj.Values() {
		out[k] = fv
	}
	return out
}

func field(name string, kids ...el) el { return grp(name, nil, kids...) }

// The root shredded as an int32 whose value column holds only nulls: "$".
// The bytes are those Java writes: metadata {"$"} (sorted), then an object
// with one int32.
func TestVariantRootBounds(t *testing.T) {
	fields := []el{
		withID(leaf("id", format.Int64, nil), 1),
		withID(grp("v", &format.VariantType{},
			leaf("metadata", format.ByteArray, nil),
			leaf("value", format.ByteArray, nil),
			leaf("typed_value", format.Int32, nil)), 2),
	}
	footer := footerOf(4, fields, map[string][]stat{
		"id":            {{values: 4, min: le64(0), max: le64(3)}},
		"v/metadata":    {{values: 4, nulls: 1, min: []byte{1, 0, 0}, max: []byte{1, 0, 0}}},
		"v/value":       {vnulls(4, 1)}, // one Variant null, and the SQL null
		"v/typed_value": {{values: 4, nulls: 2, min: le32(-7), max: le32(12)}},
	})
	got := variantMetrics(t, variantSchemaV, registry.DefaultMetricsConfig(), footer)
	meta := []byte{0b0001_0001, 1, 0, 1, '$'}
	wantLower := append(append([]byte{}, meta...), 0b10, 1, 0, 0, 5, 5<<2, 0xf9, 0xff, 0xff, 0xff)
	wantUpper := append(append([]byte{}, meta...), 0b10, 1, 0, 0, 5, 5<<2, 12, 0, 0, 0)
	if !bytes.Equal(got.LowerBounds[2], wantLower) || !bytes.Equal(got.UpperBounds[2], wantUpper) {
		t.Errorf("bounds of v = % x / % x, want % x / % x", got.LowerBounds[2], got.UpperBounds[2], wantLower, wantUpper)
	}
	if got.ValueCounts[2] != 4 || got.NullValueCounts[2] != 1 {
		t.Errorf("counts of v = %d / %d, want the metadata's 4 / 1", got.ValueCounts[2], got.NullValueCounts[2])
	}

	// A non-null value that is not the Variant null: mixed types, no bounds
	// (TestVariantMetrics.testShreddedPrimitiveTypeMismatch).
	for i := range footer.RowGroups[0].Columns {
		if strings.Join(footer.RowGroups[0].Columns[i].MetaData.PathInSchema, "/") == "v/value" {
			footer.RowGroups[0].Columns[i].MetaData.Statistics = format.Statistics{NullCount: 2, MinValue: []byte{0}, MaxValue: []byte{0x05, 'x'}}
		}
	}
	got = variantMetrics(t, variantSchemaV, registry.DefaultMetricsConfig(), footer)
	if _, ok := got.LowerBounds[2]; ok {
		t.Errorf("mixed types: lower bound % x, want none", got.LowerBounds[2])
	}
}

// An object's fields: each gets bounds when its own value column holds only
// nulls; arrays give none; names are normalized paths; counts mode and
// none keep no bounds; truncate(N) truncates strings and binaries, and an
// upper bound that cannot be truncated is left out of the upper object only.
func TestVariantObjectBounds(t *testing.T) {
	str := &format.StringType{}
	pair := func(name string, typed el) el {
		return field(name, leaf("value", format.ByteArray, nil), typed)
	}
	fields := []el{
		withID(leaf("id", format.Int64, nil), 1),
		withID(grp("v", &format.VariantType{},
			leaf("metadata", format.ByteArray, nil),
			leaf("value", format.ByteArray, nil),
			grp("typed_value", nil,
				pair("a", leaf("typed_value", format.Int32, &format.IntType{BitWidth: 8, IsSigned: true})),
				pair("b", leaf("typed_value", format.ByteArray, str)),
				pair("c", leaf("typed_value", format.ByteArray, str)),
				pair("d", grp("typed_value", &format.ListType{},
					grp("list", nil, field("element", leaf("typed_value", format.Int64, nil))))),
				// no value column: the typed bounds stand
				field("e", grp("typed_value", nil,
					field("f", leaf("typed_value", format.Double, nil)))),
				pair("user.name", leaf("typed_value", format.ByteArray, nil)),
				pair("it's", leaf("typed_value", format.FixedLenByteArray, &format.UUIDType{})),
			)), 2),
	}
	fields[1].kids[2].kids[6].kids[1].tlen = 16
	uuidLo := bytes.Repeat([]byte{0x11}, 16)
	uuidHi := bytes.Repeat([]byte{0x99}, 16)
	footer := footerOf(3, fields, map[string][]stat{
		"v/metadata": {{values: 3}},
		// The object's value column has data: it does not matter.
		"v/value":                                              {{values: 3, nulls: 1, min: []byte{2, 1}, max: []byte{2, 9}}},
		"v/typed_value/a/value":                                {allNull(3)},
		"v/typed_value/a/typed_value":                          {{values: 3, nulls: 1, min: le32(-5), max: le32(100)}},
		"v/typed_value/b/value":                                {{values: 3, nulls: 2, min: []byte{0x14, 1, 0, 0, 0}, max: []byte{0x14, 1, 0, 0, 0}}},
		"v/typed_value/b/typed_value":                          {{values: 3, nulls: 1, min: []byte("x"), max: []byte("y")}},
		"v/typed_value/c/value":                                {vnulls(3, 1)},
		"v/typed_value/c/typed_value":                          {{values: 3, nulls: 1, min: []byte("abcdef"), max: []byte("zz\xf4\x8f\xbf\xbfq")}},
		"v/typed_value/d/value":                                {allNull(3)},
		"v/typed_value/d/typed_value/list/element/typed_value": {{values: 5, min: le64(1), max: le64(9)}},
		"v/typed_value/e/typed_value/f/typed_value":            {{values: 3, nulls: 1, min: f64(-2.5), max: f64(0)}},
		"v/typed_value/user.name/value":                        {allNull(3)},
		"v/typed_value/user.name/typed_value":                  {{values: 3, min: []byte{0xff, 0xff, 0xff}, max: []byte{0xff, 0xff, 0xff}}},
		"v/typed_value/it's/value":                             {allNull(3)},
		"v/typed_value/it's/typed_value":                       {{values: 3, min: uuidLo, max: uuidHi}},
	})

	cfg := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsTruncate, Length: 2}}
	got := variantMetrics(t, variantSchemaV, cfg, footer)
	lower, upper := bound(t, got.LowerBounds[2]), bound(t, got.UpperBounds[2])
	want := map[string][2]any{
		"$['a']":         {int8(-5), int8(100)},
		"$['c']":         {"ab", "z{"}, // truncated to two code points, the upper one incremented
		"$['e']['f']":    {-2.5, 0.0},
		"$['user.name']": {[]byte{0xff, 0xff}, nil}, // 0xff 0xff cannot be incremented
		`$['it\'s']`:     {uuidLo, uuidHi},
	}
	for name, w := range want {
		check := func(side string, m map[string]pvariant.Value, w any) {
			v, ok := m[name]
			if w == nil {
				if ok {
					t.Errorf("%s bound of %s = %v, want none", side, name, v)
				}
				return
			}
			if !ok {
				t.Errorf("%s bound of %s missing (have %v)", side, name, m)
				return
			}
			switch w := w.(type) {
			case []byte:
				g := v.Value()
				if u, isUUID := g.(interface{ MarshalBinary() ([]byte, error) }); isUUID {
					g, _ = u.MarshalBinary()
				}
				if b, _ := g.([]byte); !bytes.Equal(b, w) {
					t.Errorf("%s bound of %s = %v (%v), want % x", side, name, g, v.Type(), w)
				}
			default:
				if g := v.Value(); g != w {
					t.Errorf("%s bound of %s = %v (%T, %v), want %v (%T)", side, name, g, g, v.Type(), w, w)
				}
			}
		}
		check("lower", lower, w[0])
		check("upper", upper, w[1])
	}
	for name := range lower {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected lower bound for %s", name)
		}
	}
	if u := upper["$['e']['f']"]; u.Type() == pvariant.Double && math.Signbit(u.Value().(float64)) {
		t.Error("upper zero bound is -0.0, want +0.0")
	}

	// full keeps the whole strings.
	got = variantMetrics(t, variantSchemaV, registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}}, footer)
	if c := bound(t, got.UpperBounds[2])["$['c']"]; c.Value() != "zz\U0010FFFFq" {
		t.Errorf("full: upper bound of c = %v", c)
	}
	// counts and none: no bounds.
	for _, k := range []registry.MetricsModeKind{registry.MetricsCounts, registry.MetricsNone} {
		got = variantMetrics(t, variantSchemaV, registry.MetricsConfig{Default: registry.MetricsMode{Kind: k}}, footer)
		if len(got.LowerBounds) != 0 || len(got.UpperBounds) != 0 {
			t.Errorf("mode %v: bounds %v / %v", k, got.LowerBounds, got.UpperBounds)
		}
	}
}

// decimal16 from parquet-go's unsigned FIXED_LEN_BYTE_ARRAY statistics:
// usable when each chunk's values share a sign; merged across chunks in
// signed order. Float zeros and NaN; a chunk with values but no statistics.
func TestVariantBoundsFromStatistics(t *testing.T) {
	dec := &format.DecimalType{Scale: 2, Precision: 22}
	fl := func(name string, e el) el { return field(name, leaf("value", format.ByteArray, nil), e) }
	d16 := leaf("typed_value", format.FixedLenByteArray, dec)
	d16.tlen = 10
	fields := []el{
		withID(grp("v", &format.VariantType{},
			leaf("metadata", format.ByteArray, nil),
			grp("typed_value", nil,
				fl("pos", d16), fl("mixed", d16), fl("neg", d16),
				fl("z", leaf("typed_value", format.Float, nil)),
				fl("nan", leaf("typed_value", format.Double, nil)),
				fl("nostats", leaf("typed_value", format.Int64, nil)),
				fl("millis", leaf("typed_value", format.Int64, &format.TimestampType{IsAdjustedToUTC: true, Unit: format.TimeUnit{Value: &format.MilliSeconds{}}})),
				fl("ts", leaf("typed_value", format.Int64, &format.TimestampType{IsAdjustedToUTC: false, Unit: format.TimeUnit{Value: &format.NanoSeconds{}}})),
			)), 2),
	}
	be := func(x int64) []byte { // 10-byte big-endian two's complement
		b := make([]byte, 10)
		for i := 9; i >= 0; i-- {
			b[i] = byte(x)
			x >>= 8
		}
		return b
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}})
	tv := func(f string) string { return "v/typed_value/" + f + "/typed_value" }
	val := func(f string) string { return "v/typed_value/" + f + "/value" }
	chunks := map[string][]stat{"v/metadata": {{values: 2}, {values: 2}}}
	for _, f := range []string{"pos", "mixed", "neg", "z", "nan", "nostats", "millis", "ts"} {
		chunks[val(f)] = []stat{allNull(2), allNull(2)}
	}
	chunks[tv("pos")] = []stat{{values: 2, min: be(5), max: be(700)}, {values: 2, min: be(1), max: be(9)}}
	chunks[tv("mixed")] = []stat{{values: 2, min: be(5), max: be(-3)}, {values: 2, min: be(1), max: be(2)}}
	// Two negative chunks, and one whose values are positive: signed merge.
	chunks[tv("neg")] = []stat{{values: 2, min: be(-900), max: be(-2)}, {values: 2, min: be(4), max: be(8)}}
	negZero := float32(math.Copysign(0, -1))
	chunks[tv("z")] = []stat{{values: 2, min: f32(0), max: f32(negZero)}, {values: 2, nulls: 2}}
	chunks[tv("nan")] = []stat{{values: 2, min: f64(1), max: f64(math.NaN())}, {values: 2, min: f64(0), max: f64(1)}}
	chunks[tv("nostats")] = []stat{{values: 2, min: le64(1), max: le64(2)}, {values: 2}}
	chunks[tv("millis")] = []stat{{values: 2, min: le64(1), max: le64(2)}, allNull(2)}
	chunks[tv("ts")] = []stat{{values: 2, min: le64(-1), max: le64(2)}, allNull(2)}
	footer := footerOf(4, fields, chunks)
	got := variantMetrics(t, schema, registry.DefaultMetricsConfig(), footer)
	lower, upper := bound(t, got.LowerBounds[2]), bound(t, got.UpperBounds[2])
	for _, name := range []string{"$['mixed']", "$['nan']", "$['nostats']", "$['millis']"} {
		if v, ok := lower[name]; ok {
			t.Errorf("%s has lower bound %v, want none", name, v)
		}
	}
	decimal := func(v pvariant.Value) string {
		if v.Type() != pvariant.Decimal16 {
			return fmt.Sprintf("not a decimal16: %v", v.Type())
		}
		b, _ := v.MarshalJSON()
		return string(b)
	}
	for name, w := range map[string][2]string{"$['pos']": {"0.01", "7.00"}, "$['neg']": {"-9.00", "0.08"}} {
		if g := [2]string{decimal(lower[name]), decimal(upper[name])}; g != w {
			t.Errorf("%s bounds %v, want %v", name, g, w)
		}
	}
	if z := lower["$['z']"]; z.Type() != pvariant.Float || !math.Signbit(float64(z.Value().(float32))) {
		t.Errorf("lower bound of z = %v (%v), want -0.0", z, z.Type())
	}
	if z := upper["$['z']"]; z.Type() != pvariant.Float || math.Signbit(float64(z.Value().(float32))) {
		t.Errorf("upper bound of z = %v (%v), want +0.0", z, z.Type())
	}
	if ts := lower["$['ts']"]; ts.Type() != pvariant.TimestampNanosNTZ {
		t.Errorf("lower bound of ts is a %v, want timestamp_ntz_nanos", ts.Type())
	}
}

// A variant below a list or map gets nothing; one inside a struct gets its
// counts and bounds like a top-level one.
func TestVariantBoundsNested(t *testing.T) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "s", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 2, Name: "v", Type: iceberg.VariantType{}}}}},
		iceberg.NestedField{ID: 3, Name: "l", Type: &iceberg.ListType{ElementID: 4, Element: iceberg.VariantType{}}},
	)
	vgroup := func(name string, id int32) el {
		return withID(grp(name, &format.VariantType{},
			leaf("metadata", format.ByteArray, nil),
			leaf("typed_value", format.Int64, nil)), id)
	}
	fields := []el{
		withID(grp("s", nil, vgroup("v", 2)), 1),
		withID(grp("l", &format.ListType{}, grp("list", nil, vgroup("element", 4))), 3),
	}
	footer := footerOf(2, fields, map[string][]stat{
		"s/v/metadata":               {{values: 2}},
		"s/v/typed_value":            {{values: 2, min: le64(3), max: le64(4)}},
		"l/list/element/metadata":    {{values: 3}},
		"l/list/element/typed_value": {{values: 3, min: le64(1), max: le64(2)}},
	})
	got := variantMetrics(t, schema, registry.DefaultMetricsConfig(), footer)
	if _, ok := got.ValueCounts[4]; ok {
		t.Errorf("variant in a list has a value count")
	}
	if _, ok := got.LowerBounds[4]; ok {
		t.Errorf("variant in a list has a lower bound")
	}
	if got.ValueCounts[2] != 2 {
		t.Errorf("variant in a struct: value count %d, want 2", got.ValueCounts[2])
	}
	if v := bound(t, got.UpperBounds[2])["$"]; v.Value() != int64(4) {
		t.Errorf("variant in a struct: upper bound %v, want 4", v)
	}
}

func TestNormalizedPath(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, "$"},
		{[]string{"location", "latitude"}, "$['location']['latitude']"},
		{[]string{"user.name"}, "$['user.name']"},
		{[]string{"a'b\\c\n\x01é"}, `$['a\'b\\c\n\u0001é']`},
	} {
		if got, ok := normalizedPath(tc.names); !ok || got != tc.want {
			t.Errorf("normalizedPath(%q) = %q, %v; want %q", tc.names, got, ok, tc.want)
		}
	}
	if _, ok := normalizedPath([]string{"\xff"}); ok {
		t.Error("invalid UTF-8 key: ok")
	}
}
