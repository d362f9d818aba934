package avro_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/registry"
)

func readDeletes(t *testing.T, path string, configure func(*registry.ReadBuilder[data.PositionDelete])) []data.PositionDelete {
	t.Helper()
	b, err := registry.NewReadBuilder[data.PositionDelete](registry.AVRO, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if configure != nil {
		configure(b)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []data.PositionDelete
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
}

func TestPositionDeletes(t *testing.T) {
	deletes := []data.PositionDelete{
		{FilePath: "s3://b/data/a.parquet", Pos: 0},
		{FilePath: "s3://b/data/a.parquet", Pos: 7},
		{FilePath: "s3://b/data/a.parquet", Pos: 7}, // a repeat is still sorted
		{FilePath: "s3://b/data/b.parquet", Pos: 1},
		{FilePath: "s3://b/data/é.parquet", Pos: 1 << 40},
	}
	path := tempPath(t, "deletes.avro")
	b, err := registry.PositionDeleteWriteBuilder(registry.AVRO, registry.LocalOutput(path))
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
	err = w.Write(data.PositionDelete{FilePath: "s3://b/data/b.parquet", Pos: 0})
	if err == nil || !strings.Contains(err.Error(), `"s3://b/data/b.parquet", pos: 0} is out of order after {file_path: "s3://b/data/é.parquet", pos: 1099511627776}`) ||
		!strings.Contains(err.Error(), path) {
		t.Errorf("out-of-order delete: err = %v", err)
	}
	if err := w.Write(data.PositionDelete{FilePath: "s3://b/data/ü.parquet", Pos: -1}); err == nil || !strings.Contains(err.Error(), "pos -1 is negative") {
		t.Errorf("negative position: err = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	df := w.DataFile()
	if df.Count() != int64(len(deletes)) || df.ContentType() != iceberg.EntryContentPosDeletes || df.FileFormat() != iceberg.AvroFile {
		t.Errorf("DataFile: count %d, content %v, format %s", df.Count(), df.ContentType(), df.FileFormat())
	}
	got := readDeletes(t, path, nil)
	if len(got) != len(deletes) {
		t.Fatalf("read %d deletes, want %d", len(got), len(deletes))
	}
	for i := range deletes {
		if got[i].FilePath != deletes[i].FilePath || got[i].Pos != deletes[i].Pos || got[i].Row != nil {
			t.Errorf("delete %d: got %s, want %s", i, got[i], deletes[i])
		}
	}
	meta, err := avro.Metadata(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if meta["delete-type"] != "position" {
		t.Errorf("delete-type = %q", meta["delete-type"])
	}
	wantSchema := `{"name":"table","type":"record","fields":[` +
		`{"name":"file_path","doc":"Path of a file in which a deleted row is stored","type":"string","field-id":2147483546},` +
		`{"name":"pos","doc":"Ordinal position of a deleted row in the data file","type":"long","field-id":2147483545}]}`
	if meta["avro.schema"] != wantSchema {
		t.Errorf("avro.schema\n got  %s\n want %s", meta["avro.schema"], wantSchema)
	}
	// The same file read as generic records.
	recs := mustRead(t, path, nil)
	if len(recs) != len(deletes) || recs[1].Get(1) != int64(7) {
		t.Errorf("generic read: %v", recs)
	}
}

func TestPositionDeletesWithRow(t *testing.T) {
	rowSchema := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true), field(2, "data", iceberg.PrimitiveTypes.String, false))
	schema := data.PositionDeleteSchemaWithRow(rowSchema)
	rowType := schema.Fields()[2].Type.(*iceberg.StructType)
	row := func(id int64, s any) *data.Record {
		r := data.NewStructRecord(rowType)
		r.Set(0, id)
		r.Set(1, s)
		return r
	}
	deletes := []data.PositionDelete{
		{FilePath: "a", Pos: 1, Row: row(10, "x")},
		{FilePath: "a", Pos: 2, Row: row(11, nil)},
		{FilePath: "b", Pos: 0},
	}
	path := tempPath(t, "deletes-row.avro")
	b, err := registry.PositionDeleteWriteBuilder(registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).Build()
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
	got := readDeletes(t, path, nil)
	if len(got) != 3 {
		t.Fatalf("read %d deletes", len(got))
	}
	for i, want := range deletes {
		if got[i].FilePath != want.FilePath || got[i].Pos != want.Pos || !got[i].Row.Equal(want.Row) {
			t.Errorf("delete %d: got %s, want %s", i, got[i], want)
		}
	}
	// Projecting path and pos only drops the row.
	got = readDeletes(t, path, func(b *registry.ReadBuilder[data.PositionDelete]) { b.Project(data.PositionDeleteSchema()) })
	if len(got) != 3 || got[0].Row != nil || got[2].FilePath != "b" {
		t.Errorf("projected: %v", got)
	}
}

func TestEqualityDeleteMetadata(t *testing.T) {
	schema := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "category", iceberg.PrimitiveTypes.String, false),
		field(3, "name", iceberg.PrimitiveTypes.String, false))
	path := tempPath(t, "eq-deletes.avro")
	b, err := registry.EqualityDeleteWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).EqualityFieldIDs(1, 2).
		Set("write.delete.avro.compression-codec", "zstd").Build()
	if err != nil {
		t.Fatal(err)
	}
	rows := []*data.Record{data.Of(schema, int64(4), nil, "Polar"), data.Of(schema, int64(3), "bear", nil)}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if df := w.DataFile(); df.Count() != 2 || df.ContentType() != iceberg.EntryContentEqDeletes {
		t.Errorf("DataFile: count %d, content %v", df.Count(), df.ContentType())
	}
	// Read the OCF header with hamba's decoder, independently of this package.
	meta := metadata(t, path)
	if meta["delete-type"] != "equality" || meta["delete-field-ids"] != "1, 2" {
		t.Errorf("delete-type = %q, delete-field-ids = %q", meta["delete-type"], meta["delete-field-ids"])
	}
	if meta["avro.codec"] != "zstandard" {
		t.Errorf("delete files use write.delete.avro.compression-codec: avro.codec = %q", meta["avro.codec"])
	}
	assertRows(t, mustRead(t, path, nil), rows)
}

// TestPositionDeleteAppenderOrder checks the model's ordering check (the
// registry adapter's), which holds for callers that use the appender
// without the registry's PositionDeleteWriter.
func TestPositionDeleteAppenderOrder(t *testing.T) {
	path := tempPath(t, "appender.avro")
	a, err := avro.PositionDeleteModel.NewAppender(registry.LocalOutput(path), registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Add(data.PositionDelete{FilePath: "b", Pos: 3}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []data.PositionDelete{{FilePath: "b", Pos: 2}, {FilePath: "a", Pos: 9}} {
		err := a.Add(d)
		want := fmt.Sprintf(`position delete {file_path: %q, pos: %d} is out of order after {file_path: "b", pos: 3}`, d.FilePath, d.Pos)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Add(%s): err = %v, want %q", d, err, want)
		}
	}
	if err := a.Add(data.PositionDelete{FilePath: "c", Pos: 0}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if m := a.Metrics(); m.RecordCount != 2 || m.ValueCounts != nil {
		t.Errorf("metrics = %+v, want the row count only", m)
	}
	got := readDeletes(t, path, nil)
	if len(got) != 2 || got[0].FilePath != "b" || got[1].FilePath != "c" {
		t.Errorf("read %v", got)
	}
}
