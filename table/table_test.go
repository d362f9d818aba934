package table

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

const multimodal = "id:long!,img:file,emb:vector<float32,4>,doc:variant,region:string"

var multimodalRows = []string{
	`{"id":1,"img":{"uri":"file:///img/a.png","offset":null,"size":3,"content_type":"image/png","checksum":null,"inline":null},"emb":[1,2,3,4],"doc":{"a":1,"b":[true,null]},"region":"eu"}`,
	`{"id":2,"img":null,"emb":[0.5,-1,"NaN",8],"doc":[1,"x"],"region":"us"}`,
	`{"id":3,"img":{"uri":null,"offset":null,"size":null,"content_type":"text/plain","checksum":null,"inline":"0102"},"emb":null,"doc":null,"region":"eu"}`,
}

func openTestCatalog(t testing.TB) (*Catalog, string) {
	t.Helper()
	wh := t.TempDir()
	cat, err := OpenCatalog(context.Background(), map[string]string{PropWarehouse: wh}, CreateIfMissing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat, wh
}

func mustSpec(t testing.TB, s string) *schemaspec.Spec {
	t.Helper()
	spec, err := schemaspec.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func createTable(t testing.TB, cat *Catalog, name string, o CreateOptions) *Table {
	t.Helper()
	id, err := ParseIdentifier(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.Create(context.Background(), id, o)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// jsonRows is a RowSource of JSON Lines in the table's schema.
func jsonRows(t testing.TB, tbl *Table, lines ...string) RowSource {
	t.Helper()
	spec, err := tbl.Spec()
	if err != nil {
		t.Fatal(err)
	}
	codec, err := jsonrow.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return func(write func(*data.Record) error) error {
		for _, l := range lines {
			rec, err := codec.DecodeJSON([]byte(l))
			if err != nil {
				return err
			}
			if err := write(rec); err != nil {
				return err
			}
		}
		return nil
	}
}

func appendJSON(t testing.TB, tbl *Table, lines ...string) *Commit {
	t.Helper()
	c, err := tbl.AppendRows(context.Background(), jsonRows(t, tbl, lines...))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// scanJSON scans and returns the rows as JSON Lines, sorted, with the
// number of planned tasks.
func scanJSON(t testing.TB, tbl *Table, o ScanOptions) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	s, err := tbl.Scan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := jsonrow.New(s.Spec)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range s.Rows(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := codec.AppendJSON(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out, len(s.Tasks)
}

// writeParquet writes rows outside any table, as another job would, with
// writer properties props (the spec's declarations are added).
func writeParquet(t testing.TB, path string, spec *schemaspec.Spec, props map[string]string, lines ...string) {
	t.Helper()
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(spec.Schema).SetAll(spec.Properties()).SetAll(props).Build()
	if err != nil {
		t.Fatal(err)
	}
	codec, err := jsonrow.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		rec, err := codec.DecodeJSON([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	spec := mustSpec(t, multimodal)
	tbl := createTable(t, cat, "lab.mm", CreateOptions{Spec: spec})
	if v := tbl.FormatVersion(); v != 3 {
		t.Fatalf("format version %d, want 3", v)
	}
	props := tbl.Iceberg().Properties()
	for k, want := range map[string]string{
		PropFileColumns: "img", PropVectorColumns: "emb:vector<float32,4>",
		"write.metadata.metrics.column.emb": "counts",
	} {
		if props[k] != want {
			t.Errorf("property %s = %q, want %q", k, props[k], want)
		}
	}
	// The lab types map to the Iceberg types engines compute on.
	for name, want := range map[string]string{"emb": "fixed[16]", "doc": "variant", "img": "struct<"} {
		f, _ := tbl.Iceberg().Schema().FindFieldByName(name)
		if !strings.HasPrefix(f.Type.String(), want) {
			t.Errorf("column %s is %s, want %s", name, f.Type, want)
		}
	}

	c1 := appendJSON(t, tbl, multimodalRows[:2]...)
	if len(c1.Files) != 1 || c1.Records != 2 || c1.SnapshotID == 0 {
		t.Fatalf("first append: %+v", c1)
	}
	df := c1.Files[0]
	if !strings.HasPrefix(df.FilePath(), tbl.Location()+"/data/") || !strings.HasSuffix(df.FilePath(), ".parquet") {
		t.Errorf("data file %s is not under %s/data", df.FilePath(), tbl.Location())
	}
	if df.FirstRowID() == nil || *df.FirstRowID() != 0 {
		t.Errorf("first_row_id %v, want 0", df.FirstRowID())
	}
	// Vector columns keep counts, never bounds.
	embID := 9
	if _, ok := df.LowerBoundValues()[embID]; ok {
		t.Errorf("emb has a lower bound in the DataFile; counts mode keeps none")
	}
	if df.ValueCounts()[embID] != 2 {
		t.Errorf("emb value count %d, want 2", df.ValueCounts()[embID])
	}
	// Footer annotations are off: the types are only in the key/value mirror.
	loc := strings.TrimPrefix(df.FilePath(), "file://")
	anns, err := parquet.FileAnnotations(registry.LocalInput(loc))
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 2 {
		t.Fatalf("annotations %+v, want FILE and VECTOR in the mirror", anns)
	}
	for _, a := range anns {
		if a.InFooter || !a.InKeyValue {
			t.Errorf("annotation %s on %v: in footer %v, in mirror %v; want the mirror only", a.Kind, a.Path, a.InFooter, a.InKeyValue)
		}
	}

	// An existing file, written by another job, committed as it is.
	other := filepath.Join(t.TempDir(), "other.parquet")
	writeParquet(t, other, spec, map[string]string{PropFooterAnnotations: "false"}, multimodalRows[2])
	c2, err := tbl.AppendFiles(ctx, []string{"file://" + other}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := *c2.Files[0].FirstRowID(); got != 2 {
		t.Errorf("second append's first_row_id %d, want 2", got)
	}

	got, tasks := scanJSON(t, tbl, ScanOptions{})
	if tasks != 2 {
		t.Errorf("%d tasks, want 2", tasks)
	}
	if !slices.Equal(got, multimodalRows) {
		t.Errorf("scan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(multimodalRows, "\n"))
	}

	// Time travel to the first snapshot.
	got, _ = scanJSON(t, tbl, ScanOptions{SnapshotID: c1.SnapshotID})
	if !slices.Equal(got, multimodalRows[:2]) {
		t.Errorf("snapshot %d:\n%s", c1.SnapshotID, strings.Join(got, "\n"))
	}

	// Projection and a filter on a column the projection leaves out.
	f, err := ParseFilter("region = 'eu' and id >= 2", tbl.Iceberg().Schema(), true)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = scanJSON(t, tbl, ScanOptions{Columns: []string{"id", "img.content_type"}, Filter: f})
	if want := []string{`{"id":3,"img":{"content_type":"text/plain"}}`}; !slices.Equal(got, want) {
		t.Errorf("projected, filtered scan: %v, want %v", got, want)
	}

	got, _ = scanJSON(t, tbl, ScanOptions{Limit: 2})
	if len(got) != 2 {
		t.Errorf("limit 2 gave %d rows", len(got))
	}

	d, err := tbl.Describe()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Snapshots) != 2 || d.NextRowID != 3 || d.FooterAnnotations {
		t.Errorf("describe: %d snapshots, next row id %d, footer annotations %v", len(d.Snapshots), d.NextRowID, d.FooterAnnotations)
	}
	files, err := tbl.Files(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d files, want 2", len(files))
	}
}

// TestIcebergGoScan is item 3's point: iceberg-go's own scan (arrow-go
// underneath) reads the table the lab wrote, VECTOR, FILE and VARIANT
// columns included, without panicking.
func TestIcebergGoScan(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.mm", CreateOptions{Spec: mustSpec(t, multimodal), Partition: "region"})
	appendJSON(t, tbl, multimodalRows...)
	at, err := tbl.Iceberg().Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	if at.NumRows() != 3 {
		t.Fatalf("iceberg-go read %d rows, want 3", at.NumRows())
	}
	var ids []int64
	var embs [][]byte
	tr := array.NewTableReader(at, 0)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		idc := rec.Column(0).(*array.Int64)
		ec := rec.Column(2).(*array.FixedSizeBinary)
		for i := range idc.Len() {
			ids = append(ids, idc.Value(i))
			if ec.IsNull(i) {
				embs = append(embs, nil)
			} else {
				embs = append(embs, slices.Clone(ec.Value(i)))
			}
		}
	}
	for i, id := range ids {
		if id == 1 && len(embs[i]) != 16 {
			t.Errorf("row 1: emb is %d bytes in iceberg-go, want 16", len(embs[i]))
		}
		if id == 3 && embs[i] != nil {
			t.Errorf("row 3: emb %x, want null", embs[i])
		}
	}
	if len(ids) != 3 {
		t.Errorf("ids %v", ids)
	}
}

// TestFooterAnnotationsBreakIcebergGo is the evidence for keeping the
// annotations out of the footer: with the table opted in, iceberg-go's scan
// dies in a goroutine nobody can recover, so it runs in a child process.
func TestFooterAnnotationsBreakIcebergGo(t *testing.T) {
	if os.Getenv("LAB_TABLE_ANNOTATED_SCAN") == "1" {
		ctx := context.Background()
		cat, _ := openTestCatalog(t)
		tbl := createTable(t, cat, "lab.annotated", CreateOptions{Spec: mustSpec(t, multimodal),
			Properties: map[string]string{PropFooterAnnotations: "true"}})
		appendJSON(t, tbl, multimodalRows...)
		// The lab reads its own annotated files.
		if got, _ := scanJSON(t, tbl, ScanOptions{}); len(got) != 3 {
			t.Fatalf("lab scan: %d rows", len(got))
		}
		at, err := tbl.Iceberg().Scan().ToArrowTable(ctx)
		if err == nil {
			at.Release()
			os.Exit(0) // iceberg-go read it: the reason for the default is gone
		}
		os.Exit(3)
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFooterAnnotationsBreakIcebergGo$")
	cmd.Env = append(os.Environ(), "LAB_TABLE_ANNOTATED_SCAN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("iceberg-go read a table with FILE and VECTOR in its footers (err %v); footer annotations could default on:\n%s", err, out)
	}
	if !strings.Contains(string(out), "panic") {
		t.Fatalf("child exited %d without a panic:\n%s", exit.ExitCode(), out)
	}
	first, _, _ := strings.Cut(string(out[strings.Index(string(out), "panic"):]), "\n")
	t.Logf("iceberg-go on annotated files: %s", first)
}

func TestPartitionPruning(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.p", CreateOptions{Spec: mustSpec(t, "id:long!,region:string,emb:vector<float32,2>"), Partition: "region, bucket(4, id)"})
	var rows []string
	for i, r := range []string{"eu", "us", "ap", "eu", "us", "ap", "eu", "us"} {
		rows = append(rows, `{"id":`+strconv.Itoa(i)+`,"region":"`+r+`","emb":[1,2]}`)
	}
	c := appendJSON(t, tbl, rows...)
	if len(c.Files) < 3 {
		t.Fatalf("%d files for 3 regions", len(c.Files))
	}
	for _, df := range c.Files {
		if !strings.Contains(df.FilePath(), "/data/region=") || !strings.Contains(df.FilePath(), "/id_bucket=") {
			t.Errorf("data file %s is not under its partition directory", df.FilePath())
		}
	}
	f, _ := ParseFilter("region = 'eu'", tbl.Iceberg().Schema(), true)
	got, tasks := scanJSON(t, tbl, ScanOptions{Filter: f, Columns: []string{"id"}})
	if want := []string{`{"id":0}`, `{"id":3}`, `{"id":6}`}; !slices.Equal(got, want) {
		t.Errorf("region = 'eu': %v, want %v", got, want)
	}
	euFiles := 0
	for _, df := range c.Files {
		if df.Partition()[1000] == "eu" {
			euFiles++
		}
	}
	if tasks != euFiles {
		t.Errorf("planned %d tasks, the eu partition has %d files", tasks, euFiles)
	}

	// Metrics pruning on an unpartitioned table: two files, disjoint ids.
	u := createTable(t, cat, "lab.u", CreateOptions{Spec: mustSpec(t, "id:long!")})
	appendJSON(t, u, `{"id":1}`, `{"id":2}`)
	appendJSON(t, u, `{"id":11}`, `{"id":12}`)
	f, _ = ParseFilter("id > 10", u.Iceberg().Schema(), true)
	got, tasks = scanJSON(t, u, ScanOptions{Filter: f})
	if tasks != 1 || !slices.Equal(got, []string{`{"id":11}`, `{"id":12}`}) {
		t.Errorf("id > 10: %d tasks, rows %v", tasks, got)
	}
}

func TestParseFilter(t *testing.T) {
	schema := mustSpec(t, "id:long!,name:string,d:date,x:double,img:file").Schema
	for _, tc := range []struct{ in, want, err string }{
		{in: "id = 3", want: "Equal"},
		{in: "id >= 3 and name != 'a''b' or not (x < 1.5)", want: "Or"},
		{in: "d = '2024-05-01'", want: "Equal"},
		{in: "name is not null", want: "NotNull"},
		{in: "id in (1, 2, 3)", want: "In"},
		{in: "id not in (1, 2)", want: "NotIn"},
		{in: "name starts_with 'ab'", want: "StartsWith"},
		{in: "img.size > 10", want: "Greater"},
		{in: `{"type":"lt","term":"id","value":5}`, want: "Less"},
		{in: "id = 'x'", err: `column id is long`},
		{in: "nope = 1", err: `no column "nope"`},
		{in: "id =", err: "want a literal"},
		{in: "id = 1 and", err: "want a column"},
		{in: "(id = 1", err: "want )"},
		{in: "id ! 1", err: "'!' must be '!='"},
		{in: "name = abc", err: "quote strings"},
		{in: "img = 1", err: "filters compare primitive columns"},
	} {
		e, err := ParseFilter(tc.in, schema, true)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !strings.Contains(e.String(), tc.want) {
			t.Errorf("%q parsed to %s, want %s", tc.in, e, tc.want)
		}
	}
}

func TestParsePartitionSpec(t *testing.T) {
	schema := mustSpec(t, "id:long!,s:string,ts:timestamp,doc:variant").Schema
	for _, tc := range []struct{ in, want, err string }{
		{in: "", want: "[]"},
		{in: "s", want: "s: identity"},
		{in: "bucket(16, id), day(ts)", want: "id_bucket: bucket[16]"},
		{in: "truncate[4](s)", want: "s_trunc: truncate[4]"},
		{in: "hour(ts)", want: "ts_hour: hour"},
		{in: "frob(id)", err: "unknown transform"},
		{in: "bucket(x, id)", err: "positive integer"},
		{in: "day(s)", err: "cannot transform"},
		{in: "nope", err: `no column "nope"`},
		{in: "doc", err: "variant"},
		{in: "bucket(16, id", err: "unclosed"},
	} {
		spec, err := ParsePartitionSpec(tc.in, schema)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !strings.Contains(spec.String(), tc.want) {
			t.Errorf("%q: %s, want %s", tc.in, spec.String(), tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("missing catalog", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "nowhere")
		_, err := OpenCatalog(ctx, map[string]string{PropWarehouse: dir})
		if !errors.Is(err, ErrNoCatalog) || !strings.Contains(err.Error(), filepath.Join(dir, "catalog.db")) {
			t.Errorf("error %v, want ErrNoCatalog naming the database", err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("opening a missing catalog left %s behind", dir)
		}
		_, err = OpenCatalog(ctx, map[string]string{PropType: "nessie"})
		if err == nil || !strings.Contains(err.Error(), "nessie") || !strings.Contains(err.Error(), "rest") {
			t.Errorf("unknown type: %v", err)
		}
	})
	cat, _ := openTestCatalog(t)
	t.Run("table not found", func(t *testing.T) {
		for _, name := range []string{"lab.nope", "nons.nope"} {
			id, _ := ParseIdentifier(name)
			_, err := cat.Load(ctx, id)
			if !errors.Is(err, ErrNoSuchTable) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: %v", name, err)
			}
			if err := cat.Drop(ctx, id, false); !errors.Is(err, ErrNoSuchTable) {
				t.Errorf("drop %s: %v", name, err)
			}
		}
		if _, err := ParseIdentifier("plain"); err == nil {
			t.Error("a name without namespace parsed")
		}
	})
	t.Run("variant on v2", func(t *testing.T) {
		id, _ := ParseIdentifier("lab.v2")
		_, err := cat.Create(ctx, id, CreateOptions{Spec: mustSpec(t, multimodal), Properties: map[string]string{PropFormatVersion: "2"}})
		if err == nil || !strings.Contains(err.Error(), `column "doc" is variant, which needs format-version 3`) || !strings.Contains(err.Error(), "lab.v2") {
			t.Errorf("error %v", err)
		}
		// FILE and VECTOR need no v3.
		if _, err := cat.Create(ctx, id, CreateOptions{Spec: mustSpec(t, "id:long,emb:vector<float32,2>,img:file"), Properties: map[string]string{PropFormatVersion: "2"}}); err != nil {
			t.Errorf("v2 with FILE and VECTOR: %v", err)
		}
	})
	tbl := createTable(t, cat, "lab.e", CreateOptions{Spec: mustSpec(t, multimodal)})
	t.Run("file schema mismatch", func(t *testing.T) {
		for _, tc := range []struct{ schema, err string }{
			{"id:long!,img:file,emb:vector<float32,8>", `column "emb" is fixed[32] in the file and fixed[16] in the table`},
			{"id:int!", `column "id" is int in the file`}, // int promotes to long ... but required columns
			{"id:long", `optional in the file and required`},
			{"id:long!,img:file,emb:vector<float32,4>,doc:variant,region:string,extra:int", `column "extra" (field id 12) is not in the table`},
			{"key:long!", `field id 1 is column "key" in the file and "id" in the table`},
		} {
			path := filepath.Join(t.TempDir(), "f.parquet")
			writeParquet(t, path, mustSpec(t, tc.schema), map[string]string{PropFooterAnnotations: "false"})
			_, err := tbl.AppendFiles(ctx, []string{"file://" + path}, nil)
			if tc.schema == "id:int!" {
				if err != nil {
					t.Errorf("int file for a long column: %v (Iceberg promotes int to long)", err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: error %v, want %q naming the file", tc.schema, err, tc.err)
			}
		}
	})
	t.Run("annotated file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "annotated.parquet")
		writeParquet(t, path, mustSpec(t, multimodal), nil, multimodalRows[0]) // lab write's default: annotated footer
		anns, _ := parquet.FileAnnotations(registry.LocalInput(path))
		if !slices.ContainsFunc(anns, func(a footer.Annotation) bool { return a.InFooter }) {
			t.Fatal("lab write's default left no annotation in the footer")
		}
		_, err := tbl.AppendFiles(ctx, []string{"file://" + path}, nil)
		if err == nil || !strings.Contains(err.Error(), "crash") || !strings.Contains(err.Error(), PropFooterAnnotations) {
			t.Errorf("error %v", err)
		}
	})
	t.Run("missing data file", func(t *testing.T) {
		gone := filepath.Join(t.TempDir(), "gone.parquet")
		_, err := tbl.AppendFiles(ctx, []string{"file://" + gone}, nil)
		if err == nil || !strings.Contains(err.Error(), gone+" is missing from storage") {
			t.Errorf("append: %v", err)
		}
		c := appendJSON(t, tbl, multimodalRows...)
		if err := os.Remove(strings.TrimPrefix(c.Files[0].FilePath(), "file://")); err != nil {
			t.Fatal(err)
		}
		s, err := tbl.Scan(ctx, ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var scanErr error
		for _, err := range s.Rows(ctx) {
			if err != nil {
				scanErr = err
			}
		}
		if scanErr == nil || !strings.Contains(scanErr.Error(), c.Files[0].FilePath()+" is missing from storage") ||
			!strings.Contains(scanErr.Error(), "snapshot "+strconv.FormatInt(c.SnapshotID, 10)) {
			t.Errorf("scan: %v", scanErr)
		}
		// CommitFiles refuses a DataFile whose file is not there.
		dfs, err := tbl.WriteRows(ctx, jsonRows(t, tbl, multimodalRows[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(strings.TrimPrefix(dfs[0].FilePath(), "file://")); err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.CommitFiles(ctx, dfs, CommitOptions{}); err == nil || !strings.Contains(err.Error(), dfs[0].FilePath()+" is missing from storage") {
			t.Errorf("commit of a missing file: %v", err)
		}
	})
	t.Run("unknown snapshot", func(t *testing.T) {
		_, err := tbl.Scan(ctx, ScanOptions{SnapshotID: 42})
		if err == nil || !strings.Contains(err.Error(), "lab.e has no snapshot 42") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("bad row", func(t *testing.T) {
		before := countFiles(t, tbl)
		_, err := tbl.AppendRows(ctx, jsonRows(t, tbl, multimodalRows[0], `{"id":"x"}`))
		if err == nil {
			t.Fatal("a bad row appended")
		}
		if after := countFiles(t, tbl); after != before {
			t.Errorf("a failed append left %d files behind", after-before)
		}
	})
}

func countFiles(t *testing.T, tbl *Table) int {
	n := 0
	_ = filepath.Walk(strings.TrimPrefix(tbl.Location(), "file://")+"/data", func(_ string, info os.FileInfo, _ error) error {
		if info != nil && !info.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestConcurrentAppends races appends from separate table handles, as
// separate processes would: every append lands, and row ids do not overlap.
func TestConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	createTable(t, cat, "lab.race", CreateOptions{Spec: mustSpec(t, "id:long!")})
	const writers, appends = 3, 3
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			id, _ := ParseIdentifier("lab.race")
			tbl, err := cat.Load(ctx, id)
			if err != nil {
				errs <- err
				return
			}
			for a := range appends {
				row := `{"id":` + strconv.Itoa(w*100+a) + `}`
				if _, err := tbl.AppendRows(ctx, jsonRows(t, tbl, row, row)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	id, _ := ParseIdentifier("lab.race")
	tbl, err := cat.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := scanJSON(t, tbl, ScanOptions{})
	if len(got) != writers*appends*2 {
		t.Errorf("%d rows after %d appends of 2", len(got), writers*appends)
	}
	files, err := tbl.Files(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, f := range files {
		for r := *f.FirstRowID; r < *f.FirstRowID+f.Records; r++ {
			if seen[r] {
				t.Errorf("row id %d is in two files", r)
			}
			seen[r] = true
		}
	}
	if next := tbl.Iceberg().Metadata().NextRowID(); next != int64(len(seen)) {
		t.Errorf("next-row-id %d, %d row ids assigned", next, len(seen))
	}
}

// TestAppendOneSnapshot: rows and an existing file land in one snapshot; the
// same file twice is refused by iceberg-go's duplicate check, which stays on
// for files the lab did not just write.
func TestAppendOneSnapshot(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	spec := mustSpec(t, multimodal)
	tbl := createTable(t, cat, "lab.one", CreateOptions{Spec: spec})
	other := filepath.Join(t.TempDir(), "other.parquet")
	writeParquet(t, other, spec, map[string]string{PropFooterAnnotations: "false"}, multimodalRows[2])
	c, err := tbl.Append(ctx, jsonRows(t, tbl, multimodalRows[:2]...), []string{"file://" + other}, map[string]string{"lab.source": "test"})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tbl.Describe()
	if len(d.Snapshots) != 1 || c.Records != 3 || len(c.Files) != 2 {
		t.Fatalf("%d snapshots, %d records, %d files", len(d.Snapshots), c.Records, len(c.Files))
	}
	if s := d.Snapshots[0].Summary; s["added-records"] != "3" || s["lab.source"] != "test" {
		t.Errorf("snapshot summary %v", s)
	}
	_, err = tbl.AppendFiles(ctx, []string{"file://" + other}, nil)
	if err == nil || !strings.Contains(err.Error(), "already referenced") {
		t.Errorf("the same file twice: %v", err)
	}
	if c, err := tbl.AppendRows(ctx, jsonRows(t, tbl)); err != nil || c.SnapshotID != 0 {
		t.Errorf("no rows: %+v, %v", c, err)
	}
}
