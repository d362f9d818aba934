package golden

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGenerateReplacesInPlace: Generate over an old tree leaves exactly the
// generated files in the kinds' subdirectories (a stale file, a stale
// directory, a directory where a file goes and a file where a directory
// goes are all replaced), keeps what is beside them, and leaves no
// temporary file behind.
func TestGenerateReplacesInPlace(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"README.md":                   "kept\n",
		"file/stale.json":             "{}\n",
		"file/range.json":             "truncated",
		"vector/old/deep/x.bin":       "x",
		"variant/shredded.json/inner": "a directory where a file goes",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	objects := filepath.Join(dir, "file", "objects")
	if err := os.WriteFile(objects, []byte("a file where a directory goes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Generate(dir); err != nil {
		t.Fatal(err)
	}
	diffs, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) > 0 {
		t.Errorf("after Generate over an old tree: %v", diffs)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "kept\n" {
		t.Errorf("README.md beside the kinds: %q, %v", b, err)
	}
	all, err := listFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if err := Generate(fresh); err != nil {
		t.Fatal(err)
	}
	want, err := listFiles(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.DeleteFunc(all, func(s string) bool { return s == "README.md" }); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v (a fresh Generate's)", got, want)
	}
}
