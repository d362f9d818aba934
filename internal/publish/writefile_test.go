package publish_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/internal/publish"
)

// TestWriteFile: WriteFile leaves the bytes and the mode os.WriteFile
// would, replaces an existing file whole, and leaves nothing but the
// destination behind, or nothing at all when it is refused.
func TestWriteFile(t *testing.T) {
	for _, perm := range []fs.FileMode{0o644, 0o600, 0o666} {
		t.Run(perm.String(), func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "out.md")
			for _, content := range []string{"first\n", "second, longer than the first\n", ""} {
				if err := publish.WriteFile(dest, []byte(content), perm); err != nil {
					t.Fatal(err)
				}
				assertOnly(t, dir, "out.md", content)
				ref := filepath.Join(t.TempDir(), "ref")
				if err := os.WriteFile(ref, []byte(content), perm); err != nil {
					t.Fatal(err)
				}
				got, err1 := os.Stat(dest)
				want, err2 := os.Stat(ref)
				if err1 != nil || err2 != nil || got.Mode() != want.Mode() {
					t.Errorf("mode %v (%v), os.WriteFile gives %v (%v)", got.Mode(), err1, want.Mode(), err2)
				}
			}
		})
	}
	t.Run("directory refused", func(t *testing.T) {
		dir := t.TempDir()
		dest := filepath.Join(dir, "sub")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		var nr *publish.NotReplaceableError
		if err := publish.WriteFile(dest, []byte("x"), 0o644); !errors.As(err, &nr) {
			t.Fatalf("error %v, want a NotReplaceableError", err)
		}
		if got := entries(t, dir); len(got) != 1 || got[0] != "sub" {
			t.Errorf("directory holds %v, want only sub", got)
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		if err := publish.WriteFile(filepath.Join(t.TempDir(), "absent", "f"), nil, 0o644); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v, want one wrapping fs.ErrNotExist", err)
		}
	})
}
