package table

import (
	"context"
	"fmt"
	"strings"
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
	schema := tbl.Iceberg().Schema()
	for _, c := range []struct {
		name  string
		expr  iceberg.BooleanExpression
		text  string // the same in ParseFilter's syntax
		rows  int
		tasks int
	}{
		{"all files", iceberg.GreaterThanEqual(path, int64(1000)), `variant_get(v, '$.user.id', 'long') >= 1000`, 600, 3},
		// Files 1 and 2 are ruled out by their bounds; file 3 has none for
		// the path (one row holds a string there) and is read.
		{"second file only", iceberg.NewAnd(iceberg.GreaterThanEqual(path, int64(1250)), iceberg.LessThan(path, int64(1300))),
			`VARIANT_GET(v, "$['user']['id']", 'bigint') >= 1250 and variant_get(v, '$.user.id', 'long') < 1300`, 50, 2},
		{"above every bound", iceberg.GreaterThan(path, int64(5000)), `variant_get(v, '$.user.id', 'long') > 5000`, 0, 1},
	} {
		rows, tasks := scanJSON(t, tbl, ScanOptions{Filter: c.expr})
		if len(rows) != c.rows || tasks != c.tasks {
			t.Errorf("%s: %d rows from %d planned files, want %d rows from %d", c.name, len(rows), tasks, c.rows, c.tasks)
		}
		parsed, err := ParseFilter(c.text, schema, true)
		if err != nil {
			t.Fatalf("%s: ParseFilter(%s): %v", c.name, c.text, err)
		}
		rows, tasks = scanJSON(t, tbl, ScanOptions{Filter: parsed})
		if len(rows) != c.rows || tasks != c.tasks {
			t.Errorf("%s, parsed from %s: %d rows from %d planned files, want %d rows from %d", c.name, c.text, len(rows), tasks, c.rows, c.tasks)
		}
	}
	// A path shredded as an integer, read as a double: not pushed down into
	// the typed column, and the scan says so.
	dbl, err := ParseFilter(`variant_get(v, '$.user.id', 'double') > 1250`, schema, true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tbl.Scan(context.Background(), ScanOptions{Filter: dbl})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range s.Rows(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "not pushed down") || !strings.Contains(w[0], "v at $['user']['id'] as double") {
		t.Errorf("scan warnings %q, want one saying the double predicate on $.user.id was not pushed down", w)
	}
	for text, want := range map[string]string{
		`variant_get(id, '$.a', 'long') > 1`:    `column "id" is long, not variant`,
		`variant_get(v, 'a', 'long') > 1`:       `does not start with $`,
		`variant_get(v, '$.a', 'decimal') > 1`:  `type "decimal" is not one of`,
		`variant_get(v, '$.a') > 1`:             `want , and a type`,
		`variant_get(v, '$.a', 'long' > 1`:      `want ) to close variant_get`,
		`variant_get(nope, '$.a', 'long') > 1`:  `no column "nope"`,
		`variant_get(v, '$.a', 'long') > 'abc'`: `abc`,
	} {
		_, err := ParseFilter(text, schema, true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFilter(%s): %v, want an error containing %q", text, err, want)
		}
	}
}
