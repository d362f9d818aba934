package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

func TestQuick(t *testing.T) {
	page, err := notebook.GenerateQuick(t.TempDir(), "variant-shredding", run, "Inferred layout", "Shredded against unshredded")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| `" + bench.VariantBenchPath + "` ", "mixed types", "| 3000 | shredded ", "| 1000 | unshredded ", "(path-read.svg)", "(costs.svg)"} {
		if !strings.Contains(page, w) {
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
