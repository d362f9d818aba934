//go:build unix

package safeopen

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coltype-lab/lab/internal/testenv"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "a.bin")
	if err := os.WriteFile(regular, []byte("bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, err string
	}{
		{"regular file", regular, ""},
		{"symlink to a regular file", link, ""},
		{"file URI", "file://" + regular, ""},
		{"FIFO", fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{"FIFO as a file URI", "file://localhost" + fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{"directory", dir, dir + " is a directory, not a regular file"},
		{"character device", "/dev/null", "/dev/null is a character device, not a regular file"},
		{"missing", filepath.Join(dir, "nope"), "no such file or directory"},
		{"foreign URI authority", "file://elsewhere/x", `unsupported file URI authority "elsewhere"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			err := testenv.ErrWithin(t, 2*time.Second, func() error {
				f, err := LocalFS{}.Open(tt.path)
				if err != nil {
					if f != nil {
						return fmt.Errorf("a failed open returned a non-nil file %v", f)
					}
					return err
				}
				defer f.Close()
				b, err := io.ReadAll(f)
				got = string(b)
				return err
			})
			switch {
			case tt.err == "" && (err != nil || got != "bytes"):
				t.Fatalf("read %q, %v; want bytes", got, err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("got %v, want an error with %q", err, tt.err)
			}
		})
	}
	var nr *NotRegularError
	if _, err := Open(fifo); !errors.As(err, &nr) || nr.Path != fifo || nr.Mode&os.ModeNamedPipe == 0 {
		t.Fatalf("Open(fifo): %v, want a *NotRegularError", err)
	}
}

func TestLstatDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "missing"), link); err != nil {
		t.Fatal(err)
	}
	fi, err := LocalFS{}.Lstat("file://" + link)
	if err != nil || Kind(fi.Mode()) != "symlink" {
		t.Fatalf("Lstat: %v, %v; want a symlink", fi, err)
	}
}
