package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/notebooks/notebook"
)

// TestReport runs two notebooks at test size, one of which must fail: the
// vector search with its peers pointed at an empty directory while
// LAB_REQUIRE_PEERS=1. The other still runs, the index lists it, and report
// exits 1 naming the failed one.
func TestReport(t *testing.T) {
	bin := labBinary(t)
	wd, err := os.Getwd() // cmd/lab: inside the source tree report needs
	if err != nil {
		t.Fatal(err)
	}
	t.Run("usage", func(t *testing.T) { testReportUsage(t, bin, wd) })
	out := t.TempDir()
	t.Setenv("LAB_PEERS_DIR", t.TempDir())
	t.Setenv("LAB_REQUIRE_PEERS", "1")
	stdout, stderr, code := run(t, bin, wd, "report", "--quick", "--json", "--out", out, "registry-tour", "vector-search")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"[1/2] registry-tour: ok in ",
		"[2/2] vector-search: FAILED after ",
		"LAB_REQUIRE_PEERS=1",
		"lab: 1 of 2 notebooks failed: vector-search",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, `"name": "registry-tour"`) || !strings.Contains(stdout, `"error": "`) {
		t.Errorf("--json output:\n%s", stdout)
	}
	if err := notebook.Check(filepath.Join(out, "registry-tour")); err != nil {
		t.Error(err)
	}
	index, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| [registry-tour](registry-tour/README.md) | Which file formats",
		"**quick run** by `go run ./notebooks/registry-tour --quick`",
		"Not generated yet: ", "vector-search",
		"by `lab report --quick --json registry-tour vector-search`",
	} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index lacks %q:\n%s", want, index)
		}
	}
	if strings.Contains(string(index), "[notebook]") {
		t.Errorf("index lists the shared notebook package:\n%s", index)
	}
}

// testReportUsage: an unknown name is a usage error (exit 2) that runs
// nothing; outside a source tree report says what it needs.
func testReportUsage(t *testing.T, bin, wd string) {
	out := t.TempDir()
	_, stderr, code := run(t, bin, wd, "report", "--out", out, "registry-tour", "no-such-notebook")
	if code != 2 || !strings.Contains(stderr, `unknown notebook "no-such-notebook"`) || !strings.Contains(stderr, "vector-search") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming the unknown notebook and the known ones", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "registry-tour")); !os.IsNotExist(err) {
		t.Errorf("an unknown name still ran the others: %v", err)
	}
	_, stderr, code = run(t, bin, t.TempDir(), "report", "--quick")
	if code != 1 || !strings.Contains(stderr, "source tree") {
		t.Fatalf("outside the tree: exit %d, stderr %q", code, stderr)
	}
}
