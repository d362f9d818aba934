package parquet_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

func variantSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "v", iceberg.VariantType{}),
	)
}

func mustJSON(t testing.TB, s string) pvariant.Value {
	t.Helper()
	v, err := pvariant.ParseJSON(s, false)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// genVariantJSON makes varied JSON: objects (stable, optional and rare
// keys), arrays, mixed types, nulls and nesting.
func genVariantJSON(r *rand.Rand, i int) string {
	switch i % 17 {
	case 5:
		return `null`
	case 7:
		return fmt.Sprintf(`{"any": "scalar %d"}`, i)
	case 11:
		return fmt.Sprintf(`{"any": [%d, "x", null, {"k": %d}]}`, i, i)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"id": %d, "user": {"name": "u%d", "age": %d}`, i, r.IntN(50), 18+r.IntN(60))
	fmt.Fprintf(&sb, `, "tags": ["t%d", "t%d"]`, r.IntN(5), r.IntN(5))
	if r.IntN(3) > 0 {
		fmt.Fprintf(&sb, `, "score": %g`, r.Float64()*100)
	}
	if i%4 == 0 {
		fmt.Fprintf(&sb, `, "mixed": "s%d"`, i)
	} else {
		fmt.Fprintf(&sb, `, "mixed": %d`, i)
	}
	if i%50 == 3 {
		sb.WriteString(`, "rare": {"deep": [1, 2, {"x": true}]}`)
	}
	if i%9 == 0 {
		sb.WriteString(`, "user2": null`)
	}
	sb.WriteString(`, "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2, "extra": 1.5}]}`)
	return sb.String()
}

func variantRecords(t testing.TB, n int) []*data.Record {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	sc := variantSchema()
	recs := make([]*data.Record, n)
	for i := range recs {
		var v any
		if i%13 != 12 {
			v = mustJSON(t, genVariantJSON(r, i))
		}
		recs[i] = data.Of(sc, int64(i), v)
	}
	return recs
}

func TestVariantRoundTrip(t *testing.T) {
	recs := variantRecords(t, 700)
	// Typed scalars the JSON parser does not produce.
	var b pvariant.Builder
	start := b.Offset()
	fields := []pvariant.FieldEntry{b.NextField(start, "d")}
	_ = b.AppendDate(arrow.Date32(19000))
	fields = append(fields, b.NextField(start, "ts"))
	_ = b.AppendTimestamp(arrow.Timestamp(1_700_000_000_000_000), true, true)
	fields = append(fields, b.NextField(start, "i8"))
	_ = b.AppendInt(7)
	_ = b.FinishObject(start, fields)
	typed, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, data.Of(variantSchema(), int64(len(recs)), typed))

	cases := map[string]map[string]string{
		"unshredded":     nil,
		"shredded":       {lparquet.PropShredVariants: "true"},
		"shredded-small": {lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: "20", lparquet.PropRowGroupRows: "128"},
		"shredded-few":   {lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: "10000"},
	}
	// A root of mixed types is not shreddable: the file stays unshredded.
	mixed := []*data.Record{
		data.Of(variantSchema(), int64(0), mustJSON(t, `"s"`)),
		data.Of(variantSchema(), int64(1), mustJSON(t, `[1, {"a": null}]`)),
		data.Of(variantSchema(), int64(2), mustJSON(t, `{"a": 1}`)),
	}
	mpath := tempFile(t, "mixed.parquet")
	writeRecords(t, mpath, variantSchema(), map[string]string{lparquet.PropShredVariants: "true"}, mixed...)
	assertRecords(t, readRecords(t, mpath, nil), mixed)
	if s := fileSchemaString(t, mpath); strings.Contains(s, "typed_value") {
		t.Errorf("mixed root shredded:\n%s", s)
	}
	for name, props := range cases {
		t.Run(name, func(t *testing.T) {
			path := tempFile(t, name+".parquet")
			df := writeRecords(t, path, variantSchema(), props, recs...)
			if df.Count() != int64(len(recs)) {
				t.Fatalf("DataFile count %d, want %d", df.Count(), len(recs))
			}
			got := readRecords(t, path, nil)
			assertRecords(t, got, recs)

			// The file carries the VARIANT annotation and, when shredding,
			// a typed_value tree.
			_, rows, err := readVariantParquet(t, path)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(recs) {
				t.Fatalf("variant.ReadParquet: %d rows, want %d", len(rows), len(recs))
			}
			schema := fileSchemaString(t, path)
			if !strings.Contains(schema, "(VARIANT") {
				t.Errorf("no VARIANT annotation in\n%s", schema)
			}
			if shredded := strings.Contains(schema, "typed_value"); shredded != (props != nil) {
				t.Errorf("typed_value present = %v, want %v\n%s", shredded, props != nil, schema)
			}
		})
	}
}

func readVariantParquet(t testing.TB, path string) (*variant.Layout, []variant.Row, error) {
	t.Helper()
	f := openPQ(t, path)
	return variant.ReadParquet(f, "v")
}

func openPQ(t testing.TB, path string) *pq.File {
	t.Helper()
	in := registry.LocalInput(path)
	src, size, err := in.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	f, err := pq.OpenFile(src, size)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func fileSchemaString(t testing.TB, path string) string {
	return openPQ(t, path).Schema().String()
}

func TestVariantWriteErrors(t *testing.T) {
	sc := variantSchema()
	for name, props := range map[string]map[string]string{"unshredded": nil, "shredded": {lparquet.PropShredVariants: "true"}} {
		t.Run(name, func(t *testing.T) {
			path := tempFile(t, "bad.parquet")
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
			if err != nil {
				t.Fatal(err)
			}
			w, err := b.Schema(sc).SetAll(props).Build()
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []any{pvariant.Value{}, "not a variant"} {
				err := w.Write(data.Of(sc, int64(1), bad))
				if err == nil || !strings.Contains(err.Error(), `column "v"`) {
					t.Errorf("write %T: error %v, want one naming column \"v\"", bad, err)
				}
			}
			good := data.Of(sc, int64(2), mustJSON(t, `{"a":1}`))
			if err := w.Write(good); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			assertRecords(t, readRecords(t, path, nil), []*data.Record{good})
		})
	}
	if _, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "x.parquet"))); err != nil {
		t.Fatal(err)
	}
}

func TestVariantBadProperties(t *testing.T) {
	for _, props := range []map[string]string{
		{lparquet.PropShredVariants: "maybe"},
		{lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: "0"},
	} {
		b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "p.parquet")))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Schema(variantSchema()).SetAll(props).Build(); err == nil {
			t.Errorf("props %v: no error", props)
		}
	}
}

// pathRecords: $.n is an int for the first rows; later row groups also
// hold strings there, which go to the residual value column.
func pathRecords(t testing.TB, n, intOnly int) []*data.Record {
	sc := variantSchema()
	recs := make([]*data.Record, n)
	for i := range recs {
		var js string
		switch {
		case i >= intOnly && i%3 == 0:
			js = fmt.Sprintf(`{"n": "s%d", "o": {"m": %d}, "pad": "%s"}`, i, i, strings.Repeat("x", 40))
		case i%10 == 9:
			js = fmt.Sprintf(`{"o": {"m": %d}, "pad": "p"}`, i) // $.n missing
		default:
			js = fmt.Sprintf(`{"n": %d, "o": {"m": %d}, "pad": "%s"}`, 100000+i, i, strings.Repeat("x", 40))
		}
		recs[i] = data.Of(sc, int64(i), mustJSON(t, js))
	}
	recs[5].Set(1, nil) // a SQL NULL row
	return recs
}

func TestReadVariantPath(t *testing.T) {
	recs := pathRecords(t, 1000, 500)
	path := tempFile(t, "path.parquet")
	writeRecords(t, path, variantSchema(), map[string]string{
		lparquet.PropShredVariants:        "true",
		lparquet.PropVariantInferenceRows: "100",
		lparquet.PropRowGroupRows:         "250",
	}, recs...)
	schema := fileSchemaString(t, path)
	if !strings.Contains(schema, "typed_value") {
		t.Fatalf("not shredded:\n%s", schema)
	}
	for _, p := range []string{"$.n", "$.o.m", "$.pad", "$.absent", "$"} {
		t.Run(p, func(t *testing.T) {
			got, err := lparquet.ReadVariantPath(registry.LocalInput(path), "v", p)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Values) != len(recs) {
				t.Fatalf("%d values, want %d", len(got.Values), len(recs))
			}
			steps := strings.Split(strings.TrimPrefix(p, "$"), ".")[1:]
			for i, r := range recs {
				want := pvariant.Value{}
				if v, ok := r.Get(1).(pvariant.Value); ok {
					want = v
					for _, s := range steps {
						f, err := want.Value().(pvariant.ObjectValue).ValueByKey(s)
						if err != nil {
							want = pvariant.Value{}
							break
						}
						want = f.Value
					}
				}
				g := got.Values[i]
				if (g.Bytes() == nil) != (want.Bytes() == nil) {
					t.Fatalf("row %d: got %v, want %v", i, g, want)
				}
				if want.Bytes() != nil {
					if err := variant.Equal(g, want); err != nil {
						t.Fatalf("row %d: %v", i, err)
					}
				}
			}
			t.Logf("%s: shredded groups %d, fallback %d, column chunks %d", p, got.ShreddedGroups, got.FallbackGroups, got.ColumnChunks)
			switch p {
			case "$.n":
				// Row groups 0 and 1 hold only ints at $.n; 2 and 3 strings too.
				if got.ShreddedGroups != 2 || got.FallbackGroups != 2 {
					t.Errorf("$.n: shredded %d fallback %d, want 2 and 2", got.ShreddedGroups, got.FallbackGroups)
				}
				// One chunk per shredded group; a fallback group, known
				// from the footer alone, reads every variant chunk.
				if leaves := 9; got.ColumnChunks != 2+2*leaves {
					t.Errorf("$.n: %d column chunks read, want %d", got.ColumnChunks, 2+2*leaves)
				}
			case "$.o.m":
				// The first 100 rows made $.o.m an int8; larger values
				// went to its residual, so no row group qualifies.
				if got.FallbackGroups != 4 {
					t.Errorf("$.o.m: %d fallback groups, want 4", got.FallbackGroups)
				}
			case "$.absent", "$":
				if got.ShreddedGroups != 0 {
					t.Errorf("%s: %d shredded groups, want 0", p, got.ShreddedGroups)
				}
				if got.ColumnChunks <= 4*2 {
					t.Errorf("%s: fallback read only %d chunks", p, got.ColumnChunks)
				}
			}
		})
	}
	if _, err := lparquet.ReadVariantPath(registry.LocalInput(path), "id", "$.n"); err == nil {
		t.Error("non-variant column: no error")
	}
	if _, err := lparquet.ReadVariantPath(registry.LocalInput(path), "v", "n"); err == nil {
		t.Error("path without $: no error")
	}
}

// TestVariantCounts: a variant field's value and null counts are its
// metadata leaf's, shredded or not, in every row group: SQL nulls count as
// nulls, a variant holding a Variant null (genVariantJSON's "null") does
// not. A variant inside a struct is counted the same way; metrics mode
// none leaves a variant out.
func TestVariantCounts(t *testing.T) {
	inner := &iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 4, Name: "w", Type: iceberg.VariantType{}}}}
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "v", iceberg.VariantType{}), opt(3, "s", inner))
	var recs []*data.Record
	wantNulls, wantInnerNulls, variantNulls := 0, 0, 0
	for i, r := range variantRecords(t, 700) {
		st := data.NewStructRecord(inner)
		switch {
		case i%5 == 0:
			st = nil // the struct is null, so w is too
			wantInnerNulls++
		case i%3 == 0:
			wantInnerNulls++ // w is null in a present struct
		default:
			st.Set(0, r.Get(1))
			if r.Get(1) == nil {
				wantInnerNulls++
			}
		}
		v := r.Get(1)
		if v == nil {
			wantNulls++
		} else if v.(pvariant.Value).Type() == pvariant.Null {
			variantNulls++
		}
		var sv any
		if st != nil {
			sv = st
		}
		recs = append(recs, data.Of(s, int64(i), v, sv))
	}
	if variantNulls == 0 || wantNulls == 0 {
		t.Fatal("the records hold no SQL null or no Variant null: the test covers neither")
	}
	for name, props := range map[string]map[string]string{
		"unshredded": {lparquet.PropRowGroupRows: "300"},
		"shredded":   {lparquet.PropShredVariants: "true", lparquet.PropRowGroupRows: "300"},
	} {
		t.Run(name, func(t *testing.T) {
			df := writeRecords(t, tempFile(t, "v.parquet"), s, props, recs...)
			if got := df.ValueCounts()[2]; got != int64(len(recs)) {
				t.Errorf("value count of v %d, want %d", got, len(recs))
			}
			if got := df.NullValueCounts()[2]; got != int64(wantNulls) {
				t.Errorf("null count of v %d, want %d (SQL nulls only; %d Variant nulls)", got, wantNulls, variantNulls)
			}
			if got := df.ValueCounts()[4]; got != int64(len(recs)) {
				t.Errorf("value count of s.w %d, want %d", got, len(recs))
			}
			if got := df.NullValueCounts()[4]; got != int64(wantInnerNulls) {
				t.Errorf("null count of s.w %d, want %d", got, wantInnerNulls)
			}
			// Only shredded fields have bounds (spec.md "Bounds for
			// Variant"; iceberg_metrics_test.go checks them).
			if _, ok := df.LowerBoundValues()[2]; ok && name == "unshredded" {
				t.Error("unshredded v has a lower bound")
			}
		})
	}
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "none.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).MetricsConfig(registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsCounts},
		Columns: map[string]registry.MetricsMode{"v": {Kind: registry.MetricsNone}}}).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[:10] {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.DataFile().ValueCounts()[2]; ok {
		t.Error("v has a value count under metrics mode none")
	}
	if got := w.DataFile().ValueCounts()[4]; got != 10 {
		t.Errorf("value count of s.w %d under mode counts, want 10", got)
	}
}

// A shredded decimal16 typed_value is as wide as Iceberg makes it:
// VariantShreddingAnalyzer.createDecimalTypedValue gives a
// FIXED_LEN_BYTE_ARRAY of TypeUtil.decimalRequiredBytes(precision), not 16
// bytes. Values of precision 22 (10 bytes), negative ones included, read back.
func TestShreddedDecimal16Width(t *testing.T) {
	var recs []*data.Record
	for i, s := range []string{"12345678901234567890.12", "-99999999999999999999.99", "0.01", "-1.50"} {
		recs = append(recs, data.Of(variantSchema(), int64(i), mustJSON(t, `{"amount": `+s+`}`)))
	}
	path := tempFile(t, "dec16.parquet")
	writeRecords(t, path, variantSchema(), map[string]string{lparquet.PropShredVariants: "true"}, recs...)
	schema := fileSchemaString(t, path)
	if !strings.Contains(schema, "fixed_len_byte_array(10) typed_value (DECIMAL(22,2))") {
		t.Fatalf("want a 10-byte DECIMAL(22,2) typed_value:\n%s", schema)
	}
	assertRecords(t, readRecords(t, path, nil), recs)
}
