package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

// goldenFileDir holds the FILE golden files and their JSON sidecars.
const goldenFileDir = "../../spec/golden/file"

// resolveJSON is the --json document of lab file resolve.
type resolveJSON struct {
	File      string         `json:"file"`
	Column    string         `json:"column"`
	FieldID   int            `json:"field_id"`
	Annotated bool           `json:"annotated"`
	Rows      []resolveRow   `json:"rows"`
	Summary   resolveSummary `json:"summary"`
}

func parseResolveJSON(t *testing.T, out string) resolveJSON {
	t.Helper()
	var doc resolveJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	return doc
}

// writeFileColumn writes rows of (id long, doc FILE) through the registry;
// annotate declares doc with write.parquet.file-columns.
func writeFileColumn(t *testing.T, path string, annotate bool, values ...*file.Value) {
	t.Helper()
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}, doc)
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	b.Schema(schema)
	if annotate {
		b.Set(filecol.PropColumns, "doc")
	}
	w, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		group, err := v.ToRecord(doc.Type.(*iceberg.StructType))
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if group != nil {
			x = group
		}
		if err := w.Write(data.Of(schema, int64(i), x)); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFileResolve(t *testing.T) {
	bin := labBinary(t)
	golden, err := filepath.Abs(goldenFileDir)
	if err != nil {
		t.Fatal(err)
	}

	// Each golden case's sidecar says what its row resolves to, or which
	// rule it breaks; the exit status follows.
	t.Run("golden", func(t *testing.T) {
		sidecars, _ := filepath.Glob(filepath.Join(golden, "*.json"))
		if len(sidecars) == 0 {
			t.Fatalf("no sidecars in %s", golden)
		}
		for _, sc := range sidecars {
			var side struct {
				Case   string `json:"case"`
				Column string `json:"column"`
				Row    int64  `json:"row"`
				Value  struct {
					ContentType *string `json:"content_type"`
				} `json:"value"`
				Expect struct {
					Size      *int64    `json:"size"`
					SHA256    *string   `json:"sha256"`
					Checksum  string    `json:"checksum"`
					Violation file.Rule `json:"violation"`
				} `json:"expect"`
			}
			b, err := os.ReadFile(sc)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &side); err != nil {
				t.Fatalf("%s: %v", sc, err)
			}
			t.Run(side.Case, func(t *testing.T) {
				out, errOut, code := run(t, bin, golden, "file", "resolve", side.Case+".parquet", "--column", side.Column, "--verify", "--json")
				doc := parseResolveJSON(t, out)
				if !doc.Annotated || doc.Column != side.Column || doc.FieldID != 2 {
					t.Errorf("header %+v, want annotated column %s (field id 2)", doc, side.Column)
				}
				if int64(len(doc.Rows)) <= side.Row {
					t.Fatalf("%d rows, want row %d", len(doc.Rows), side.Row)
				}
				got := doc.Rows[side.Row]
				if side.Expect.Violation != "" {
					if got.Status != file.StatusInvalid || got.Rule != side.Expect.Violation || code != 1 {
						t.Fatalf("row %+v, exit %d; want invalid with rule %s, exit 1 (stderr %q)", got, code, side.Expect.Violation, errOut)
					}
					if doc.Summary.Invalid != 1 || !strings.Contains(errOut, "did not resolve") {
						t.Errorf("summary %+v, stderr %q", doc.Summary, errOut)
					}
					return
				}
				wantType := file.DefaultContentType
				if side.Value.ContentType != nil {
					wantType = *side.Value.ContentType
				}
				if code != 0 || got.Status != file.StatusOK || got.Bytes == nil || *got.Bytes != *side.Expect.Size ||
					got.SHA256 != *side.Expect.SHA256 || got.ContentType != wantType {
					t.Fatalf("row %+v, exit %d (stderr %q); want ok, %d bytes, sha256 %s, %s",
						got, code, errOut, *side.Expect.Size, *side.Expect.SHA256, wantType)
				}
				// A checksum --verify cannot use leaves the row ok and says so.
				wantSummary := resolveSummary{Rows: 1, OK: 1, Bytes: *side.Expect.Size}
				if file.ChecksumCheck(side.Expect.Checksum) == file.ChecksumUnverifiable {
					wantSummary.Unverifiable = 1
					if got.Checksum != file.ChecksumUnverifiable || got.ChecksumReason == "" {
						t.Errorf("row %+v; want its checksum reported unverifiable, with the reason", got)
					}
				} else if got.Checksum == file.ChecksumUnverifiable {
					t.Errorf("row %+v: checksum unverifiable, the sidecar does not say so", got)
				}
				if doc.Summary != wantSummary {
					t.Errorf("summary %+v, want %+v", doc.Summary, wantSummary)
				}
			})
		}
	})

	t.Run("text output", func(t *testing.T) {
		out, errOut, code := run(t, bin, golden, "file", "resolve", "whole-object-sha256.parquet", "--column", "doc", "--verify")
		if code != 0 || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		for _, want := range []string{
			`column "doc" (field id 2)`,
			"     0  ok               24  application/octet-stream  sha256:2e33a286",
			"1 rows: 1 ok, 0 null, 0 invalid, 0 errors (24 bytes resolved)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	// One file with every status: the policy, the checksum and null rows.
	dir := t.TempDir()
	objects := filepath.Join(dir, "objects")
	if err := os.MkdirAll(objects, 0o755); err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n fake image bytes")
	if err := os.WriteFile(filepath.Join(objects, "a.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(png)
	wrong := sha256.Sum256([]byte("other bytes"))
	p, n := file.Ptr[string], file.Ptr[int64]
	mixed := filepath.Join(dir, "mixed.parquet")
	writeFileColumn(t, mixed, true,
		&file.Value{Inline: []byte("hi"), ContentType: p("text/plain")}, // 0 ok
		nil, // 1 null
		&file.Value{URI: p("objects/a.png"), ContentType: p("image/png"), Checksum: p("SHA-256:" + hex.EncodeToString(sum[:]))}, // 2 ok
		&file.Value{URI: p("objects/a.png"), Offset: n(1), Size: n(3)},                                                          // 3 ok: "PNG"
		&file.Value{URI: p("objects/missing.png")},                                                                              // 4 error: missing
		&file.Value{URI: p(outside)},                                                                                            // 5 error: outside the root
		&file.Value{URI: p("objects/a.png"), Checksum: p("SHA-256:" + hex.EncodeToString(wrong[:]))},                            // 6 ok unverified, error verified
		&file.Value{URI: p("objects/a.png"), Offset: n(20), Size: n(100)},                                                       // 7 error: past the end
		&file.Value{URI: p("objects/a.png"), Checksum: p("MD5:" + strings.Repeat("AB", 16))},                                    // 8 ok; verified: checksum unverifiable
	)
	type want struct {
		status file.Status
		bytes  int64
		rule   file.Rule
		reason string
	}
	check := func(t *testing.T, doc resolveJSON, wants []want) {
		t.Helper()
		if len(doc.Rows) != len(wants) {
			t.Fatalf("%d rows, want %d", len(doc.Rows), len(wants))
		}
		for i, w := range wants {
			r := doc.Rows[i]
			if r.Row != int64(i) || r.Status != w.status || r.Rule != w.rule || !strings.Contains(r.Reason, w.reason) ||
				(w.status == file.StatusOK) != (r.Bytes != nil) || (r.Bytes != nil && *r.Bytes != w.bytes) {
				t.Errorf("row %d: %+v, want %+v", i, r, w)
			}
		}
	}
	t.Run("every status", func(t *testing.T) {
		out, errOut, code := run(t, bin, dir, "file", "resolve", "mixed.parquet", "--column", "doc", "--json")
		if code != 1 {
			t.Fatalf("exit %d, want 1 (stderr %q)", code, errOut)
		}
		doc := parseResolveJSON(t, out)
		check(t, doc, []want{
			{file.StatusOK, 2, "", ""},
			{file.StatusNull, 0, "", ""},
			{file.StatusOK, int64(len(png)), "", ""},
			{file.StatusOK, 3, "", ""},
			{file.StatusError, 0, "", "file does not exist"},
			{file.StatusError, 0, file.RuleOutsideRoot, "outside the allowed roots"},
			{file.StatusOK, int64(len(png)), "", ""},
			{file.StatusError, 0, file.RuleRangePastEnd, "runs past"},
			{file.StatusOK, int64(len(png)), "", ""},
		})
		if doc.Rows[2].ContentType != "image/png" || doc.Rows[2].SHA256 != hex.EncodeToString(sum[:]) || doc.Rows[2].Checksum != "" {
			t.Errorf("row 2: %+v", doc.Rows[2])
		}
		if doc.Summary != (resolveSummary{Rows: 9, OK: 5, Null: 1, Errors: 3, Bytes: 2 + 3 + 3*int64(len(png))}) {
			t.Errorf("summary %+v", doc.Summary)
		}
	})
	t.Run("verify catches the checksum", func(t *testing.T) {
		out, _, code := run(t, bin, dir, "file", "resolve", "mixed.parquet", "--column", "doc", "--json", "--verify")
		doc := parseResolveJSON(t, out)
		if code != 1 || doc.Rows[6].Status != file.StatusError || doc.Rows[6].Rule != file.RuleChecksumMismatch ||
			doc.Rows[2].Status != file.StatusOK || doc.Rows[2].Checksum != file.ChecksumVerified {
			t.Fatalf("exit %d, rows 2 and 6: %+v %+v", code, doc.Rows[2], doc.Rows[6])
		}
		// An MD5 digest in uppercase hex is not the spec's encoding: the
		// reference still resolves, and --verify says it could not check it.
		if r := doc.Rows[8]; r.Status != file.StatusOK || r.Checksum != file.ChecksumUnverifiable || !strings.Contains(r.ChecksumReason, "lowercase hex") {
			t.Errorf("row 8: %+v; want ok with the checksum unverifiable", r)
		}
		if doc.Summary.Unverifiable != 1 {
			t.Errorf("summary %+v", doc.Summary)
		}
	})
	t.Run("verify in text", func(t *testing.T) {
		out, _, _ := run(t, bin, dir, "file", "resolve", "mixed.parquet", "--column", "doc", "--verify")
		for _, want := range []string{
			"sha256:" + hex.EncodeToString(sum[:]) + " (checksum verified)",
			"(checksum unverifiable: checksum \"MD5:ABAB",
			"; 1 ok rows have a checksum --verify could not use",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("all resolve exits 0", func(t *testing.T) {
		good := filepath.Join(dir, "good.parquet")
		writeFileColumn(t, good, true, &file.Value{Inline: []byte("x")}, nil, &file.Value{URI: p("objects/a.png")})
		out, errOut, code := run(t, bin, dir, "file", "resolve", "good.parquet", "--column", "doc", "--verify")
		if code != 0 || !strings.Contains(out, "3 rows: 2 ok, 1 null, 0 invalid, 0 errors") {
			t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
		}
	})
	t.Run("root and base flags", func(t *testing.T) {
		// The root is objects/, the base the Parquet file's directory: the
		// outside file stays refused, the objects still resolve.
		out, _, _ := run(t, bin, dir, "file", "resolve", "mixed.parquet", "--column", "doc", "--json", "--root", "objects")
		doc := parseResolveJSON(t, out)
		if doc.Rows[2].Status != file.StatusOK || doc.Rows[5].Rule != file.RuleOutsideRoot {
			t.Fatalf("rows 2 and 5: %+v %+v", doc.Rows[2], doc.Rows[5])
		}
		// With the base moved to objects/, "objects/a.png" names objects/objects/a.png.
		out, _, _ = run(t, bin, dir, "file", "resolve", "mixed.parquet", "--column", "doc", "--json", "--base", "objects")
		doc = parseResolveJSON(t, out)
		if doc.Rows[2].Status != file.StatusError || !strings.Contains(doc.Rows[2].Reason, "objects/objects/a.png") {
			t.Fatalf("row 2 with --base objects: %+v", doc.Rows[2])
		}
	})
	t.Run("max size", func(t *testing.T) {
		out, _, code := run(t, bin, dir, "file", "resolve", "mixed.parquet", "--column", "doc", "--json", "--max-size", "4")
		doc := parseResolveJSON(t, out)
		if code != 1 || doc.Rows[2].Rule != file.RuleMaxSize || doc.Rows[3].Status != file.StatusOK {
			t.Fatalf("exit %d, rows 2 and 3: %+v %+v", code, doc.Rows[2], doc.Rows[3])
		}
	})
	t.Run("unannotated FILE-shaped column warns", func(t *testing.T) {
		plain := filepath.Join(dir, "plain.parquet")
		writeFileColumn(t, plain, false, &file.Value{Inline: []byte("x")})
		out, errOut, code := run(t, bin, dir, "file", "resolve", "plain.parquet", "--column", "doc", "--json")
		if code != 0 || !strings.Contains(errOut, "warning") || !strings.Contains(errOut, "does not annotate it FILE") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		if doc := parseResolveJSON(t, out); doc.Annotated || doc.Summary.OK != 1 {
			t.Fatalf("%+v", doc)
		}
	})

	notParquet := filepath.Join(golden, "range.json")
	for _, tt := range []struct {
		name string
		args []string
		msg  string
		code int // 0 means 2, the usage status
	}{
		{"no column flag", []string{"mixed.parquet"}, "--column is required", 0},
		{"no file", []string{"--column", "doc"}, "accepts 1 arg(s)", 0},
		{"two files", []string{"mixed.parquet", "good.parquet", "--column", "doc"}, "accepts 1 arg(s)", 0},
		{"missing column", []string{"mixed.parquet", "--column", "nope"}, `no column "nope" (columns: id, doc)`, 0},
		{"non-FILE column", []string{"mixed.parquet", "--column", "id"}, `column "id" (field id 1) has type long`, 0},
		{"child of the FILE group", []string{"mixed.parquet", "--column", "doc.uri"}, `column "doc.uri" (field id 3) has type string`, 0},
		{"not a Parquet file", []string{notParquet, "--column", "doc"}, "is not a readable Parquet file", 1},
		{"missing file", []string{"nowhere.parquet", "--column", "doc"}, "is not a readable Parquet file", 1},
		{"unknown scheme", []string{"mixed.parquet", "--column", "doc", "--scheme", "ftp"}, `--scheme "ftp" is not supported`, 0},
		{"https without host", []string{"mixed.parquet", "--column", "doc", "--scheme", "https"}, "needs --host", 0},
		{"negative max size", []string{"mixed.parquet", "--column", "doc", "--max-size", "-1"}, "--max-size -1 is negative", 0},
		{"bad max size", []string{"mixed.parquet", "--column", "doc", "--max-size", "lots"}, "invalid argument", 0},
		{"negative timeout", []string{"mixed.parquet", "--column", "doc", "--idle-timeout", "-1s"}, "--idle-timeout -1s is negative", 0},
		{"missing root", []string{"mixed.parquet", "--column", "doc", "--root", "/nonexistent/root"}, "/nonexistent/root", 0},
	} {
		t.Run("usage/"+tt.name, func(t *testing.T) {
			want := tt.code
			if want == 0 {
				want = 2
			}
			out, errOut, code := run(t, bin, dir, append([]string{"file", "resolve"}, tt.args...)...)
			if code != want || !strings.Contains(errOut, tt.msg) || out != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit %d with %q", code, errOut, out, want, tt.msg)
			}
		})
	}

	t.Run("help has an example", func(t *testing.T) {
		out, _, code := run(t, bin, dir, "file", "resolve", "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "lab file resolve") || !strings.Contains(out, "Exit status") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}
