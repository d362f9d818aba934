package toytype_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/annotate"
	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
)

// The toy type plugs into annotate as it does into the other registries:
// its package registers a request type, and request.Parse and annotate.File
// take it without naming it.
func TestAnnotateAToyTypeColumn(t *testing.T) {
	if !slices.ContainsFunc(request.Types(), func(rt request.Type) bool {
		return rt.Name == "unit_interval" && rt.Syntax == "COLUMN:unit_interval" && strings.Contains(rt.Usage, "DOUBLE")
	}) {
		t.Fatalf("unit_interval is not among the request types %+v", request.Types())
	}

	type row struct {
		ID    int64   `parquet:"id"`
		Score float64 `parquet:"score"`
		Ratio float32 `parquet:"ratio"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{1, 0.25, 0.5}, {2, 1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.parquet"), filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	req, err := request.Parse("score:unit_interval")
	if err != nil {
		t.Fatal(err)
	}
	res, err := annotate.File(in, out, []annotate.Request{req}, annotate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"UNIT_INTERVAL(id=40)"}; !slices.Equal(res.Described, want) {
		t.Errorf("Described = %q, want %q", res.Described, want)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:res.FooterOffset], buf.Bytes()[:res.FooterOffset]) {
		t.Error("the bytes before the footer changed")
	}
	rep, err := inspect.InspectFile(out, inspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Annotations, func(a inspect.Annotation) bool {
		return slices.Equal(a.Path, []string{"score"}) && a.Kind == "UNIT_INTERVAL" && a.InFooter && a.InKeyValue
	}) {
		t.Errorf("score is not annotated in the footer and its mirror: %+v", rep.Annotations)
	}

	// The type's placement rule refuses, named by the request.
	req, err = request.Parse("ratio:unit_interval")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := annotate.File(in, filepath.Join(dir, "refused.parquet"), []annotate.Request{req}, annotate.Options{}); err == nil ||
		!strings.Contains(err.Error(), "ratio:unit_interval: annotate column ratio: UNIT_INTERVAL: annotates DOUBLE leaves only") {
		t.Errorf("UNIT_INTERVAL on a float column: %v", err)
	}
	if _, err := request.Parse("score:unit_interval;lo=0"); err == nil ||
		err.Error() != `type "unit_interval;lo=0": want COLUMN:unit_interval (unit_interval takes no parameters or settings)` {
		t.Errorf("a setting: %v", err)
	}
}
