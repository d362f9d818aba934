package parquet_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	lab "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

func projectionSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int32),
		opt(2, "score", iceberg.PrimitiveTypes.Float32),
		opt(3, "amount", iceberg.DecimalTypeOf(9, 2)),
		opt(4, "info", structOf(opt(5, "a", iceberg.PrimitiveTypes.String), opt(6, "b", iceberg.PrimitiveTypes.Int64),
			opt(7, "inner", structOf(opt(8, "x", iceberg.PrimitiveTypes.Int32))))),
		opt(9, "tags", &iceberg.ListType{ElementID: 10, Element: structOf(opt(11, "k", iceberg.PrimitiveTypes.String), opt(12, "v", iceberg.PrimitiveTypes.Int32))}),
	)
}

func TestRecordProjection(t *testing.T) {
	s := projectionSchema()
	st := s.AsStruct()
	info := st.FieldList[3].Type.(*iceberg.StructType)
	inner := info.FieldList[2].Type.(*iceberg.StructType)
	tag := st.FieldList[4].Type.(*iceberg.ListType).Element.(*iceberg.StructType)
	path := tempFile(t, "proj.parquet")
	writeRecords(t, path, s, nil,
		rec(&st, int32(1), float32(0.5), dec(t, "1.25", 9, 2), rec(info, "a1", int64(10), rec(inner, int32(7))), []any{rec(tag, "k1", int32(1)), nil}),
		rec(&st, int32(2), nil, nil, nil, nil),
		rec(&st, int32(3), float32(-1), dec(t, "-3.50", 9, 2), rec(info, nil, nil, nil), []any{}),
	)

	newInfo := structOf(opt(6, "b", iceberg.PrimitiveTypes.Int64), opt(50, "added", iceberg.PrimitiveTypes.String))
	onlyMissing := structOf(opt(51, "ghost", iceberg.PrimitiveTypes.Int32))
	innerOnlyMissing := structOf(opt(7, "inner", structOf(opt(52, "ghost", iceberg.PrimitiveTypes.Int32))))
	tagV := structOf(opt(12, "v", iceberg.PrimitiveTypes.Int32))
	defaulted := iceberg.NestedField{ID: 60, Name: "dflt", Type: iceberg.PrimitiveTypes.Int32, Required: true, InitialDefault: int32(42)}
	jsonDefault := iceberg.NestedField{ID: 61, Name: "jdflt", Type: iceberg.PrimitiveTypes.Int64, InitialDefault: float64(7)}

	cases := []struct {
		name       string
		projection *iceberg.Schema
		want       func(st *iceberg.StructType) []*data.Record
	}{
		{"subset reordered", iceberg.NewSchema(0, opt(2, "score", iceberg.PrimitiveTypes.Float32), req(1, "id", iceberg.PrimitiveTypes.Int32)),
			func(st *iceberg.StructType) []*data.Record {
				return []*data.Record{rec(st, float32(0.5), int32(1)), rec(st, nil, int32(2)), rec(st, float32(-1), int32(3))}
			}},
		{"promotions", iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "score", iceberg.PrimitiveTypes.Float64), opt(3, "amount", iceberg.DecimalTypeOf(20, 2))),
			func(st *iceberg.StructType) []*data.Record {
				return []*data.Record{rec(st, int64(1), 0.5, dec(t, "1.25", 20, 2)), rec(st, int64(2), nil, nil), rec(st, int64(3), -1.0, dec(t, "-3.50", 20, 2))}
			}},
		{"missing columns and defaults", iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int32), opt(40, "new", iceberg.PrimitiveTypes.String), defaulted, jsonDefault),
			func(st *iceberg.StructType) []*data.Record {
				return []*data.Record{rec(st, int32(1), nil, int32(42), int64(7)), rec(st, int32(2), nil, int32(42), int64(7)), rec(st, int32(3), nil, int32(42), int64(7))}
			}},
		{"nested subset with an added field", iceberg.NewSchema(0, opt(4, "info", newInfo)),
			func(st *iceberg.StructType) []*data.Record {
				ni := st.FieldList[0].Type.(*iceberg.StructType)
				return []*data.Record{rec(st, rec(ni, int64(10), nil)), rec(st, nil), rec(st, rec(ni, nil, nil))}
			}},
		// Struct nullness survives when no projected field is in the file.
		{"struct of missing fields", iceberg.NewSchema(0, opt(4, "info", onlyMissing)),
			func(st *iceberg.StructType) []*data.Record {
				om := st.FieldList[0].Type.(*iceberg.StructType)
				return []*data.Record{rec(st, rec(om)), rec(st, nil), rec(st, rec(om))}
			}},
		{"nested struct of missing fields", iceberg.NewSchema(0, opt(4, "info", innerOnlyMissing)),
			func(st *iceberg.StructType) []*data.Record {
				io := st.FieldList[0].Type.(*iceberg.StructType)
				gi := io.FieldList[0].Type.(*iceberg.StructType)
				return []*data.Record{rec(st, rec(io, rec(gi))), rec(st, nil), rec(st, rec(io, nil))}
			}},
		{"list of struct subset", iceberg.NewSchema(0, opt(9, "tags", &iceberg.ListType{ElementID: 10, Element: tagV})),
			func(st *iceberg.StructType) []*data.Record {
				return []*data.Record{rec(st, []any{rec(tagV, int32(1)), nil}), rec(st, nil), rec(st, []any{})}
			}},
		{"nothing from the file", iceberg.NewSchema(0, opt(70, "x", iceberg.PrimitiveTypes.String)),
			func(st *iceberg.StructType) []*data.Record {
				return []*data.Record{rec(st, nil), rec(st, nil), rec(st, nil)}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(tc.projection) })
			pst := tc.projection.AsStruct()
			assertRecords(t, got, tc.want(&pst))
		})
	}
}

func TestRecordIDToConstant(t *testing.T) {
	s := projectionSchema()
	st := s.AsStruct()
	path := tempFile(t, "const.parquet")
	writeRecords(t, path, s, nil, rec(&st, int32(1), float32(1)), rec(&st, int32(2), nil))
	proj := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int32), opt(2, "score", iceberg.PrimitiveTypes.Float32),
		req(100, "_file", iceberg.PrimitiveTypes.String), opt(101, "part", iceberg.PrimitiveTypes.Int64))
	got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Project(proj).IDToConstant(map[int]any{2: float32(9), 100: "f.parquet", 101: int64(-1)})
	})
	pst := proj.AsStruct()
	assertRecords(t, got, []*data.Record{
		rec(&pst, int32(1), float32(9), "f.parquet", int64(-1)),
		rec(&pst, int32(2), float32(9), "f.parquet", int64(-1)),
	})
}

// TestRecordNameMapping reads a file written by parquet-go's reflection,
// without field ids, through a name mapping.
func TestRecordNameMapping(t *testing.T) {
	type point struct {
		X int32 `parquet:"x"`
		Y int32 `parquet:"y,optional"`
	}
	type row struct {
		ID     int64    `parquet:"id"`
		Name   *string  `parquet:"name,optional"`
		Tags   []string `parquet:"tags,list"`
		Bare   []int32  `parquet:"bare"`
		Point  *point   `parquet:"point,optional"`
		Skipme string   `parquet:"skipme"`
	}
	path := tempFile(t, "mapped.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	name := "n1"
	w := pq.NewGenericWriter[row](f)
	if _, err := w.Write([]row{
		{ID: 1, Name: &name, Tags: []string{"a", "b"}, Bare: []int32{5}, Point: &point{X: 1, Y: 2}, Skipme: "s"},
		{ID: 2, Tags: []string{}, Bare: nil},
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	id := func(i int) *int { return &i }
	mapping := iceberg.NameMapping{
		{Names: []string{"id"}, FieldID: id(1)},
		{Names: []string{"name", "full_name"}, FieldID: id(2)},
		{Names: []string{"tags"}, FieldID: id(3), Fields: []iceberg.MappedField{{Names: []string{"element"}, FieldID: id(4)}}},
		{Names: []string{"bare"}, FieldID: id(5), Fields: []iceberg.MappedField{{Names: []string{"element"}, FieldID: id(6)}}},
		{Names: []string{"point"}, FieldID: id(7), Fields: []iceberg.MappedField{
			{Names: []string{"x"}, FieldID: id(8)}, {Names: []string{"y"}, FieldID: id(9)}}},
	}
	pointT := structOf(req(8, "x", iceberg.PrimitiveTypes.Int32), opt(9, "y", iceberg.PrimitiveTypes.Int32))
	want := iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "name", iceberg.PrimitiveTypes.String),
		req(3, "tags", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}),
		req(5, "bare", &iceberg.ListType{ElementID: 6, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}),
		opt(7, "point", pointT),
	)
	wst := want.AsStruct()
	wantRecs := []*data.Record{
		rec(&wst, int64(1), "n1", []any{"a", "b"}, []any{int32(5)}, rec(pointT, int32(1), int32(2))),
		rec(&wst, int64(2), nil, []any{}, []any{}, nil),
	}
	// Without a projection the file's mapped schema is read; fields the
	// mapping leaves out are dropped.
	got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.WithNameMapping(mapping) })
	assertRecords(t, got, wantRecs)
	got = readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.WithNameMapping(mapping).Project(want) })
	assertRecords(t, got, wantRecs)
}

// rowsSchema and rowsFile: 1000 rows, ids 0..999, in row groups of 100.
func rowsSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "name", iceberg.PrimitiveTypes.String),
		opt(3, "maybe", iceberg.PrimitiveTypes.Int32),
		opt(4, "x", iceberg.PrimitiveTypes.Float64),
		opt(5, "grp", structOf(opt(6, "n", iceberg.PrimitiveTypes.Int32))),
	)
}

func rowsFile(t *testing.T) (string, []*data.Record, iceberg.DataFile) {
	t.Helper()
	s := rowsSchema()
	st := s.AsStruct()
	grp := st.FieldList[4].Type.(*iceberg.StructType)
	var recs []*data.Record
	for i := range 1000 {
		var maybe any
		if i >= 500 { // only the second half has values
			maybe = int32(i)
		}
		var x any = float64(i) / 10
		if i >= 300 && i < 400 {
			x = nil // group 3 is all null
		}
		recs = append(recs, rec(&st, int64(i), fmt.Sprintf("name-%04d", i), maybe, x, rec(grp, int32(i%100))))
	}
	path := tempFile(t, "rows.parquet")
	df := writeRecords(t, path, s, map[string]string{lab.PropRowGroupRows: "100"}, recs...)
	return path, recs, df
}

func TestRecordSplits(t *testing.T) {
	path, recs, df := rowsFile(t)
	offsets := df.SplitOffsets()
	if len(offsets) != 10 {
		t.Fatalf("%d split offsets, want 10", len(offsets))
	}
	for i := 1; i < len(offsets); i++ {
		if offsets[i] <= offsets[i-1] {
			t.Fatalf("split offsets not ascending: %v", offsets)
		}
	}
	end := df.FileSizeBytes()
	bound := func(i int) int64 {
		if i < len(offsets) {
			return offsets[i]
		}
		return end
	}
	cases := []struct {
		name          string
		start, length int64
		from, to      int // expected record range
	}{
		{"first group", offsets[0], offsets[1] - offsets[0], 0, 100},
		{"third group", offsets[2], offsets[3] - offsets[2], 200, 300},
		{"groups 4 and 5", offsets[4], offsets[6] - offsets[4], 400, 600},
		{"last group to the end", offsets[9], end - offsets[9], 900, 1000},
		{"whole file", 0, end, 0, 1000},
		{"inside a group", offsets[3] + 1, offsets[4] - offsets[3] - 1, 0, 0},
		{"start exactly at the end of the range", offsets[5], 1, 500, 600},
		{"empty range", offsets[5], 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Split(tc.start, tc.length) })
			assertRecords(t, got, recs[tc.from:tc.to])
		})
	}
	// Splits that tile the file read every row exactly once.
	var all []*data.Record
	for i := range offsets {
		all = append(all, readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Split(bound(i), bound(i+1)-bound(i)) })...)
	}
	assertRecords(t, all, recs)
}

func TestRecordFilterSkipsRowGroups(t *testing.T) {
	path, recs, _ := rowsFile(t)
	ref := func(name string) iceberg.Reference { return iceberg.Reference(name) }
	cases := []struct {
		name    string
		filter  iceberg.BooleanExpression
		match   func(r *data.Record) bool
		groups  int // row groups read
		project *iceberg.Schema
	}{
		{"always true", iceberg.AlwaysTrue{}, func(*data.Record) bool { return true }, 10, nil},
		{"always false", iceberg.AlwaysFalse{}, func(*data.Record) bool { return false }, 0, nil},
		{"id = 250", iceberg.EqualTo(ref("id"), int64(250)), func(r *data.Record) bool { return r.Get(0) == int64(250) }, 1, nil},
		{"id >= 950", iceberg.GreaterThanEqual(ref("id"), int64(950)), func(r *data.Record) bool { return r.Get(0).(int64) >= 950 }, 1, nil},
		{"id > 899", iceberg.GreaterThan(ref("id"), int64(899)), func(r *data.Record) bool { return r.Get(0).(int64) > 899 }, 1, nil},
		{"id < 100", iceberg.LessThan(ref("id"), int64(100)), func(r *data.Record) bool { return r.Get(0).(int64) < 100 }, 1, nil},
		{"id <= 100", iceberg.LessThanEqual(ref("id"), int64(100)), func(r *data.Record) bool { return r.Get(0).(int64) <= 100 }, 2, nil},
		{"id < 0", iceberg.LessThan(ref("id"), int64(0)), func(*data.Record) bool { return false }, 0, nil},
		{"id != 5", iceberg.NotEqualTo(ref("id"), int64(5)), func(r *data.Record) bool { return r.Get(0) != int64(5) }, 10, nil},
		{"id in (5, 905)", iceberg.IsIn(ref("id"), int64(5), int64(905)), func(r *data.Record) bool { return r.Get(0) == int64(5) || r.Get(0) == int64(905) }, 2, nil},
		{"id not in (5)", iceberg.NotIn(ref("id"), int64(5)), func(r *data.Record) bool { return r.Get(0) != int64(5) }, 10, nil},
		{"maybe is null", iceberg.IsNull(ref("maybe")), func(r *data.Record) bool { return r.Get(2) == nil }, 5, nil},
		{"maybe not null", iceberg.NotNull(ref("maybe")), func(r *data.Record) bool { return r.Get(2) != nil }, 5, nil},
		{"x not null", iceberg.NotNull(ref("x")), func(r *data.Record) bool { return r.Get(3) != nil }, 9, nil},
		{"x is nan", iceberg.IsNaN(ref("x")), func(*data.Record) bool { return false }, 9, nil},
		{"x not nan", iceberg.NotNaN(ref("x")), func(r *data.Record) bool { return r.Get(3) != nil }, 10, nil},
		{"x > 95.0", iceberg.GreaterThan(ref("x"), 95.0), func(r *data.Record) bool { x, ok := r.Get(3).(float64); return ok && x > 95 }, 1, nil},
		{"name starts with name-07", iceberg.StartsWith(ref("name"), "name-07"), func(r *data.Record) bool { return strings.HasPrefix(r.Get(1).(string), "name-07") }, 1, nil},
		{"name not starts with", iceberg.NotStartsWith(ref("name"), "name-07"), func(r *data.Record) bool { return !strings.HasPrefix(r.Get(1).(string), "name-07") }, 10, nil},
		{"and", iceberg.NewAnd(iceberg.GreaterThanEqual(ref("id"), int64(100)), iceberg.LessThan(ref("id"), int64(300))),
			func(r *data.Record) bool { id := r.Get(0).(int64); return id >= 100 && id < 300 }, 2, nil},
		{"or", iceberg.NewOr(iceberg.LessThan(ref("id"), int64(10)), iceberg.GreaterThan(ref("id"), int64(990))),
			func(r *data.Record) bool { id := r.Get(0).(int64); return id < 10 || id > 990 }, 2, nil},
		{"not", iceberg.NewNot(iceberg.GreaterThanEqual(ref("id"), int64(100))), func(r *data.Record) bool { return r.Get(0).(int64) < 100 }, 1, nil},
		{"nested struct field", iceberg.GreaterThan(ref("grp.n"), int32(200)), func(*data.Record) bool { return false }, 0, nil},
		{"case insensitive", iceberg.EqualTo(ref("ID"), int64(250)), func(r *data.Record) bool { return r.Get(0) == int64(250) }, 1, nil},
		// The filter names a column the projection leaves out.
		{"column outside the projection", iceberg.EqualTo(ref("id"), int64(250)), nil, 1,
			iceberg.NewSchema(0, opt(2, "name", iceberg.PrimitiveTypes.String))},
		// Promoted projection: the file's int32 statistics compare as long.
		{"promoted column", iceberg.GreaterThan(ref("maybe"), int64(949)), nil, 1,
			iceberg.NewSchema(0, opt(3, "maybe", iceberg.PrimitiveTypes.Int64))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
				b.Filter(tc.filter)
				if tc.name == "case insensitive" {
					b.CaseSensitive(false)
				}
				if tc.project != nil {
					b.Project(tc.project)
				}
			})
			if len(got) != tc.groups*100 {
				t.Errorf("read %d rows, want %d row groups of 100", len(got), tc.groups)
			}
			if tc.match == nil {
				return
			}
			// Never drop a matching row.
			kept := map[int64]bool{}
			for _, r := range got {
				kept[r.Get(0).(int64)] = true
			}
			for _, r := range recs {
				if tc.match(r) && !kept[r.Get(0).(int64)] {
					t.Fatalf("matching row %s was skipped", r)
				}
			}
		})
	}
}

// TestRecordFilterKeepsMatchingRows checks, for many thresholds, that
// row-group skipping never drops a matching row, including decimals whose
// byte statistics parquet-go orders unsigned.
func TestRecordFilterKeepsMatchingRows(t *testing.T) {
	s := iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int32),
		opt(2, "d", iceberg.DecimalTypeOf(20, 0)),
		opt(3, "f", iceberg.PrimitiveTypes.Float32),
		opt(4, "s", iceberg.PrimitiveTypes.String),
	)
	st := s.AsStruct()
	var recs []*data.Record
	for i := range 200 {
		v := int64(i - 100)
		var f any = float32(v)
		if i%10 == 3 {
			f = float32(nanValue())
		}
		recs = append(recs, rec(&st, int32(i), dec(t, fmt.Sprint(v), 20, 0), f, fmt.Sprintf("%c%d", 'a'+i%26, i)))
	}
	path := tempFile(t, "keep.parquet")
	writeRecords(t, path, s, map[string]string{lab.PropRowGroupRows: "17"}, recs...)
	ref := func(name string) iceberg.Reference { return iceberg.Reference(name) }
	for _, v := range []int64{-150, -100, -51, -1, 0, 1, 37, 99, 150} {
		filters := map[string]struct {
			expr  iceberg.BooleanExpression
			match func(*data.Record) bool
		}{
			"d <": {iceberg.LessThan(ref("d"), dec(t, fmt.Sprint(v), 20, 0)), func(r *data.Record) bool {
				return r.Get(1).(iceberg.Decimal).Val.Less(dec(t, fmt.Sprint(v), 20, 0).Val)
			}},
			"f >=":  {iceberg.GreaterThanEqual(ref("f"), float32(v)), func(r *data.Record) bool { return r.Get(2).(float32) >= float32(v) }},
			"f = ":  {iceberg.EqualTo(ref("f"), float32(v)), func(r *data.Record) bool { return r.Get(2).(float32) == float32(v) }},
			"id in": {iceberg.IsIn(ref("id"), int32(v), int32(v+60)), func(r *data.Record) bool { id := int64(r.Get(0).(int32)); return id == v || id == v+60 }},
			"s starts": {iceberg.StartsWith(ref("s"), fmt.Sprintf("%c", 'a'+(v+100)%26)), func(r *data.Record) bool {
				return strings.HasPrefix(r.Get(3).(string), fmt.Sprintf("%c", 'a'+(v+100)%26))
			}},
		}
		for name, f := range filters {
			got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Filter(f.expr) })
			kept := map[int32]bool{}
			for _, r := range got {
				kept[r.Get(0).(int32)] = true
			}
			for _, r := range recs {
				if f.match(r) && !kept[r.Get(0).(int32)] {
					t.Fatalf("%s %d: matching row %s was skipped", name, v, r)
				}
			}
		}
	}
}

func nanValue() float64 { return math.NaN() }
