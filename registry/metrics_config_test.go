package registry_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// The tests below follow Iceberg Java's MetricsConfig.from
// (core/src/main/java/org/apache/iceberg/MetricsConfig.java) and
// PositionDeleteWriter.metrics()
// (core/src/main/java/org/apache/iceberg/deletes/PositionDeleteWriter.java).
// Each goes through a writer builder, as a table write does, and reads the
// config the model was opened with.

// builtConfig builds a data writer for schema with props and order and
// returns the metrics config its model saw, and the writer's warnings.
func builtConfig(t *testing.T, schema *iceberg.Schema, order *table.SortOrder, cfg *registry.MetricsConfig, props map[string]string) (registry.MetricsConfig, []string) {
	t.Helper()
	var seen registry.WriteOptions
	reg := registry.New()
	if err := reg.Register(lineModel[*data.Record]{name: "line-records", format: registry.PARQUET, encode: recordLine, seen: &seen}); err != nil {
		t.Fatal(err)
	}
	b, err := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "m.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	b.Schema(schema).SetAll(props)
	if order != nil {
		b.SortOrder(*order)
	}
	if cfg != nil {
		b.MetricsConfig(*cfg)
	}
	w, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	ws := w.Warnings()
	_ = w.Abort()
	return seen.MetricsConfig, ws
}

func sortOn(t *testing.T, fields ...table.SortField) *table.SortOrder {
	t.Helper()
	order, err := table.NewSortOrder(1, fields)
	if err != nil {
		t.Fatal(err)
	}
	return &order
}

func sortField(id int, tr iceberg.Transform) table.SortField {
	return table.SortField{SourceIDs: []int{id}, Transform: tr, Direction: table.SortASC, NullOrder: table.NullsFirst}
}

func wantModes(t *testing.T, cfg registry.MetricsConfig, want map[string]string) {
	t.Helper()
	for name, w := range want {
		if got := cfg.ColumnMode(name).String(); got != w {
			t.Errorf("mode of %s = %s, want %s", name, got, w)
		}
	}
}

var sortSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
	iceberg.NestedField{ID: 4, Name: "key", Type: iceberg.PrimitiveTypes.Int64},
	iceberg.NestedField{ID: 5, Name: "v", Type: iceberg.PrimitiveTypes.Int64},
)

// SortOrderUtil.orderPreservingSortedColumns keeps only sort fields whose
// transform().preservesOrder(): identity, truncate and the time transforms
// are promoted; bucket and void are not.
func TestSortPromotionOnlyOrderPreservingTransforms(t *testing.T) {
	order := sortOn(t,
		sortField(1, iceberg.BucketTransform{NumBuckets: 16}),
		sortField(2, iceberg.TruncateTransform{Width: 4}),
		sortField(3, iceberg.DayTransform{}),
		sortField(4, iceberg.IdentityTransform{}),
		sortField(5, iceberg.VoidTransform{}),
	)
	cfg, _ := builtConfig(t, sortSchema, order, nil, map[string]string{registry.MetricsDefaultKey: "counts"})
	wantModes(t, cfg, map[string]string{
		"id": "counts", "v": "counts", // bucket, void
		"name": "truncate(16)", "ts": "truncate(16)", "key": "truncate(16)",
	})
}

// The sorted columns' mode is sortedColumnDefaultMode(defaultMode):
// truncate(16) over none or counts, the default itself otherwise.
func TestSortPromotionMode(t *testing.T) {
	order := sortOn(t, sortField(2, iceberg.IdentityTransform{}))
	for def, want := range map[string]string{
		"none": "truncate(16)", "counts": "truncate(16)", "full": "full", "truncate(8)": "truncate(8)",
	} {
		cfg, _ := builtConfig(t, sortSchema, order, nil, map[string]string{registry.MetricsDefaultKey: def})
		if got := cfg.ColumnMode("name").String(); got != want {
			t.Errorf("default %s: sorted column mode %s, want %s", def, got, want)
		}
	}
}

// MetricsConfig.from applies write.metadata.metrics.column.* after the
// sort-order promotion: an explicit mode wins, none included, whether it
// comes from a property or from the caller's MetricsConfig.
func TestSortPromotionKeepsExplicitModes(t *testing.T) {
	order := sortOn(t, sortField(2, iceberg.IdentityTransform{}), sortField(4, iceberg.IdentityTransform{}))
	cfg, _ := builtConfig(t, sortSchema, order, nil, map[string]string{
		registry.MetricsDefaultKey:               "none",
		registry.MetricsColumnKeyPrefix + "name": "none",
	})
	wantModes(t, cfg, map[string]string{"name": "none", "key": "truncate(16)", "id": "none"})

	explicit := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsNone},
		Columns: map[string]registry.MetricsMode{"key": {Kind: registry.MetricsCounts}}}
	cfg, _ = builtConfig(t, sortSchema, order, &explicit, nil)
	wantModes(t, cfg, map[string]string{"name": "truncate(16)", "key": "counts"})
}

// An invalid mode is ignored with a warning (MetricsConfig.parseMode, which
// logs "Ignoring invalid metrics mode"): a column gets the default mode, an
// invalid default falls back to truncate(16). The fallback counts as the
// column's explicit mode, so it also keeps the sort promotion off, as in
// Java, where the override is put after the sorted columns.
func TestInvalidModesWarn(t *testing.T) {
	order := sortOn(t, sortField(4, iceberg.IdentityTransform{}))
	cfg, warnings := builtConfig(t, sortSchema, order, nil, map[string]string{
		registry.MetricsDefaultKey:               "counts",
		registry.MetricsColumnKeyPrefix + "name": "truncate(x)",
		registry.MetricsColumnKeyPrefix + "key":  "bogus",
		registry.MetricsColumnKeyPrefix + "id":   "full",
	})
	wantModes(t, cfg, map[string]string{"name": "counts", "key": "counts", "id": "full", "ts": "counts"})
	if len(warnings) != 2 ||
		!strings.Contains(warnings[0], "ignoring invalid metrics mode (column key): bogus") ||
		!strings.Contains(warnings[1], "ignoring invalid metrics mode (column name): truncate(x)") {
		t.Errorf("warnings = %q", warnings)
	}

	cfg, warnings = builtConfig(t, sortSchema, nil, nil, map[string]string{registry.MetricsDefaultKey: "most"})
	wantModes(t, cfg, map[string]string{"id": "truncate(16)"})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "ignoring invalid metrics mode (default): most") {
		t.Errorf("warnings = %q", warnings)
	}

	// Without a schema, as MetricsConfig.fromProperties reads them.
	got, err := registry.MetricsConfigFromProperties(map[string]string{registry.MetricsColumnKeyPrefix + "a": "some"})
	if err != nil || got.ColumnMode("a").String() != "truncate(16)" || len(got.Warnings) != 1 {
		t.Errorf("MetricsConfigFromProperties = %v, %v", got, err)
	}
}

// wideSchema's ids as TypeUtil.getProjectedIds counts them: 1, 2, 3 (a
// struct), 4, 5 (a variant), 7 (a primitive list element), 11 (a field of a
// map's struct value), 13 and 14 (key and value of a map with a primitive
// value): nine. The ids of lists and maps (6, 8, 12) do not count, nor do
// the key and value of a map whose value is a struct (9, 10).
var wideSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.Int32, Required: true},
	iceberg.NestedField{ID: 2, Name: "b", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "s", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 4, Name: "x", Type: iceberg.PrimitiveTypes.Int32},
		{ID: 5, Name: "y", Type: iceberg.VariantType{}},
	}}},
	iceberg.NestedField{ID: 6, Name: "l", Type: &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.Int32}},
	iceberg.NestedField{ID: 8, Name: "m", Type: &iceberg.MapType{KeyID: 9, KeyType: iceberg.PrimitiveTypes.String,
		ValueID: 10, ValueType: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 11, Name: "z", Type: iceberg.PrimitiveTypes.Int64},
		}}}},
	iceberg.NestedField{ID: 12, Name: "n", Type: &iceberg.MapType{KeyID: 13, KeyType: iceberg.PrimitiveTypes.String,
		ValueID: 14, ValueType: iceberg.PrimitiveTypes.Int32}},
)

// write.metadata.metrics.max-inferred-column-defaults: past the limit the
// default becomes none and only the columns MetricsConfig.limitFieldIds
// picks keep truncate(16): a struct's own primitive and variant fields
// first, then, field by field, what is nested (a list's element, a map's
// key and value, a struct's fields), until the limit is reached.
func TestMaxInferredColumnDefaults(t *testing.T) {
	const limitKey = registry.MetricsMaxInferredKey
	all := map[string]string{"a": "", "b": "", "s.x": "", "s.y": "", "l.element": "", "m.key": "",
		"m.value.z": "", "n.key": "", "n.value": ""}
	for _, tc := range []struct {
		name  string
		limit string
		kept  []string // truncate(16); the rest none
	}{
		// Nine ids are counted: a limit of nine is not exceeded.
		{"at the limit", "9", []string{"a", "b", "s.x", "s.y", "l.element", "m.key", "m.value.z", "n.key", "n.value"}},
		// a, b (the top struct's primitives), then s.x, s.y, then l.element.
		{"five", "5", []string{"a", "b", "s.x", "s.y", "l.element"}},
		// ... then m's key (primitive) before m's value struct's z.
		{"seven", "7", []string{"a", "b", "s.x", "s.y", "l.element", "m.key", "m.value.z"}},
		{"zero", "0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, warnings := builtConfig(t, wideSchema, nil, nil, map[string]string{limitKey: tc.limit})
			if len(warnings) != 0 {
				t.Errorf("warnings %q", warnings)
			}
			want := map[string]string{}
			for name := range all {
				want[name] = "none"
			}
			for _, name := range tc.kept {
				want[name] = "truncate(16)"
			}
			wantModes(t, cfg, want)
		})
	}

	// The default limit is 100: a 101-column schema keeps 100.
	var fields []iceberg.NestedField
	for i := 1; i <= 101; i++ {
		fields = append(fields, iceberg.NestedField{ID: i, Name: fmt.Sprintf("c%03d", i), Type: iceberg.PrimitiveTypes.Int32})
	}
	wide := iceberg.NewSchema(0, fields...)
	cfg, _ := builtConfig(t, wide, nil, nil, nil)
	wantModes(t, cfg, map[string]string{"c001": "truncate(16)", "c100": "truncate(16)", "c101": "none"})

	// Explicit modes and sorted columns are not limited.
	order := sortOn(t, sortField(14, iceberg.IdentityTransform{}))
	cfg, _ = builtConfig(t, wideSchema, order, nil, map[string]string{limitKey: "1", registry.MetricsColumnKeyPrefix + "b": "full"})
	wantModes(t, cfg, map[string]string{"a": "truncate(16)", "b": "full", "s.x": "none", "n.value": "truncate(16)"})

	// A configured default applies to every column: no limit.
	cfg, _ = builtConfig(t, wideSchema, nil, nil, map[string]string{limitKey: "1", registry.MetricsDefaultKey: "counts"})
	wantModes(t, cfg, map[string]string{"a": "counts", "n.value": "counts"})

	// A caller's literal config is a configured default too.
	full := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}}
	cfg, _ = builtConfig(t, wide, nil, &full, nil)
	wantModes(t, cfg, map[string]string{"c101": "full"})

	// An invalid column mode falls back to the final default: none here.
	cfg, _ = builtConfig(t, wideSchema, nil, nil, map[string]string{limitKey: "1", registry.MetricsColumnKeyPrefix + "a": "x"})
	wantModes(t, cfg, map[string]string{"a": "none", "b": "none"})

	// Negative: ignored with a warning (maxInferredColumnDefaults), 100.
	cfg, warnings := builtConfig(t, wideSchema, nil, nil, map[string]string{limitKey: "-1"})
	wantModes(t, cfg, map[string]string{"n.value": "truncate(16)"})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "negative") {
		t.Errorf("warnings %q", warnings)
	}

	// Not an integer: PropertyUtil.propertyAsInt throws; Build fails.
	b, _ := registry.DataWriteBuilderIn[*data.Record](testRegistry(t), registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "x.parquet")))
	if _, err := b.Schema(wideSchema).Set(limitKey, "many").Build(); err == nil || !strings.Contains(err.Error(), limitKey) {
		t.Errorf("Build with a non-integer limit: %v", err)
	}

	// MetricsConfigFor is the same resolution without a builder.
	got, err := registry.MetricsConfigFor(map[string]string{limitKey: "5"}, wideSchema, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantModes(t, got, map[string]string{"l.element": "truncate(16)", "m.key": "none"})
}

// metricsModel is a format model whose appender reports preset metrics.
type metricsModel struct {
	lineModel[data.PositionDelete]
	metrics registry.Metrics
}

func (m metricsModel) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[data.PositionDelete], error) {
	a, err := m.lineModel.NewAppender(out, opts)
	if err != nil {
		return nil, err
	}
	return presetMetrics{FileAppender: a, m: m.metrics}, nil
}

type presetMetrics struct {
	registry.FileAppender[data.PositionDelete]
	m registry.Metrics
}

func (p presetMetrics) Metrics() registry.Metrics { return p.m }

// Position deletes: Iceberg's writer factories use
// MetricsConfig.forPositionDelete() (full for file_path and pos, none for
// the rest), and PositionDeleteWriter.metrics() drops the value, null and
// NaN counts of file_path and pos, and their bounds as well when the file
// references more than one data file.
func TestPositionDeleteMetrics(t *testing.T) {
	path, pos := data.DeleteFilePathID, data.DeleteFilePosID
	const rowID = 100
	appended := registry.Metrics{
		RecordCount:     2,
		ColumnSizes:     map[int]int64{path: 10, pos: 20, rowID: 30},
		ValueCounts:     map[int]int64{path: 2, pos: 2, rowID: 2},
		NullValueCounts: map[int]int64{path: 0, pos: 0, rowID: 1},
		NaNValueCounts:  map[int]int64{rowID: 0},
		LowerBounds:     map[int][]byte{path: []byte("a"), pos: {1, 0, 0, 0, 0, 0, 0, 0}, rowID: {1}},
		UpperBounds:     map[int][]byte{path: []byte("b"), pos: {2, 0, 0, 0, 0, 0, 0, 0}, rowID: {2}},
	}
	write := func(t *testing.T, deletes ...data.PositionDelete) (iceberg.DataFile, registry.MetricsConfig) {
		t.Helper()
		var seen registry.WriteOptions
		reg := registry.New()
		m := metricsModel{lineModel: lineModel[data.PositionDelete]{name: "deletes", format: registry.PARQUET,
			encode: func(d data.PositionDelete) (string, error) { return d.String(), nil }, seen: &seen}, metrics: appended}
		if err := reg.Register(m); err != nil {
			t.Fatal(err)
		}
		b, err := registry.PositionDeleteWriteBuilderIn(reg, registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "d.parquet")))
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range deletes {
			if err := w.Write(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return w.DataFile(), seen.MetricsConfig
	}
	check := func(t *testing.T, df iceberg.DataFile, withBounds bool) {
		t.Helper()
		if got := df.ColumnSizes(); len(got) != 3 {
			t.Errorf("column sizes %v, want all three", got)
		}
		for name, m := range map[string]map[int]int64{"value": df.ValueCounts(), "null": df.NullValueCounts(), "NaN": df.NaNValueCounts()} {
			if _, ok := m[path]; ok {
				t.Errorf("%s counts keep file_path: %v", name, m)
			}
			if _, ok := m[pos]; ok {
				t.Errorf("%s counts keep pos: %v", name, m)
			}
			if _, ok := m[rowID]; !ok {
				t.Errorf("%s counts lost the row column: %v", name, m)
			}
		}
		for name, m := range map[string]map[int][]byte{"lower": df.LowerBoundValues(), "upper": df.UpperBoundValues()} {
			_, p := m[path]
			_, q := m[pos]
			if p != withBounds || q != withBounds {
				t.Errorf("%s bounds %v: file_path and pos present = %v, %v, want %v", name, m, p, q, withBounds)
			}
			if _, ok := m[rowID]; !ok {
				t.Errorf("%s bounds lost the row column: %v", name, m)
			}
		}
	}
	t.Run("one data file", func(t *testing.T) {
		df, cfg := write(t, data.PositionDelete{FilePath: "a", Pos: 1}, data.PositionDelete{FilePath: "a", Pos: 2})
		check(t, df, true)
		wantModes(t, cfg, map[string]string{"file_path": "full", "pos": "full", "row.x": "none"})
	})
	t.Run("two data files", func(t *testing.T) {
		df, _ := write(t, data.PositionDelete{FilePath: "a", Pos: 1}, data.PositionDelete{FilePath: "b", Pos: 2})
		check(t, df, false)
	})
}
