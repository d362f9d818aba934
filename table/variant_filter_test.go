package table

import (
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
)

// TestVariantPathFilterPrunesFiles: the writer records Iceberg's variant
// bounds ("Bounds for Variant", spec.md) of the shredded fields in each
// DataFile, iceberg-go's planning prunes the files whose bounds rule a
// predicate on a variant path out, and the rows of the file it keeps are
// filtered again. A file where the path is not shredded (the value is a
// string in one row) has no bound for it and is never pruned.
func TestVariantPathFilterPrunesFiles(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "ns.events", CreateOptions{Spec: mustSpec(t, "id:long!,v:variant"),
		Properties: map[string]string{"write.parquet.shred-variants": "true"}})
	batch := func(from, n int, odd string) []string {
		var out []string
		for i := from; i < from+n; i++ {
			out = append(out, fmt.Sprintf(`{"id":%d,"v":{"user":{"id":%d},"kind":"click"}}`, i, 1000+i))
		}
		if odd != "" {
			out = append(out, odd)
		}
		return out
	}
	appendJSON(t, tbl, batch(0, 200, "")...)
	appendJSON(t, tbl, batch(200, 200, "")...)
	appendJSON(t, tbl, batch(400, 200, `{"id":9999,"v":{"user":{"id":"not a number"},"kind":"view"}}`)...)
	path := iceberg.Extract(iceberg.Reference("v"), "$.user.id", iceberg.PrimitiveTypes.Int64)
	for _, c := range []struct {
		name  string
		expr  iceberg.BooleanExpression
		rows  int
		tasks int
	}{
		{"all files", iceberg.GreaterThanEqual(path, int64(1000)), 600, 3},
		// Files 1 and 2 are ruled out by their bounds; file 3 has none for
		// the path (one row holds a string there) and is read.
		{"second file only", iceberg.NewAnd(iceberg.GreaterThanEqual(path, int64(1250)), iceberg.LessThan(path, int64(1300))), 50, 2},
		{"above every bound", iceberg.GreaterThan(path, int64(5000)), 0, 1},
	} {
		rows, tasks := scanJSON(t, tbl, ScanOptions{Filter: c.expr})
		if len(rows) != c.rows || tasks != c.tasks {
			t.Errorf("%s: %d rows from %d planned files, want %d rows from %d", c.name, len(rows), tasks, c.rows, c.tasks)
		}
	}
}
