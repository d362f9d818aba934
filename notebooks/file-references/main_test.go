package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

func TestQuick(t *testing.T) {
	dir := t.TempDir()
	if err := notebook.Generate(context.Background(), "file-references", notebook.Options{Quick: true, Out: dir}, run); err != nil {
		t.Fatal(err)
	}
	if err := notebook.Check(dir, "Results", "All figures"); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bench.FileRefLayouts {
		if !strings.Contains(string(page), "| "+l+" ") {
			t.Errorf("page has no row for layout %s", l)
		}
	}
	for _, w := range []string{"Every layout resolved all 300 rows", "(space.svg)", "(time.svg)"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("page lacks %q", w)
		}
	}
}
