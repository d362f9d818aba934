package registry_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/registry"
)

// A local output goes through internal/publish: an aborted or failed
// overwrite leaves the old file as it was and no temporary file beside it.
func TestLocalPendingFileKeepsTheOldFileUntilCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	only := func(want string) {
		t.Helper()
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || ents[0].Name() != "out.parquet" {
			t.Fatalf("directory holds %v, want only out.parquet", ents)
		}
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Fatalf("out.parquet holds %q, want %q", b, want)
		}
	}
	p, err := registry.LocalOutput(path).Create(true)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "half a new file")
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("out.parquet holds %q before Commit, want the old bytes", b)
	}
	if err := p.Abort(); err != nil {
		t.Fatal(err)
	}
	only("old")

	p, err = registry.LocalOutput(path).Create(true)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new")
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	only("new")
	if p.Written() != 3 {
		t.Errorf("Written = %d, want 3", p.Written())
	}
}
