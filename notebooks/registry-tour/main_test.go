package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/registry"
)

func TestQuick(t *testing.T) {
	dir := t.TempDir()
	if err := notebook.Generate(context.Background(), "registry-tour", notebook.Options{Quick: true, Out: dir}, run); err != nil {
		t.Fatal(err)
	}
	if err := notebook.Check(dir, "File formats: a closed enum", "Registered models: open row types", "The tour's transcript"); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Invalid file format: lance",
		"Format model is not registered for format ORC and type *data.Record",
		"![", "(throughput.svg)",
	}
	// One table row per registered model, named, with its row count.
	for _, m := range registry.Default.Models() {
		want = append(want, "| "+m.Name()+" ")
	}
	for _, w := range want {
		if !strings.Contains(string(page), w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if !strings.Contains(string(page), "| 2000 |") {
		t.Error("page does not state the quick row count per model")
	}
}
