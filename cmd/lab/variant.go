package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

func init() { commands = append(commands, newVariantCommand) }

func newVariantCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "variant",
		Example: `  lab variant analyze events.jsonl --write events.parquet`,
		Short:   "Variant shredding: analyze values and write shredded Parquet",
	}
	analyze := &cobra.Command{
		Use:   "analyze INPUT",
		Short: "Infer a shredding layout from JSON Lines or a Parquet variant column, and size it",
		Long: `analyze reads INPUT (JSON Lines: one JSON value per line, or objects holding
the column; or a Parquet file with a VARIANT column), runs the shredding
analyzer on the first --rows values (Iceberg's inference buffer, default 100),
prints per path the frequency, type histogram and admitted type (or why none),
the shredded Parquet layout, and the file size with and without shredding
(both written with zstd to temporary files).

--write writes the values, shredded, to a Parquet file with that one VARIANT
column, named as in INPUT (--column, or the Parquet column read; "v" for
whole JSON lines). An existing file is replaced only with --overwrite.`,
		Example: `  lab variant analyze events.jsonl
  lab variant analyze events.jsonl --column payload --rows 1000 --write shredded.parquet
  lab variant analyze events.jsonl --column payload --write shredded.parquet --overwrite
  lab variant analyze data.parquet --column var --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows := v.GetInt("variant.rows")
			if rows <= 0 {
				return usageError{fmt.Errorf("--rows must be positive, got %d", rows)}
			}
			return runVariantAnalyze(cmd.OutOrStdout(), args[0], v.GetString("variant.column"), rows, variantWrite{
				path: v.GetString("variant.write"), overwrite: v.GetBool("variant.overwrite"),
			}, v.GetBool("variant.json"))
		},
	}
	analyze.Flags().String("column", "", "JSON member or Parquet variant column to analyze (JSON Lines: default the whole line; Parquet: default the first VARIANT column)")
	analyze.Flags().Int("rows", 100, "rows the analyzer infers the layout from (write.parquet.variant-inference-buffer-size)")
	analyze.Flags().String("write", "", "write the values, shredded, to this Parquet file")
	analyze.Flags().Bool("overwrite", false, "let --write replace an existing file")
	analyze.Flags().Bool("json", false, "print the report as JSON")
	for _, f := range []string{"column", "rows", "write", "overwrite", "json"} {
		_ = v.BindPFlag("variant."+f, analyze.Flags().Lookup(f))
	}
	cmd.AddCommand(analyze)
	return cmd
}

type variantAnalysis struct {
	Input         string           `json:"input"`
	Column        string           `json:"column,omitempty"`
	Values        int              `json:"values"`
	Report        *variant.Report  `json:"report"` // untagged: printed through snakeKeys
	Layout        string           `json:"layout"`
	ParquetSchema string           `json:"parquet_schema"`
	Sizes         map[string]int64 `json:"sizes_zstd"`
	Written       string           `json:"written,omitempty"`
}

// variantWrite is where --write puts the shredded values.
type variantWrite struct {
	path      string
	overwrite bool
}

func runVariantAnalyze(out io.Writer, input, column string, rows int, write variantWrite, asJSON bool) error {
	values, column, err := readVariantInput(input, column)
	if err != nil {
		return err
	}
	if len(values) == 0 {
		return fmt.Errorf("%s: no values", input)
	}
	cfg := variant.DefaultAnalyzerConfig()
	cfg.BufferRows = rows
	layout, rep := variant.Analyze(values, cfg)
	a := variantAnalysis{Input: input, Column: column, Values: len(values), Report: rep, Layout: layout.String()}
	name := column // the files below keep the column's name
	if name == "" {
		name = "v" // whole JSON lines have none
	}
	if layout != nil {
		a.ParquetSchema = layout.ParquetSchema(name)
	} else {
		a.ParquetSchema = (&variant.Layout{}).ParquetSchema(name)
	}
	shredProps := map[string]string{lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: strconv.Itoa(rows)}
	sizes, err := variant.ColumnSizes(name, values, []variant.Encoding{{Name: "unshredded"}, {Name: "shredded", Props: shredProps}})
	if err != nil {
		return err
	}
	a.Sizes = sizes
	if write.path != "" {
		if err := variant.WriteColumn(write.path, name, values, shredProps, write.overwrite); err != nil {
			if errors.Is(err, registry.ErrFileExists) {
				return fmt.Errorf("--write %s already exists; pass --overwrite to replace it", write.path)
			}
			return fmt.Errorf("--write %s: %w", write.path, err)
		}
		a.Written = write.path
	}
	if asJSON {
		return writeJSON(out, snakeKeys(a))
	}
	fmt.Fprintf(out, "%s: %d values; layout inferred from %d rows (%d non-null)\n\n", input, len(values), rep.Rows, rep.NonNull)
	fmt.Fprintf(out, "%-32s %6s %5s  %-34s %s\n", "path", "rows", "freq", "types", "admitted / reason")
	for _, p := range rep.Paths {
		verdict := p.Admitted
		if verdict == "" {
			verdict = "none: " + p.Reason
		} else if p.Reason != "" {
			verdict += " (" + p.Reason + ")"
		}
		fmt.Fprintf(out, "%-32s %6d %5.2f  %-34s %s\n", p.Path, p.Rows, p.Frequency, typeHistogram(p.Types), verdict)
	}
	fmt.Fprintf(out, "\nshredded layout: %s\n%s\n", a.Layout, a.ParquetSchema)
	un, sh := a.Sizes["unshredded"], a.Sizes["shredded"]
	fmt.Fprintf(out, "size (zstd): unshredded %d bytes, shredded %d bytes (%.2f×)\n", un, sh, float64(sh)/float64(max(un, 1)))
	if write.path != "" {
		fmt.Fprintf(out, "wrote %s\n", write.path)
	}
	return nil
}

func typeHistogram(types map[string]int) string {
	parts := make([]string, 0, len(types))
	for t, n := range types {
		parts = append(parts, fmt.Sprintf("%s:%d", t, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// readVariantInput reads the values of INPUT (variant.ReadInput: Parquet by
// its magic, through the registry; JSON Lines otherwise) and returns the
// column actually read, wording the errors for the command's flags.
func readVariantInput(input, column string) ([]pvariant.Value, string, error) {
	values, column, err := variant.ReadInput(input, column)
	var (
		none *variant.NoVariantColumnError
		fe   *variant.FormatError
	)
	switch {
	case errors.As(err, &none):
		return nil, "", usageError{fmt.Errorf("%s has no VARIANT column; name one with --column", input)}
	case errors.As(err, &fe):
		return nil, "", fmt.Errorf("%s starts with the magic of format %s; lab variant reads Parquet or JSON Lines", input, fe.Format)
	}
	return values, column, err
}
