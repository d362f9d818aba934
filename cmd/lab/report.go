package main

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
	"slices"
	"strings"
	"time"

	"github.com/coltype-lab/lab/internal/labroot"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/notebooks/notebook"
)

func init() { commands = append(commands, newReportCommand) }

// The notebooks are separate programs (notebooks/<name>/main.go, package
// main, as DESIGN.md lays them out), so `lab report` builds and runs each as
// its own process rather than linking them in. A fresh process per notebook
// also keeps the measurements apart: no notebook's heap, page cache churn or
// goroutines are still around while the next one times its scans, and one
// that crashes cannot take the others down. The cost is that report needs
// the Go toolchain and the lab's source tree, which it writes into anyway.

func newReportCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report [names...]",
		Short: "Run the notebooks (all, or the named ones) and write their pages and index",
		Long: `Builds and runs each notebook under notebooks/ as its own process, writing
<out>/<name>/README.md and its SVG plots, checks each page, and writes
<out>/README.md: an index of every notebook found there, with its question,
headline figure, and when and how it was generated. A failing notebook does
not stop the others; report then exits 1 naming it. Progress goes to stderr.
Needs the Go toolchain and the lab's source tree (run it inside it).

<out> is --out, or a new temporary directory (its path is printed) when
--out is not given: the pages under notebooks/ are checked in, so only
--in-tree, the maintainers' way to regenerate them, writes there.`,
		Example: `  lab report --quick                       # every notebook at test size, into a new temporary directory
  lab report --out /tmp/nb vector-layouts vector-search  # two notebooks at their default sizes
  lab report --quick --out /tmp/nb --json registry-tour
  lab report --in-tree vector-layouts      # maintainers: regenerate the checked-in notebooks/vector-layouts`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := moduleRoot()
			if err != nil {
				return err
			}
			known, err := findNotebooks(filepath.Join(root, "notebooks"))
			if err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				names = known
			}
			for _, n := range names {
				if !slices.Contains(known, n) {
					return usageError{fmt.Errorf("unknown notebook %q; known: %s", n, strings.Join(known, ", "))}
				}
			}
			out, err := reportOut(root, v.GetString("report.out"), v.GetBool("report.in-tree"))
			if err != nil {
				return err
			}
			p := newProgress(cmd, int64(len(names)), "notebooks run")
			r := reportRun{root: root, out: out, quick: v.GetBool("report.quick"), progress: p}
			results, err := r.runAll(names)
			if err != nil {
				p.Abort()
				return err
			}
			p.Finish()
			if err := writeIndex(out, known, cmd.CommandPath(), os.Args[1:]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "report: wrote %s\n", filepath.Join(out, "README.md"))
			if v.GetBool("report.json") {
				if err := writeJSON(cmd.OutOrStdout(), results); err != nil {
					return err
				}
			}
			var failed []string
			for _, res := range results {
				if res.Error != "" {
					failed = append(failed, res.Name)
				}
			}
			if len(failed) > 0 {
				return fmt.Errorf("%d of %d notebooks failed: %s", len(failed), len(results), strings.Join(failed, ", "))
			}
			return nil
		},
	}
	addQuietFlag(cmd)
	f := cmd.Flags()
	f.Bool("quick", false, "run every notebook at its test size (seconds each; the pages say so)")
	f.String("out", "", "folder for the pages, one subfolder per notebook, and the index (default: a new temporary directory)")
	f.Bool("in-tree", false, "write into the source tree's notebooks/, replacing the checked-in pages and index")
	f.Bool("json", false, "print each notebook's outcome as JSON on stdout")
	for _, name := range []string{"quick", "out", "in-tree", "json"} {
		_ = v.BindPFlag("report."+name, f.Lookup(name))
	}
	return cmd
}

// reportOut is the folder report writes: --out, the source tree's notebooks/
// with --in-tree, otherwise a new temporary directory, so that a plain
// `lab report` never rewrites checked-in pages.
func reportOut(root, out string, inTree bool) (string, error) {
	switch {
	case out != "" && inTree:
		return "", usageError{errors.New("--out and --in-tree both say where to write; give one")}
	case inTree:
		return filepath.Join(root, "notebooks"), nil
	case out == "":
		return os.MkdirTemp("", "lab-report-")
	}
	return filepath.Abs(out)
}

// notebookResult is one notebook's outcome.
type notebookResult struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Page    string  `json:"page,omitempty"`
	Error   string  `json:"error,omitempty"`
}

type reportRun struct {
	root, out string
	quick     bool
	progress  progress
}

func (r reportRun) runAll(names []string) ([]notebookResult, error) {
	bin, err := os.MkdirTemp("", "lab-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	var results []notebookResult
	for i, name := range names {
		r.progress.Step(fmt.Sprintf("[%d/%d] %s: building and running...", i+1, len(names), name))
		start := time.Now()
		res := notebookResult{Name: name}
		if err := r.runOne(bin, name); err != nil {
			res.Error = err.Error()
		} else {
			res.Page = filepath.Join(r.out, name, "README.md")
		}
		res.Seconds = time.Since(start).Seconds()
		if res.Error != "" {
			r.progress.Step(fmt.Sprintf("[%d/%d] %s: FAILED after %.1fs: %s", i+1, len(names), name, res.Seconds, indentLines(res.Error)))
		} else {
			r.progress.Step(fmt.Sprintf("[%d/%d] %s: ok in %.1fs", i+1, len(names), name, res.Seconds))
		}
		r.progress.Add(1)
		results = append(results, res)
	}
	return results, nil
}

// runOne builds notebook name, runs it into <out>/<name> and checks the page.
func (r reportRun) runOne(bin, name string) error {
	exe := filepath.Join(bin, name)
	build := exec.Command("go", "build", "-o", exe, "./notebooks/"+name)
	build.Dir = r.root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./notebooks/%s: %v\n%s", name, err, out)
	}
	dir := filepath.Join(r.out, name)
	args := []string{"--out", dir}
	if r.quick {
		args = append(args, "--quick")
	}
	run := exec.Command(exe, args...)
	run.Dir = r.root
	var stderr bytes.Buffer
	run.Stdout = io.Discard
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	return notebook.Check(dir)
}

func indentLines(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ") }

// moduleRoot is the lab's source tree above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if root, ok := labroot.Find(dir); ok {
		return root, nil
	}
	return "", errors.New("report runs the notebooks from the lab's source tree: run it inside a checkout (no go.mod of " + labroot.ModulePath + " above the working directory)")
}

// findNotebooks lists the folders under dir that hold a notebook: a main.go
// of package main (the shared notebooks/notebook package is not one).
func findNotebooks(dir string) ([]string, error) {
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

// writeIndex writes <out>/README.md from the summaries of every page found
// there, including pages of notebooks this run did not rerun.
func writeIndex(out string, known []string, command string, args []string) error {
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
	fmt.Fprintf(&b, "\nIndex written %s by `%s`.\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), strings.Join(append([]string{command}, reportArgs(args)...), " "))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "README.md"), []byte(b.String()), 0o644)
}

// reportArgs are the arguments after "report", for the index's reproduce
// line; --out and --in-tree, which only move the pages, are dropped.
func reportArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "report" || a == "--in-tree" || strings.HasPrefix(a, "--in-tree="):
			continue
		case a == "--out" || a == "--config":
			i++
			continue
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "--config="):
			continue
		}
		out = append(out, a)
	}
	return out
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`) }
