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

// TestReportDefaultOut: without --out, report writes into a new temporary
// directory and leaves the checked-in pages under notebooks/ as they were;
// --in-tree is the one way into the tree, and it does not mix with --out.
func TestReportDefaultOut(t *testing.T) {
	bin := labBinary(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(wd, "..", "..", "notebooks")
	checkedIn := map[string][]byte{}
	for _, p := range []string{"README.md", "registry-tour/README.md"} {
		b, err := os.ReadFile(filepath.Join(tree, p))
		if err != nil {
			t.Fatal(err)
		}
		checkedIn[p] = b
	}
	tmp := t.TempDir()
	_, stderr, code := runWith(t, bin, wd, []string{"TMPDIR=" + tmp}, "", "report", "--quick", "registry-tour")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for p, want := range checkedIn {
		if got, err := os.ReadFile(filepath.Join(tree, p)); err != nil || string(got) != string(want) {
			t.Errorf("lab report without --out rewrote the checked-in notebooks/%s (%v)", p, err)
		}
	}
	_, after, ok := strings.Cut(stderr, "report: wrote ")
	index := strings.TrimSpace(after)
	if !ok || !strings.HasPrefix(index, filepath.Join(tmp, "lab-report-")) || filepath.Base(index) != "README.md" {
		t.Fatalf("report does not name an index in a new directory under %s:\n%s", tmp, stderr)
	}
	if err := notebook.Check(filepath.Join(filepath.Dir(index), "registry-tour")); err != nil {
		t.Error(err)
	}

	_, stderr, code = run(t, bin, wd, "report", "--in-tree", "--out", t.TempDir(), "registry-tour")
	if code != 2 || !strings.Contains(stderr, "--out and --in-tree both say where to write") {
		t.Fatalf("--in-tree with --out: exit %d, stderr %q; want exit 2", code, stderr)
	}
	if got, err := reportOut("/src/lab", "", true); err != nil || got != filepath.Join("/src/lab", "notebooks") {
		t.Errorf("--in-tree writes to %q (%v), want /src/lab/notebooks", got, err)
	}
}
