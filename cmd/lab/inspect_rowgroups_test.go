package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/inspect"
)

// TestInspectRowGroupsFlag checks --row-groups on a file of 25 row groups:
// the default holds the first 20 and says so, a range holds its own, all
// holds every one, and a bad selection is a usage error.
func TestInspectRowGroupsFlag(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[cliRow](&buf, parquet.MaxRowsPerRowGroup(1))
	for i := range 25 {
		if _, err := w.Write([]cliRow{{ID: int64(i), Emb: []float32{1}, Emb2: []float64{2}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "rg.parquet"), buf.Bytes())

	jsonReport := func(t *testing.T, args ...string) inspect.Report {
		t.Helper()
		out, errOut, code := run(t, bin, work, append([]string{"inspect", "--json", "rg.parquet"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep inspect.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	t.Run("default", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "inspect", "rg.parquet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"rows           25 in 25 row groups", "\nrow group 19: ",
			"\nrow groups 20-24 not shown (5 of 25): --row-groups all shows every one"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q", want)
			}
		}
		if rep := jsonReport(t); len(rep.RowGroups) != 20 || rep.NumRowGroups != 25 || rep.RowGroupsOmitted != 5 {
			t.Errorf("JSON: %d row groups of %d, %d omitted", len(rep.RowGroups), rep.NumRowGroups, rep.RowGroupsOmitted)
		}
	})
	t.Run("range", func(t *testing.T) {
		rep := jsonReport(t, "--row-groups", "22-")
		if len(rep.RowGroups) != 3 || rep.RowGroups[0].Index != 22 || rep.RowGroupsOmitted != 22 {
			t.Errorf("22-: %d row groups from %d, %d omitted", len(rep.RowGroups), rep.RowGroups[0].Index, rep.RowGroupsOmitted)
		}
	})
	t.Run("all", func(t *testing.T) {
		rep := jsonReport(t, "--row-groups", "all")
		if len(rep.RowGroups) != 25 || rep.RowGroupsOmitted != 0 || rep.RowGroups[24].Index != 24 {
			t.Errorf("all: %d row groups, %d omitted", len(rep.RowGroups), rep.RowGroupsOmitted)
		}
		out, _, _ := run(t, bin, work, "inspect", "rg.parquet", "--row-groups", "all")
		if strings.Contains(out, "not shown") || !strings.Contains(out, "\nrow group 24: ") {
			t.Error("--row-groups all leaves row groups out of the text")
		}
	})
	for _, tc := range []struct {
		name string
		arg  string
		code int
		want string
	}{
		{"malformed", "3-1", 2, `--row-groups: row groups "3-1": want all, N, FIRST-LAST or FIRST-`},
		{"past the last", "25", 1, "rg.parquet: row group 25 does not exist: the file has 25 (0-24)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := run(t, bin, work, "inspect", "rg.parquet", "--row-groups", tc.arg)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, %q; want %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}
