package table

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// idRows are n rows of "id:long!,region:string,v:double", ids from first.
func idRows(first, n int, region string) []string {
	var out []string
	for i := first; i < first+n; i++ {
		out = append(out, fmt.Sprintf(`{"id":%d,"region":%q,"v":%d.5}`, i, region, i))
	}
	return out
}

const idSchema = "id:long!,region:string,v:double"

// scanIDs is the sorted ids a lab scan returns.
func scanIDs(t *testing.T, tbl *Table, o ScanOptions) []int64 {
	t.Helper()
	ctx := context.Background()
	s, err := tbl.Scan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rec, err := range s.Rows(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.Get(0).(int64))
	}
	slices.Sort(ids)
	return ids
}

// icebergGoIDs is the sorted ids iceberg-go's own scan returns: the
// independent check that the delete files the lab writes mean what the lab
// reads them to mean.
func icebergGoIDs(t *testing.T, tbl *Table) []int64 {
	t.Helper()
	at, err := tbl.Iceberg().Scan(itable.WithSelectedFields("id")).ToArrowTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	var ids []int64
	tr := array.NewTableReader(at, 0)
	defer tr.Release()
	for tr.Next() {
		c := tr.RecordBatch().Column(0).(*array.Int64)
		for i := range c.Len() {
			ids = append(ids, c.Value(i))
		}
	}
	slices.Sort(ids)
	return ids
}

func idsWithout(first, last int, drop ...int64) []int64 {
	var out []int64
	for i := first; i <= last; i++ {
		if !slices.Contains(drop, int64(i)) {
			out = append(out, int64(i))
		}
	}
	return out
}

func mustFilter(t *testing.T, tbl *Table, text string) iceberg.BooleanExpression {
	t.Helper()
	f, err := ParseFilter(text, tbl.Iceberg().Schema(), true)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func deleteWhere(t *testing.T, tbl *Table, filter string, eq ...string) *DeleteResult {
	t.Helper()
	res, err := tbl.Delete(context.Background(), DeleteOptions{Filter: mustFilter(t, tbl, filter), EqualityColumns: eq})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func assertIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: ids %v, want %v", what, got, want)
	}
}

// On a v3 table Delete writes deletion vectors; a second delete on the same
// file writes one that holds both and removes the first, as v3 requires.
func TestDeleteDeletionVectors(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.dv", CreateOptions{Spec: mustSpec(t, idSchema)})
	appendJSON(t, tbl, idRows(0, 50, "eu")...)
	appendJSON(t, tbl, idRows(50, 50, "us")...)

	res := deleteWhere(t, tbl, "id = 7 or id = 60 or id = 61")
	if res.Rows != 3 || res.DataFiles != 2 || len(res.DeleteFiles) != 2 || len(res.Removed) != 0 || res.SnapshotID == 0 {
		t.Fatalf("first delete: %+v", res)
	}
	for _, f := range res.DeleteFiles {
		if !itable.IsDeletionVector(f) {
			t.Fatalf("%s is not a deletion vector", f.FilePath())
		}
	}
	want := idsWithout(0, 99, 7, 60, 61)
	assertIDs(t, "lab scan", scanIDs(t, tbl, ScanOptions{}), want)
	assertIDs(t, "iceberg-go scan", icebergGoIDs(t, tbl), want)

	res = deleteWhere(t, tbl, "id >= 8 and id < 10")
	if res.Rows != 2 || len(res.DeleteFiles) != 1 || len(res.Removed) != 1 {
		t.Fatalf("second delete: %+v", res)
	}
	want = idsWithout(0, 99, 7, 8, 9, 60, 61)
	assertIDs(t, "lab scan after a second delete", scanIDs(t, tbl, ScanOptions{}), want)
	assertIDs(t, "iceberg-go after a second delete", icebergGoIDs(t, tbl), want)
	files, err := tbl.Files(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string]int{}
	for _, f := range files {
		contents[f.Content]++
	}
	if len(files) != 4 || contents["data"] != 2 || contents["deletion-vector"] != 2 {
		t.Fatalf("live files after the second delete: %v (want 2 data files and one deletion vector each)", contents)
	}
	tasks := planTasks(t, tbl)
	for _, task := range tasks {
		if n := len(task.DeletionVectorFiles); n != 1 {
			t.Fatalf("%s has %d deletion vectors, want 1", task.File.FilePath(), n)
		}
	}

	// A filter and a projection on top of deletes: the scan widens its
	// read schema with _pos, then returns only what was asked.
	s, err := tbl.Scan(context.Background(), ScanOptions{Columns: []string{"v"}, Filter: mustFilter(t, tbl, "id < 12")})
	if err != nil {
		t.Fatal(err)
	}
	var vs []float64
	for rec, err := range s.Rows(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Len() != 1 {
			t.Fatalf("projected row has %d fields", rec.Len())
		}
		vs = append(vs, rec.Get(0).(float64))
	}
	slices.Sort(vs)
	if !slices.Equal(vs, []float64{0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 10.5, 11.5}) {
		t.Fatalf("projected, filtered scan after deletes: %v", vs)
	}

	// Rows appended after a delete are not deleted by it.
	appendJSON(t, tbl, `{"id":7,"region":"eu","v":0}`)
	assertIDs(t, "re-inserted id 7", scanIDs(t, tbl, ScanOptions{Filter: mustFilter(t, tbl, "id = 7")}), []int64{7})

	// A filter that matches nothing commits nothing.
	before := tbl.Iceberg().CurrentSnapshot().SnapshotID
	res = deleteWhere(t, tbl, "id > 1000")
	if res.Rows != 0 || res.SnapshotID != 0 || tbl.Iceberg().CurrentSnapshot().SnapshotID != before {
		t.Fatalf("empty delete committed: %+v", res)
	}
}

func planTasks(t *testing.T, tbl *Table) []itable.FileScanTask {
	t.Helper()
	tasks, err := tbl.Iceberg().Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// A v2 table gets Parquet position-delete files, one per partition.
func TestDeletePositionDeleteFiles(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.pos", CreateOptions{Spec: mustSpec(t, idSchema), Partition: "region",
		Properties: map[string]string{PropFormatVersion: "2"}})
	appendJSON(t, tbl, append(idRows(0, 30, "eu"), idRows(30, 30, "us")...)...)
	res := deleteWhere(t, tbl, "v > 25 and v < 35")
	if res.Rows != 10 || len(res.DeleteFiles) != 2 {
		t.Fatalf("delete: %+v", res)
	}
	for _, f := range res.DeleteFiles {
		if f.ContentType() != iceberg.EntryContentPosDeletes || itable.IsDeletionVector(f) || !strings.HasSuffix(f.FilePath(), ".parquet") {
			t.Fatalf("%s: content %v, want a Parquet position-delete file", f.FilePath(), f.ContentType())
		}
	}
	want := idsWithout(0, 59, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34)
	assertIDs(t, "lab scan", scanIDs(t, tbl, ScanOptions{}), want)
	assertIDs(t, "iceberg-go scan", icebergGoIDs(t, tbl), want)
	deleteWhere(t, tbl, "id = 0")
	want = want[1:]
	assertIDs(t, "lab scan after a second delete", scanIDs(t, tbl, ScanOptions{}), want)
	assertIDs(t, "iceberg-go after a second delete", icebergGoIDs(t, tbl), want)
}

// Equality deletes remove every row of the partition with a matched key
// that was committed before them, and nothing after.
func TestDeleteEquality(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.eq", CreateOptions{Spec: mustSpec(t, idSchema), Partition: "region"})
	appendJSON(t, tbl, append(idRows(0, 10, "eu"), idRows(0, 10, "us")...)...)
	appendJSON(t, tbl, `{"id":3,"region":"eu","v":100}`, `{"id":4,"region":"us","v":100}`)
	// Matches eu's id 3 in the first file only (v < 50), but the key
	// deletes the second file's eu id 3 too; us's 3 stays.
	res := deleteWhere(t, tbl, "region = 'eu' and id = 3 and v < 50", "id")
	if res.Rows != 1 || len(res.DeleteFiles) != 1 || res.DeleteFiles[0].ContentType() != iceberg.EntryContentEqDeletes {
		t.Fatalf("delete: %+v", res)
	}
	if ids := res.DeleteFiles[0].EqualityFieldIDs(); !slices.Equal(ids, []int{1}) {
		t.Fatalf("equality field ids %v", ids)
	}
	eu := scanIDs(t, tbl, ScanOptions{Filter: mustFilter(t, tbl, "region = 'eu'")})
	assertIDs(t, "eu", eu, idsWithout(0, 9, 3))
	us := scanIDs(t, tbl, ScanOptions{Filter: mustFilter(t, tbl, "region = 'us'")})
	assertIDs(t, "us", us, []int64{0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9})
	all := append(slices.Clone(eu), us...)
	slices.Sort(all)
	assertIDs(t, "iceberg-go", icebergGoIDs(t, tbl), all)

	appendJSON(t, tbl, `{"id":3,"region":"eu","v":1}`)
	assertIDs(t, "eu after re-insert", scanIDs(t, tbl, ScanOptions{Filter: mustFilter(t, tbl, "region = 'eu' and id = 3")}), []int64{3})

	// Two key columns, on an unpartitioned table; null keys match nulls.
	t2 := createTable(t, cat, "lab.eq2", CreateOptions{Spec: mustSpec(t, idSchema)})
	appendJSON(t, t2, `{"id":1,"region":null,"v":1}`, `{"id":1,"region":"x","v":2}`, `{"id":2,"region":null,"v":3}`, `{"id":1,"region":null,"v":4}`)
	res = deleteWhere(t, t2, "v = 1", "id", "region")
	if res.Rows != 1 {
		t.Fatalf("delete: %+v", res)
	}
	assertIDs(t, "two-column key", scanIDs(t, t2, ScanOptions{}), []int64{1, 2})
	assertIDs(t, "two-column key, iceberg-go", icebergGoIDs(t, t2), []int64{1, 2})
}

func TestDeleteErrors(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.bad", CreateOptions{Spec: mustSpec(t, multimodal)})
	appendJSON(t, tbl, multimodalRows...)
	for _, c := range []struct {
		name string
		o    DeleteOptions
		want string
	}{
		{"no filter", DeleteOptions{}, "a filter is required"},
		{"unknown equality column", DeleteOptions{Filter: iceberg.AlwaysTrue{}, EqualityColumns: []string{"nope"}}, `equality column "nope"`},
		{"struct equality column", DeleteOptions{Filter: iceberg.AlwaysTrue{}, EqualityColumns: []string{"img"}}, "primitive"},
		{"twice", DeleteOptions{Filter: iceberg.AlwaysTrue{}, EqualityColumns: []string{"id", "id"}}, "twice"},
	} {
		if _, err := tbl.Delete(ctx, c.o); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "lab.bad") {
			t.Errorf("%s: error %v, want one naming the table and %q", c.name, err, c.want)
		}
	}
	// The multimodal table's rows delete like any other.
	res, err := tbl.Delete(ctx, DeleteOptions{Filter: mustFilter(t, tbl, "region = 'eu'")})
	if err != nil || res.Rows != 2 {
		t.Fatalf("delete eu: %+v, %v", res, err)
	}
	got, _ := scanJSON(t, tbl, ScanOptions{})
	if len(got) != 1 || !strings.Contains(got[0], `"id":2`) {
		t.Fatalf("after delete: %v", got)
	}
}

// A delete on a table loaded before another writer's commit loses the race,
// rescans the refreshed table and lands; the other commit's rows survive.
func TestDeleteAfterConcurrentCommit(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.race", CreateOptions{Spec: mustSpec(t, idSchema)})
	appendJSON(t, tbl, idRows(0, 10, "eu")...)
	stale, err := cat.Load(ctx, tbl.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	appendJSON(t, tbl, idRows(10, 10, "eu")...)
	res, err := stale.Delete(ctx, DeleteOptions{Filter: mustFilter(t, stale, "id = 2 or id = 15")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 2 {
		t.Fatalf("delete on the refreshed table matched %d rows, want 2 (one in the other writer's file)", res.Rows)
	}
	if err := tbl.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	assertIDs(t, "after the race", scanIDs(t, tbl, ScanOptions{}), idsWithout(0, 19, 2, 15))
}

// Deleting every row reads no column at all, only _pos, and leaves an
// empty table that both readers agree on.
func TestDeleteAll(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.all", CreateOptions{Spec: mustSpec(t, multimodal)})
	appendJSON(t, tbl, multimodalRows...)
	res, err := tbl.Delete(ctx, DeleteOptions{Filter: iceberg.AlwaysTrue{}})
	if err != nil || res.Rows != 3 {
		t.Fatalf("delete all: %+v, %v", res, err)
	}
	if got, _ := scanJSON(t, tbl, ScanOptions{}); len(got) != 0 {
		t.Fatalf("after deleting all: %v", got)
	}
	if ids := icebergGoIDs(t, tbl); len(ids) != 0 {
		t.Fatalf("iceberg-go after deleting all: %v", ids)
	}
}

// A position-delete file of another writer with a negative pos fails the
// scan, naming the delete file, the delete and the rule: the registry's
// position-delete model refuses it on read (registry.PositionDeleteModel),
// and the scan does not check again.
func TestScanRefusesNegativePositionDelete(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.negpos", CreateOptions{Spec: mustSpec(t, idSchema),
		Properties: map[string]string{PropFormatVersion: "2"}})
	appendJSON(t, tbl, idRows(0, 10, "eu")...)
	res := deleteWhere(t, tbl, "id = 3")
	if len(res.DeleteFiles) != 1 || res.DeleteFiles[0].ContentType() != iceberg.EntryContentPosDeletes {
		t.Fatalf("delete: %+v, want one position-delete file", res)
	}
	// Replace the lab's delete file by one written as plain records of the
	// delete schema, as a writer without the spec's checks would.
	loc := res.DeleteFiles[0].FilePath()
	dataFile := planTasks(t, tbl)[0].File.FilePath()
	sc := data.PositionDeleteSchema()
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(loc))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data.Of(sc, dataFile, int64(-1))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := tbl.Scan(ctx, ScanOptions{})
	if err == nil {
		for _, err = range s.Rows(ctx) {
			if err != nil {
				break
			}
		}
	}
	if err == nil {
		t.Fatal("the scan applied a delete at pos -1")
	}
	for _, want := range []string{loc, "pos -1 is negative", "0-based row position"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("scan: %v, want it to say %q", err, want)
		}
	}
}
