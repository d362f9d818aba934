package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentedExitCodes runs, for every command whose --help states its
// exit status, a case of each status it documents, and checks both the
// status and that the help says it (doc is the help's own words), so help
// and behaviour cannot drift apart again (lab file resolve said 2 for a
// missing file and exited 1).
func TestDocumentedExitCodes(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	golden, err := filepath.Abs("../../spec/golden/file")
	if err != nil {
		t.Fatal(err)
	}
	rows := `{"id":1,"emb":[0.1,0.2,0.3]}` + "\n" + `{"id":2,"emb":[0.3,0.2,0.1]}` + "\n"
	for name, body := range map[string]string{"rows.jsonl": rows, "notes.txt": "not parquet\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := run(t, bin, work, "write", "--schema", "id:long!,emb:vector<float32,3>", "--input", "rows.jsonl", "vec.parquet"); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, bin, work, "spec", "golden", "--dir", "golden"); code != 0 {
		t.Fatalf("spec golden: exit %d: %s", code, errOut)
	}
	// forged.parquet: vec.parquet with its first page header overwritten.
	vec, err := os.ReadFile(filepath.Join(work, "vec.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	copy(vec[4:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	if err := os.WriteFile(filepath.Join(work, "forged.parquet"), vec, 0o644); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(work, "golden", "file", "range.json")
	if err := os.WriteFile(edited, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// What some failures must say on stderr, beyond their status.
	stderrNames := map[string]string{
		"pages forged header":       "lab: pages forged.parquet: row group 0, column emb: page header at byte 4: ",
		"file resolve missing file": "nope.parquet is not a readable Parquet file",
	}
	for _, tc := range []struct {
		name string
		dir  string // default work
		args []string
		code int
		doc  string // in the command's --help
	}{
		{"read ok", "", []string{"read", "vec.parquet"}, 0, "Exit status: 0 read"},
		{"read missing file", "", []string{"read", "nope.parquet"}, 1, "1 the file is missing"},
		{"read not parquet", "", []string{"read", "notes.txt"}, 1, "not a readable Parquet or Avro\nfile"},
		{"read unknown column", "", []string{"read", "vec.parquet", "--columns", "nope"}, 2, "2 bad usage (flags, an unknown column)"},
		{"schema ok", "", []string{"schema", "vec.parquet"}, 0, "Exit status: 0 printed"},
		{"schema missing file", "", []string{"schema", "nope.parquet"}, 1, "1 the file is missing"},
		{"schema bad flag", "", []string{"schema", "vec.parquet", "--bogus"}, 2, "2 bad usage"},
		{"file resolve ok", golden, []string{"file", "resolve", "whole-object.parquet", "--column", "doc"}, 0, "0 when every non-null row resolves"},
		{"file resolve invalid row", golden, []string{"file", "resolve", "invalid-empty-uri.parquet", "--column", "doc"}, 1, "1 when any row is invalid"},
		{"file resolve missing file", "", []string{"file", "resolve", "nope.parquet", "--column", "doc"}, 1, "FILE.parquet is missing or not a readable Parquet file"},
		{"file resolve not parquet", "", []string{"file", "resolve", "notes.txt", "--column", "doc"}, 1, "FILE.parquet is missing or not a readable Parquet file"},
		{"file resolve no such column", golden, []string{"file", "resolve", "whole-object.parquet", "--column", "nope"}, 2, "no such column"},
		{"file resolve not FILE", golden, []string{"file", "resolve", "whole-object.parquet", "--column", "id"}, 2, "a column that is\nnot FILE"},
		{"vector search ok", "", []string{"vector", "search", "vec.parquet", "--query", "[1,0,0]"}, 0, "Exit status: 0 on success"},
		{"vector search missing file", "", []string{"vector", "search", "nope.parquet", "--query", "[1,0,0]"}, 1, "1 when the file cannot be read as a vector column\n(missing"},
		{"vector search malformed query", "", []string{"vector", "search", "vec.parquet", "--query", "[1,0"}, 2, "a malformed query"},
		{"vector search query dimension", "", []string{"vector", "search", "vec.parquet", "--query", "[1,0]"}, 2, "a query dimension other than the column's"},
		{"vector take row outside", "", []string{"vector", "take", "vec.parquet", "--rows", "9"}, 2, "a\nrow outside the file"},
		{"pages ok", "", []string{"pages", "vec.parquet"}, 0, "Exit status: 0 printed"},
		{"pages not parquet", "", []string{"pages", "notes.txt"}, 1, "1 the file is missing, not Parquet"},
		{"pages forged header", "", []string{"pages", "forged.parquet"}, 1, "a chunk or\nindex is corrupt (named)"},
		{"pages no file", "", []string{"pages"}, 2, "2 bad usage"},
		{"write existing OUT", "", []string{"write", "--schema", "id:long!,emb:vector<float32,3>", "--input", "rows.jsonl", "vec.parquet"}, 1, "an existing OUT"},
		{"write bad row", "", []string{"write", "--schema", "id:int!", "--input", "rows.jsonl", "bad-row.parquet"}, 1, "1 bad input (a row"},
		{"write bad schema", "", []string{"write", "--schema", "id:lng", "--input", "rows.jsonl", "x.parquet"}, 2, "2 bad usage (flags, arguments, the schema)"},
		{"table missing table", "", []string{"table", "describe", "lab.nope"}, 1, "1 failure (a missing catalog or table"},
		{"table bad name", "", []string{"table", "describe", "nodots"}, 2, "2 bad usage"},
		{"spec golden check differs", "", []string{"spec", "golden", "--dir", "golden", "--check"}, 1, "exits with status 1\nif there is any"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, _, err := newRootCommand().Find(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			help := cmd.Long
			if cmd.Parent() != nil && !strings.Contains(help, "Exit status") && !strings.Contains(help, "status 1") {
				help = cmd.Parent().Long // lab table documents its subcommands'
			}
			if !strings.Contains(help, tc.doc) {
				t.Fatalf("%s --help does not say %q:\n%s", cmd.CommandPath(), tc.doc, help)
			}
			dir := tc.dir
			if dir == "" {
				dir = work
			}
			_, errOut, code := run(t, bin, dir, tc.args...)
			if msg := stderrNames[tc.name]; !strings.Contains(errOut, msg) {
				t.Errorf("lab %s: stderr %q lacks %q", strings.Join(tc.args, " "), errOut, msg)
			}
			if code != tc.code {
				t.Errorf("lab %s: exit %d, want %d as its help says (%q); stderr %q", strings.Join(tc.args, " "), code, tc.code, tc.doc, errOut)
			}
		})
	}
}
