package main

import (
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

func TestQuick(t *testing.T) {
	page, err := notebook.GenerateQuick(t.TempDir(), "file-references", run, "Results", "All figures")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bench.FileRefLayouts {
		if !strings.Contains(page, "| "+l+" ") {
			t.Errorf("page has no row for layout %s", l)
		}
	}
	for _, w := range []string{"Every layout resolved all 300 rows", "(space.svg)", "(time.svg)"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}
