package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecGoldenWritesNoCheckedInFiles: lab spec golden without --dir
// writes into a new temporary directory that it names, not into
// spec/golden under the working directory; --check without --dir still
// reads spec/golden.
func TestSpecGoldenWritesNoCheckedInFiles(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	tmp := t.TempDir()
	out, errOut, code := runEnv(t, bin, work, []string{"TMPDIR=" + tmp}, "spec", "golden")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil || len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "lab-golden-") {
		t.Fatalf("TMPDIR holds %v (%v), want one lab-golden- directory", ents, err)
	}
	dir := filepath.Join(tmp, ents[0].Name())
	if !strings.Contains(out, "wrote 18 file cases to "+filepath.Join(dir, "file")) ||
		!strings.Contains(errOut, "no --dir: wrote to the new temporary directory "+dir) {
		t.Errorf("stdout %q, stderr %q; want both naming %s", out, errOut, dir)
	}
	if _, err := os.Stat(filepath.Join(work, "spec")); err == nil {
		t.Errorf("lab spec golden without --dir created spec/ in the working directory")
	}
	if out, errOut, code := run(t, bin, dir, "spec", "golden", "--check", "--dir", dir); code != 0 || !strings.Contains(out, "up to date") {
		t.Errorf("the temporary directory does not check: exit %d: %s%s", code, out, errOut)
	}
	root, _ := filepath.Abs("../..")
	if out, errOut, code := run(t, bin, root, "spec", "golden", "--check"); code != 0 || !strings.Contains(out, "golden files under spec/golden are up to date") {
		t.Errorf("--check without --dir at the root: exit %d: %s%s", code, out, errOut)
	}
	help, _, _ := run(t, bin, work, "spec", "golden", "--help")
	if !strings.Contains(help, "# Maintainers only: regenerate the checked-in golden files") || !strings.Contains(help, "lab spec golden --dir spec/golden") {
		t.Errorf("help does not label the regeneration command:\n%s", help)
	}
	help, _, _ = run(t, bin, work, "compat", "--help")
	if !strings.Contains(help, "# Maintainers only: regenerate the checked-in spec/COMPAT.md") {
		t.Errorf("compat help does not label the regeneration commands:\n%s", help)
	}
}
