// Package runner builds and runs the lab's notebooks and writes their index:
// what `lab report` does.
//
// The notebooks are separate programs (notebooks/<name>/main.go, package
// main, as DESIGN.md lays them out), so the runner builds and runs each as
// its own process rather than linking them in. A fresh process per notebook
// also keeps the measurements apart: no notebook's heap, page cache churn or
// goroutines are still around while the next one times its scans, and one
// that crashes cannot take the others down. The cost is that running needs
// the Go toolchain and the lab's source tree.
package runner

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coltype-lab/lab/internal/labroot"
	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

// Result is one notebook's outcome; the JSON names are stable (lab report
// --json prints them).
type Result struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Page    string  `json:"page,omitempty"` // Out/<name>/README.md, when it ran and checked
	Error   string  `json:"error,omitempty"`
}

// Progress hears how a run goes: Step names what is under way or how it
// ended, Add(1) counts a notebook done.
type Progress interface {
	Step(msg string)
	Add(n int64)
}

// Runner runs notebooks of the source tree Root into Out/<name>.
type Runner struct {
	Root     string   // the lab's source tree (SourceRoot)
	Out      string   // where the pages go, one folder per notebook
	Quick    bool     // run each at its test size (--quick)
	Progress Progress // nil: silent
}

// Run builds and runs the named notebooks in order, each into Out/<name>,
// and checks each page (notebook.Check). A failing notebook does not stop
// the others: its Result says why. The error is for the run itself (no
// folder for the builds).
func (r Runner) Run(names []string) ([]Result, error) {
	bin, err := os.MkdirTemp("", "lab-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	step := func(string) {}
	if r.Progress != nil {
		step = r.Progress.Step
	}
	var results []Result
	for i, name := range names {
		step(fmt.Sprintf("[%d/%d] %s: building and running...", i+1, len(names), name))
		start := time.Now()
		res := Result{Name: name}
		if err := r.runOne(bin, name); err != nil {
			res.Error = err.Error()
		} else {
			res.Page = filepath.Join(r.Out, name, "README.md")
		}
		res.Seconds = time.Since(start).Seconds()
		if res.Error != "" {
			step(fmt.Sprintf("[%d/%d] %s: FAILED after %.1fs: %s", i+1, len(names), name, res.Seconds, indentLines(res.Error)))
		} else {
			step(fmt.Sprintf("[%d/%d] %s: ok in %.1fs", i+1, len(names), name, res.Seconds))
		}
		if r.Progress != nil {
			r.Progress.Add(1)
		}
		results = append(results, res)
	}
	return results, nil
}

// runOne builds notebook name, runs it into Out/<name> and checks the page.
func (r Runner) runOne(bin, name string) error {
	exe := filepath.Join(bin, name)
	build := exec.Command("go", "build", "-o", exe, "./notebooks/"+name)
	build.Dir = r.Root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./notebooks/%s: %v\n%s", name, err, out)
	}
	dir := filepath.Join(r.Out, name)
	args := []string{"--out", dir}
	if r.Quick {
		args = append(args, "--quick")
	}
	run := exec.Command(exe, args...)
	run.Dir = r.Root
	var stderr bytes.Buffer
	run.Stdout = io.Discard
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	return notebook.Check(dir)
}

func indentLines(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ") }

// SourceRoot is the lab's source tree at or above dir, which the runner
// builds the notebooks in.
func SourceRoot(dir string) (string, error) {
	if root, ok := labroot.Find(dir); ok {
		return root, nil
	}
	return "", errors.New("report runs the notebooks from the lab's source tree: run it inside a checkout (no go.mod of " + labroot.ModulePath + " above the working directory)")
}

// Find lists the folders under dir that hold a notebook: a main.go of
// package main (the shared notebooks/notebook package, and this one, are
// not notebooks).
func Find(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("notebooks: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if isMainPackage(filepath.Join(dir, e.Name(), "main.go")) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no notebooks (folders with a main.go of package main) under %s", dir)
	}
	return names, nil
}

func isMainPackage(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
	return err == nil && f.Name.Name == "main"
}

// WriteIndex writes out/README.md from the summaries of every known
// notebook's page found there, including pages this run did not rerun, and
// lists the others as not generated yet. reproduce is the command that
// wrote the index, as the index shows it.
func WriteIndex(out string, known []string, reproduce string) error {
	var b strings.Builder
	b.WriteString("# Notebooks\n\n")
	b.WriteString("One experiment per folder: each `main.go` runs it and writes the folder's README.md with tables and SVG plots, measured against the memory-bandwidth floor of the same run. Rerun one with `go run ./notebooks/<name>` (add `--quick` for a smoke test), or all of them with `lab report --in-tree`.\n\n")
	b.WriteString("| notebook | question | headline | generated |\n")
	b.WriteString("|---|---|---|---|\n")
	var missing []string
	for _, name := range known {
		s, err := notebook.ReadSummary(filepath.Join(out, name, "README.md"))
		if err != nil {
			missing = append(missing, name)
			continue
		}
		when := s.Generated.UTC().Format("2006-01-02 15:04 MST")
		if s.Quick {
			when += ", **quick run**"
		}
		fmt.Fprintf(&b, "| [%s](%s/README.md) | %s | %s | %s by `%s` |\n", name, name, cell(s.Question), cell(s.Headline), when, cell(s.Command))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\nNot generated yet: %s.\n", strings.Join(missing, ", "))
	}
	fmt.Fprintf(&b, "\nIndex written %s by `%s`.\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), reproduce)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return publish.WriteFile(filepath.Join(out, "README.md"), []byte(b.String()), 0o644)
}

// cell is s as one Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`) }
