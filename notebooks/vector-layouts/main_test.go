package main

import (
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

func TestQuick(t *testing.T) {
	page, err := notebook.GenerateQuick(t.TempDir(), "vector-layouts", run, "Best per layout", "Size", "Search and decode against the floor", "All combinations")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range vectorcol.Layouts() {
		if !strings.Contains(page, "| "+l.String()+" ") {
			t.Errorf("page has no row for layout %s", l)
		}
	}
	for _, svg := range []string{"size.svg", "search-floor.svg", "decode.svg"} {
		if !strings.Contains(page, "("+svg+")") {
			t.Errorf("page does not show %s", svg)
		}
	}
	if !strings.Contains(page, "2000×64") {
		t.Error("page does not state the quick size")
	}
}

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in     string
		n, dim int
		ok     bool
	}{{"100x8", 100, 8, true}, {"100X8", 100, 8, true}, {"100", 0, 0, false}, {"0x8", 0, 0, false}, {"ax8", 0, 0, false}} {
		s, err := parseSize(tt.in)
		if (err == nil) != tt.ok || s.N != tt.n || s.Dim != tt.dim {
			t.Errorf("parseSize(%q) = %+v, %v", tt.in, s, err)
		}
	}
}
