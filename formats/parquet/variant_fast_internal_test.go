package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// Every test of this package (the fuzz targets too) has arrow-go validate
// each value the fast path assembles without validation: an invalid one
// panics there instead of passing.
func init() { variantCheckAssembled = true }

// fastCorpus makes values of every shape the fast paths handle: partially
// shredded objects, missing fields, mixed types, arrays of objects, empty
// arrays, nested residuals, typed scalars JSON does not produce, long
// strings, decimals that do and do not fit the layout.
func fastCorpus(t testing.TB, n int) []pvariant.Value { return fastCorpusOf(t, n, true) }

// fastCorpusOf leaves out the values of other shapes (scalar and array
// roots, a user that is a string) unless odd is set.
func fastCorpusOf(t testing.TB, n int, odd bool) []pvariant.Value {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]pvariant.Value, 0, n+8)
	for i := range n {
		var sb strings.Builder
		fmt.Fprintf(&sb, `{"id": %d, "user": {"name": "u%d", "age": %d`, i, r.IntN(50), 18+r.IntN(60))
		if i%3 == 0 && odd {
			fmt.Fprintf(&sb, `, "extra": {"a": [%d, "x"]}`, i)
		}
		sb.WriteString(`}`)
		switch i % 7 {
		case 0:
			sb.WriteString(`, "tags": []`)
		case 1:
			fmt.Fprintf(&sb, `, "other": "not-a-list-%d"`, i)
		default:
			fmt.Fprintf(&sb, `, "tags": ["t%d", "%s"]`, r.IntN(5), strings.Repeat("long", 20))
		}
		if i%4 == 0 {
			fmt.Fprintf(&sb, `, "mixed": "s%d"`, i)
		} else {
			fmt.Fprintf(&sb, `, "mixed": %d`, i)
		}
		fmt.Fprintf(&sb, `, "price": %.2f`, r.Float64()*100)
		if i%10 == 9 {
			sb.WriteString(`, "price2": 123456.789`)
		}
		if i%11 == 0 {
			sb.WriteString(`, "user": null`[0:0])
		}
		sb.WriteString(`, "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2, "extra": 1.5}, {"sku": null}]`)
		if i%17 == 5 {
			sb.WriteString(`, "id2": 3000000000`)
		}
		sb.WriteString(`}`)
		v, err := pvariant.ParseJSON(sb.String(), false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	for _, s := range []string{`null`, `"scalar"`, `[1, 2]`, `{}`, `{"user": "flat"}`, `{"items": [1, {"sku": 2}]}`} {
		if !odd {
			break
		}
		v, err := pvariant.ParseJSON(s, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	var b pvariant.Builder
	start := b.Offset()
	fields := []pvariant.FieldEntry{b.NextField(start, "d")}
	_ = b.AppendDate(arrow.Date32(19000))
	fields = append(fields, b.NextField(start, "ts"))
	_ = b.AppendTimestamp(arrow.Timestamp(1_700_000_000_000_000), true, true)
	fields = append(fields, b.NextField(start, "dec16"))
	_ = b.AppendDecimal16(3, decimal128.FromI64(-123456789012).Mul(decimal128.FromI64(1_000_000_000_000)))
	fields = append(fields, b.NextField(start, "dec4"))
	_ = b.AppendDecimal4(2, decimal.Decimal32(-1234))
	fields = append(fields, b.NextField(start, "f"))
	_ = b.AppendFloat32(1.5)
	_ = b.FinishObject(start, fields)
	typed, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Interleaved, so that the analyzer sees them in its buffer.
	mixed := make([]pvariant.Value, 0, len(out)+len(out)/25)
	for i, v := range out {
		if i%25 == 0 {
			mixed = append(mixed, typed)
		}
		mixed = append(mixed, v)
	}
	return mixed
}

func shredAll(t *testing.T, plan *writePlan, sc *iceberg.Schema, values []pvariant.Value, slow bool) [][]pq.Value {
	t.Helper()
	defer func(old bool) { variantShredSlow = old }(variantShredSlow)
	variantShredSlow = slow
	s := newShredder(plan)
	var all [][]pq.Value
	for i, v := range values {
		for c := range s.cols {
			s.cols[c] = s.cols[c][:0]
		}
		if err := s.record(plan.root, data.Of(sc, int64(i), v), 0); err != nil {
			t.Fatalf("row %d (slow=%v): %v", i, slow, err)
		}
		for c := range s.cols {
			row := make([]pq.Value, len(s.cols[c]))
			for k, x := range s.cols[c] {
				row[k] = x.Clone()
			}
			all = append(all, row)
		}
	}
	return all
}

// TestVariantFastShredMatches: the fast shredding path writes exactly the
// values, levels and residual bytes of variant.Shred + variantPair.
func TestVariantFastShredMatches(t *testing.T) {
	values := fastCorpus(t, 400)
	sc := idVariantSchema()
	for _, buffer := range []int{5, 100, 400} {
		cfg := variant.DefaultAnalyzerConfig()
		cfg.BufferRows = buffer
		cfg.MinFieldFrequency = 0 // shred the rare typed fields too
		layout, _ := variant.Analyze(values, cfg)
		if layout == nil {
			t.Fatalf("buffer %d: no layout", buffer)
		}
		plan, err := planWrite(sc, map[string]*variant.Layout{"v": layout})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("buffer %d: layout %s", buffer, layout)
		fast := shredAll(t, plan, sc, values, false)
		slow := shredAll(t, plan, sc, values, true)
		if len(fast) != len(slow) {
			t.Fatalf("%d vs %d", len(fast), len(slow))
		}
		for i := range fast {
			if len(fast[i]) != len(slow[i]) {
				t.Fatalf("buffer %d, layout %s: row %d column %d: %d values fast, %d slow", buffer, layout, i/plan.columns, i%plan.columns, len(fast[i]), len(slow[i]))
			}
			for k := range fast[i] {
				a, b := fast[i][k], slow[i][k]
				if a.RepetitionLevel() != b.RepetitionLevel() || a.DefinitionLevel() != b.DefinitionLevel() || a.Kind() != b.Kind() || a.IsNull() != b.IsNull() ||
					(!a.IsNull() && !bytes.Equal(a.Bytes(), b.Bytes())) {
					t.Fatalf("buffer %d, layout %s: row %d column %d value %d: fast %v (r%d d%d), slow %v (r%d d%d)", buffer, layout,
						i/plan.columns, i%plan.columns, k, a, a.RepetitionLevel(), a.DefinitionLevel(), b, b.RepetitionLevel(), b.DefinitionLevel())
				}
			}
		}
	}
}

// TestVariantFastReadMatches: the reader's fast path returns the bytes
// variant.Reconstruct returns, for shredded and unshredded files, and takes
// the slow path for no row of a valid file.
func TestVariantFastReadMatches(t *testing.T) {
	values := fastCorpus(t, 400)
	sc := idVariantSchema()
	for name, props := range map[string]map[string]string{
		"unshredded": nil,
		"shredded":   {PropShredVariants: "true", PropVariantInferenceRows: "400"},
		"small":      {PropShredVariants: "true", PropVariantInferenceRows: "5", PropRowGroupRows: "64"},
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir() + "/v.parquet"
			writeInternal(t, path, sc, props, values)
			read := func(slow bool) ([]pvariant.Value, int) {
				defer func(old bool) { variantReadSlow = old }(variantReadSlow)
				variantReadSlow = slow
				r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var out []pvariant.Value
				for {
					rec, err := r.Next()
					if err != nil {
						break
					}
					v, _ := rec.Get(1).(pvariant.Value)
					out = append(out, v)
				}
				return out, r.root.children[1].variant.slowRows
			}
			fast, slowRows := read(false)
			slow, _ := read(true)
			if slowRows != 0 {
				t.Errorf("%d rows took the slow path", slowRows)
			}
			if len(fast) != len(values) || len(slow) != len(values) {
				t.Fatalf("%d and %d rows, want %d", len(fast), len(slow), len(values))
			}
			for i := range fast {
				if !bytes.Equal(fast[i].Bytes(), slow[i].Bytes()) || !bytes.Equal(fast[i].Metadata().Bytes(), slow[i].Metadata().Bytes()) {
					t.Fatalf("row %d: fast %s (% x), slow %s (% x)", i, fast[i], fast[i].Bytes(), slow[i], slow[i].Bytes())
				}
				if err := variant.Equal(fast[i], values[i]); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
			}
		})
	}
}

// writeInternal writes values as rows id, v through the registry.
func writeInternal(t testing.TB, path string, sc *iceberg.Schema, props map[string]string, values []pvariant.Value) {
	t.Helper()
	records := make([]*data.Record, len(values))
	for i, v := range values {
		records[i] = data.Of(sc, int64(i), v)
	}
	writeVariantRecords(t, path, sc, props, records)
}

// TestVariantPathProjection: read.variant.paths returns, for every row,
// what iceberg.Extract gives on the whole variant (brute force on the
// written values), from the typed_value column alone where the path is
// shredded and its residual provably empty, by reconstruction otherwise.
func TestVariantPathProjection(t *testing.T) {
	for _, odd := range []bool{false, true} {
		testVariantPathProjection(t, odd)
	}
}

func testVariantPathProjection(t *testing.T, odd bool) {
	values := fastCorpusOf(t, 400, odd)
	sc := idVariantSchema()
	type want struct {
		field, path string
		typ         iceberg.Type
		typedOnly   bool // on the shredded file, read from one column
	}
	cases := []want{
		{"name", "$.user.name", iceberg.PrimitiveTypes.String, true},
		{"name_v", "$['user']['name']", iceberg.VariantType{}, true},
		{"age", "$.user.age", iceberg.PrimitiveTypes.Int64, true},
		{"age_s", "$.user.age", iceberg.PrimitiveTypes.String, true}, // a cast that fails: null
		{"id_v", "$.id", iceberg.VariantType{}, false},               // id outgrows int8/int16: residual
		{"mixed", "$.mixed", iceberg.PrimitiveTypes.Int64, false},    // not shredded
		{"whole", "$", iceberg.VariantType{}, false},
		{"absent", "$.nope.x", iceberg.PrimitiveTypes.Int32, false},
	}
	for name, props := range map[string]map[string]string{
		"unshredded": nil,
		"shredded":   {PropShredVariants: "true", PropVariantInferenceRows: "300", PropRowGroupRows: "150"},
	} {
		path := t.TempDir() + "/v.parquet"
		writeInternal(t, path, sc, props, values)
		for _, withVariant := range []bool{false, true} {
			fields := []iceberg.NestedField{{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}}
			var spec []string
			for i, c := range cases {
				fields = append(fields, iceberg.NestedField{ID: 100 + i, Name: c.field, Type: c.typ})
				spec = append(spec, c.field+"=v:"+c.path)
			}
			if withVariant {
				fields = append(fields, iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}})
			}
			proj := iceberg.NewSchema(0, fields...)
			for _, only := range cases {
				// Each path alone, to see which read from one column.
				p1 := iceberg.NewSchema(0, fields[0], iceberg.NestedField{ID: 100, Name: only.field, Type: only.typ})
				r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true, Projection: p1,
					Properties: map[string]string{VariantPathsKey: only.field + "=v:" + only.path}})
				if err != nil {
					t.Fatal(err)
				}
				if one := len(r.cursors) == 2; one != (only.typedOnly && props != nil && !odd) {
					var cols []string
					for _, c := range r.cursors {
						cols = append(cols, c.path)
					}
					t.Errorf("%s: %s: %d columns read: %v", name, only.path, len(r.cursors), cols)
				}
				r.Close()
			}
			r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true, Projection: proj,
				Properties: map[string]string{VariantPathsKey: strings.Join(spec, ";")}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for row := 0; ; row++ {
				rec, err := r.Next()
				if err != nil {
					if row != len(values) {
						t.Fatalf("%s: row %d: %v", name, row, err)
					}
					break
				}
				for i, c := range cases {
					got := rec.Get(1 + i)
					ext := iceberg.Extract(iceberg.Reference("v"), c.path, iceberg.PrimitiveTypes.String)
					_ = ext
					var exp any
					if sub := lookupRaw(values[row], mustSteps(t, c.path)); sub.Bytes() != nil {
						if _, ok := c.typ.(iceberg.VariantType); ok {
							exp = sub
						} else if lit, ok := iceberg.CastVariantLiteral(sub, c.typ.(iceberg.PrimitiveType)); ok {
							exp = lit.Any()
						}
					}
					switch e := exp.(type) {
					case pvariant.Value:
						g, ok := got.(pvariant.Value)
						if !ok {
							t.Fatalf("%s: row %d %s: got %T %v, want %v", name, row, c.path, got, got, e)
						}
						if err := variant.Equal(g, e); err != nil {
							t.Fatalf("%s: row %d %s: %v", name, row, c.path, err)
						}
					default:
						if fmt.Sprint(got) != fmt.Sprint(exp) {
							t.Fatalf("%s: row %d %s: got %T %v, want %T %v", name, row, c.path, got, got, exp, exp)
						}
					}
				}
				if withVariant {
					if err := variant.Equal(rec.Get(len(cases)+1).(pvariant.Value), values[row]); err != nil {
						t.Fatalf("%s: row %d: variant: %v", name, row, err)
					}
				}
			}
			r.Close()
		}
	}
	if _, err := parseVariantPaths("x=v"); err == nil {
		t.Error("no path: no error")
	}
	if _, err := parseVariantPaths("x=v:$.a;x=v:$.b"); err == nil {
		t.Error("field twice: no error")
	}
}

func mustSteps(t *testing.T, p string) []string {
	t.Helper()
	s, err := parseVariantPath(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestVariantFilterPushdown: a predicate on a shredded variant path prunes
// row groups by the typed_value column's statistics; rows not shredded for
// the path (a string ts in the residual) keep their row group; a predicate
// of another type is not pushed down and the reader says so. Brute force
// over the written values checks that no matching row is lost.
func TestVariantFilterPushdown(t *testing.T) {
	sc := idVariantSchema()
	var values []pvariant.Value
	for i := range 1000 {
		js := fmt.Sprintf(`{"ts": %d, "user": {"id": %d}, "pad": "x"}`, 1_000_000+i*10, 100_000+i)
		if i == 777 {
			js = `{"ts": "late", "user": {"id": 5}, "pad": "x"}` // not shredded for $.ts
		}
		v, err := pvariant.ParseJSON(js, false)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	path := t.TempDir() + "/v.parquet"
	writeInternal(t, path, sc, map[string]string{PropShredVariants: "true", PropRowGroupRows: "100"}, values)
	type tc struct {
		expr     iceberg.BooleanExpression
		groups   int
		warnings int
		match    func(pvariant.Value) bool
	}
	ts := func(v pvariant.Value) (int64, bool) {
		lit, ok := iceberg.CastVariantLiteral(lookupRaw(v, []string{"ts"}), iceberg.PrimitiveTypes.Int64)
		if !ok {
			return 0, false
		}
		return lit.Any().(int64), true
	}
	extract := func(p string, typ iceberg.PrimitiveType) iceberg.UnboundTerm {
		return iceberg.Extract(iceberg.Reference("v"), p, typ)
	}
	for name, c := range map[string]tc{
		// The last row group, and row group 7 with the string ts.
		"ts > last group": {iceberg.GreaterThan(extract("$.ts", iceberg.PrimitiveTypes.Int64), int64(1_000_000+905*10)), 2, 0,
			func(v pvariant.Value) bool { x, ok := ts(v); return ok && x > 1_000_000+905*10 }},
		// Row group 7 holds the string ts: it is kept though no typed
		// value there matches.
		"ts < 50": {iceberg.LessThan(extract("$['ts']", iceberg.PrimitiveTypes.Int64), int64(1_000_500)), 2, 0,
			func(v pvariant.Value) bool { x, ok := ts(v); return ok && x < 1_000_500 }},
		"user.id = 100123": {iceberg.EqualTo(extract("$.user.id", iceberg.PrimitiveTypes.Int64), int64(100_123)), 2, 0,
			func(v pvariant.Value) bool {
				lit, ok := iceberg.CastVariantLiteral(lookupRaw(v, []string{"user", "id"}), iceberg.PrimitiveTypes.Int64)
				return ok && lit.Any().(int64) == 100_123
			}},
		"ts as string": {iceberg.EqualTo(extract("$.ts", iceberg.PrimitiveTypes.String), "late"), 10, 1,
			func(v pvariant.Value) bool {
				lit, ok := iceberg.CastVariantLiteral(lookupRaw(v, []string{"ts"}), iceberg.PrimitiveTypes.String)
				return ok && lit.Any().(string) == "late"
			}},
		// ts and user.id are shredded as int32: an int predicate reads
		// the column as it is; a float or double one is not pushed down
		// (no promotion from int), and the reader says so.
		"ts as int": {iceberg.LessThan(extract("$.ts", iceberg.PrimitiveTypes.Int32), int32(1_000_500)), 2, 0,
			func(v pvariant.Value) bool {
				lit, ok := iceberg.CastVariantLiteral(lookupRaw(v, []string{"ts"}), iceberg.PrimitiveTypes.Int32)
				return ok && lit.Any().(int32) < 1_000_500
			}},
		"user.id as double": {iceberg.EqualTo(extract("$.user.id", iceberg.PrimitiveTypes.Float64), float64(100_123)), 10, 1,
			func(v pvariant.Value) bool {
				lit, ok := iceberg.CastVariantLiteral(lookupRaw(v, []string{"user", "id"}), iceberg.PrimitiveTypes.Float64)
				return ok && lit.Any().(float64) == 100_123
			}},
		"ts as float": {iceberg.GreaterThan(extract("$.ts", iceberg.PrimitiveTypes.Float32), float32(2e6)), 10, 1,
			func(v pvariant.Value) bool {
				lit, ok := iceberg.CastVariantLiteral(lookupRaw(v, []string{"ts"}), iceberg.PrimitiveTypes.Float32)
				return ok && lit.Any().(float32) > 2e6
			}},
	} {
		r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true, Filter: c.expr})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(r.groups) != c.groups {
			t.Errorf("%s: %d row groups read, want %d", name, len(r.groups), c.groups)
		}
		if w := r.FilterWarnings(); len(w) != c.warnings {
			t.Errorf("%s: warnings %q, want %d", name, w, c.warnings)
		} else if len(w) > 0 && (!strings.Contains(w[0], "not pushed down") || !strings.Contains(w[0], "shredded as int")) {
			t.Errorf("%s: warning %q does not say what was not pushed down and why", name, w[0])
		}
		got := map[int64]bool{}
		rows := 0
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: row %d: %v", name, rows, err)
			}
			rows++
			if c.match(rec.Get(1).(pvariant.Value)) {
				got[rec.Get(0).(int64)] = true
			}
		}
		r.Close()
		if rows != 100*c.groups {
			t.Errorf("%s: %d rows read from %d row groups of 100", name, rows, c.groups)
		}
		for i, v := range values {
			if c.match(v) && !got[int64(i)] {
				t.Errorf("%s: matching row %d was pruned", name, i)
			}
		}
	}
}

// TestVariantReadArraysAcrossCursorBuffers: the fast path gathers a
// repeated column's occurrence in place from the cursor's buffer of
// defaultRecordsPerBatch values, or copies it where it runs into a refill.
// Arrays whose elements end just before, at and after a buffer's end, and
// span several buffers, read back as written.
func TestVariantReadArraysAcrossCursorBuffers(t *testing.T) {
	b := defaultRecordsPerBatch
	var values []pvariant.Value
	for i, n := range []int{0, 3, b - 4, 1, b, 2, b + 1, 3*b + 7, 0, 5, b - 1, 1, 1, 2 * b, 9} {
		var sb strings.Builder
		fmt.Fprintf(&sb, `{"id": %d, "xs": [`, i)
		for j := range n {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, `{"k": %d, "s": "e%d"}`, j, i)
		}
		sb.WriteString("]}")
		v, err := pvariant.ParseJSON(sb.String(), false)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	sc := idVariantSchema()
	path := t.TempDir() + "/arrays.parquet"
	writeInternal(t, path, sc, map[string]string{PropShredVariants: "true"}, values)
	r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for ; ; n++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		v, _ := rec.Get(1).(pvariant.Value)
		if err := variant.Equal(v, values[n]); err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
	}
	if n != len(values) {
		t.Fatalf("read %d rows, want %d", n, len(values))
	}
	vr := r.root.children[1].variant
	if vr.slowRows != 0 {
		t.Errorf("%d rows took the slow path", vr.slowRows)
	}
	if layoutDepth(vr.layout) < 3 {
		t.Fatalf("the array was not shredded: layout %s", vr.layout)
	}
}

// TestVariantReadRefusesAnInvalidResidual: the fast path has arrow-go
// validate each residual, which the assembly copies verbatim (a long string
// whose length runs past its bytes, in a page with a checksum that fits).
// Its row is refused naming the path under the default policy; under
// read.variant.invalid=null that row reads as null, is reported, and every
// other row reads as written.
func TestVariantReadRefusesAnInvalidResidual(t *testing.T) {
	const bad = 300
	marker := "MARKER" + strings.Repeat("m", 70) // a long string: 0x40, 4-byte length, bytes
	var values []pvariant.Value
	for i := range 600 {
		js := fmt.Sprintf(`{"user": {"id": %d}, "n": %d}`, 100_000+i, i)
		if i == bad {
			js = fmt.Sprintf(`{"user": {"id": %q}, "n": %d}`, marker, i)
		}
		v, err := pvariant.ParseJSON(js, false)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	sc := idVariantSchema()
	path := t.TempDir() + "/bad.parquet"
	writeInternal(t, path, sc, map[string]string{
		PropShredVariants: "true", PropVariantInferenceRows: "200", PropCompressionCodec: "uncompressed",
	}, values)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Break the long string's length in the data page that holds it, and
	// give the page a checksum that fits (a forger can compute it too).
	// The page header must keep its length: a checksum whose varint is
	// longer is avoided by changing a byte of the string's own text.
	pf, err := pq.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	patched := false
	for _, cc := range pf.Metadata().RowGroups[0].Columns {
		md := &cc.MetaData
		if strings.Join(md.PathInSchema, ".") != "v.typed_value.user.typed_value.id.value" {
			continue
		}
		for pos := md.DataPageOffset; pos < md.DataPageOffset+md.TotalCompressedSize && !patched; {
			h, n, err := pages.DecodeHeader(raw[pos:])
			if err != nil {
				t.Fatal(err)
			}
			body := raw[pos+int64(n) : pos+int64(n)+int64(h.CompressedPageSize)]
			pos += int64(n) + int64(h.CompressedPageSize)
			at := bytes.Index(body, []byte(marker))
			if at < 0 {
				continue
			}
			if body[at-5] != 0x40 || body[at-4] != byte(len(marker)) {
				t.Fatalf("the marker is not a long string: % x", body[at-5:at])
			}
			body[at-4] = 0xff // the string's length now runs past its bytes
			for k := 0; ; k++ {
				body[at+len(marker)-1] = byte('a' + k%26)
				h.CRC = int32(crc32.ChecksumIEEE(body))
				hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
				if err != nil {
					t.Fatal(err)
				}
				if len(hb) == n {
					copy(raw[pos-int64(len(body))-int64(n):], hb)
					break
				}
			}
			patched = true
		}
	}
	if !patched {
		t.Fatal("no data page holds the marker")
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(policy string) ([]pvariant.Value, []InvalidValue, error) {
		r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true, Properties: map[string]string{variant.ReadPolicyKey: policy}})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []pvariant.Value
		var invalid []InvalidValue
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return out, invalid, nil
			}
			if err != nil {
				return out, invalid, err
			}
			v, _ := rec.Get(1).(pvariant.Value)
			out = append(out, v)
			invalid = append(invalid, r.TakeInvalid()...)
		}
	}
	got, _, err := read("error")
	if err == nil || !strings.Contains(err.Error(), "$.user.id: value column") || !strings.Contains(err.Error(), `"v"`) || !strings.Contains(err.Error(), "data requires 255 bytes") {
		t.Fatalf("default policy: %v, want the row refused naming $.user.id", err)
	}
	if len(got) != bad {
		t.Fatalf("default policy: %d rows before the error, want %d", len(got), bad)
	}
	got, invalid, err := read("null")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(values) || len(invalid) != 1 || invalid[0].Row != bad {
		t.Fatalf("null policy: %d rows, invalid %v; want %d rows and row %d reported", len(got), invalid, len(values), bad)
	}
	for i, v := range got {
		if i == bad {
			if v.Bytes() != nil {
				t.Fatalf("row %d: %s, want null", i, v)
			}
			continue
		}
		if err := variant.Equal(v, values[i]); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if !strings.Contains(invalid[0].Err.Error(), "$.user.id: value column") {
		t.Fatalf("null policy reports %v, want the path", invalid[0].Err)
	}
}

// idVariantSchema is the schema of these tests' files: a required long id
// and a variant v.
func idVariantSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
	)
}
