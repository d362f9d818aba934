package file

import (
	"errors"
	"path/filepath"
	"testing"
)

// realTempDir is t.TempDir with symlinks resolved, so expected paths match
// on systems whose temp dir is a symlink.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func hasRule(err error, rule Rule) bool {
	var v *Violation
	return errors.As(err, &v) && v.Rule == rule
}
