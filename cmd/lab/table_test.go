package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const icebergSchema = "id:long!,region:string,emb:vector<float32,3>,doc:variant,img:file"

var icebergRows = []string{
	`{"id":1,"region":"eu","emb":[1,2,3],"doc":{"a":[1,"x"]},"img":{"uri":"file:///img/a.png","offset":null,"size":3,"content_type":"image/png","checksum":null,"inline":null}}`,
	`{"id":2,"region":"us","emb":[-1,0.5,"NaN"],"doc":"just text","img":null}`,
	`{"id":3,"region":"eu","emb":null,"doc":null,"img":null}`,
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	slices.Sort(lines)
	return lines
}

func TestTableCLI(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	lab := func(args ...string) (string, string, int) { return run(t, bin, dir, args...) }
	must := func(args ...string) string {
		t.Helper()
		out, errOut, code := lab(args...)
		if code != 0 {
			t.Fatalf("lab %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.jsonl"), []byte(strings.Join(icebergRows[:2], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Before any table: no catalog, and nothing is left behind.
	if _, errOut, code := lab("table", "list"); code != 1 || !strings.Contains(errOut, "no catalog") {
		t.Errorf("list without a catalog: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "warehouse")); !os.IsNotExist(err) {
		t.Errorf("lab table list made ./warehouse")
	}

	out := must("table", "create", "lab.docs", "--schema", icebergSchema, "--partition", "region")
	if !strings.Contains(out, "created lab.docs: format-version 3") || !strings.Contains(out, filepath.Join("warehouse", "catalog.db")) {
		t.Errorf("create: %s", out)
	}
	out = must("table", "append", "lab.docs", "--input", "rows.jsonl", "--json")
	var c struct {
		SnapshotID int64 `json:"snapshot_id"`
		Records    int64 `json:"records"`
		Files      []struct {
			Path       string `json:"path"`
			FirstRowID *int64 `json:"first_row_id"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("append --json: %v\n%s", err, out)
	}
	if c.Records != 2 || len(c.Files) != 2 || c.SnapshotID == 0 {
		t.Fatalf("append: %s", out)
	}
	first := c.SnapshotID

	// An existing file written for a table (footer annotations off), from stdin rows.
	if _, errOut, code := runWith(t, bin, dir, nil, icebergRows[2]+"\n", "write", "--schema", icebergSchema,
		"--check-references=false", "--property", "write.parquet.footer-annotations=false", "other.parquet"); code != 0 {
		t.Fatalf("lab write: %s", errOut)
	}
	must("table", "append", "lab.docs", "other.parquet")

	if got := sortedLines(must("table", "scan", "lab.docs")); !slices.Equal(got, sortedLines(strings.Join(icebergRows, "\n"))) {
		t.Errorf("scan:\n%s", strings.Join(got, "\n"))
	}
	if got := sortedLines(must("table", "scan", "lab.docs", "--snapshot", strconv.FormatInt(first, 10))); len(got) != 2 {
		t.Errorf("scan --snapshot %d: %d rows", first, len(got))
	}
	got := sortedLines(must("table", "scan", "lab.docs", "--columns", "id,img.uri", "--filter", "region = 'eu' and id < 3"))
	if want := []string{`{"id":1,"img":{"uri":"file:///img/a.png"}}`}; !slices.Equal(got, want) {
		t.Errorf("scan --columns --filter: %v", got)
	}
	if got := sortedLines(must("table", "scan", "lab.docs", "--limit", "1")); len(got) != 1 {
		t.Errorf("scan --limit 1: %d rows", len(got))
	}
	// What a scan prints, lab write takes: the round trip closes.
	scanned := must("table", "scan", "lab.docs")
	if _, errOut, code := runWith(t, bin, dir, nil, scanned, "write", "--schema", icebergSchema, "--check-references=false", "copy.parquet"); code != 0 {
		t.Errorf("scan | write: %s", errOut)
	}

	var d struct {
		FormatVersion     int               `json:"format_version"`
		VectorColumns     []string          `json:"vector_columns"`
		FileColumns       []string          `json:"file_columns"`
		FooterAnnotations bool              `json:"footer_annotations"`
		Properties        map[string]string `json:"properties"`
		Snapshots         []struct {
			ID int64 `json:"id"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(must("table", "describe", "lab.docs", "--json")), &d); err != nil {
		t.Fatal(err)
	}
	if d.FormatVersion != 3 || len(d.Snapshots) != 2 || d.FooterAnnotations ||
		!slices.Equal(d.VectorColumns, []string{"emb:vector<float32,3>"}) || !slices.Equal(d.FileColumns, []string{"img"}) ||
		d.Properties["write.metadata.metrics.column.emb"] != "counts" {
		t.Errorf("describe: %+v", d)
	}
	if out := must("table", "describe", "lab.docs"); !strings.Contains(out, "vector<float32,3>: fixed[12]") {
		t.Errorf("describe:\n%s", out)
	}
	var files []struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		Records int64  `json:"record_count"`
	}
	if err := json.Unmarshal([]byte(must("table", "files", "lab.docs", "--json")), &files); err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Errorf("files: %+v", files)
	}
	// Vector search over the table's files: row 1's own vector ranks first,
	// row 2's NaN element ranks it last, row 3's null vector is no candidate.
	var sr struct {
		Files   int `json:"files"`
		Results [][]struct {
			File  string          `json:"file"`
			Score float64         `json:"score"`
			Row   json.RawMessage `json:"row"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(must("table", "search", "lab.docs", "--query", "[1,2,3]", "--k", "5", "--columns", "id", "--json")), &sr); err != nil {
		t.Fatal(err)
	}
	compact := func(b json.RawMessage) string {
		var buf bytes.Buffer
		_ = json.Compact(&buf, b)
		return buf.String()
	}
	if sr.Files != 3 || len(sr.Results) != 1 || len(sr.Results[0]) != 2 || compact(sr.Results[0][0].Row) != `{"id":1}` ||
		compact(sr.Results[0][1].Row) != `{"id":2}` || sr.Results[0][0].Score < 0.9999 {
		t.Errorf("search: %+v", sr)
	}
	if _, errOut, code := lab("table", "search", "lab.docs", "--query", "[1,2]"); code != 1 || !strings.Contains(errOut, "dimension 3") {
		t.Errorf("search with a 2-dim query: exit %d, %s", code, errOut)
	}

	// Deletes: a deletion vector (v3), applied by the scan; then equality.
	if _, errOut, code := lab("table", "delete", "lab.docs"); code != 2 || !strings.Contains(errOut, "--filter") {
		t.Errorf("delete without --filter: exit %d, %s", code, errOut)
	}
	var del struct {
		Rows        int64 `json:"rows"`
		DeleteFiles []struct {
			Content string `json:"content"`
		} `json:"delete_files"`
	}
	if err := json.Unmarshal([]byte(must("table", "delete", "lab.docs", "--filter", "id = 1", "--json")), &del); err != nil {
		t.Fatal(err)
	}
	if del.Rows != 1 || len(del.DeleteFiles) != 1 || del.DeleteFiles[0].Content != "deletion-vector" {
		t.Errorf("delete: %+v", del)
	}
	if got := sortedLines(must("table", "scan", "lab.docs")); !slices.Equal(got, sortedLines(strings.Join(icebergRows[1:], "\n"))) {
		t.Errorf("scan after delete:\n%s", strings.Join(got, "\n"))
	}
	if out := must("table", "delete", "lab.docs", "--filter", "region = 'us'", "--equality", "id"); !strings.Contains(out, "deleted 1 rows") || !strings.Contains(out, "equality-deletes") {
		t.Errorf("delete --equality: %s", out)
	}
	if got := sortedLines(must("table", "scan", "lab.docs")); !slices.Equal(got, icebergRows[2:]) {
		t.Errorf("scan after equality delete:\n%s", strings.Join(got, "\n"))
	}
	if out := must("table", "delete", "lab.docs", "--filter", "id = 99"); !strings.Contains(out, "nothing committed") {
		t.Errorf("delete of nothing: %s", out)
	}
	if out := must("table", "list"); strings.TrimSpace(out) != "lab.docs" {
		t.Errorf("list: %q", out)
	}
	must("table", "drop", "lab.docs")
	if _, errOut, code := lab("table", "scan", "lab.docs"); code != 1 || !strings.Contains(errOut, "table lab.docs") || !strings.Contains(errOut, "does not exist") {
		t.Errorf("scan after drop: exit %d, %s", code, errOut)
	}
}

func TestTableCLIErrors(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	lab := func(args ...string) (string, string, int) { return run(t, bin, dir, args...) }
	if _, errOut, code := lab("table", "create", "lab.t", "--schema", icebergSchema); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := runWith(t, bin, dir, nil, icebergRows[0]+"\n", "write", "--schema", icebergSchema, "--check-references=false", "annotated.parquet"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := runWith(t, bin, dir, nil, `{"id":1}`+"\n", "write", "--schema", "id:long!,region:string,emb:vector<float32,4>",
		"--property", "write.parquet.footer-annotations=false", "wrong.parquet"); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		want  []string
	}{
		{args: []string{"table", "scan", "lab.nope"}, code: 1, want: []string{"table lab.nope", "does not exist", "catalog.db"}},
		{args: []string{"table", "describe", "plain"}, code: 2, want: []string{"want NAMESPACE.NAME"}},
		{args: []string{"table", "create", "lab.v2", "--schema", icebergSchema, "--property", "format-version=2"}, code: 1,
			want: []string{"lab.v2", `column "doc" is variant, which needs format-version 3`}},
		{args: []string{"table", "create", "lab.t", "--schema", icebergSchema}, code: 1, want: []string{"lab.t", "already exists"}},
		{args: []string{"table", "create", "lab.p", "--schema", icebergSchema, "--partition", "day(region)"}, code: 2, want: []string{"--partition", "cannot transform"}},
		{args: []string{"table", "create", "lab.s"}, code: 2, want: []string{"--schema is required"}},
		{args: []string{"table", "append", "lab.t", "annotated.parquet"}, code: 1, want: []string{"annotated.parquet", "crash", "write.parquet.footer-annotations"}},
		{args: []string{"table", "append", "lab.t", "wrong.parquet"}, code: 1, want: []string{"wrong.parquet", "does not match the schema of table lab.t", `"emb" is fixed[16] in the file and fixed[12]`}},
		{args: []string{"table", "append", "lab.t", "gone.parquet"}, code: 1, want: []string{"gone.parquet is missing from storage"}},
		{args: []string{"table", "append", "lab.t"}, stdin: `{"id":"x"}` + "\n", code: 1, want: []string{"stdin:1", `column "id"`}},
		{args: []string{"table", "scan", "lab.t", "--filter", "id >"}, code: 2, want: []string{"--filter", "want a literal"}},
		{args: []string{"table", "scan", "lab.t", "--columns", "nope"}, code: 2, want: []string{"--columns", "nope"}},
		{args: []string{"table", "scan", "lab.t", "--snapshot", "42"}, code: 1, want: []string{"lab.t has no snapshot 42"}},
		{args: []string{"table", "list", "--catalog", "type=nessie"}, code: 1, want: []string{"nessie", "not registered"}},
		{args: []string{"table", "list", "--catalog", "junk"}, code: 2, want: []string{"--catalog", "key=value"}},
	} {
		_, errOut, code := runWith(t, bin, dir, nil, tc.stdin, tc.args...)
		if code != tc.code {
			t.Errorf("lab %s: exit %d, want %d: %s", strings.Join(tc.args, " "), code, tc.code, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("lab %s: stderr %q lacks %q", strings.Join(tc.args, " "), errOut, w)
			}
		}
	}
	// A failed append leaves no data file behind.
	var n int
	_ = filepath.Walk(filepath.Join(dir, "warehouse"), func(p string, info os.FileInfo, _ error) error {
		if info != nil && strings.HasSuffix(p, ".parquet") {
			n++
		}
		return nil
	})
	if n != 0 {
		t.Errorf("%d data files in the warehouse after failed appends", n)
	}

	// A catalog in a lab.yaml found in the working directory is not taken.
	if err := os.WriteFile(filepath.Join(dir, "lab.yaml"), []byte("catalog:\n  warehouse: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lab("table", "list")
	if code != 0 || strings.TrimSpace(out) != "lab.t" || !strings.Contains(errOut, "ignoring catalog") {
		t.Errorf("found lab.yaml: exit %d, %q, %q", code, out, errOut)
	}
	if _, errOut, code := lab("table", "list", "--config", "lab.yaml"); code != 1 || !strings.Contains(errOut, filepath.Join("elsewhere", "catalog.db")) {
		t.Errorf("named lab.yaml: exit %d, %q", code, errOut)
	}
}
