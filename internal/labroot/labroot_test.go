package labroot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	write := func(dir, module string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+module+"\n\ngo 1.26\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(root, ModulePath)
	other := filepath.Join(root, "third_party", "x")
	write(other, "example.com/x")
	deep := filepath.Join(other, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := Find(deep); !ok || got != root {
		t.Errorf("Find(%s) = %q %v, want %q past the other module's go.mod", deep, got, ok, root)
	}
	if _, ok := Find(t.TempDir()); ok {
		t.Error("Find outside the lab found a root")
	}
}
