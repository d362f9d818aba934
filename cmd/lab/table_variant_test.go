package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableScanVariantFilter: lab table scan --filter takes a predicate on
// a variant path (variant_get), returns exactly the matching rows, and says
// on stderr, with exit 0, when a predicate was not pushed down.
func TestTableScanVariantFilter(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	var rows strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&rows, `{"id":%d,"v":{"user":{"id":%d}}}`+"\n", i, 1000+i)
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.jsonl"), []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"table", "create", "lab.events", "--schema", "id:long!,v:variant", "--property", "write.parquet.shred-variants=true"},
		{"table", "append", "lab.events", "--input", "rows.jsonl"},
	} {
		if out, errOut, code := run(t, bin, dir, args...); code != 0 {
			t.Fatalf("lab %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	out, errOut, code := run(t, bin, dir, "table", "scan", "lab.events", "--columns", "id", "--filter", "variant_get(v, '$.user.id', 'long') > 1297")
	if code != 0 || strings.Join(sortedLines(out), " ") != `{"id":298} {"id":299} {"id":300}` || strings.Contains(errOut, "warning") {
		t.Errorf("scan with a pushed-down variant filter: exit %d, rows %q, stderr %s", code, out, errOut)
	}
	out, errOut, code = run(t, bin, dir, "table", "scan", "lab.events", "--columns", "id", "--filter", "variant_get(v, '$.user.id', 'double') > 1297")
	if code != 0 || !strings.Contains(errOut, "warning: filter on v at $['user']['id'] as double") || !strings.Contains(errOut, "not pushed down") {
		t.Errorf("scan with a double predicate on an int path: exit %d, rows %q, stderr %s", code, out, errOut)
	}
	if _, errOut, code := run(t, bin, dir, "table", "scan", "lab.events", "--filter", "variant_get(id, '$.a', 'long') > 1"); code != 2 || !strings.Contains(errOut, `column "id" is long, not variant`) {
		t.Errorf("variant_get on a long column: exit %d, %s", code, errOut)
	}
}
