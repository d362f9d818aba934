package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

func TestVectorCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	// 6 rows of dim 3; row 4 is null. Under dot with query [1,0,0] the
	// ranking is by the first element: rows 5, 2, 0, 1, 3.
	data := []float32{
		3, 0, 0,
		2, 1, 0,
		4, 0, 1,
		1, 1, 1,
		9, 9, 9,
		5, 0, 0,
	}
	null := []bool{false, false, false, false, true, false}
	files := map[vectorcol.Layout]string{}
	for _, l := range vectorcol.Layouts() {
		p := filepath.Join(work, l.String()+".parquet")
		if err := vectorcol.WriteFile(p, vectorcol.Column{Dim: 3, Data: data, Null: null}, vectorcol.WriteOptions{Layout: l}); err != nil {
			t.Fatal(err)
		}
		files[l] = p
	}
	for l, p := range files {
		t.Run("search/"+l.String(), func(t *testing.T) {
			out, errOut, code := run(t, bin, work, "vector", "search", p, "--query", "[1,0,0]", "--k", "3", "--metric", "dot", "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var doc struct {
				Layout  string
				Dim     int
				Results [][]struct {
					Row   int64
					Score *float64
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			if doc.Layout != l.String() || doc.Dim != 3 || len(doc.Results) != 1 {
				t.Fatalf("layout %q dim %d, %d result lists", doc.Layout, doc.Dim, len(doc.Results))
			}
			var got []string
			for _, h := range doc.Results[0] {
				got = append(got, fmt.Sprintf("%d:%g", h.Row, *h.Score))
			}
			if want := "5:5 2:4 0:3"; strings.Join(got, " ") != want {
				t.Fatalf("results %v, want %s", got, want)
			}
		})
		t.Run("take/"+l.String(), func(t *testing.T) {
			out, errOut, code := run(t, bin, work, "vector", "take", p, "--rows", "5,4,1,5")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want := "row 5: [5, 0, 0]\nrow 4: null\nrow 1: [2, 1, 0]\nrow 5: [5, 0, 0]\n"
			if out != want {
				t.Fatalf("take printed\n%s\nwant\n%s", out, want)
			}
		})
	}
	t.Run("several queries, text", func(t *testing.T) {
		qf := filepath.Join(work, "q.json")
		if err := os.WriteFile(qf, []byte("[[0,0,1],[0,1,0]]"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, bin, work, "vector", "search", files[vectorcol.LayoutFLBA], "--query-file", qf, "--k", "1", "--metric", "l2")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		// Nearest to [0,0,1] is row 3 (distance² 2); to [0,1,0], row 1 (4)
		// and row 3 (3): row 3.
		if !strings.Contains(out, "query 0:\n    1  row 3 ") || !strings.Contains(out, "query 1:\n    1  row 3 ") {
			t.Fatalf("output:\n%s", out)
		}
	})
	t.Run("take json", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "vector", "take", files[vectorcol.LayoutList], "--rows", "2,4", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var doc struct {
			Rows []struct {
				Row    int64
				Vector []float64
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Rows) != 2 || fmt.Sprint(doc.Rows[0].Vector) != "[4 0 1]" || doc.Rows[1].Vector != nil {
			t.Fatalf("rows %+v", doc.Rows)
		}
	})
	notParquet := filepath.Join(work, "not.parquet")
	if err := os.WriteFile(notParquet, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	flba := files[vectorcol.LayoutFLBA]
	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"dimension mismatch", []string{"search", flba, "--query", "[1,2]"}, 2, "query dimension 2 ≠ column dimension 3"},
		{"no query", []string{"search", flba}, 2, "a query is required"},
		{"both queries", []string{"search", flba, "--query", "[1]", "--query-file", "x"}, 2, "not both"},
		{"bad json", []string{"search", flba, "--query", "[1,"}, 2, "want a JSON array"},
		{"ragged queries", []string{"search", flba, "--query", "[[1,2,3],[1]]"}, 2, "query 1 has 1 elements"},
		{"bad metric", []string{"search", flba, "--query", "[1,2,3]", "--metric", "hamming"}, 2, "unknown metric"},
		{"negative k", []string{"search", flba, "--query", "[1,2,3]", "--k", "-1"}, 2, "--k -1"},
		{"no such column", []string{"search", flba, "--query", "[1,2,3]", "--column", "img"}, 1, `no top-level field "img"`},
		{"missing file", []string{"take", filepath.Join(work, "nope.parquet"), "--rows", "1"}, 1, "nope.parquet"},
		{"not parquet", []string{"take", notParquet, "--rows", "1"}, 1, "not.parquet"},
		{"row out of range", []string{"take", flba, "--rows", "6"}, 2, "row 6 is outside the file's 6 rows"},
		{"bad row", []string{"take", flba, "--rows", "1,x"}, 2, `"x" is not a row number`},
		{"no rows", []string{"take", flba}, 2, "--rows is required"},
		{"no file", []string{"take", "--rows", "1"}, 2, "accepts 1 arg"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, bin, work, append([]string{"vector"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errOut, tt.code, tt.msg)
			}
		})
	}
	for _, sub := range []string{"search", "take"} {
		out, _, code := run(t, bin, work, "vector", sub, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "Exit status") {
			t.Errorf("vector %s --help (exit %d) lacks an example or the exit statuses:\n%s", sub, code, out)
		}
	}
}
