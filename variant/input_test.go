package variant_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	_ "github.com/coltype-lab/lab/formats/avro"           // registers Avro's magic
	lparquet "github.com/coltype-lab/lab/formats/parquet" // registers the (PARQUET, *data.Record) model
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// show is a value as its JSON, or NULL for a SQL NULL (the zero Value).
func show(v pvariant.Value) string {
	if v.Bytes() == nil {
		return "NULL"
	}
	return v.String()
}

func showAll(vs []pvariant.Value) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = show(v)
	}
	return strings.Join(out, " ")
}

// writeParquet writes rows (JSON per column, "" for a null) through the
// registry, every column named in cols a variant but "id" (long).
func writeParquet(t *testing.T, path string, props map[string]string, cols []string, rows [][]string) {
	t.Helper()
	var fields []iceberg.NestedField
	for i, c := range cols {
		f := iceberg.NestedField{ID: i + 1, Name: c, Type: iceberg.VariantType{}}
		if c == "id" {
			f.Type = iceberg.PrimitiveTypes.Int64
		}
		fields = append(fields, f)
	}
	schema := iceberg.NewSchema(0, fields...)
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).SetAll(props).Build()
	if err != nil {
		t.Fatal(err)
	}
	for n, row := range rows {
		rec := data.NewRecord(schema)
		for i, text := range row {
			switch {
			case cols[i] == "id":
				rec.Set(i, int64(n))
			case text != "":
				v, err := jsonrow.ParseVariant([]byte(text))
				if err != nil {
					t.Fatal(err)
				}
				rec.Set(i, v)
			}
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadInputParquet reads variant columns of files written by the lab,
// shredded and not, through the registry: the first VARIANT column by
// default, a named one otherwise, nulls as zero Values.
func TestReadInputParquet(t *testing.T) {
	dir := t.TempDir()
	cols := []string{"id", "a", "b"}
	var rows [][]string
	for i := range 120 { // past the inference buffer, so the shredded file has a layout
		a := `{"k": 1, "s": "x"}`
		switch i % 3 {
		case 1:
			a = ""
		case 2:
			a = `[1, "two", null]`
		}
		rows = append(rows, []string{"", a, `"b"`})
	}
	wantA := make([]string, len(rows))
	for i, r := range rows {
		wantA[i] = "NULL"
		if r[1] != "" {
			v, _ := jsonrow.ParseVariant([]byte(r[1]))
			wantA[i] = show(v)
		}
	}
	for _, props := range []map[string]string{nil, {lparquet.PropShredVariants: "true"}} {
		path := filepath.Join(dir, "f.parquet")
		_ = os.Remove(path)
		writeParquet(t, path, props, cols, rows)
		for _, tt := range []struct{ column, want, wantCol string }{
			{"", strings.Join(wantA, " "), "a"},
			{"a", strings.Join(wantA, " "), "a"},
			{"b", strings.TrimSpace(strings.Repeat(`"b" `, len(rows))), "b"},
		} {
			values, col, err := variant.ReadInput(path, tt.column)
			if err != nil {
				t.Fatalf("shred %v, column %q: %v", props, tt.column, err)
			}
			if col != tt.wantCol || showAll(values) != tt.want {
				t.Errorf("shred %v, column %q: read column %q, values %.200s; want %q, %.200s", props, tt.column, col, showAll(values), tt.wantCol, tt.want)
			}
		}
	}
}

func TestReadInputErrors(t *testing.T) {
	dir := t.TempDir()
	noVariant := filepath.Join(dir, "ids.parquet")
	writeParquet(t, noVariant, nil, []string{"id"}, [][]string{{""}})
	withVariant := filepath.Join(dir, "v.parquet")
	writeParquet(t, withVariant, nil, []string{"id", "v"}, [][]string{{"", "1"}})
	avro := filepath.Join(dir, "x.avro")
	jsonl := filepath.Join(dir, "bad.jsonl")
	for name, body := range map[string]string{avro: "Obj\x01 the rest", jsonl: "{\"v\":1}\n[2]\n"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	_, _, err := variant.ReadInput(noVariant, "")
	var none *variant.NoVariantColumnError
	if !errors.As(err, &none) || none.Path != noVariant {
		t.Errorf("no VARIANT column: %v, want a NoVariantColumnError naming %s", err, noVariant)
	}
	_, _, err = variant.ReadInput(avro, "")
	var fe *variant.FormatError
	if !errors.As(err, &fe) || fe.Format != registry.AVRO || fe.Path != avro {
		t.Errorf("Avro magic: %v, want a FormatError naming %s and AVRO", err, avro)
	}
	for _, tt := range []struct{ path, column, want string }{
		{withVariant, "id", withVariant + `: column "id" is long, not variant`},
		{withVariant, "nope", withVariant + `: variant column "nope" not found`},
		{jsonl, "v", jsonl + `:2: not a JSON object with member "v"`},
		{filepath.Join(dir, "absent.jsonl"), "", "absent.jsonl"},
		{dir, "", dir},
	} {
		if _, _, err := variant.ReadInput(tt.path, tt.column); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadInput(%s, %q): %v, want an error containing %q", tt.path, tt.column, err, tt.want)
		}
	}
}

// TestReadInputJSONLines: JSON Lines input reads as jsonrow.ReadVariantLines
// reads it, the column given back as asked.
func TestReadInputJSONLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte("{\"p\":{\"x\":1},\"q\":2}\n\n{\"q\":3}\n{\"p\":null}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ column, want string }{
		{"p", `{"x":1} NULL null`},
		{"", `{"p":{"x":1},"q":2} {"q":3} {"p":null}`},
	} {
		values, col, err := variant.ReadInput(path, tt.column)
		if err != nil || col != tt.column || showAll(values) != tt.want {
			t.Errorf("column %q: %s as %q (%v), want %s", tt.column, showAll(values), col, err, tt.want)
		}
	}
}
