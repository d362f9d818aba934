package main

import (
	"strings"
	"testing"

	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/spec/compat"
)

func TestQuick(t *testing.T) {
	for _, r := range compat.Readers() {
		if err := r.Available(); err != nil {
			t.Logf("reader missing, its column is left out: %v", err)
		}
	}
	page, err := notebook.GenerateQuick(t.TempDir(), "compat-matrix", run, "Outcomes per reader", "The matrix")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| `file/", "| `vector/", "| `variant/", "| " + compat.ReaderParquetGo + " ", "(matrix.svg)"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func TestFirstOfEachKind(t *testing.T) {
	got := firstOfEachKind([]compat.Case{{ID: "file/a"}, {ID: "file/b"}, {ID: "vector/a"}, {ID: "variant/x"}, {ID: "vector/b"}})
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "file/a,vector/a,variant/x" {
		t.Errorf("firstOfEachKind = %v", ids)
	}
}
