package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/internal/safeopen"
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
	a := variantAnalysis{Input: input, Column: column, Values: len(values), Report: rep, Layout: layout.String(), Sizes: map[string]int64{}}
	name := column // the files below keep the column's name
	if name == "" {
		name = "v" // whole JSON lines have none
	}
	if layout != nil {
		a.ParquetSchema = layout.ParquetSchema(name)
	} else {
		a.ParquetSchema = (&variant.Layout{}).ParquetSchema(name)
	}
	tmp, err := os.MkdirTemp("", "lab-variant-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	shredProps := map[string]string{lparquet.PropShredVariants: "true", lparquet.PropVariantInferenceRows: strconv.Itoa(rows)}
	for _, l := range []struct {
		name  string
		props map[string]string
	}{{"unshredded", nil}, {"shredded", shredProps}} {
		path := filepath.Join(tmp, l.name+".parquet")
		if err := writeVariantColumn(path, name, values, l.props, false); err != nil {
			return fmt.Errorf("write %s estimate: %w", l.name, err)
		}
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		a.Sizes[l.name] = st.Size()
	}
	if write.path != "" {
		if err := writeVariantColumn(write.path, name, values, shredProps, write.overwrite); err != nil {
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

// writeVariantColumn writes values as the one VARIANT column name of a
// Parquet file at path through the registry (zstd, its default); a zero
// Value writes a null. Without overwrite an existing file is
// registry.ErrFileExists.
func writeVariantColumn(path, name string, values []pvariant.Value, props map[string]string, overwrite bool) error {
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: name, Type: iceberg.VariantType{}})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	b.Schema(schema).SetAll(props)
	if overwrite {
		b.Overwrite()
	}
	w, err := b.Build()
	if err != nil {
		return err
	}
	rec := data.NewRecord(schema)
	for _, v := range values {
		if v.Bytes() == nil {
			rec.Set(0, nil)
		} else {
			rec.Set(0, v)
		}
		if err := w.Write(rec); err != nil {
			_ = w.Abort()
			return err
		}
	}
	return w.Close()
}

func typeHistogram(types map[string]int) string {
	parts := make([]string, 0, len(types))
	for t, n := range types {
		parts = append(parts, fmt.Sprintf("%s:%d", t, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// readVariantInput reads the values of INPUT: Parquet by its magic, JSON
// Lines otherwise. It returns the column actually read.
func readVariantInput(input, column string) ([]pvariant.Value, string, error) {
	// Read twice (the magic, then from the start), so it must be a file; a
	// FIFO would block os.Open.
	f, err := safeopen.Open(input)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	// The registry knows every imported format's magic; anything it does
	// not recognise is read as JSON Lines.
	switch format, err := registry.DetectFormat(f); {
	case errors.Is(err, registry.ErrUnknownFormat):
	case err != nil:
		return nil, "", fmt.Errorf("%s: %w", input, err)
	case format == registry.PARQUET:
		return readVariantParquet(f, input, column)
	default:
		return nil, "", fmt.Errorf("%s starts with the magic of format %s; lab variant reads Parquet or JSON Lines", input, format)
	}
	var values []pvariant.Value
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if column != "" {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(b, &obj); err != nil {
				return nil, "", fmt.Errorf("%s:%d: not a JSON object with member %q: %w", input, line, column, err)
			}
			m, ok := obj[column]
			if !ok {
				values = append(values, pvariant.Value{}) // absent: a SQL NULL
				continue
			}
			b = m
		}
		v, err := jsonrow.ParseVariant(b) // lab write's checks, nesting limit included
		if err != nil {
			return nil, "", fmt.Errorf("%s:%d: %w", input, line, err)
		}
		values = append(values, v)
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s: %w", input, err)
	}
	return values, column, nil
}

func readVariantParquet(f *os.File, input, column string) ([]pvariant.Value, string, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", input, err)
	}
	if column == "" {
		for _, fl := range pf.Schema().Fields() {
			if lt := fl.Type().LogicalType(); !fl.Leaf() && lt != nil {
				if _, ok := lt.Value.(*format.VariantType); ok {
					column = fl.Name()
					break
				}
			}
		}
		if column == "" {
			return nil, "", usageError{fmt.Errorf("%s has no VARIANT column; name one with --column", input)}
		}
	}
	layout, rows, err := variant.ReadParquet(pf, column)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", input, err)
	}
	values := make([]pvariant.Value, len(rows))
	for i, r := range rows {
		if r.Null {
			continue
		}
		v, err := variant.Reconstruct(layout, r)
		if err != nil && !errors.Is(err, variant.ErrNullRow) {
			return nil, "", fmt.Errorf("%s: column %s, row %d: %w", input, column, i, err)
		}
		values[i] = v
	}
	return values, column, nil
}
