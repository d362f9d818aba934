package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// pagesWidth is the widest line lab pages may print for a file with short
// column paths: its page table is 110-odd columns, and its bounds fit
// tables of their own.
const pagesWidth = 120

// lab pages prints a 768-dim VECTOR column's column index bounds as lab
// inspect prints its statistics, through VECTOR's formatter, not as hex of
// 3072 bytes, and every line of its output fits a terminal but the one
// that names the file.
func TestPagesVectorBoundsCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	writeVectorRows(t, filepath.Join(work, "rows.jsonl"), 11)
	if _, errOut, code := run(t, bin, work, "write", "-q", "--schema", "id:long!,emb:vector<float32,768>", "--input", "rows.jsonl",
		"-p", "write.parquet.stats-enabled.column.emb=true", "emb.parquet"); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	pages, errOut, code := run(t, bin, work, "pages", "emb.parquet")
	if code != 0 {
		t.Fatalf("pages: exit %d: %s", code, errOut)
	}
	// Row 0 is all zeros, the least; row 2 (0, 0.25, 0.5, ...) the greatest.
	const minV, maxV = "[0, 0, 0, 0, 0, 0, 0, …] 768×float32", "[0, 0.25, 0.5, 0.75, …] 768×float32"
	if want := "    0     false      0      " + minV + "  " + maxV + "\n"; !strings.Contains(pages, want) {
		t.Errorf("lab pages lacks the column index line %q:\n%s", want, pages)
	}
	for _, line := range strings.Split(pages, "\n") {
		if n := utf8.RuneCountInString(line); n > pagesWidth && !strings.HasPrefix(line, "file ") {
			t.Errorf("lab pages: line of %d columns, more than %d: %s", n, pagesWidth, line)
		}
	}
	inspected, errOut, code := run(t, bin, work, "inspect", "emb.parquet")
	if want := "    emb     0      " + minV + "  " + maxV + "\n"; code != 0 || !strings.Contains(inspected, want) {
		t.Errorf("exit %d: lab inspect lacks the statistics line %q:\n%s%s", code, want, inspected, errOut)
	}
}

// writeVectorRows writes three JSON Lines rows of an id and a 768-dim
// "emb" vector to path: element j of row i is (i·j mod mod)/8, so row 0 is
// all zeros.
func writeVectorRows(t *testing.T, path string, mod int) {
	t.Helper()
	var rows strings.Builder
	for i := range 3 {
		elems := make([]string, 768)
		for j := range elems {
			elems[j] = strconv.FormatFloat(float64(i*j%mod)/8, 'g', -1, 64)
		}
		rows.WriteString(`{"id":` + strconv.Itoa(i) + `,"emb":[` + strings.Join(elems, ",") + "]}\n")
	}
	if err := os.WriteFile(path, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
