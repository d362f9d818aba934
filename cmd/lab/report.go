package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/notebooks/runner"
)

func init() { commands = append(commands, newReportCommand) }

// The notebook runner (notebooks/runner) says why each notebook runs as its
// own process; report needs the Go toolchain and the lab's source tree.

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
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			root, err := runner.SourceRoot(wd)
			if err != nil {
				return err
			}
			known, err := runner.Find(filepath.Join(root, "notebooks"))
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
			r := runner.Runner{Root: root, Out: out, Quick: v.GetBool("report.quick"), Progress: p}
			results, err := r.Run(names)
			if err != nil {
				p.Abort()
				return err
			}
			p.Finish()
			reproduce := strings.Join(append([]string{cmd.CommandPath()}, reportArgs(os.Args[1:])...), " ")
			if err := runner.WriteIndex(out, known, reproduce); err != nil {
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
