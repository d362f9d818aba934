package main

import (
	"strings"
	"testing"

	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/registry"
)

func TestQuick(t *testing.T) {
	page, err := notebook.GenerateQuick(t.TempDir(), "registry-tour", run, "File formats: a closed enum", "Registered models: open row types", "The tour's transcript")
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
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if !strings.Contains(page, "| 2000 |") {
		t.Error("page does not state the quick row count per model")
	}
}
