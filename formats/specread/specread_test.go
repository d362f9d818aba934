package specread_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/schemaspec"
	_ "github.com/coltype-lab/lab/formats/parquet/filecol" // writes FILE columns
	"github.com/coltype-lab/lab/formats/specread"
	"github.com/coltype-lab/lab/registry"
)

// write writes spec's schema with no rows, declaring its FILE and VECTOR
// columns as lab write does: writer properties for Parquet, header keys
// for Avro (declare false: neither).
func write(t *testing.T, format registry.FileFormat, spec *schemaspec.Spec, declare bool) registry.InputFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f."+strings.ToLower(format.String()))
	b, err := registry.DataWriteBuilder[*data.Record](format, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	b.Schema(spec.Schema)
	if p := spec.Properties(); declare && len(p) > 0 {
		if format == registry.PARQUET {
			b.SetAll(p)
		} else {
			for k, v := range specread.AvroHeader(spec) {
				b.Meta(k, v)
			}
		}
	}
	w, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return registry.LocalInput(path)
}

func specJSON(t *testing.T, s *schemaspec.Spec) string {
	t.Helper()
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRead(t *testing.T) {
	spec, err := schemaspec.Parse("id:long!, doc:file<uri,size>, emb:vector<float32,4>, q:vector<int8,8>, name:string")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := schemaspec.FromSchema(spec.Schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		format  registry.FileFormat
		declare bool
		want    *schemaspec.Spec
	}{
		{"parquet", registry.PARQUET, true, spec},
		{"avro", registry.AVRO, true, spec},
		{"parquet undeclared", registry.PARQUET, false, plain},
		{"avro undeclared", registry.AVRO, false, plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := write(t, tc.format, spec, tc.declare)
			got, err := specread.Read(in, "f", tc.format, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := specJSON(t, got), specJSON(t, tc.want); g != w {
				t.Errorf("spec\n%s\nwant\n%s", g, w)
			}
		})
	}
}

func TestReadOpenParquet(t *testing.T) {
	spec, err := schemaspec.Parse("id:long!, doc:file, emb:vector<float64,2>")
	if err != nil {
		t.Fatal(err)
	}
	in := write(t, registry.PARQUET, spec, true)
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		t.Fatal(err)
	}
	got, r, err := specread.OpenParquet(in, "f", b)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if g, w := specJSON(t, got), specJSON(t, spec); g != w {
		t.Errorf("spec\n%s\nwant\n%s", g, w)
	}
	anns, schema, err := specread.ParquetSchema(in, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 2 || !schema.Equals(spec.Schema) {
		t.Errorf("ParquetSchema = %v, %v; want 2 annotations and %v", anns, schema, spec.Schema)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a data file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := registry.LocalInput(junk)
	for _, tc := range []struct {
		format registry.FileFormat
		want   string
	}{
		{registry.PARQUET, "shown is not a readable Parquet file: "},
		{registry.AVRO, "shown is not a readable Avro file: "},
		{registry.ORC, "shown: ORC: no schema spec for this format"},
	} {
		_, err := specread.Read(in, "shown", tc.format, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.format, err, tc.want)
		}
		if got := errors.Is(err, specread.ErrUnsupportedFormat); got != (tc.format == registry.ORC) {
			t.Errorf("%s: errors.Is(err, ErrUnsupportedFormat) = %v", tc.format, got)
		}
	}
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := specread.OpenParquet(in, "shown", b); err == nil || !strings.HasPrefix(err.Error(), "shown is not a readable Parquet file: ") {
		t.Errorf("OpenParquet: err = %v", err)
	}

	// A header declaring a column the schema does not have.
	spec := &schemaspec.Spec{Schema: iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})}
	path := filepath.Join(dir, "bad.avro")
	wb, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := wb.Schema(spec.Schema).Meta(specread.AvroVectorColumnsKey, "nope:float32:4").Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = specread.Read(registry.LocalInput(path), "bad.avro", registry.AVRO, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "bad.avro: header: ") || !strings.Contains(err.Error(), "nope") {
		t.Errorf("undeclared header column: err = %v", err)
	}
}

// The Avro header takes the canonical declaration spelling on write, and
// Read takes the legacy one earlier versions wrote, through the same parser.
func TestAvroHeaderSpellings(t *testing.T) {
	spec, err := schemaspec.Parse("id:long!, doc:file<uri,size>, emb:vector<float32,4>, q:vector<int8,8>")
	if err != nil {
		t.Fatal(err)
	}
	header := specread.AvroHeader(spec)
	if len(header) != 2 || header[specread.AvroVectorColumnsKey] != "emb:vector<float32,4>,q:vector<int8,8>" || header[specread.AvroFileColumnsKey] != "doc" {
		t.Fatalf("AvroHeader = %v", header)
	}
	for _, vectors := range []string{"emb:vector<float32,4>,q:vector<int8,8>", "emb:float32:4,q:int8:8"} {
		path := filepath.Join(t.TempDir(), "f.avro")
		b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.Schema(spec.Schema).Meta(specread.AvroFileColumnsKey, "doc").Meta(specread.AvroVectorColumnsKey, vectors).Build()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := specread.Read(registry.LocalInput(path), "f.avro", registry.AVRO, nil)
		if err != nil {
			t.Fatalf("%s: %v", vectors, err)
		}
		if g, w := specJSON(t, got), specJSON(t, spec); g != w {
			t.Errorf("header %s read as\n%s\nwant\n%s", vectors, g, w)
		}
	}
}
