package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/notebooks/notebook"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b-search", "main.go"), "// Notebook b.\npackage main\n\nfunc main() {}\n")
	write(t, filepath.Join(dir, "a-tour", "main.go"), "package main\n")
	write(t, filepath.Join(dir, "notebook", "main.go"), "package notebook\n") // the shared package
	write(t, filepath.Join(dir, "runner", "runner.go"), "package runner\n")
	write(t, filepath.Join(dir, "broken", "main.go"), "packag main\n")
	write(t, filepath.Join(dir, "README.md"), "# Notebooks\n")
	got, err := Find(dir)
	if err != nil || !slices.Equal(got, []string{"a-tour", "b-search"}) {
		t.Errorf("Find = %q, %v; want a-tour, b-search", got, err)
	}
	empty := t.TempDir()
	if _, err := Find(empty); err == nil || err.Error() != "no notebooks (folders with a main.go of package main) under "+empty {
		t.Errorf("Find(empty) err = %v", err)
	}
	if _, err := Find(filepath.Join(empty, "none")); err == nil || !strings.HasPrefix(err.Error(), "notebooks: ") {
		t.Errorf("Find(missing) err = %v", err)
	}
}

func TestFindTheLabsNotebooks(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := SourceRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Find(filepath.Join(root, "notebooks"))
	if err != nil || !slices.Contains(got, "registry-tour") || slices.Contains(got, "notebook") || slices.Contains(got, "runner") {
		t.Errorf("Find = %q, %v; want the notebooks, without notebook and runner", got, err)
	}
	if _, err := SourceRoot(t.TempDir()); err == nil || !strings.Contains(err.Error(), "source tree") {
		t.Errorf("SourceRoot outside the tree: err = %v", err)
	}
}

type steps struct {
	msgs []string
	done int64
}

func (s *steps) Step(msg string) { s.msgs = append(s.msgs, msg) }
func (s *steps) Add(n int64)     { s.done += n }

// TestRunFailures runs notebooks of a small module that fail each way a
// notebook can: it does not build, it exits non-zero, it writes no page.
// Each failure is its own Result; the others still run.
func TestRunFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three programs")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/nb\n\ngo 1.21\n")
	write(t, filepath.Join(root, "notebooks", "nobuild", "main.go"), "package main\n\nfunc main() { undefined() }\n")
	write(t, filepath.Join(root, "notebooks", "crash", "main.go"),
		"package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Fprintln(os.Stderr, \"boom:\", os.Args[1:])\n\tos.Exit(3)\n}\n")
	write(t, filepath.Join(root, "notebooks", "nopage", "main.go"), "package main\n\nfunc main() {}\n")
	out := t.TempDir()
	var p steps
	res, err := Runner{Root: root, Out: out, Quick: true, Progress: &p}.Run([]string{"nobuild", "crash", "nopage"})
	if err != nil {
		t.Fatal(err)
	}
	wants := []struct{ name, err string }{
		{"nobuild", "go build ./notebooks/nobuild: exit status 1\n"},
		{"crash", "exit status 3\nboom: [--out " + filepath.Join(out, "crash") + " --quick]"},
		{"nopage", "open " + filepath.Join(out, "nopage", "README.md") + ": no such file or directory"},
	}
	if len(res) != len(wants) {
		t.Fatalf("%d results, want %d: %+v", len(res), len(wants), res)
	}
	for i, w := range wants {
		r := res[i]
		if r.Name != w.name || !strings.HasPrefix(r.Error, w.err) || r.Page != "" || r.Seconds <= 0 {
			t.Errorf("result %d = %+v, want %s failing with %q", i, r, w.name, w.err)
		}
	}
	if p.done != 3 || len(p.msgs) != 6 || p.msgs[0] != "[1/3] nobuild: building and running..." ||
		!strings.HasPrefix(p.msgs[3], "[2/3] crash: FAILED after ") || !strings.Contains(p.msgs[3], "\n    boom: ") {
		t.Errorf("progress: %d done, steps %q", p.done, p.msgs)
	}
	b, err := json.Marshal(res[0])
	if err != nil || !strings.HasPrefix(string(b), `{"name":"nobuild","seconds":`) || strings.Contains(string(b), `"page"`) {
		t.Errorf("JSON %s (%v)", b, err)
	}
}

func TestWriteIndex(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pages")
	s := notebook.Summary{Name: "tour", Title: "Tour", Question: "Which | formats\nread?", Headline: "all five",
		Generated: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Command: "go run ./notebooks/tour --quick", Quick: true}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(out, "tour", "README.md"), "<!-- notebook-summary "+string(js)+" -->\n# Tour\n")
	if err := WriteIndex(out, []string{"tour", "search"}, "lab report --quick"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Notebooks\n\n",
		"| notebook | question | headline | generated |\n|---|---|---|---|\n",
		"| [tour](tour/README.md) | Which \\| formats read? | all five | 2026-01-02 03:04 UTC, **quick run** by `go run ./notebooks/tour --quick` |\n",
		"\nNot generated yet: search.\n",
		" by `lab report --quick`.\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("index lacks %q:\n%s", want, b)
		}
	}
}
