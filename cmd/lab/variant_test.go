package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVariantAnalyzeCLI(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	var lines []string
	for i := range 300 {
		b := `"s"`
		if i%2 == 0 {
			b = "7"
		}
		lines = append(lines, `{"payload": {"id": `+strings.Repeat("1", 1+i%3)+`, "name": "n", "mixed": `+b+`, "tags": ["a", "b"]}, "other": 1}`)
	}
	in := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "shredded.parquet")
	stdout, stderr, code := run(t, bin, dir, "variant", "analyze", in, "--column", "payload", "--rows", "50", "--write", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"$.mixed", "mixed types", "$.tags[]", "optional group payload (VARIANT(1))", "typed_value", "size (zstd): unshredded", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The written file analyzes back to the same layout, as JSON.
	stdout, stderr, code = run(t, bin, dir, "variant", "analyze", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Values int              `json:"values"`
		Layout string           `json:"layout"`
		Sizes  map[string]int64 `json:"sizes_zstd"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if got.Values != 300 || !strings.Contains(got.Layout, "name:string") || got.Sizes["shredded"] == 0 {
		t.Errorf("JSON report %+v", got)
	}
	// --write refuses an existing file unless --overwrite, and the file
	// keeps the column's name: payload, not the estimates' "v".
	existing := filepath.Join(dir, "existing.parquet")
	const before = "someone's file"
	if err := os.WriteFile(existing, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = run(t, bin, dir, "variant", "analyze", in, "--column", "payload", "--write", existing)
	if code != 1 || !strings.Contains(stderr, "--write "+existing+" already exists; pass --overwrite to replace it") {
		t.Errorf("existing --write file: exit %d, stderr %q; want exit 1 naming it and --overwrite", code, stderr)
	}
	if after, err := os.ReadFile(existing); err != nil || string(after) != before {
		t.Errorf("the refused --write changed %s to %q (%v)", existing, after, err)
	}
	if _, stderr, code = run(t, bin, dir, "variant", "analyze", in, "--column", "payload", "--rows", "50", "--write", existing, "--overwrite"); code != 0 {
		t.Fatalf("--overwrite: exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(existing); string(after) != string(mustRead(t, out)) {
		t.Error("--overwrite did not replace the file with the same shredded file as a fresh --write")
	}
	stdout, stderr, code = run(t, bin, dir, "schema", out)
	if code != 0 {
		t.Fatalf("lab schema %s: exit %d: %s", out, code, stderr)
	}
	var schema struct {
		Fields []struct {
			Name string `json:"name"`
			Type any    `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(stdout), &schema); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(schema.Fields) != 1 || schema.Fields[0].Name != "payload" || schema.Fields[0].Type != "variant" {
		t.Errorf("written file's schema %+v, want the one variant column payload", schema.Fields)
	}
	// Usage errors exit 2.
	if _, _, code := run(t, bin, dir, "variant", "analyze"); code != 2 {
		t.Errorf("no INPUT: exit %d, want 2", code)
	}
	if _, _, code := run(t, bin, dir, "variant", "analyze", in, "--rows", "0"); code != 2 {
		t.Errorf("--rows 0: exit %d, want 2", code)
	}
	if _, _, code := run(t, bin, dir, "variant", "analyze", filepath.Join(dir, "missing.jsonl")); code == 0 {
		t.Error("missing input: exit 0")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
