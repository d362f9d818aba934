package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/spec/compat"
	"github.com/coltype-lab/lab/spec/golden"
)

func init() { commands = append(commands, newCompatCommand) }

func newCompatCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compat",
		Short: "Read every golden file with every reader and print the compatibility matrix",
		Long: `compat reads every golden file (lab spec golden) and parquet-testing's
data/unknown-logical-type.parquet with each reader: parquet-go, arrow-go as a
user calls it, arrow-go through the lab's guard, and the peers DuckDB,
hyparquet and parquet-wasm (bench/peers; install with: cd bench/peers && npm ci).
Each outcome is classed by comparing the values read with the golden
sidecar's: typed, physical, error, crash or wrong (spec/COMPAT.md defines
them). It prints the matrix as a Markdown table (rows: cases, columns:
readers), or as JSON.

--write replaces the generated table in a Markdown file (between its
markers; the hand-written text stays), which is how maintainers regenerate
the checked-in spec/COMPAT.md: --write spec/COMPAT.md rewrites that file in
place. It needs apache/parquet-testing (--parquet-testing or
$PARQUET_TEST_DATA): without it the matrix lacks a case, so --write refuses
rather than drop that row from the file. For the same reason --write with
--readers is refused (exit status 2) when the file's generated table has a
column for a reader --readers leaves out.
The expected matrix the tests pin is spec/compat/expected.json
(go test ./spec/compat -update rewrites it).

A reader that is not installed fails the command, naming it; --readers
leaves readers out. Every peer process runs under a time limit.

--tables runs the table section instead: it creates Iceberg tables with the
lab in a temporary warehouse (multimodal FILE, VECTOR and VARIANT columns,
unpartitioned and partitioned; primitives over two appends; footer
annotations opted in) and reads each with iceberg-go's own scan (in a child
process: its panics end the process), icebird and DuckDB's read_parquet over
the data files the table lists, classing each table × reader ok, error,
crash or wrong against the rows appended, column by column. --write then
replaces the "Tables" section's generated part (refused with --readers
as above); its expected outcomes are spec/compat/table_expected.json.`,
		Example: `  lab compat
  lab compat --json --readers parquet-go,duckdb
  PARQUET_TEST_DATA=../parquet-testing lab compat
  lab compat --tables
  PARQUET_TEST_DATA=../parquet-testing lab compat --write /tmp/COMPAT.md

  # Maintainers only: regenerate the checked-in spec/COMPAT.md from the
  # repository root. These rewrite that file in place; review the diff.
  PARQUET_TEST_DATA=../parquet-testing lab compat --write spec/COMPAT.md
  lab compat --tables --write spec/COMPAT.md`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if v.GetBool("compat.iceberg-scan-child") {
				if code := compat.RunIcebergScanChild(cmd.OutOrStdout()); code != 0 {
					return fmt.Errorf("iceberg-go scan child: exit status %d", code)
				}
				return nil
			}
			names, write := v.GetStringSlice("compat.readers"), v.GetString("compat.write")
			if v.GetBool("compat.tables") {
				readers, err := selectTableReaders(names)
				if err != nil {
					return usageError{err}
				}
				if write != "" && len(names) > 0 {
					var selected []string
					for _, r := range readers {
						selected = append(selected, r.Name)
					}
					if err := compat.CheckTablesWriteKeepsReaders(write, selected); err != nil {
						return writeReadersError(err)
					}
				}
				return runCompatTables(cmd.Context(), cmd.OutOrStdout(), readers, v.GetBool("compat.json"), write)
			}
			readers, err := selectReaders(names)
			if err != nil {
				return usageError{err}
			}
			if write != "" && len(names) > 0 {
				var selected []string
				for _, r := range readers {
					selected = append(selected, r.Name)
				}
				if err := compat.CheckWriteKeepsReaders(write, selected); err != nil {
					return writeReadersError(err)
				}
			}
			return runCompat(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), compatOptions{
				golden:         v.GetString("compat.golden"),
				parquetTesting: v.GetString("compat.parquet-testing"),
				readers:        readers,
				asJSON:         v.GetBool("compat.json"),
				write:          write,
			})
		},
	}
	var names []string
	for _, r := range compat.Readers() {
		names = append(names, r.Name)
	}
	cmd.Flags().String("golden", golden.DefaultDir, "golden directory")
	cmd.Flags().String("parquet-testing", os.Getenv("PARQUET_TEST_DATA"), "apache/parquet-testing checkout (default $PARQUET_TEST_DATA); empty leaves its case out")
	cmd.Flags().StringSlice("readers", nil, "readers to run (default all: "+strings.Join(names, ", ")+")")
	cmd.Flags().Bool("json", false, "print the matrix as JSON")
	cmd.Flags().String("write", "", "also write the table into this Markdown file, between its generated-table markers")
	cmd.Flags().Bool("tables", false, "run the table section: lab-written Iceberg tables read by "+strings.Join(tableReaderNames(), ", "))
	cmd.Flags().Bool("iceberg-scan-child", false, "internal: be the child process of --tables' iceberg-go scan")
	_ = cmd.Flags().MarkHidden("iceberg-scan-child")
	for _, f := range []string{"golden", "parquet-testing", "readers", "json", "write", "tables", "iceberg-scan-child"} {
		_ = v.BindPFlag("compat."+f, cmd.Flags().Lookup(f))
	}
	return cmd
}

// writeReadersError is the usage error of a --write that --readers would
// make drop reader columns (compat.DroppedReadersError); other errors, such
// as an unreadable file, are reported as they are.
func writeReadersError(err error) error {
	var de *compat.DroppedReadersError
	if errors.As(err, &de) {
		return usageError{fmt.Errorf("--write with --readers: %w; name every reader the file has in --readers, or leave --readers out to run them all", err)}
	}
	return fmt.Errorf("--write: %w", err)
}

type compatOptions struct {
	golden, parquetTesting string
	readers                []compat.Reader
	asJSON                 bool
	write                  string
}

func selectReaders(names []string) ([]compat.Reader, error) {
	all := compat.Readers()
	if len(names) == 0 {
		return all, nil
	}
	var out []compat.Reader
	for _, n := range names {
		i := slices.IndexFunc(all, func(r compat.Reader) bool { return r.Name == strings.TrimSpace(n) })
		if i < 0 {
			var known []string
			for _, r := range all {
				known = append(known, r.Name)
			}
			return nil, fmt.Errorf("--readers: unknown reader %q; known: %s", n, strings.Join(known, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

func runCompat(ctx context.Context, out, errOut io.Writer, o compatOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.parquetTesting == "" && o.write != "" {
		// A matrix without the parquet-testing case would silently drop its
		// row from a checked-in file such as spec/COMPAT.md.
		return fmt.Errorf("--write %s: the matrix would lack case parquet-testing/unknown-logical-type: PARQUET_TEST_DATA is not set (point it or --parquet-testing at an apache/parquet-testing checkout)", o.write)
	}
	if o.parquetTesting == "" {
		fmt.Fprintln(errOut, "lab compat: PARQUET_TEST_DATA is not set: leaving out parquet-testing/unknown-logical-type")
	} else if _, err := os.Stat(compat.UnknownLogicalTypeCase(o.parquetTesting).Path); err != nil {
		return fmt.Errorf("--parquet-testing %s: %w", o.parquetTesting, err)
	}
	cases, err := compat.Cases(o.golden, o.parquetTesting)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	m, err := compat.Run(ctx, cases, o.readers)
	if err != nil {
		return err
	}
	if o.write != "" {
		if err := m.WriteInto(o.write); err != nil {
			return err
		}
	}
	if o.asJSON {
		return writeJSON(out, m)
	}
	_, err = io.WriteString(out, m.Markdown())
	return err
}

// icebergScanChild runs this program as the child of the table section's
// iceberg-go reader.
func icebergScanChild(ctx context.Context) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.CommandContext(ctx, exe, "compat", "--iceberg-scan-child")
}

func tableReaderNames() []string {
	var names []string
	for _, r := range compat.TableReaders(icebergScanChild) {
		names = append(names, r.Name)
	}
	return names
}

func selectTableReaders(names []string) ([]compat.TableReader, error) {
	all := compat.TableReaders(icebergScanChild)
	if len(names) == 0 {
		return all, nil
	}
	var out []compat.TableReader
	for _, n := range names {
		i := slices.IndexFunc(all, func(r compat.TableReader) bool { return r.Name == strings.TrimSpace(n) })
		if i < 0 {
			return nil, fmt.Errorf("--readers: unknown table reader %q; known: %s", n, strings.Join(tableReaderNames(), ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// runCompatTables builds the table section's tables in a temporary
// warehouse, reads them with the readers and prints (and with write,
// writes) the section.
func runCompatTables(ctx context.Context, out io.Writer, readers []compat.TableReader, asJSON bool, write string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	for _, r := range readers {
		if err := r.Available(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "lab-compat-tables-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tables, err := compat.BuildTables(ctx, dir, compat.TableCases())
	if err != nil {
		return err
	}
	m, err := compat.RunTables(ctx, tables, readers)
	if err != nil {
		return err
	}
	if write != "" {
		if err := m.WriteInto(write); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(out, m)
	}
	_, err = io.WriteString(out, m.Markdown())
	return err
}
