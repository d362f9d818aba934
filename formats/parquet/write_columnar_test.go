package parquet

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/colmetrics"
	"github.com/coltype-lab/lab/registry"
)

// columnarSchema has a flat column of every primitive type the fast path
// converts inline, the ones it leaves to the converters (uuid, fixed,
// binary, decimal), and nested fields the shredder fills, interleaved.
func columnarSchema() *iceberg.Schema {
	point := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 101, Name: "x", Type: iceberg.PrimitiveTypes.Float64},
		{ID: 102, Name: "label", Type: iceberg.PrimitiveTypes.String, Required: true},
	}}
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "point", Type: point},
		iceberg.NestedField{ID: 4, Name: "b", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 5, Name: "i", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 6, Name: "f", Type: iceberg.PrimitiveTypes.Float32},
		iceberg.NestedField{ID: 7, Name: "d", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 8, Name: "tags", Type: &iceberg.ListType{ElementID: 81, Element: iceberg.PrimitiveTypes.Int64}},
		iceberg.NestedField{ID: 9, Name: "date", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 10, Name: "time", Type: iceberg.PrimitiveTypes.Time},
		iceberg.NestedField{ID: 11, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
		iceberg.NestedField{ID: 12, Name: "tstz", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 13, Name: "tsns", Type: iceberg.PrimitiveTypes.TimestampNs},
		iceberg.NestedField{ID: 14, Name: "props", Type: &iceberg.MapType{KeyID: 141, KeyType: iceberg.PrimitiveTypes.String,
			ValueID: 142, ValueType: iceberg.PrimitiveTypes.Int32}},
		iceberg.NestedField{ID: 15, Name: "u", Type: iceberg.PrimitiveTypes.UUID},
		iceberg.NestedField{ID: 16, Name: "fx", Type: iceberg.FixedTypeOf(2)},
		iceberg.NestedField{ID: 17, Name: "bin", Type: iceberg.PrimitiveTypes.Binary},
		iceberg.NestedField{ID: 18, Name: "dec", Type: iceberg.DecimalTypeOf(20, 2)},
		iceberg.NestedField{ID: 19, Name: "code", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 20, Name: "gone", Type: iceberg.UnknownType{}},
	)
}

// columnarRecords are n rows with nulls in every optional column, NaN and
// signed zeros in the floats, the extremes of every integer type, and
// strings of several scripts.
func columnarRecords(n int) []*data.Record {
	s := columnarSchema()
	st := s.AsStruct()
	point := st.FieldList[2].Type.(*iceberg.StructType)
	var out []*data.Record
	for i := range n {
		r := data.NewRecord(s)
		id := int64(i)
		switch i % 50 {
		case 1:
			id = math.MinInt64
		case 2:
			id = math.MaxInt64
		}
		r.Set(0, id)
		names := []string{"", "alpha", "日本語", "Ωmega", "\U0010ffff", "zz top"}
		r.Set(1, names[i%len(names)]+strconv.Itoa(i%7))
		r.Set(2, data.NewStructRecord(point))
		r.Get(2).(*data.Record).Set(0, float64(i)/7)
		r.Get(2).(*data.Record).Set(1, "p"+strconv.Itoa(i%3))
		r.Set(3, i%3 == 0)
		r.Set(4, int32(i*7919)-int32(i%2)*math.MaxInt32)
		floats := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1.5, math.MaxFloat64, math.SmallestNonzeroFloat64}
		r.Set(5, float32(floats[i%len(floats)]))
		r.Set(6, floats[(i+3)%len(floats)])
		if i%4 != 0 {
			r.Set(7, []any{int64(i), nil, int64(-i)})
		} else if i%8 == 0 {
			r.Set(7, []any{})
		}
		r.Set(8, iceberg.Date(i-365))
		r.Set(9, iceberg.Time(int64(i)*1_000_003%86_400_000_000))
		r.Set(10, iceberg.Timestamp(int64(i)*1_000_000_007))
		r.Set(11, iceberg.Timestamp(-int64(i)))
		r.Set(12, iceberg.TimestampNano(int64(i)*3+math.MinInt64/2))
		if i%5 != 0 {
			r.Set(13, data.Map{{Key: "k" + strconv.Itoa(i%4), Value: int32(i)}, {Key: "z", Value: nil}})
		}
		u := uuid.UUID{}
		u[0], u[15] = byte(i*37), byte(i)
		r.Set(14, u)
		r.Set(15, []byte{byte(i), byte(255 - i%256)})
		r.Set(16, []byte{byte(i), 0, byte(i >> 8)}[:i%3])
		r.Set(17, iceberg.Decimal{Val: decimal128.FromI64(int64(i*i) - 50_000), Scale: 2})
		r.Set(18, int32(i%11))
		// Every sixth row is all nulls where nulls are allowed.
		if i%6 == 5 {
			for p, f := range st.FieldList {
				if !f.Required {
					r.Set(p, nil)
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// badRecords are refused by both paths, each for one reason; writing them
// between good rows must leave no trace in the file.
func badRecords() []*data.Record {
	good := columnarRecords(1)[0]
	set := func(pos int, v any) *data.Record {
		r := good.Copy()
		r.Set(pos, v)
		return r
	}
	other := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	return []*data.Record{
		set(0, nil),                        // null in a required flat column
		set(0, "seven"),                    // wrong Go type, fast kind
		set(1, string([]byte{0xff, 0xfe})), // string that is not UTF-8
		set(1, int64(5)),                   // a long in a string column
		set(6, float32(1)),                 // a float in a double column
		set(14, "not a uuid"),              // wrong Go type, converter kind
		set(15, []byte{1, 2, 3}),           // fixed of the wrong length
		set(17, iceberg.Decimal{Val: decimal128.FromI64(1), Scale: 3}),
		set(18, int64(3)), // a long in a required int column, after good values in this row
		set(7, []any{"x"}),
		set(19, int32(1)), // unknown holds only nulls
		data.NewRecord(other),
		nil,
	}
}

// writeWith writes recs with the flat-column fast path on or off and
// returns the file's bytes, its metrics and the error of every record.
func writeWith(t *testing.T, path string, schema *iceberg.Schema, props map[string]string, cfg registry.MetricsConfig, flat bool, recs []*data.Record) ([]byte, registry.Metrics, []string) {
	t.Helper()
	a, err := newRecordAppenderWith(registry.LocalOutput(path), registry.WriteOptions{
		Schema: schema, Properties: props, MetricsConfig: cfg}, flat)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, r := range recs {
		if err := a.Add(r); err != nil {
			// The file name differs between the two paths; the rest must not.
			errs = append(errs, strings.ReplaceAll(err.Error(), path, "FILE"))
		} else {
			errs = append(errs, "")
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.collector.Err(); err != nil {
		t.Errorf("metrics: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw, a.Metrics(), errs
}

// TestFlatColumnsMatchGeneralPath writes the same records, good and bad,
// through the flat-column fast path and through the general path (every
// field shredded, metrics from records) and requires byte-identical files,
// equal metrics, the same error for every refused record, and the good
// records back on read.
func TestFlatColumnsMatchGeneralPath(t *testing.T) {
	schema := columnarSchema()
	good := columnarRecords(1500)
	bad := badRecords()
	var recs []*data.Record
	for i, r := range good {
		recs = append(recs, r)
		if i%97 == 0 {
			recs = append(recs, bad[(i/97)%len(bad)])
		}
	}
	full := registry.MetricsMode{Kind: registry.MetricsFull}
	cases := []struct {
		name  string
		props map[string]string
		cfg   registry.MetricsConfig
	}{
		{"defaults", nil, registry.DefaultMetricsConfig()},
		{"small pages and row groups", map[string]string{PropPageBytes: "700", PropRowGroupRows: "600"},
			registry.MetricsConfig{Default: full}},
		{"small row-group bytes", map[string]string{PropRowGroupBytes: "30000", PropCompressionCodec: "snappy"},
			registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsTruncate, Length: 2}}},
		{"mixed modes", nil, registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsCounts},
			Columns: map[string]registry.MetricsMode{"id": full, "name": {Kind: registry.MetricsTruncate, Length: 3},
				"d": {Kind: registry.MetricsNone}, "point.x": full, "u": full}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fast, fastMetrics, fastErrs := writeWith(t, filepath.Join(dir, "fast.parquet"), schema, tc.props, tc.cfg, true, recs)
			general, generalMetrics, generalErrs := writeWith(t, filepath.Join(dir, "general.parquet"), schema, tc.props, tc.cfg, false, recs)
			if !bytes.Equal(fast, general) {
				t.Errorf("files differ: fast path %d bytes, general path %d bytes", len(fast), len(general))
			}
			if !reflect.DeepEqual(fastMetrics, generalMetrics) {
				t.Errorf("metrics differ:\nfast:    %+v\ngeneral: %+v", fastMetrics, generalMetrics)
			}
			if fastMetrics.RecordCount != int64(len(good)) {
				t.Errorf("record count %d, want %d", fastMetrics.RecordCount, len(good))
			}
			refused := 0
			for i := range recs {
				if fastErrs[i] != generalErrs[i] {
					t.Errorf("record %d: fast path error %q, general path %q", i, fastErrs[i], generalErrs[i])
				}
				if fastErrs[i] != "" {
					refused++
				}
			}
			if want := len(recs) - len(good); refused != want {
				t.Errorf("%d records refused, want %d", refused, want)
			}
			// The unknown column has no Parquet column: a reader of the file
			// sees every field but the last.
			got := readAllRecords(t, filepath.Join(dir, "fast.parquet"))
			if len(got) != len(good) {
				t.Fatalf("read %d records, want %d", len(got), len(good))
			}
			stored := iceberg.NewSchema(0, schema.Fields()[:len(schema.Fields())-1]...)
			for i := range good {
				want := data.Of(stored, good[i].Values()[:len(stored.Fields())]...)
				if !got[i].Equal(want) {
					t.Fatalf("record %d:\ngot:  %s\nwant: %s", i, got[i], want)
				}
			}
		})
	}
}

// TestFlatColumnsWithVariant covers a writer that starts late: with
// shredding on, the batch is planned once the variant layouts are known.
func TestFlatColumnsWithVariant(t *testing.T) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
		iceberg.NestedField{ID: 3, Name: "note", Type: iceberg.PrimitiveTypes.String},
	)
	var recs []*data.Record
	for i := range 300 {
		v, err := pvariant.ParseJSON(`{"a": `+strconv.Itoa(i)+`, "b": "x`+strconv.Itoa(i%5)+`"}`, false)
		if err != nil {
			t.Fatal(err)
		}
		var note any = "n" + strconv.Itoa(i%13)
		if i%9 == 0 {
			note = nil
		}
		recs = append(recs, data.Of(schema, int64(300-i), v, note))
	}
	props := map[string]string{PropShredVariants: "true", PropVariantInferenceRows: "50", PropRowGroupRows: "120"}
	cfg := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}}
	dir := t.TempDir()
	fast, fastMetrics, _ := writeWith(t, filepath.Join(dir, "fast.parquet"), schema, props, cfg, true, recs)
	general, generalMetrics, _ := writeWith(t, filepath.Join(dir, "general.parquet"), schema, props, cfg, false, recs)
	if !bytes.Equal(fast, general) {
		t.Errorf("files differ: fast path %d bytes, general path %d bytes", len(fast), len(general))
	}
	if !reflect.DeepEqual(fastMetrics, generalMetrics) {
		t.Errorf("metrics differ:\nfast:    %+v\ngeneral: %+v", fastMetrics, generalMetrics)
	}
	if _, ok := fastMetrics.LowerBounds[1]; !ok {
		t.Error("no lower bound for id")
	}
	got := readAllRecords(t, filepath.Join(dir, "fast.parquet"))
	if len(got) != len(recs) {
		t.Fatalf("read %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !got[i].Equal(recs[i]) {
			t.Fatalf("record %d:\ngot:  %s\nwant: %s", i, got[i], recs[i])
		}
	}
}

func readAllRecords(t *testing.T, path string) []*data.Record {
	t.Helper()
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := registry.ReadAll(r, (*data.Record).Copy)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// BenchmarkColumnBatchAdd is the registry's per-record cost before
// parquet-go: shredding a (id long required, name string optional) record
// into the batch, on the fast path and on the general one.
func BenchmarkColumnBatchAdd(b *testing.B) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	)
	plan, err := planWrite(schema, nil)
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]*data.Record, writeBatchRows)
	for i := range recs {
		var name any = "name-" + strconv.Itoa(i)
		if i%10 == 0 {
			name = nil
		}
		recs[i] = data.Of(schema, int64(i)<<20, name)
	}
	noCheck := func(*data.Record) error { return nil }
	typed := make([]*data.Record, len(recs))
	for i, r := range recs {
		typed[i] = unboxed(r)
	}
	for _, tc := range []struct {
		name string
		flat bool
		recs []*data.Record
	}{{"flat", true, recs}, {"flat-typed-setters", true, typed}, {"general", false, recs}} {
		flat, recs := tc.flat, tc.recs
		b.Run(tc.name, func(b *testing.B) {
			collector, err := colmetrics.NewCollector(schema, registry.DefaultMetricsConfig())
			if err != nil {
				b.Fatal(err)
			}
			batch, s := newColumnBatch(plan, collector, flat), newShredder(plan)
			for i := 0; b.Loop(); i++ {
				r := recs[i%len(recs)]
				if err := batch.add(s, r, noCheck); err != nil {
					b.Fatal(err)
				}
				if collector.NeedsRecords() {
					collector.Add(r)
				}
				if batch.rows == writeBatchRows {
					batch.observe(collector)
					batch.reset()
				}
			}
		})
	}
}

// unboxed is a copy of r with every bool, int32, int64, float32, float64
// and string value, in r and in its nested records, stored through the
// record's typed setters instead of boxed.
func unboxed(r *data.Record) *data.Record {
	if r == nil {
		return nil
	}
	c := r.Copy()
	for pos := range c.Len() {
		switch x := c.Get(pos).(type) {
		case bool:
			c.SetBool(pos, x)
		case int32:
			c.SetInt32(pos, x)
		case int64:
			c.SetInt64(pos, x)
		case float32:
			c.SetFloat32(pos, x)
		case float64:
			c.SetFloat64(pos, x)
		case string:
			c.SetString(pos, x)
		case *data.Record:
			c.Set(pos, unboxed(x))
		}
	}
	return c
}

// TestTypedSettersWriteTheSameFile writes the records of
// TestFlatColumnsMatchGeneralPath, good and bad, once boxed and once with
// their primitives set through the typed setters, and requires the same
// bytes, metrics and errors: a typed setter is Set without the allocation.
// The bad records include values of the wrong Go type in flat columns,
// which the typed getters must hand back to the converters.
func TestTypedSettersWriteTheSameFile(t *testing.T) {
	schema := columnarSchema()
	var boxed, typed []*data.Record
	bad := badRecords()
	for i, r := range columnarRecords(700) {
		boxed = append(boxed, r)
		if i%29 == 0 {
			boxed = append(boxed, bad[(i/29)%len(bad)])
		}
	}
	for _, r := range boxed {
		typed = append(typed, unboxed(r))
	}
	cfg := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}}
	props := map[string]string{PropPageBytes: "900"}
	for _, flat := range []bool{true, false} {
		dir := t.TempDir()
		want, wantMetrics, wantErrs := writeWith(t, filepath.Join(dir, "boxed.parquet"), schema, props, cfg, flat, boxed)
		got, gotMetrics, gotErrs := writeWith(t, filepath.Join(dir, "typed.parquet"), schema, props, cfg, flat, typed)
		if !bytes.Equal(got, want) {
			t.Errorf("flat=%v: files differ: typed setters %d bytes, boxed %d bytes", flat, len(got), len(want))
		}
		if !reflect.DeepEqual(gotMetrics, wantMetrics) {
			t.Errorf("flat=%v: metrics differ:\ntyped: %+v\nboxed: %+v", flat, gotMetrics, wantMetrics)
		}
		if !reflect.DeepEqual(gotErrs, wantErrs) {
			t.Errorf("flat=%v: errors differ:\ntyped: %q\nboxed: %q", flat, gotErrs, wantErrs)
		}
	}
}
