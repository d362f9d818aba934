package variant

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/parquet/variant"
)

func mustOf(t testing.TB, v any) variant.Value {
	t.Helper()
	var b variant.Builder
	if err := b.Append(v); err != nil {
		t.Fatal(err)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// genRow builds a semi-structured row: mostly uniform fields, some mixed,
// rare fields, nulls, nested objects and arrays, and non-object rows.
func genRow(r *rand.Rand, i int) any {
	switch r.IntN(20) {
	case 0:
		return nil
	case 1:
		return fmt.Sprintf("not an object %d", i)
	}
	row := map[string]any{
		"id":    int64(i) * 1_000_003, // widens int8..int64 as i grows
		"name":  fmt.Sprintf("n%d", r.IntN(50)),
		"score": r.Float64(),
		"tags":  []any{"a", fmt.Sprint(r.IntN(3)), nil},
		"geo":   map[string]any{"lat": r.Float64(), "lon": r.Float64(), "alt": []any{int8(1), int16(300)}[r.IntN(2)]},
		"mixed": []any{int32(1), "one", true, nil}[r.IntN(4)],
		"price": variant.DecimalValue[decimal.Decimal32]{Scale: 2, Value: decimal.Decimal32(r.IntN(100000))},
		"deep":  map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": int32(r.IntN(10))}}}},
	}
	if r.IntN(3) == 0 {
		delete(row, "score")
	}
	if r.IntN(2) == 0 {
		row["geo"] = nil
	}
	if r.IntN(30) == 0 {
		row[fmt.Sprintf("rare%d", i)] = i
	}
	if r.IntN(10) == 0 {
		row["tags"] = "scalar instead of array"
	}
	return row
}

func TestRoundTripGenerated(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 42))
		var values []variant.Value
		for i := range 300 {
			values = append(values, mustOf(t, genRow(r, i)))
		}
		// Non-object rows would make the root non-uniform (nothing shredded);
		// infer from the object rows, then shred every row, so non-objects
		// exercise the residual path.
		var objects []variant.Value
		for _, v := range values {
			if v.Type() == variant.Object {
				objects = append(objects, v)
			}
		}
		layout, rep := Analyze(objects, DefaultAnalyzerConfig())
		if layout == nil || layout.Kind != Object {
			t.Fatalf("seed %d: want an object layout, got %v\n%s", seed, layout, rep)
		}
		if seed == 0 {
			t.Logf("layout %s\n%s%s", layout, layout.ParquetSchema("v"), rep)
		}
		for i, v := range values {
			row, err := Shred(layout, v)
			if err != nil {
				t.Fatalf("seed %d row %d: shred: %v", seed, i, err)
			}
			got, err := Reconstruct(layout, row)
			if err != nil {
				t.Fatalf("seed %d row %d: reconstruct: %v", seed, i, err)
			}
			if err := Equal(got, v); err != nil {
				t.Fatalf("seed %d row %d: %v\n got %s\nwant %s", seed, i, err, got, v)
			}
		}
	}
}

func TestAnalyzerUniformity(t *testing.T) {
	obj := func(v any) variant.Value { return mustOf(t, map[string]any{"f": v, "k": "x"}) }
	cases := []struct {
		name string
		vals []any
		want string // layout of field f, "" if not shredded
	}{
		{"ints widen", []any{int8(1), int16(300), int32(70000)}, "int32"},
		{"mixed int string", []any{int32(1), "a"}, ""},
		{"bools", []any{true, false}, "boolean"},
		{"nulls ignored", []any{nil, "a", "b"}, "string"},
		{"decimals", []any{
			variant.DecimalValue[decimal.Decimal32]{Scale: 2, Value: decimal.Decimal32(12345)},
			variant.DecimalValue[decimal.Decimal64]{Scale: 4, Value: decimal.Decimal64(1)},
		}, "decimal(7,4)"},
		{"int and double", []any{int8(1), 2.5}, ""},
		{"arrays", []any{[]any{"a"}, []any{"b", "c"}}, "[string]"},
	}
	for _, c := range cases {
		var vals []variant.Value
		for _, v := range c.vals {
			vals = append(vals, obj(v))
		}
		l, rep := Analyze(vals, DefaultAnalyzerConfig())
		got := ""
		if l != nil {
			if i := l.field("f"); i >= 0 {
				got = l.Fields[i].Layout.String()
			}
		}
		if got != c.want {
			t.Errorf("%s: f shredded as %q, want %q\n%s", c.name, got, c.want, rep)
		}
	}
}

func TestAnalyzerPruning(t *testing.T) {
	cfg := DefaultAnalyzerConfig()
	var vals []variant.Value
	for i := range 100 {
		m := map[string]any{"common": int32(i)}
		if i < 9 {
			m["rare"] = "x" // 9% of rows
		}
		if i < 2 {
			// A long array in 2 rows: per-row counting keeps "key" rare.
			var arr []any
			for j := range 500 {
				arr = append(arr, map[string]any{"key": int32(j)})
			}
			m["list"] = arr
		}
		vals = append(vals, mustOf(t, m))
	}
	l, rep := Analyze(vals, cfg)
	// Builder.Append encodes 0..99 as int8.
	if l == nil || l.String() != "{common:int8}" {
		t.Fatalf("layout %v\n%s", l, rep)
	}
	cfg.MinFieldFrequency = 0.05
	cfg.MaxShreddedFields = 1
	l, rep = Analyze(vals, cfg)
	if l == nil || l.String() != "{common:int8}" {
		t.Fatalf("cap: layout %v\n%s", l, rep)
	}
	// Ties in the cap break by name.
	cfg = DefaultAnalyzerConfig()
	cfg.MaxShreddedFields = 2
	l, _ = Analyze([]variant.Value{mustOf(t, map[string]any{"c": 1, "b": 1, "a": 1})}, cfg)
	if l.String() != "{a:int8,b:int8}" {
		t.Fatalf("tie-break: %v", l)
	}
}

func TestShredPartialAndConflicts(t *testing.T) {
	v := mustOf(t, map[string]any{"a": int32(1), "b": "x", "c": nil})
	l := &Layout{Kind: Object, Fields: []Field{
		{Name: "a", Layout: &Layout{Kind: Primitive, Type: variant.Int8}},
		{Name: "c", Layout: &Layout{Kind: Primitive, Type: variant.String}},
		{Name: "z", Layout: &Layout{Kind: Primitive, Type: variant.String}},
	}}
	row, err := Shred(l, v)
	if err != nil {
		t.Fatal(err)
	}
	if row.Value == nil || !row.Fields[0].HasTyped || row.Fields[1].Value == nil || !row.Fields[2].Missing() {
		t.Fatalf("unexpected shredding %+v", row)
	}
	// A shredded field duplicated in the residual must be rejected.
	bad := row
	bad.Value = mustOfMeta(t, v, map[string]any{"a": 2}).Bytes()
	if _, err := Reconstruct(l, bad); err == nil {
		t.Fatal("want conflict error")
	} else {
		t.Log(err)
	}
}

// mustOfMeta encodes x against v's metadata so its bytes can be a residual.
func mustOfMeta(t *testing.T, v variant.Value, x any) variant.Value {
	b := variant.NewBuilderFromMeta(v.Metadata())
	if err := b.Append(x); err != nil {
		t.Fatal(err)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
