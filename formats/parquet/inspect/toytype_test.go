package inspect_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
	"github.com/coltype-lab/lab/registry"

	_ "github.com/coltype-lab/lab/formats/parquet" // the (PARQUET, *data.Record) model
	// Registers UNIT_INTERVAL with footer, formats/parquet and data/coltype;
	// the test names the type only by the schema name it registered.
	_ "github.com/coltype-lab/lab/internal/toytype"
)

// A registered column type shows in inspect's text and JSON, and in lab
// pages, as its registrations say: the annotation by its footer kind and
// id (footer.RegisterLogicalType), in text and JSON alike; the bounds in
// the text views by its data/coltype formatter, in JSON as the physical
// type's display strings. inspect names no such type; FILE and VECTOR go
// the same way.
func TestRegisteredTypeShowsAsRegistered(t *testing.T) {
	typ, ok := coltype.Lookup("unit_interval")
	if !ok {
		t.Fatal("unit_interval is not registered with data/coltype")
	}
	spec, ok := footer.LookupLogicalType(footer.Kind(typ.Annotation))
	if !ok {
		t.Fatalf("%s is not registered with footer", typ.Annotation)
	}
	decl, err := typ.Parse("score", typ.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantAnn := typ.Annotation + "(id=" + strconv.Itoa(int(spec.ID)) + ")"
	wantMin, wantMax := decl.Format(0.25), decl.Format(1.0)

	path := writeScores(t, "id:long!,score:"+typ.Name+",other:double",
		[]map[string]any{{"id": 1, "score": 0.25, "other": 7.0}, {"id": 2, "score": 1.0}, {"id": 3, "other": -1.0}})
	rep, err := inspect.InspectFile(path, inspect.Options{})
	if err != nil {
		t.Fatal(err)
	}

	// The report, and the same through its JSON.
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back inspect.Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*inspect.Report{"report": rep, "JSON": &back} {
		n := r.Schema.Find([]string{"score"})
		if n == nil || n.LogicalType == nil {
			t.Fatalf("%s: score has no logical type: %+v", name, n)
		}
		lt := n.LogicalType
		if lt.Name != typ.Annotation || lt.ID != spec.ID || lt.Text != wantAnn || lt.Vector != nil {
			t.Errorf("%s: score's logical type %+v, want name %s, id %d, text %s", name, lt, typ.Annotation, spec.ID, wantAnn)
		}
		var found bool
		for _, c := range r.RowGroups[0].Columns {
			if strings.Join(c.Path, ".") != "score" {
				continue
			}
			found = true
			// JSON keeps the physical type's display strings (doc.go);
			// the type's formatter is the text view's.
			if s := c.Statistics; s == nil || s.Min != "0.25" || s.Max != "1" {
				t.Errorf("%s: score's statistics %+v, want min 0.25, max 1", name, s)
			}
		}
		if !found {
			t.Errorf("%s: no score column chunk", name)
		}
	}
	if !strings.Contains(string(js), `"logical_type":{"name":"`+typ.Annotation+`","id":`+strconv.Itoa(int(spec.ID))+`,"text":"`+wantAnn+`"`) {
		t.Errorf("the JSON lost the annotation:\n%s", js)
	}

	// The text: the schema line carries the annotation, the statistics
	// the type's formatting.
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	var schemaLine, statsLine bool
	for _, line := range strings.Split(text.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "score" && strings.Contains(line, "DOUBLE") && strings.Contains(line, wantAnn):
			schemaLine = true
		case len(f) == 4 && f[0] == "score" && f[2] == wantMin && f[3] == wantMax:
			statsLine = true
		}
	}
	if !schemaLine || !statsLine {
		t.Errorf("text: schema line %v, statistics line %v, want %s and %s %s:\n%s", schemaLine, statsLine, wantAnn, wantMin, wantMax, text.String())
	}

	// lab pages: the column index bounds in the type's formatting too.
	pages, err := inspect.PagesFile(path, inspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ptext bytes.Buffer
	if err := pages.WriteText(&ptext); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ptext.String(), wantMin) || !strings.Contains(ptext.String(), wantMax) {
		t.Errorf("pages text lacks %s and %s:\n%s", wantMin, wantMax, ptext.String())
	}
}

// writeScores writes rows (by column name) with the lab's Parquet model.
func writeScores(t *testing.T, schema string, rows []map[string]any) string {
	t.Helper()
	s, err := schemaspec.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scores.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s.Schema).SetAll(s.Properties()).Build()
	if err != nil {
		t.Fatal(err)
	}
	fields := s.Schema.Fields()
	for _, r := range rows {
		rec := data.NewRecord(s.Schema)
		for i, f := range fields {
			if v, ok := r[f.Name]; ok {
				if n, isInt := v.(int); isInt {
					v = int64(n) // long
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
	return path
}
