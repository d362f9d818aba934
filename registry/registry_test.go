package registry_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// lineModel is a tiny format model for tests: it writes one line per row.
type lineModel[D any] struct {
	name   string
	format registry.FileFormat
	encode func(D) (string, error)
	// seen receives the options each appender was opened with.
	seen *registry.WriteOptions
}

func (m lineModel[D]) Name() string                { return m.name }
func (m lineModel[D]) Format() registry.FileFormat { return m.format }
func (m lineModel[D]) RowType() reflect.Type       { return reflect.TypeFor[D]() }
func (m lineModel[D]) NewReader(registry.InputFile, registry.ReadOptions) (registry.Reader[D], error) {
	return nil, errors.New("not readable")
}

func (m lineModel[D]) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[D], error) {
	if m.seen != nil {
		*m.seen = opts
	}
	p, err := out.Create(opts.Overwrite)
	if err != nil {
		return nil, err
	}
	return &lineAppender[D]{p: p, encode: m.encode, opts: opts}, nil
}

type lineAppender[D any] struct {
	p      *registry.PendingFile
	encode func(D) (string, error)
	opts   registry.WriteOptions
	n      int64
}

func (a *lineAppender[D]) Add(row D) error {
	s, err := a.encode(row)
	if err != nil {
		return err
	}
	a.n++
	_, err = io.WriteString(a.p, s+"\n")
	return err
}
func (a *lineAppender[D]) Close() error { return a.p.Commit() }
func (a *lineAppender[D]) Abort() error { return a.p.Abort() }
func (a *lineAppender[D]) Metrics() registry.Metrics {
	return registry.Metrics{RecordCount: a.n, ValueCounts: map[int]int64{1: a.n}}
}
func (a *lineAppender[D]) Length() int64         { return a.p.Written() }
func (a *lineAppender[D]) SplitOffsets() []int64 { return []int64{4} }

func recordLine(r *data.Record) (string, error) {
	if r.Get(0) == nil {
		return "", errors.New(`column "id": null in required field`)
	}
	return r.String(), nil
}

func testRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New()
	for _, m := range []registry.Model{
		lineModel[*data.Record]{name: "line-records", format: registry.PARQUET, encode: recordLine},
		// Position deletes go through the one adapter, as the formats' do.
		registry.NewPositionDeleteModel("line-deletes", lineModel[*data.Record]{name: "line-delete-records", format: registry.PARQUET, encode: recordLine}),
	} {
		if err := reg.Register(m); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

var tourSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
)

func TestParseFileFormat(t *testing.T) {
	tests := []struct {
		in         string
		want       registry.FileFormat
		splittable bool
		err        string
	}{
		{"parquet", registry.PARQUET, true, ""},
		{"PARQUET", registry.PARQUET, true, ""},
		{"avro", registry.AVRO, true, ""},
		{"orc", registry.ORC, true, ""},
		{"puffin", registry.PUFFIN, false, ""},
		{"metadata", registry.METADATA, false, ""},
		{"lance", 0, false, "Invalid file format: lance"},
		{"vortex", 0, false, "Invalid file format: vortex"},
		{"", 0, false, "Invalid file format: "},
	}
	for _, tt := range tests {
		got, err := registry.ParseFileFormat(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseFileFormat(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || got.Splittable() != tt.splittable {
			t.Errorf("ParseFileFormat(%q) = %v (splittable %v), %v; want %v (%v)", tt.in, got, got.Splittable(), err, tt.want, tt.splittable)
		}
	}
	if got := registry.PARQUET.AddExtension("part-0"); got != "part-0.parquet" {
		t.Errorf("AddExtension = %q", got)
	}
	if f, ok := registry.FromFileName("x/y.avro"); !ok || f != registry.AVRO {
		t.Errorf("FromFileName = %v %v", f, ok)
	}
}

func TestRegisterDuplicateAndMissing(t *testing.T) {
	reg := testRegistry(t)
	err := reg.Register(lineModel[*data.Record]{name: "other-records", format: registry.PARQUET, encode: recordLine})
	want := "Cannot register format model other-records for format PARQUET and type *data.Record: already registered to line-records"
	if err == nil || err.Error() != want {
		t.Fatalf("duplicate: got %v, want %q", err, want)
	}
	_, err = registry.DataWriteBuilderIn[*data.Record](reg, registry.ORC, registry.LocalOutput(filepath.Join(t.TempDir(), "x.orc")))
	want = "Format model is not registered for format ORC and type *data.Record"
	if err == nil || err.Error() != want {
		t.Fatalf("missing: got %v, want %q", err, want)
	}
	_, err = registry.ReadBuilderIn[string](reg, registry.PARQUET, registry.LocalInput("x"))
	if err == nil || err.Error() != "Format model is not registered for format PARQUET and type string" {
		t.Fatalf("missing row type: %v", err)
	}
	var names []string
	for _, k := range reg.Pairs() {
		names = append(names, k.String())
	}
	if got := strings.Join(names, " "); got != "(PARQUET, *data.Record) (PARQUET, data.PositionDelete)" {
		t.Errorf("Pairs = %s", got)
	}
}

func TestDataWriterBuildsDataFile(t *testing.T) {
	reg := testRegistry(t)
	path := filepath.Join(t.TempDir(), "data.parquet")
	b, err := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(tourSchema).KeyMetadata([]byte{7}).Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data.Of(tourSchema, int64(1), "a")); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data.Of(tourSchema, nil, "bad")); err == nil {
		t.Fatal("null id accepted")
	}
	if err := w.Write(data.Of(tourSchema, int64(2), nil)); err != nil {
		t.Fatal(err)
	}
	if w.DataFile() != nil {
		t.Fatal("DataFile before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	df := w.DataFile()
	content, _ := os.ReadFile(path)
	if df.Count() != 2 || df.FileSizeBytes() != int64(len(content)) || df.FilePath() != path ||
		df.FileFormat() != iceberg.ParquetFile || df.ContentType() != iceberg.EntryContentData {
		t.Fatalf("DataFile = %v %d %d %s", df.FilePath(), df.Count(), df.FileSizeBytes(), df.FileFormat())
	}
	if string(df.KeyMetadata()) != "\x07" || df.SplitOffsets()[0] != 4 || df.ValueCounts()[1] != 2 {
		t.Fatalf("DataFile details: key %v splits %v counts %v", df.KeyMetadata(), df.SplitOffsets(), df.ValueCounts())
	}
	if string(content) != "{id: 1, name: \"a\"}\n{id: 2, name: null}\n" {
		t.Fatalf("content %q", content)
	}
	if err := w.Write(data.Of(tourSchema, int64(3), "late")); err == nil {
		t.Fatal("write after close accepted")
	}
}

func TestOverwriteProtection(t *testing.T) {
	reg := testRegistry(t)
	path := filepath.Join(t.TempDir(), "exists.parquet")
	if err := os.WriteFile(path, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(path))
	if _, err := b.Schema(tourSchema).Build(); !errors.Is(err, registry.ErrFileExists) {
		t.Fatalf("expected ErrFileExists, got %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "precious" {
		t.Fatalf("existing file changed: %q", got)
	}
	// An aborted overwrite leaves the old bytes too: the new ones go to a temp file.
	w, err := b.Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Write(data.Of(tourSchema, int64(1), "x"))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "precious" {
		t.Fatalf("aborted overwrite changed file: %q", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
	w, _ = b.Build()
	_ = w.Write(data.Of(tourSchema, int64(1), "x"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{id: 1, name: \"x\"}\n" {
		t.Fatalf("overwrite result %q", got)
	}
}

func TestDeleteWriters(t *testing.T) {
	reg := testRegistry(t)
	dir := t.TempDir()
	eb, _ := registry.EqualityDeleteWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "eq.parquet")))
	if _, err := eb.Schema(tourSchema).Build(); err == nil || !strings.Contains(err.Error(), "equality field ids are required") {
		t.Fatalf("missing ids: %v", err)
	}
	if _, err := eb.EqualityFieldIDs(1, 9).Build(); err == nil || !strings.Contains(err.Error(), "equality field id 9") {
		t.Fatalf("unknown id: %v", err)
	}
	ew, err := eb.EqualityFieldIDs(1, 2).Build()
	if err != nil {
		t.Fatal(err)
	}
	_ = ew.Write(data.Of(tourSchema, int64(5), "e"))
	if err := ew.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ew.DataFile(); got.ContentType() != iceberg.EntryContentEqDeletes || !reflect.DeepEqual(got.EqualityFieldIDs(), []int{1, 2}) {
		t.Fatalf("eq DataFile: %v %v", got.ContentType(), got.EqualityFieldIDs())
	}
	if got := eb.Options().FileMetadata; got != nil {
		t.Fatalf("builder options mutated: %v", got)
	}

	pb, err := registry.PositionDeleteWriteBuilderIn(reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "pos.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	if s := pb.Options().Schema; s == nil || len(s.Fields()) != 2 || s.Field(0).ID != data.DeleteFilePathID {
		t.Fatalf("position delete schema %v", s)
	}
	pw, err := pb.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []data.PositionDelete{{FilePath: "a", Pos: 1}, {FilePath: "a", Pos: 3}, {FilePath: "b", Pos: 0}} {
		if err := pw.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	err = pw.Write(data.PositionDelete{FilePath: "a", Pos: 9})
	if err == nil || !strings.Contains(err.Error(), `{file_path: "a", pos: 9} is out of order after {file_path: "b", pos: 0}`) {
		t.Fatalf("ordering: %v", err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if df := pw.DataFile(); df.ContentType() != iceberg.EntryContentPosDeletes || df.Count() != 3 {
		t.Fatalf("pos DataFile %v %d", df.ContentType(), df.Count())
	}
}

func TestMetricsModes(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"none", "none", ""}, {"Counts", "counts", ""}, {"full", "full", ""},
		{"truncate(16)", "truncate(16)", ""}, {" truncate(4) ", "truncate(4)", ""},
		{"truncate(0)", "", "truncate length must be a positive integer"},
		{"truncate(x)", "", "truncate length"}, {"some", "", "want none, counts, truncate(N) or full"},
	}
	for _, tt := range tests {
		m, err := registry.ParseMetricsMode(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v", tt.in, err)
			}
			continue
		}
		if err != nil || m.String() != tt.want {
			t.Errorf("%q: %v %v", tt.in, m, err)
		}
	}
	cfg, err := registry.MetricsConfigFromProperties(map[string]string{
		"write.metadata.metrics.default":     "counts",
		"write.metadata.metrics.column.name": "full",
	})
	if err != nil || cfg.ColumnMode("name").String() != "full" || cfg.ColumnMode("id").String() != "counts" {
		t.Fatalf("config %v %v", cfg, err)
	}
	if registry.DefaultMetricsConfig().ColumnMode("x").String() != "truncate(16)" {
		t.Fatal("default is not truncate(16)")
	}
	reg := testRegistry(t)
	b, _ := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "m.parquet")))
	// Iceberg's MetricsConfig.parseMode ignores an invalid mode with a
	// warning and keeps truncate(16); the writer reports the warning.
	w, err := b.Schema(tourSchema).Set("write.metadata.metrics.default", "bogus").Build()
	if err != nil {
		t.Fatalf("bad metrics property: %v", err)
	}
	defer w.Abort()
	if ws := w.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], "ignoring invalid metrics mode (default): bogus") {
		t.Fatalf("warnings %q", ws)
	}
}

func TestReadBuilderOptions(t *testing.T) {
	reg := registry.New()
	_ = reg.Register(lineModel[*data.Record]{name: "line-records", format: registry.AVRO, encode: recordLine})
	b, err := registry.ReadBuilderIn[*data.Record](reg, registry.AVRO, registry.LocalInput("x.avro"))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Options().CaseSensitive {
		t.Fatal("case sensitivity should default to true")
	}
	o := b.Split(10, 20).CaseSensitive(false).ReuseContainers().RecordsPerBatch(7).
		IDToConstant(map[int]any{3: "c"}).Set("k", "v").Project(tourSchema).Options()
	if o.Split.Start != 10 || o.Split.Length != 20 || o.CaseSensitive || !o.ReuseContainers || o.RecordsPerBatch != 7 ||
		o.IDToConstant[3] != "c" || o.Properties["k"] != "v" || o.Projection != tourSchema {
		t.Fatalf("options %+v", o)
	}
	if _, err := b.Build(); err == nil || err.Error() != "not readable" {
		t.Fatalf("Build did not reach the model: %v", err)
	}
}

func TestSortColumnsKeepBounds(t *testing.T) {
	var seen registry.WriteOptions
	reg := registry.New()
	_ = reg.Register(lineModel[*data.Record]{name: "line-records", format: registry.PARQUET, encode: recordLine, seen: &seen})
	order, err := table.NewSortOrder(1, []table.SortField{{SourceIDs: []int{2}, Transform: iceberg.IdentityTransform{},
		Direction: table.SortASC, NullOrder: table.NullsFirst}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "s.parquet")))
	w, err := b.Schema(tourSchema).SortOrder(order).Set("write.metadata.metrics.default", "none").Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := seen.MetricsConfig.ColumnMode("name").String(); got != "truncate(16)" {
		t.Errorf("sorted column mode = %s, want truncate(16)", got)
	}
	if got := seen.MetricsConfig.ColumnMode("id").String(); got != "none" {
		t.Errorf("unsorted column mode = %s, want none", got)
	}
	_ = w.Write(data.Of(tourSchema, int64(1), "a"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.DataFile().SortOrderID(); got == nil || *got != 1 {
		t.Fatalf("sort order id %v", got)
	}

	pb, _ := registry.PositionDeleteWriteBuilderIn(testRegistry(t), registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "p.parquet")))
	cfg := pb.Options().MetricsConfig
	if cfg.ColumnMode("file_path").String() != "full" || cfg.ColumnMode("pos").String() != "full" {
		t.Errorf("position delete metrics %v", cfg)
	}
}
