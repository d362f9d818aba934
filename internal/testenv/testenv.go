// Package testenv locates the external inputs tests may need and decides
// whether their absence skips a test or fails it.
//
// Locally a missing input skips with a message saying how to provide it; CI
// sets LAB_REQUIRE_TESTDATA=1 and LAB_REQUIRE_PEERS=1, so there the same
// absence fails instead of passing silently.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ParquetTestingDir returns the apache/parquet-testing checkout named by
// $PARQUET_TEST_DATA (the arrow convention), with sub joined to it.
func ParquetTestingDir(t testing.TB, sub ...string) string {
	t.Helper()
	root := os.Getenv("PARQUET_TEST_DATA")
	if root == "" {
		missing(t, "LAB_REQUIRE_TESTDATA",
			"PARQUET_TEST_DATA is not set; point it at an apache/parquet-testing checkout "+
				"(CI uses ../shared/testdata/parquet-testing)")
		return ""
	}
	dir := filepath.Join(append([]string{root}, sub...)...)
	if _, err := os.Stat(dir); err != nil {
		missing(t, "LAB_REQUIRE_TESTDATA", "parquet-testing data not found: "+err.Error())
		return ""
	}
	return dir
}

// RequirePeers reports whether missing external readers must fail tests.
func RequirePeers() bool { return os.Getenv("LAB_REQUIRE_PEERS") == "1" }

// MissingPeer skips (or, with LAB_REQUIRE_PEERS=1, fails) a test whose
// external reader is not installed; why should say how to install it.
func MissingPeer(t testing.TB, why string) {
	t.Helper()
	missing(t, "LAB_REQUIRE_PEERS", why)
}

func missing(t testing.TB, requireVar, why string) {
	t.Helper()
	if os.Getenv(requireVar) == "1" {
		t.Fatalf("%s, and %s=1 requires it", why, requireVar)
	}
	t.Skip(why)
}

// ErrWithin runs fn and returns its error. If fn has not returned after d,
// the test fails instead of hanging; fn is left blocked, and never touches t.
func ErrWithin(t testing.TB, d time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("still blocked after %s", d)
		return nil
	}
}
