package publish_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/internal/publish"
)

// entries lists dir's names, temporary files included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func assertOnly(t *testing.T, dir, name, content string) {
	t.Helper()
	if got := entries(t, dir); len(got) != 1 || got[0] != name {
		t.Fatalf("directory holds %v, want only %s", got, name)
	}
	if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
		t.Fatalf("%s holds %q (%v), want %q", name, b, err, content)
	}
}

func TestPublish(t *testing.T) {
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	boom := errors.New("boom")
	tests := []struct {
		name      string
		old       string // "" for no existing destination
		overwrite bool
		write     func(io.Writer) error
		wantErr   error
		want      string // the destination's content afterwards
	}{
		{"new file", "", false, write("new"), nil, "new"},
		{"replace", "old", true, write("new"), nil, "new"},
		{"refuse existing", "old", false, write("new"), fs.ErrExist, "old"},
		{"write fails, old kept", "old", true, func(w io.Writer) error {
			io.WriteString(w, "half")
			return boom
		}, boom, "old"},
		{"write fails, nothing created", "", false, func(io.Writer) error { return boom }, boom, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "out.md")
			if tt.old != "" {
				if err := os.WriteFile(dest, []byte(tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := publish.Publish(dest, tt.overwrite, tt.write)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Publish = %v, want %v", err, tt.wantErr)
			}
			if tt.want == "" {
				if got := entries(t, dir); len(got) != 0 {
					t.Fatalf("directory holds %v, want nothing", got)
				}
				return
			}
			assertOnly(t, dir, "out.md", tt.want)
			if tt.wantErr == nil {
				// The mode os.Create gives, umask and all.
				ref, err := os.Create(filepath.Join(t.TempDir(), "ref"))
				if err != nil {
					t.Fatal(err)
				}
				ref.Close()
				want, _ := os.Stat(ref.Name())
				if st, _ := os.Stat(dest); st.Mode().Perm() != want.Mode().Perm() {
					t.Errorf("mode %v, want %v as os.Create gives", st.Mode().Perm(), want.Mode().Perm())
				}
			}
		})
	}
}

func TestFileTempBesideDestination(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out.parquet")
	f, err := publish.Create(dest, false)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, ".out.parquet"+publish.PartialMarker+strconv.Itoa(os.Getpid())+"-")
	if !strings.HasPrefix(f.Name(), want) || f.Dest() != dest {
		t.Fatalf("temporary file %s (dest %s), want %s<hex> for %s", f.Name(), f.Dest(), want, dest)
	}
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("destination visible before Commit: %v", err)
	}
	io.WriteString(f, "bytes")
	// It reads back before the commit, as lab annotate verifies it.
	b := make([]byte, 5)
	if _, err := f.ReadAt(b, 0); err != nil || string(b) != "bytes" {
		t.Fatalf("ReadAt = %q, %v", b, err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "out.parquet", "bytes")
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	assertOnly(t, dir, "out.parquet", "bytes")
}

// A destination that appears between Create and Commit is not replaced
// without overwrite, and the temporary file goes.
func TestCommitDoesNotReplaceANewcomer(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out")
	f, err := publish.Create(dest, false)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "mine")
	if err := os.WriteFile(dest, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = f.Commit()
	var ex *publish.ExistsError
	if !errors.As(err, &ex) || !errors.Is(err, fs.ErrExist) || err.Error() != dest+" exists" {
		t.Fatalf("Commit = %v, want %s exists", err, dest)
	}
	assertOnly(t, dir, "out", "theirs")
}

func TestNonRegularDestinationsRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(string) error
		msg  string
	}{
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "is a directory and cannot be replaced"},
		{"symlink", func(p string) error { return os.Symlink("elsewhere", p) }, "is a symlink, not a regular file, and cannot be replaced"},
	} {
		for _, overwrite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/overwrite=%v", tt.name, overwrite), func(t *testing.T) {
				// At Create.
				dir := t.TempDir()
				dest := filepath.Join(dir, "out")
				if err := tt.make(dest); err != nil {
					t.Fatal(err)
				}
				_, err := publish.Create(dest, overwrite)
				var nr *publish.NotReplaceableError
				if !errors.As(err, &nr) || err.Error() != tt.msg {
					t.Fatalf("Create(overwrite=%v) = %v, want %q", overwrite, err, tt.msg)
				}
				if got := entries(t, dir); len(got) != 1 {
					t.Fatalf("left %v", got)
				}
				// Swapped in before Commit.
				dir = t.TempDir()
				dest = filepath.Join(dir, "out")
				f, err := publish.Create(dest, overwrite)
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(f, "bytes")
				if err := tt.make(dest); err != nil {
					t.Fatal(err)
				}
				if err := f.Commit(); !errors.As(err, &nr) || err.Error() != tt.msg {
					t.Fatalf("Commit(overwrite=%v) = %v, want %q", overwrite, err, tt.msg)
				}
				if got := entries(t, dir); len(got) != 1 || got[0] != "out" {
					t.Fatalf("left %v, want only the %s", got, tt.name)
				}
			})
		}
	}
}

func TestAbortAndRemovePartial(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out")
	if err := os.WriteFile(dest, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := publish.Create(dest, true)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new")
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "out", "old")
	if err := f.Commit(); err != nil {
		t.Fatalf("Commit after Abort: %v", err)
	}
	assertOnly(t, dir, "out", "old")

	// An interrupted process removes what it has not published.
	g, err := publish.Create(dest, true)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(g, "new")
	if n := publish.RemovePartial(); n != 1 {
		t.Fatalf("RemovePartial removed %d, want 1", n)
	}
	assertOnly(t, dir, "out", "old")
	if n := publish.RemovePartial(); n != 0 {
		t.Fatalf("RemovePartial removed %d the second time", n)
	}
}
