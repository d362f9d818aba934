package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

func TestQuick(t *testing.T) {
	dir := t.TempDir()
	if err := notebook.Generate(context.Background(), "variant-shredding", notebook.Options{Quick: true, Out: dir}, run); err != nil {
		t.Fatal(err)
	}
	if err := notebook.Check(dir, "Inferred layout", "Shredded against unshredded"); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| `" + bench.VariantBenchPath + "` ", "mixed types", "| 3000 | shredded ", "| 1000 | unshredded ", "(path-read.svg)", "(costs.svg)"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func TestParseRows(t *testing.T) {
	got, err := parseRows("300, 100,300")
	if err != nil || !reflect.DeepEqual(got, []int{100, 300}) {
		t.Errorf("parseRows = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,x", "0", "-5"} {
		if _, err := parseRows(bad); err == nil {
			t.Errorf("parseRows(%q) accepted", bad)
		}
	}
}
