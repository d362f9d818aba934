//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAnnotateOntoFullFilesystem runs lab annotate with its output on a
// real full disk: a 64 KiB tmpfs, for an input of about 150 KiB. Mounting
// needs root (CAP_SYS_ADMIN); without it the test skips, and
// TestAnnotateFullDisk covers the same through a writer that fails with
// ENOSPC.
func TestAnnotateOntoFullFilesystem(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	mnt := filepath.Join(work, "full")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=64k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	data := annotateInput(t, 4000)
	if len(data) < 128<<10 {
		t.Fatalf("the input is %d bytes, too small to fill the 64 KiB filesystem", len(data))
	}
	writeFile(t, filepath.Join(work, "in.parquet"), data)

	_, errOut, code := run(t, bin, work, "annotate", "in.parquet", filepath.Join("full", "out.parquet"), "--file", "doc")
	if code != 1 {
		t.Errorf("exit %d, want 1: %s", code, errOut)
	}
	for _, want := range []string{
		"lab: annotate in.parquet: writing the annotated copy full/.out.parquet.",
		fmt.Sprintf("it needs about %d bytes free beside the output, the input's size", len(data)),
		"no space left on device",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if strings.Contains(errOut, "refused") {
		t.Errorf("stderr %q calls a full disk a refusal", errOut)
	}
	if got, err := os.ReadFile(filepath.Join(work, "in.parquet")); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the input changed (%v)", err)
	}
	if names := dirEntries(t, mnt); len(names) != 0 {
		t.Errorf("left on the full filesystem: %v", names)
	}
}
