package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/spec/golden"
)

func init() { commands = append(commands, newSpecCommand) }

func newSpecCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use: "spec",
		Example: `  lab spec golden --check
  lab spec golden --dir /tmp/golden`,
		Short: "Spec work: the golden files every reader is judged against",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	gold := &cobra.Command{
		Use:   "golden",
		Short: "Write the golden Parquet files and their JSON sidecars, or check the checked-in ones",
		Long: `golden writes every golden file deterministically under --dir: the FILE
resolution cases (file/), one file per VECTOR layout and element type
(vector/), and a shredded VARIANT file (variant/), each with a JSON sidecar
of the values a reader must return. It replaces those three subdirectories.
Without --dir it writes into a new temporary directory and prints it; only
--dir spec/golden (a maintainer's command, from the repository root)
rewrites the checked-in golden files.

With --check it writes nothing: it regenerates the files in a temporary
directory and compares them byte for byte with the ones under --dir (default
spec/golden, the checked-in ones), listing every file that is missing,
unexpected or different, and exits with status 1
if there is any. The same check runs as go test ./spec/golden.`,
		Example: `  lab spec golden
  lab spec golden --check
  lab spec golden --dir /tmp/golden --check --json

  # Maintainers only: regenerate the checked-in golden files from the
  # repository root. This rewrites spec/golden in place; review the diff.
  lab spec golden --dir spec/golden`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := v.GetString("spec.golden.dir")
			if dir == "" && v.IsSet("spec.golden.dir") {
				return usageError{fmt.Errorf("--dir must not be empty")}
			}
			if v.GetBool("spec.golden.check") {
				if dir == "" {
					dir = golden.DefaultDir
				}
				return runGoldenCheck(cmd.OutOrStdout(), dir, v.GetBool("spec.golden.json"))
			}
			return runGoldenWrite(cmd.OutOrStdout(), cmd.ErrOrStderr(), dir, v.GetBool("spec.golden.json"))
		},
	}
	gold.Flags().String("dir", "", "golden directory (its file/, vector/ and variant/ subdirectories); default: a new temporary directory to write, "+golden.DefaultDir+" to --check")
	gold.Flags().Bool("check", false, "compare the files under --dir with freshly generated ones instead of writing")
	gold.Flags().Bool("json", false, "print the result as JSON")
	for _, f := range []string{"dir", "check", "json"} {
		_ = v.BindPFlag("spec.golden."+f, gold.Flags().Lookup(f))
	}
	cmd.AddCommand(gold)
	return cmd
}

type goldenReport struct {
	Dir         string              `json:"dir"`
	Checked     bool                `json:"checked"`
	Cases       map[string]int      `json:"cases,omitempty"`
	Differences []golden.Difference `json:"differences"`
}

// runGoldenWrite writes the golden files under dir, or with dir empty into
// a new temporary directory, which it names on errOut.
func runGoldenWrite(out, errOut io.Writer, dir string, asJSON bool) error {
	if dir == "" {
		tmp, err := golden.GenerateTemp()
		if err != nil {
			return err
		}
		dir = tmp
		fmt.Fprintf(errOut, "lab spec golden: no --dir: wrote to the new temporary directory %s (maintainers regenerate the checked-in files with --dir %s)\n", dir, golden.DefaultDir)
	} else if err := golden.Generate(dir); err != nil {
		return err
	}
	cases, err := golden.Load(dir)
	if err != nil {
		return err
	}
	rep := goldenReport{Dir: dir, Cases: map[string]int{}, Differences: []golden.Difference{}}
	for _, c := range cases {
		rep.Cases[string(c.Kind)]++
	}
	if asJSON {
		return writeJSON(out, rep)
	}
	for _, k := range golden.Kinds() {
		fmt.Fprintf(out, "wrote %d %s cases to %s\n", rep.Cases[string(k)], k, filepath.Join(dir, string(k)))
	}
	return nil
}

func runGoldenCheck(out io.Writer, dir string, asJSON bool) error {
	diffs, err := golden.Check(dir)
	if err != nil {
		return err
	}
	rep := goldenReport{Dir: dir, Checked: true, Differences: diffs}
	if rep.Differences == nil {
		rep.Differences = []golden.Difference{}
	}
	if asJSON {
		if err := writeJSON(out, rep); err != nil {
			return err
		}
	} else {
		for _, d := range diffs {
			fmt.Fprintln(out, d)
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d golden files under %s differ from what the generator writes; run lab spec golden --dir %s and review the diff", len(diffs), dir, dir)
	}
	if !asJSON {
		fmt.Fprintf(out, "golden files under %s are up to date\n", dir)
	}
	return nil
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
