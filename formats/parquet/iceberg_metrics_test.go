package parquet_test

import (
	"fmt"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// The metrics of files the record writer writes, against Iceberg Java's
// ParquetMetrics, MetricsConfig and PositionDeleteWriter; the unit tests of
// each rule are in internal/colmetrics and registry.

// Leaves in lists and maps keep their column size and nothing else
// (TestMetrics.testMetricsForListAndMapElements).
func TestListAndMapLeafMetrics(t *testing.T) {
	s := iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "l", &iceberg.ListType{ElementID: 3, Element: iceberg.PrimitiveTypes.Float64}),
		opt(4, "m", &iceberg.MapType{KeyID: 5, KeyType: iceberg.PrimitiveTypes.String, ValueID: 6, ValueType: iceberg.PrimitiveTypes.Int32}),
	)
	df := writeRecords(t, tempFile(t, "lm.parquet"), s, nil,
		data.Of(s, int64(1), []any{1.5, nil}, data.Map{{Key: "k", Value: int32(7)}}),
		data.Of(s, int64(2), []any{}, nil))
	for _, id := range []int{3, 5, 6} {
		if _, ok := df.ColumnSizes()[id]; !ok {
			t.Errorf("field %d: no column size", id)
		}
		for name, m := range map[string]map[int]int64{"value": df.ValueCounts(), "null": df.NullValueCounts(), "NaN": df.NaNValueCounts()} {
			if v, ok := m[id]; ok {
				t.Errorf("field %d: %s count %d, want none", id, name, v)
			}
		}
		if _, ok := df.LowerBoundValues()[id]; ok {
			t.Errorf("field %d: a lower bound", id)
		}
	}
	if df.ValueCounts()[1] != 2 {
		t.Errorf("value count of id %d", df.ValueCounts()[1])
	}
}

// Shredded variant fields get bounds (spec.md "Bounds for Variant"): an
// object field whose values all have the shredded type, under its
// normalized path; a field with mixed types gets none. (The values of n
// all parse as int16: values of a narrower integer type would go to n's
// value column, which makes the field mixed, as in Java.)
func TestShreddedVariantBounds(t *testing.T) {
	s := variantSchema()
	var recs []*data.Record
	for i := range 40 {
		m := fmt.Sprintf("%d", i)
		if i%2 == 0 {
			m = fmt.Sprintf("%q", m) // a string every other row: mixed
		}
		recs = append(recs, data.Of(s, int64(i), mustJSON(t, fmt.Sprintf(`{"n": %d, "s": "k%02d", "m": %s}`, i+1000, i, m))))
	}
	recs = append(recs, data.Of(s, int64(40), nil), data.Of(s, int64(41), mustJSON(t, `null`)))
	df := writeRecords(t, tempFile(t, "vb.parquet"), s, map[string]string{lparquet.PropShredVariants: "true"}, recs...)
	fields := func(b []byte) map[string]pvariant.Value {
		t.Helper()
		v, err := variant.DecodeConcatenated(b)
		if err != nil {
			t.Fatalf("bound % x: %v", b, err)
		}
		out := map[string]pvariant.Value{}
		for k, fv := range v.Value().(pvariant.ObjectValue).Values() {
			out[k] = fv
		}
		return out
	}
	lo, hi := df.LowerBoundValues()[2], df.UpperBoundValues()[2]
	if lo == nil || hi == nil {
		t.Fatalf("no bounds for v: %v / %v", lo, hi)
	}
	lower, upper := fields(lo), fields(hi)
	num := func(v pvariant.Value) string { return fmt.Sprint(v.Value()) }
	if num(lower["$['n']"]) != "1000" || num(upper["$['n']"]) != "1039" {
		t.Errorf("bounds of $['n'] = %v / %v", lower["$['n']"], upper["$['n']"])
	}
	if lower["$['s']"].Value() != "k00" || upper["$['s']"].Value() != "k39" {
		t.Errorf("bounds of $['s'] = %v / %v", lower["$['s']"], upper["$['s']"])
	}
	if v, ok := lower["$['m']"]; ok {
		t.Errorf("mixed field $['m'] has a lower bound %v", v)
	}
	if df.ValueCounts()[2] != 42 || df.NullValueCounts()[2] != 1 {
		t.Errorf("counts of v %d / %d", df.ValueCounts()[2], df.NullValueCounts()[2])
	}

	// Under counts, and unshredded, no bounds.
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "vc.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).Set(lparquet.PropShredVariants, "true").Set(registry.MetricsColumnKeyPrefix+"v", "counts").Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.DataFile().LowerBoundValues()[2]; ok {
		t.Error("counts mode: v has a lower bound")
	}
	if df := writeRecords(t, tempFile(t, "vu.parquet"), s, nil, recs...); df.LowerBoundValues()[2] != nil {
		t.Error("unshredded v has a lower bound")
	}
}

// Position deletes (MetricsConfig.forPositionDelete, PositionDeleteWriter):
// file_path and pos keep their column sizes, lose their counts always and
// their bounds when the file references more than one data file; the row
// column gets no metrics.
func TestPositionDeleteFileMetrics(t *testing.T) {
	table := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	write := func(t *testing.T, deletes ...data.PositionDelete) iceberg.DataFile {
		t.Helper()
		b, err := registry.PositionDeleteWriteBuilder(registry.PARQUET, registry.LocalOutput(tempFile(t, "pd.parquet")))
		if err != nil {
			t.Fatal(err)
		}
		schema := data.PositionDeleteSchemaWithRow(table)
		w, err := b.Schema(schema).Build()
		if err != nil {
			t.Fatal(err)
		}
		rowType := schema.Fields()[2].Type.(*iceberg.StructType)
		for _, d := range deletes {
			d.Row = data.NewStructRecord(rowType)
			d.Row.Set(0, d.Pos*10)
			if err := w.Write(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return w.DataFile()
	}
	path, pos := data.DeleteFilePathID, data.DeleteFilePosID
	for _, tc := range []struct {
		name    string
		deletes []data.PositionDelete
		bounds  bool
	}{
		{"one data file", []data.PositionDelete{{FilePath: "a.parquet", Pos: 1}, {FilePath: "a.parquet", Pos: 5}}, true},
		{"two data files", []data.PositionDelete{{FilePath: "a.parquet", Pos: 1}, {FilePath: "b.parquet", Pos: 0}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df := write(t, tc.deletes...)
			for _, id := range []int{path, pos} {
				if _, ok := df.ColumnSizes()[id]; !ok {
					t.Errorf("field %d: no column size", id)
				}
				if _, ok := df.ValueCounts()[id]; ok {
					t.Errorf("field %d: a value count", id)
				}
				if _, ok := df.NullValueCounts()[id]; ok {
					t.Errorf("field %d: a null count", id)
				}
				_, lo := df.LowerBoundValues()[id]
				_, hi := df.UpperBoundValues()[id]
				if lo != tc.bounds || hi != tc.bounds {
					t.Errorf("field %d: bounds present %v / %v, want %v", id, lo, hi, tc.bounds)
				}
			}
			if tc.bounds && string(df.LowerBoundValues()[path]) != "a.parquet" {
				t.Errorf("file_path lower bound %q", df.LowerBoundValues()[path])
			}
			if _, ok := df.ColumnSizes()[1]; ok {
				t.Errorf("row.id has metrics: %v", df.ColumnSizes())
			}
		})
	}
}
