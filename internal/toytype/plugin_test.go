package toytype_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
	"github.com/coltype-lab/lab/registry"

	_ "github.com/coltype-lab/lab/formats/parquet" // the (PARQUET, *data.Record) model
	// The toy type is one package and this blank import: nothing below
	// names it. The schema forms, JSON rows and inspect find it through
	// data/coltype, the format through its column binding.
	_ "github.com/coltype-lab/lab/internal/toytype"
)

const toyProperty = "write.parquet.unit-interval-columns"

func TestAToyTypeIsOnePackageAndABlankImport(t *testing.T) {
	// Declared in both schema forms and by its property.
	spec, err := schemaspec.Parse("id:long!,score:unit_interval,other:double")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := spec.Decl("score"); !ok || d.TypeName() != "unit_interval" || d.Type().Annotation != "UNIT_INTERVAL" {
		t.Fatalf("score is declared %v, %v", d, ok)
	}
	if got := spec.Properties(); len(got) != 1 || got[toyProperty] != "score" {
		t.Fatalf("properties %v", got)
	}
	js, err := spec.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"type": "unit_interval"`) {
		t.Fatalf("the JSON form lost the type:\n%s", js)
	}
	back, err := schemaspec.ParseJSON(js)
	if err != nil || !back.Schema.Equals(spec.Schema) || back.Properties()[toyProperty] != "score" {
		t.Fatalf("JSON form read back: %v, %v", back, err)
	}
	plain, err := schemaspec.Parse("id:long!,score:double,other:double")
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Declare(map[string]string{toyProperty: "score"}); err != nil {
		t.Fatal(err)
	}
	if err := plain.Declare(map[string]string{toyProperty: "id"}); err == nil ||
		!strings.Contains(err.Error(), toyProperty+`: column "id" (field id 1) has type long; unit_interval is double`) {
		t.Errorf("declaring a long column: %v", err)
	}
	if _, err := schemaspec.Parse("s:struct<x:unit_interval>"); err == nil || !strings.Contains(err.Error(), "UNIT_INTERVAL columns are top-level only") {
		t.Errorf("a nested column: %v", err)
	}

	// JSON rows: the type's codec checks values, and rows round-trip.
	codec, err := jsonrow.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*data.Record
	for _, line := range []string{`{"id":1,"score":0.25,"other":7}`, `{"id":2,"score":1,"other":null}`, `{"id":3,"score":null,"other":-1}`} {
		rec, err := codec.DecodeJSON([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out, err := codec.AppendJSON(nil, rec)
		if err != nil || string(out) != line {
			t.Fatalf("%s came back as %s (%v)", line, out, err)
		}
		recs = append(recs, rec)
	}
	if _, err := codec.DecodeJSON([]byte(`{"id":4,"score":1.5}`)); err == nil || err.Error() != `column "score": value 1.5 is outside UNIT_INTERVAL's [0, 1]` {
		t.Errorf("1.5: %v", err)
	}
	if _, err := codec.DecodeJSON([]byte(`{"id":4,"other":1.5}`)); err != nil {
		t.Errorf("1.5 in a plain double: %v", err)
	}
	layout, err := codec.CSVHeader([]string{"id", "score"})
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := codec.DecodeCSV(layout, []string{"5", "0.5"}); err != nil || rec.Get(1) != 0.5 {
		t.Errorf("CSV 0.5: %v, %v", rec, err)
	}
	if _, err := codec.DecodeCSV(layout, []string{"5", "-0.5"}); err == nil || !strings.Contains(err.Error(), "outside UNIT_INTERVAL's [0, 1]") {
		t.Errorf("CSV -0.5: %v", err)
	}

	// inspect: the statistics of the annotated column in the type's format.
	path := filepath.Join(t.TempDir(), "toy.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(spec.Schema).SetAll(spec.Properties()).Build()
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
	rep, err := inspect.InspectFile(path, inspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	var score, other string
	for _, line := range strings.Split(text.String(), "\n") {
		switch f := strings.Fields(line); {
		case len(f) == 4 && f[0] == "score":
			score = strings.Join(f[1:], " ")
		case len(f) == 4 && f[0] == "other":
			other = strings.Join(f[1:], " ")
		}
	}
	if score != "1 25% 100%" || other != "1 -1 7" {
		t.Errorf("statistics: score %q, other %q, want \"1 25%% 100%%\" and \"1 -1 7\":\n%s", score, other, text.String())
	}
	if !strings.Contains(text.String(), "UNIT_INTERVAL(id=40)") {
		t.Errorf("no annotation in\n%s", text.String())
	}
}
