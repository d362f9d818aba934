package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/coltype-lab/lab/internal/testenv"
)

// recordingIO is a FileIO that records every name it is asked to open.
type recordingIO struct {
	icebergio.IO
	mu     sync.Mutex
	opened []string
}

func (r *recordingIO) Open(name string) (icebergio.File, error) {
	r.mu.Lock()
	r.opened = append(r.opened, name)
	r.mu.Unlock()
	return r.IO.Open(name)
}

// Nothing outside the allowed root is ever opened, whatever the reference.
func TestNothingOutsideRootIsOpened(t *testing.T) {
	base := realTempDir(t)
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	sentinel := filepath.Join(outside, "sentinel.bin")
	writeFile(t, sentinel, "secret")
	writeFile(t, filepath.Join(root, "ok.bin"), "fine")
	writeFile(t, filepath.Join(base, "root-sibling", "x.bin"), "sibling")
	mustSymlink(t, sentinel, filepath.Join(root, "link-file"))
	mustSymlink(t, outside, filepath.Join(root, "link-dir"))
	mustSymlink(t, "../outside/sentinel.bin", filepath.Join(root, "rel-link"))
	mustSymlink(t, "ok.bin", filepath.Join(root, "inner-link")) // stays inside: allowed

	rec := &recordingIO{IO: icebergio.LocalFS{}}
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, FileIO: rec})

	tests := []struct {
		uri  string
		rule Rule
	}{
		{"../outside/sentinel.bin", RuleDotSegment},
		{"%2E%2E/outside/sentinel.bin", RuleDotSegment},
		{"sub/../../outside/sentinel.bin", RuleDotSegment},
		{sentinel, RuleOutsideRoot},
		{"file://" + sentinel, RuleOutsideRoot},
		{"file://localhost" + sentinel, RuleOutsideRoot},
		{"file://" + filepath.Join(base, "root-sibling", "x.bin"), RuleOutsideRoot},
		{"link-file", RuleSymlinkEscape},
		{"link-dir/sentinel.bin", RuleSymlinkEscape},
		{"rel-link", RuleSymlinkEscape},
		{"file://" + filepath.Join(root, "link-dir", "sentinel.bin"), RuleSymlinkEscape},
	}
	for _, tc := range tests {
		for _, v := range []*Value{
			{URI: Ptr(tc.uri)},
			{URI: Ptr(tc.uri), Offset: Ptr[int64](0), Size: Ptr[int64](3)},
		} {
			_, err := r.ReadAll(context.Background(), v)
			if !hasRule(err, tc.rule) {
				t.Errorf("%s: got %v, want rule %s", tc.uri, err, tc.rule)
				continue
			}
			if !strings.Contains(err.Error(), `uri "`+tc.uri+`"`) {
				t.Errorf("%s: error does not name the uri: %v", tc.uri, err)
			}
		}
		// As a provenance locator beside inline bytes, it is not opened either.
		if got, err := r.ReadAll(context.Background(), &Value{Inline: []byte("x"), URI: Ptr(tc.uri)}); err != nil || string(got) != "x" {
			t.Errorf("%s as provenance: %q, %v", tc.uri, got, err)
		}
	}
	if got, err := r.ReadAll(context.Background(), &Value{URI: Ptr("inner-link")}); err != nil || string(got) != "fine" {
		t.Errorf("symlink inside the root: %q, %v", got, err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.opened) == 0 {
		t.Fatal("the recording FileIO saw no opens at all; the test is not exercising it")
	}
	for _, name := range rec.opened {
		if !within(root, name, filepath.Separator) {
			t.Errorf("opened %s, outside the root %s", name, root)
		}
		if strings.Contains(name, "sentinel") {
			t.Errorf("opened the sentinel: %s", name)
		}
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// swappingIO opens another file than it was asked for, as if the path had
// been swapped between the resolver's check and its open.
type swappingIO struct {
	icebergio.IO
	to string
}

func (s swappingIO) Open(string) (icebergio.File, error) { return s.IO.Open(s.to) }

func TestSwapBetweenCheckAndOpenIsRefused(t *testing.T) {
	base := realTempDir(t)
	root := filepath.Join(base, "root")
	writeFile(t, filepath.Join(root, "a.bin"), "inside")
	writeFile(t, filepath.Join(base, "secret.bin"), "secret")
	tests := map[string]string{
		"to a file outside the root": filepath.Join(base, "secret.bin"),
		"to another file inside":     filepath.Join(root, "a.bin") + ".other",
	}
	writeFile(t, filepath.Join(root, "a.bin.other"), "other")
	for name, to := range tests {
		t.Run(name, func(t *testing.T) {
			r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root,
				FileIO: swappingIO{IO: icebergio.LocalFS{}, to: to}})
			_, err := r.ReadAll(context.Background(), &Value{URI: Ptr("a.bin")})
			if !hasRule(err, RuleSymlinkEscape) || !strings.Contains(err.Error(), "changed between the check and the open") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestSpecialFilesAreNotOpened(t *testing.T) {
	root := realTempDir(t)
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	rec := &recordingIO{IO: icebergio.LocalFS{}}
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, FileIO: rec})
	// Opening a FIFO would block; it must be refused before the open.
	_, err := r.ReadAll(context.Background(), &Value{URI: Ptr("fifo")})
	if !hasRule(err, RuleNotRegularFile) || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("got %v", err)
	}
	if len(rec.opened) != 0 {
		t.Fatalf("opened %v", rec.opened)
	}
}

// A FIFO swapped in for the checked file between the check and the open
// must not block the open: the default FileIO opens without blocking and
// refuses what is not a regular file.
func TestFIFOSwappedInIsRefused(t *testing.T) {
	root := realTempDir(t)
	writeFile(t, filepath.Join(root, "a.bin"), "inside")
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root})
	r.fileIO = swappingIO{IO: r.fileIO, to: fifo}
	err := testenv.ErrWithin(t, 5*time.Second, func() error {
		_, err := r.ReadAll(context.Background(), &Value{URI: Ptr("a.bin")})
		return err
	})
	want := filepath.Join(root, "a.bin") + " is a named pipe (FIFO), not a regular file"
	if !hasRule(err, RuleNotRegularFile) || !strings.Contains(err.Error(), `FILE uri "a.bin"`) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want rule %s and %q", err, RuleNotRegularFile, want)
	}
}
