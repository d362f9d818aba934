//go:build unix

package registry_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/registry"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func TestLocalInputRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "in.parquet")
	mkfifo(t, fifo)
	err := testenv.ErrWithin(t, 2*time.Second, func() error {
		f, _, err := registry.LocalInput(fifo).Open()
		if err == nil {
			f.Close()
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), fifo+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("Open: %v, want the FIFO refused by name", err)
	}
}

// Overwriting renames over the location, which would replace whatever node
// is there; only a regular file may be replaced.
func TestCreateReplacesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, msg string
	}{
		{"FIFO", fifo, "is a named pipe (FIFO), not a regular file, and cannot be replaced"},
		{"symlink", link, "is a symlink, not a regular file, and cannot be replaced"},
		{"directory", sub, "is a directory and cannot be replaced"},
		{"character device", "/dev/null", "is a character device, not a regular file, and cannot be replaced"},
	} {
		for _, overwrite := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/overwrite=%v", tt.name, overwrite), func(t *testing.T) {
				before, _ := os.Lstat(tt.path)
				err := testenv.ErrWithin(t, 2*time.Second, func() error {
					p, err := registry.LocalOutput(tt.path).Create(overwrite)
					if err == nil {
						p.Abort() // never publish over /dev/null
					}
					return err
				})
				var nr *registry.NotReplaceableError
				if !errors.As(err, &nr) || err.Error() != "create "+tt.path+": "+tt.msg {
					t.Errorf("Create(overwrite=%v): %v, want %q", overwrite, err, tt.msg)
				}
				if after, err := os.Lstat(tt.path); err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
					t.Errorf("%s changed: %v", tt.path, err)
				}
			})
		}
	}
	t.Run("regular file", func(t *testing.T) {
		p, err := registry.LocalOutput(regular).Create(true)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(p, "new")
		if err := p.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(regular); string(b) != "new" {
			t.Fatalf("regular file holds %q", b)
		}
	})
}

// A node swapped in between Create and Commit is not replaced either.
func TestCommitReplacesOnlyRegularFiles(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(path string) error
		msg  string
	}{
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "is a directory and cannot be replaced"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "is a named pipe (FIFO), not a regular file, and cannot be replaced"},
		{"symlink", func(p string) error { return os.Symlink("elsewhere", p) }, "is a symlink, not a regular file, and cannot be replaced"},
	} {
		for _, overwrite := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/overwrite=%v", tt.name, overwrite), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out")
				p, err := registry.LocalOutput(path).Create(overwrite)
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(p, "bytes")
				if err := tt.make(path); err != nil {
					t.Skip(err)
				}
				err = p.Commit()
				if err == nil || err.Error() != "create "+path+": "+tt.msg {
					t.Errorf("Commit(overwrite=%v): %v, want %q", overwrite, err, tt.msg)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 1 {
					t.Errorf("%d entries left, want only the %s", len(entries), tt.name)
				}
			})
		}
	}
}

func TestPartialFilesRemovedOnRequest(t *testing.T) {
	dir := t.TempDir()
	out := registry.LocalOutput(filepath.Join(dir, "out.parquet"))
	p, err := out.Create(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		ents, _ := os.ReadDir(dir)
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name())
		}
		return ns
	}
	got := names()
	want := ".out.parquet" + registry.PartialFileMarker + strconv.Itoa(os.Getpid()) + "-"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Fatalf("files %v, want one named %s<hex>", got, want)
	}
	if n := registry.RemovePartialFiles(); n != 1 {
		t.Fatalf("RemovePartialFiles removed %d, want 1", n)
	}
	if got := names(); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
	// A published file is no longer partial: nothing to remove.
	p, err = out.Create(false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := registry.RemovePartialFiles(); n != 0 {
		t.Fatalf("RemovePartialFiles removed %d after a commit", n)
	}
	if got := names(); len(got) != 1 || got[0] != "out.parquet" {
		t.Fatalf("files %v, want out.parquet", got)
	}
}
