package parquet_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	_ "github.com/coltype-lab/lab/formats/avro" // the same delete rules, checked through Avro too
	lab "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

// footerKeys reads a file's key/value metadata with parquet-go directly.
func footerKeys(t *testing.T, path string) map[string]string {
	t.Helper()
	pf := openPQ(t, path)
	out := map[string]string{}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		out[kv.Key] = kv.Value
	}
	return out
}

func TestRecordFooterMetadata(t *testing.T) {
	s := rowsSchema()
	st := s.AsStruct()
	path := tempFile(t, "meta.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).Meta("lab.experiment", "e1").Meta("other", "x").Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec(&st, int64(1))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	keys := footerKeys(t, path)
	if keys["lab.experiment"] != "e1" || keys["other"] != "x" {
		t.Errorf("footer keys %v", keys)
	}
	var back iceberg.Schema
	if err := json.Unmarshal([]byte(keys[lab.IcebergSchemaKey]), &back); err != nil {
		t.Fatalf("iceberg.schema: %v", err)
	}
	if !back.Equals(s) {
		t.Errorf("iceberg.schema %s, want %s", &back, s)
	}
}

func TestRecordEqualityDeleteWriter(t *testing.T) {
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "name", iceberg.PrimitiveTypes.String), opt(3, "x", iceberg.PrimitiveTypes.Int32))
	st := s.AsStruct()
	path := tempFile(t, "eq.parquet")
	b, err := registry.EqualityDeleteWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).EqualityFieldIDs(1, 2).Build()
	if err != nil {
		t.Fatal(err)
	}
	want := []*data.Record{rec(&st, int64(1), "a", nil), rec(&st, int64(2), nil, int32(3))}
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	keys := footerKeys(t, path)
	if keys[registry.DeleteTypeKey] != "equality" || keys[registry.DeleteFieldIDsKey] != "1, 2" {
		t.Errorf("footer keys %v", keys)
	}
	df := w.DataFile()
	if df.ContentType() != iceberg.EntryContentEqDeletes || df.Count() != 2 {
		t.Errorf("data file content %v count %d", df.ContentType(), df.Count())
	}
	assertRecords(t, readRecords(t, path, nil), want)
}

func readDeletes(t *testing.T, path string) []data.PositionDelete {
	t.Helper()
	b, err := registry.NewReadBuilder[data.PositionDelete](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
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

func TestRecordPositionDeleteWriter(t *testing.T) {
	path := tempFile(t, "pos.parquet")
	b, err := registry.PositionDeleteWriteBuilder(registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	deletes := []data.PositionDelete{
		{FilePath: "a.parquet", Pos: 0},
		{FilePath: "a.parquet", Pos: 7},
		{FilePath: "b.parquet", Pos: 1},
	}
	for _, d := range deletes {
		if err := w.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []data.PositionDelete{{FilePath: "b.parquet", Pos: 0}, {FilePath: "a.parquet", Pos: 100}} {
		err := w.Write(bad)
		if err == nil || !strings.Contains(err.Error(), bad.String()) || !strings.Contains(err.Error(), deletes[2].String()) || !strings.Contains(err.Error(), "sorted") {
			t.Errorf("out-of-order delete %s: %v", bad, err)
		}
	}
	if err := w.Write(data.PositionDelete{FilePath: "c.parquet", Pos: 2, Row: data.Of(rowsSchema(), int64(1))}); err == nil || !strings.Contains(err.Error(), "no row column") {
		t.Errorf("delete with a row for a schema without one: %v", err)
	}
	last := data.PositionDelete{FilePath: "c.parquet", Pos: 3}
	if err := w.Write(last); err != nil {
		t.Fatal(err)
	}
	deletes = append(deletes, last)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if keys := footerKeys(t, path); keys[registry.DeleteTypeKey] != "position" {
		t.Errorf("footer keys %v", keys)
	}
	df := w.DataFile()
	if df.ContentType() != iceberg.EntryContentPosDeletes || df.Count() != int64(len(deletes)) {
		t.Errorf("data file content %v count %d", df.ContentType(), df.Count())
	}
	got := readDeletes(t, path)
	if len(got) != len(deletes) {
		t.Fatalf("read %v, want %v", got, deletes)
	}
	for i := range got {
		if got[i].FilePath != deletes[i].FilePath || got[i].Pos != deletes[i].Pos || got[i].Row != nil {
			t.Errorf("delete %d: %s, want %s", i, got[i], deletes[i])
		}
	}
	// The file is an ordinary record file too, with the reserved ids.
	recs := readRecords(t, path, nil)
	if len(recs) != len(deletes) || recs[0].Fields()[0].ID != data.DeleteFilePathID || recs[0].Fields()[1].ID != data.DeleteFilePosID {
		t.Errorf("records %v", recs)
	}
}

func TestRecordPositionDeleteWithRow(t *testing.T) {
	table := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "name", iceberg.PrimitiveTypes.String))
	schema := data.PositionDeleteSchemaWithRow(table)
	rowType := schema.Fields()[2].Type.(*iceberg.StructType)
	path := tempFile(t, "posrow.parquet")
	b, err := registry.PositionDeleteWriteBuilder(registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).Build()
	if err != nil {
		t.Fatal(err)
	}
	deletes := []data.PositionDelete{
		{FilePath: "a.parquet", Pos: 1, Row: rec(rowType, int64(10), "x")},
		{FilePath: "a.parquet", Pos: 2},
		{FilePath: "a.parquet", Pos: 2, Row: rec(rowType, int64(11), nil)},
	}
	for _, d := range deletes {
		if err := w.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readDeletes(t, path)
	if len(got) != len(deletes) {
		t.Fatalf("read %v", got)
	}
	for i := range got {
		if got[i].FilePath != deletes[i].FilePath || got[i].Pos != deletes[i].Pos || !got[i].Row.Equal(deletes[i].Row) {
			t.Errorf("delete %d: %s, want %s", i, got[i], deletes[i])
		}
	}
}

func TestRecordPositionDeleteRejectsOtherSchemas(t *testing.T) {
	b, err := registry.PositionDeleteWriteBuilder(registry.PARQUET, registry.LocalOutput(tempFile(t, "p.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(rowsSchema()).Build()
	if err == nil || !strings.Contains(err.Error(), "not a position-delete schema") {
		t.Errorf("error %v", err)
	}
	// Reading a data file as deletes names what is missing.
	path, _, _ := rowsFile(t)
	rb, err := registry.NewReadBuilder[data.PositionDelete](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.Build(); err == nil || !strings.Contains(err.Error(), "not a position-delete file") {
		t.Errorf("error %v", err)
	}
}

func TestRecordWriterMetricsAndOffsets(t *testing.T) {
	path, _, df := rowsFile(t)
	if df.Count() != 1000 {
		t.Errorf("count %d", df.Count())
	}
	// Counts come from the footer, by field id.
	if got := df.ValueCounts()[1]; got != 1000 {
		t.Errorf("value count of id: %d", got)
	}
	if got := df.NullValueCounts()[3]; got != 500 {
		t.Errorf("null count of maybe: %d", got)
	}
	if got := df.ColumnSizes()[2]; got <= 0 {
		t.Errorf("column size of name: %d", got)
	}
	// Bounds come from the values the writer saw.
	lo, err1 := iceberg.LiteralFromBytes(iceberg.PrimitiveTypes.Int64, df.LowerBoundValues()[1])
	hi, err2 := iceberg.LiteralFromBytes(iceberg.PrimitiveTypes.Int64, df.UpperBoundValues()[1])
	if err1 != nil || err2 != nil || lo.Any() != int64(0) || hi.Any() != int64(999) {
		t.Errorf("bounds of id: %v %v (%v %v)", lo, hi, err1, err2)
	}
	st, _ := os.Stat(path)
	if df.FileSizeBytes() != st.Size() {
		t.Errorf("size %d, file has %d", df.FileSizeBytes(), st.Size())
	}
	offs := df.SplitOffsets()
	if len(offs) == 0 || offs[0] != 4 {
		t.Errorf("split offsets %v: the first row group starts after the magic", offs)
	}
}

// TestPositionDeleteRulesAreTheSameInEveryFormat runs the same hostile
// cases through the Parquet and Avro position-delete models: both are the
// registry's one adapter, so each case fails with the same error but for
// the file and the model named.
func TestPositionDeleteRulesAreTheSameInEveryFormat(t *testing.T) {
	table := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	dataSchema := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "name", iceberg.PrimitiveTypes.String))
	path := req(data.DeleteFilePathID, data.DeleteFilePathName, iceberg.PrimitiveTypes.String)
	pos := req(data.DeleteFilePosID, data.DeleteFilePosName, iceberg.PrimitiveTypes.Int64)
	// Written with the record model, so the delete rules are not applied.
	negativeFile := func(t *testing.T, format registry.FileFormat, loc string) {
		b, err := registry.DataWriteBuilder[*data.Record](format, registry.LocalOutput(loc))
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.Schema(data.PositionDeleteSchema()).Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int64{3, -2} {
			if err := w.Write(data.Of(data.PositionDeleteSchema(), "a", p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		// run returns the error of the hostile operation on loc.
		run  func(t *testing.T, format registry.FileFormat, loc string) error
		want string
	}{
		{"negative pos", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, nil, data.PositionDelete{FilePath: "a", Pos: -1})
		}, `write <file>: the <model> model: position delete {file_path: "a", pos: -1}: pos -1 is negative; it is a 0-based row position`},
		{"pos out of order", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, nil, data.PositionDelete{FilePath: "a", Pos: 5}, data.PositionDelete{FilePath: "a", Pos: 4})
		}, `write <file>: the <model> model: position delete {file_path: "a", pos: 4} is out of order after {file_path: "a", pos: 5}: deletes must be sorted by file_path, then pos`},
		{"file_path out of order", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, nil, data.PositionDelete{FilePath: "b", Pos: 0}, data.PositionDelete{FilePath: "a", Pos: 9})
		}, `write <file>: the <model> model: position delete {file_path: "a", pos: 9} is out of order after {file_path: "b", pos: 0}: deletes must be sorted by file_path, then pos`},
		{"row without a row column", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, nil, data.PositionDelete{FilePath: "a", Pos: 0, Row: data.Of(table, int64(1))})
		}, `write <file>: the <model> model: position delete {file_path: "a", pos: 0, row: {id: 1}} has a row but the schema has no row column (use data.PositionDeleteSchemaWithRow)`},
		{"data schema", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, dataSchema)
		}, "write <file>: the <model> model: schema " + dataSchema.String() + " is not a position-delete schema: field id (id 1) is not file_path, pos or row"},
		{"pos before file_path", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, iceberg.NewSchema(0, pos, path))
		}, "is not a position-delete schema: a writer lays out file_path, pos, then row, in the spec's order"},
		{"optional pos", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, iceberg.NewSchema(0, path, opt(data.DeleteFilePosID, "pos", iceberg.PrimitiveTypes.Int64)))
		}, "is not a position-delete schema: field pos (id 2147483545) is optional; position deletes always have it"},
		{"pos is an int", func(t *testing.T, f registry.FileFormat, loc string) error {
			return writeDeletes(t, f, loc, iceberg.NewSchema(0, path, req(data.DeleteFilePosID, "pos", iceberg.PrimitiveTypes.Int32)))
		}, "is not a position-delete schema: field pos (id 2147483545) is int, not long"},
		{"read a data file", func(t *testing.T, f registry.FileFormat, loc string) error {
			b, err := registry.DataWriteBuilder[*data.Record](f, registry.LocalOutput(loc))
			if err != nil {
				t.Fatal(err)
			}
			w, err := b.Schema(dataSchema).Build()
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(data.Of(dataSchema, int64(1), "x")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = readDeletesErr(f, loc, nil)
			return err
		}, "read <file>: the <model> model: not a position-delete file: schema"},
		{"projection without pos", func(t *testing.T, f registry.FileFormat, loc string) error {
			if err := writeDeletes(t, f, loc, nil, data.PositionDelete{FilePath: "a", Pos: 1}); err != nil {
				t.Fatal(err)
			}
			_, err := readDeletesErr(f, loc, iceberg.NewSchema(0, path))
			return err
		}, "read <file>: the <model> model: projection: schema table {\n\t2147483546: file_path: required string\n} is not a position-delete schema: no pos (id 2147483545)"},
		{"read a negative pos", func(t *testing.T, f registry.FileFormat, loc string) error {
			negativeFile(t, f, loc)
			got, err := readDeletesErr(f, loc, nil)
			if len(got) != 1 || got[0].Pos != 3 {
				t.Errorf("read %v before the error, want the first delete", got)
			}
			return err
		}, `read <file>: the <model> model: delete 2, {file_path: "a", pos: -2}: pos -2 is negative; it is a 0-based row position`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first string
			for i, f := range []registry.FileFormat{registry.PARQUET, registry.AVRO} {
				loc := tempFile(t, "deletes."+f.Ext())
				err := tt.run(t, f, loc)
				m, _ := registry.ModelFor[data.PositionDelete](registry.Default, f)
				got := ""
				if err != nil {
					got = strings.ReplaceAll(strings.ReplaceAll(err.Error(), loc, "<file>"), m.Name(), "<model>")
				}
				if err == nil || !strings.Contains(got, tt.want) {
					t.Errorf("%s: error\n%s\nwant it to contain\n%s", f, got, tt.want)
				}
				if i == 0 {
					first = got
				} else if got != first {
					t.Errorf("the formats disagree:\nPARQUET: %s\n%s: %s", first, f, got)
				}
			}
		})
	}
}

// writeDeletes writes deletes through the registry's position-delete writer
// and returns the first error (Build, Write or Close).
func writeDeletes(t *testing.T, f registry.FileFormat, loc string, schema *iceberg.Schema, deletes ...data.PositionDelete) error {
	t.Helper()
	b, err := registry.PositionDeleteWriteBuilder(f, registry.LocalOutput(loc))
	if err != nil {
		t.Fatal(err)
	}
	if schema != nil {
		b.Schema(schema)
	}
	w, err := b.Build()
	if err != nil {
		return err
	}
	defer w.Abort()
	for _, d := range deletes {
		if err := w.Write(d); err != nil {
			return err
		}
	}
	return w.Close()
}

func readDeletesErr(f registry.FileFormat, loc string, projection *iceberg.Schema) ([]data.PositionDelete, error) {
	b, err := registry.NewReadBuilder[data.PositionDelete](f, registry.LocalInput(loc))
	if err != nil {
		return nil, err
	}
	if projection != nil {
		b.Project(projection)
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	return registry.ReadAll(r, nil)
}

// The row column may be required (the spec's table, Java's DeleteSchemaUtil)
// or optional (Java's MetadataColumns users): both write and read back, in
// both formats.
func TestPositionDeleteRowEitherNullability(t *testing.T) {
	table := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	rowType := table.AsStruct()
	for _, required := range []bool{true, false} {
		schema := iceberg.NewSchema(0, data.PositionDeleteSchema().Field(0), data.PositionDeleteSchema().Field(1),
			iceberg.NestedField{ID: data.DeleteFileRowID, Name: data.DeleteFileRowName, Type: &rowType, Required: required})
		for _, f := range []registry.FileFormat{registry.PARQUET, registry.AVRO} {
			loc := tempFile(t, fmt.Sprintf("row-%v.%s", required, f.Ext()))
			want := data.PositionDelete{FilePath: "a", Pos: 4, Row: rec(&rowType, int64(7))}
			if err := writeDeletes(t, f, loc, schema, want); err != nil {
				t.Fatalf("%s, row required=%v: %v", f, required, err)
			}
			got, err := readDeletesErr(f, loc, nil)
			if err != nil || len(got) != 1 || got[0].String() != want.String() {
				t.Fatalf("%s, row required=%v: read %v, %v; want %s", f, required, got, err, want)
			}
		}
	}
}
