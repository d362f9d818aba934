package registry_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	iceio "github.com/apache/iceberg-go/io"

	"github.com/coltype-lab/lab/registry"
)

// noRenameFS hides LocalFS's optional interfaces, as a blob store without
// rename would.
type noRenameFS struct{ iceio.WriteFileIO }

func upper(src io.ReaderAt, size int64, dst io.Writer) error {
	b, err := io.ReadAll(io.NewSectionReader(src, 0, size))
	if err != nil {
		return err
	}
	_, err = dst.Write(bytes.ToUpper(append(b, "!"...)))
	return err
}

func TestPendingFileRewrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   iceio.WriteFileIO
	}{
		{"rename", iceio.LocalFS{}},
		{"no rename", noRenameFS{iceio.LocalFS{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			p, err := registry.OutputFile{FS: tc.fs, Location: path}.Create(false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(p, "hello"); err != nil {
				t.Fatal(err)
			}
			if err := p.Rewrite(upper); err != nil {
				t.Fatal(err)
			}
			if p.Written() != 6 {
				t.Errorf("Written = %d after the rewrite, want 6", p.Written())
			}
			if err := p.Commit(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != "HELLO!" {
				t.Errorf("file holds %q (err %v), want HELLO!", got, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d entries left in the directory, want only the file", len(entries))
			}
		})
	}
}

func TestPendingFileRewriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	p, err := registry.LocalOutput(path).Create(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p, "hello"); err != nil {
		t.Fatal(err)
	}
	err = p.Rewrite(func(io.ReaderAt, int64, io.Writer) error { return errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want it to name %s and the cause", err, path)
	}
	if err := p.Commit(); err != nil {
		t.Fatalf("Commit after a failed rewrite: %v (it is aborted, so a no-op)", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries left after a failed rewrite", len(entries))
	}
}
