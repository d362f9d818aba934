package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/apache/iceberg-go"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/specread"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

func init() { commands = append(commands, newWriteCommand) }

// writeFormats are the --format values of lab write and lab read.
var writeFormats = []string{"auto", "parquet", "avro"}

func newWriteCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "write --schema SCHEMA [--input IN] OUT",
		Short: "Write JSON Lines or CSV rows to a Parquet or Avro data file through the registry",
		Long: `Write converts rows of JSON Lines or CSV into one Parquet or Avro data file,
through the registry's data writer for (format, *data.Record), and prints the
DataFile it produced: record count, size and per-column value and null counts.

The schema (--schema) is either
  - the compact form, e.g. 'id:long!,name:string,emb:vector<float32,768>,doc:variant,img:file'
  - Iceberg's schema JSON, inline ('{"type":"struct",...}') or from a file (@schema.json),
    whose top-level fields may use the lab's types "file", "file<uri,size>" and
    "vector<float32,768>" as their "type"
  - @FILE with the compact form in it.

Compact form:
` + indentBlock(schemaspec.CompactSyntax, "  ") + `

FILE and VECTOR columns become the Parquet model's declarations
(write.parquet.file-columns=img, write.parquet.vector-columns=emb:vector<float32,768>):
a FILE column is a struct of FILE children annotated FILE, a VECTOR column is
fixed[dim x width] annotated VECTOR. Plain Iceberg JSON can declare them with
--property instead, e.g. -p 'write.parquet.vector-columns=emb:vector<float32,768>,b:vector<int8,16>'
(the legacy emb:float32:768 is read too).
VARIANT columns are shredded with --shred-variants (Parquet only). In Avro
files the declarations go in the header (lab.file-columns, lab.vector-columns).

A VECTOR column's Parquet layout (spec/VECTOR.md) is a --property, per column
or as the default of every VECTOR column:
  write.parquet.vector-layout.column.COL=flba|list|vector-repetition|fixed-size-list
      (write.parquet.vector-layout.default; default flba)
  write.parquet.vector-encoding.column.COL=plain|byte-stream-split
      (write.parquet.vector-encoding.default; default plain)
  write.parquet.stats-enabled.column.COL=true   min/max statistics and a column
      index for the VECTOR column (default: none, only the null count)
The codec is --compression (or write.parquet.compression-codec and -level):
none, snappy, zstd or lz4 for files with VECTOR columns; zstd without a level
compresses VECTOR columns at level 1. lab read and lab vector search read
every layout; vector-repetition needs write.parquet.footer-annotations.

Rows (one JSON object per line; blank lines are skipped; a missing key is null):
  boolean true/false; int, long: integers, range-checked; float, double:
  numbers, range-checked, with "NaN", "Infinity", "-Infinity" as strings;
  decimal(P,S): "14.20" (at most S digits after the point, never rounded);
  date "2017-11-16"; time "22:31:08.123456"; timestamp "2017-11-16T22:31:08.123456";
  timestamptz "2017-11-16T22:31:08.123456+00:00"; *_ns: 9 fraction digits;
  string; uuid "f79c3e09-677c-4bbd-a479-3f349cb785e7"; binary, fixed: hex "000102ff";
  struct: an object by field name; list: an array; map: an object when the keys
  are strings, else {"keys":[...],"values":[...]} (Iceberg spec Appendix D);
  variant: any JSON value (null is a SQL NULL); VECTOR: an array of exactly dim
  numbers; FILE: {"uri","offset","size","content_type","checksum","inline" (hex)}.
CSV: the header row names the columns (any order; optional ones may be left
out); an empty cell is null; primitive cells hold the value without JSON quotes;
struct, list, map, variant, VECTOR and FILE cells hold JSON text.

FILE values must pass the FILE spec's rules, and their uris the same policy
lab file resolve applies: --file-scheme (default file), --file-root (default:
OUT's directory), --file-host for http(s), relative uris against --file-base
(default: OUT's directory). --check-references=false skips the policy.

The output appears only when every row is written: a bad row stops the write
with the input line and column at fault, and nothing is left at OUT. An
existing OUT is replaced only with --overwrite.

Exit status: 0 written; 1 bad input (a row, the input file, an existing OUT);
2 bad usage (flags, arguments, the schema).`,
		Example: `  lab write --schema 'id:long!,name:string' --input people.jsonl people.parquet
  lab write --schema 'id:long!,emb:vector<float32,4>,doc:variant,img:file' --input rows.jsonl --shred-variants rows.parquet
  lab write --schema @schema.json --format avro --input rows.csv rows.avro --json
  lab write --schema 'id:long' --property write.parquet.row-group-limit=1000 --compression snappy out.parquet < rows.jsonl
  lab write --schema 'id:long!,emb:vector<float32,768>' -p write.parquet.vector-layout.column.emb=list -p write.parquet.vector-encoding.column.emb=byte-stream-split --compression zstd --input rows.jsonl emb.parquet`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			props, err := parseWriteProperties(writeFlagArray(cmd, "property"))
			if err != nil {
				return err
			}
			o := writeOptions{
				out:         args[0],
				schema:      v.GetString("write.schema"),
				format:      v.GetString("write.format"),
				input:       writeFlagString(cmd, "input"),
				inputFormat: v.GetString("write.input_format"),
				overwrite:   writeFlagBool(cmd, "overwrite"),
				properties:  props,
				compression: v.GetString("write.compression"),
				shred:       v.GetBool("write.shred_variants"),
				checkRefs:   v.GetBool("write.check_references"),
				policy: resolveOptions{
					roots:   v.GetStringSlice("write.file_root"),
					schemes: v.GetStringSlice("write.file_scheme"),
					hosts:   v.GetStringSlice("write.file_host"),
					base:    v.GetString("write.file_base"),
				},
				json: v.GetBool("write.json"),
			}
			return runWrite(cmd, o)
		},
	}
	f := cmd.Flags()
	f.String("schema", "", "the schema: compact form, Iceberg schema JSON, or @FILE holding either (required)")
	f.String("format", "auto", "output format: auto (from OUT's extension), parquet or avro")
	f.StringP("input", "i", "-", "input file; - reads stdin")
	f.String("input-format", "auto", "input format: auto (csv for .csv, else jsonl), jsonl or csv")
	f.Bool("overwrite", false, "replace OUT if it exists")
	f.StringArrayP("property", "p", nil, "writer property key=value, e.g. write.parquet.row-group-limit=1000 (repeatable)")
	f.String("compression", "", "compression codec (Parquet: "+strings.Join(parquet.CompressionCodecs, ", ")+"; Avro: "+strings.Join(avro.CompressionCodecs, ", ")+"); default: the model's")
	f.Bool("shred-variants", false, "shred top-level VARIANT columns (Parquet: write.parquet.shred-variants)")
	f.Bool("check-references", true, "check FILE uris against the resolution policy (--file-scheme, --file-root, --file-host, --file-base)")
	f.StringSlice("file-root", nil, "directory FILE uris must stay inside (repeatable; default: OUT's directory)")
	f.StringSlice("file-scheme", []string{"file"}, "allowed FILE uri scheme: file, http or https (repeatable)")
	f.StringSlice("file-host", nil, "host[:port] http(s) FILE uris may name (repeatable)")
	f.String("file-base", "", "base for relative FILE uris: a directory or http(s) URL (default: OUT's directory)")
	f.Bool("json", false, "print the DataFile summary as JSON")
	addQuietFlag(cmd)
	for key, flag := range map[string]string{
		"schema": "schema", "format": "format", "input_format": "input-format", "compression": "compression",
		"shred_variants": "shred-variants", "check_references": "check-references", "file_root": "file-root",
		"file_scheme": "file-scheme", "file_host": "file-host", "file_base": "file-base", "json": "json",
	} {
		_ = v.BindPFlag("write."+key, f.Lookup(flag))
	}
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(writeFormats...))
	_ = cmd.RegisterFlagCompletionFunc("input-format", fixedCompletion("auto", "jsonl", "csv"))
	_ = cmd.RegisterFlagCompletionFunc("compression", fixedCompletion(slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(parquet.CompressionCodecs), avro.CompressionCodecs...))))...))
	_ = cmd.RegisterFlagCompletionFunc("file-scheme", fixedCompletion("file", "http", "https"))
	_ = cmd.RegisterFlagCompletionFunc("property", func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return keyCompletion(writePropertyKeys()...)(c, args, toComplete)
	})
	_ = cmd.MarkFlagFilename("input", "jsonl", "ndjson", "json", "csv")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"parquet", "avro"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

type writeOptions struct {
	out, schema, format, input, inputFormat string
	overwrite, shred, checkRefs, json       bool
	properties                              map[string]string
	compression                             string
	policy                                  resolveOptions
}

func runWrite(cmd *cobra.Command, o writeOptions) error {
	if strings.TrimSpace(o.schema) == "" {
		return usageError{errors.New("--schema is required: e.g. --schema 'id:long!,name:string' (see lab write --help)")}
	}
	spec, err := schemaspec.Load(o.schema)
	if err != nil {
		return usageError{fmt.Errorf("--schema: %w", err)}
	}
	if err := spec.Declare(o.properties); err != nil {
		return usageError{fmt.Errorf("--property: %w", err)}
	}
	format, err := writeOutputFormat(o.format, o.out)
	if err != nil {
		return err
	}
	if o.compression != "" {
		names := parquet.CompressionCodecs
		if format == registry.AVRO {
			names = avro.CompressionCodecs
		}
		if !slices.Contains(names, strings.ToLower(o.compression)) {
			return usageError{fmt.Errorf("--compression %s: %s takes %s", o.compression, format, strings.Join(names, ", "))}
		}
	}
	inFormat, err := writeInputFormat(o.inputFormat, o.input)
	if err != nil {
		return err
	}
	codec, err := jsonrow.New(spec)
	if err != nil {
		return usageError{fmt.Errorf("--schema: %w", err)}
	}
	outAbs, err := filepath.Abs(o.out)
	if err != nil {
		return usageError{err}
	}
	if o.checkRefs && len(file.Columns(spec.Decls)) > 0 {
		res, err := newCLIResolver(filepath.Dir(outAbs), o.policy)
		if err != nil {
			return fmt.Errorf("FILE reference policy: %w", err)
		}
		codec.Check = res.CheckReference
	}

	in, inName, closeIn, err := openWriteInput(cmd, o.input)
	if err != nil {
		return err
	}
	defer closeIn()

	b, err := registry.DataWriteBuilder[*data.Record](format, registry.LocalOutput(outAbs))
	if err != nil {
		return usageError{err}
	}
	b.Schema(spec.Schema).SetAll(writerProperties(format, spec, o))
	if format == registry.AVRO {
		header := specread.AvroHeader(spec)
		for _, k := range slices.Sorted(maps.Keys(header)) {
			b.Meta(k, header[k])
		}
	}
	if o.overwrite {
		b.Overwrite()
	}
	w, err := b.Build()
	if err != nil {
		if errors.Is(err, registry.ErrFileExists) {
			return fmt.Errorf("%s already exists; pass --overwrite to replace it", o.out)
		}
		return outputError(o.out, err)
	}
	prog := newProgress(cmd, -1, "rows written to "+o.out)
	rowErr := func(line int, err error) error {
		prog.Abort()
		_ = w.Abort()
		return fmt.Errorf("%s:%d: %w", inName, line, err)
	}
	write := func(line int, rec *data.Record) error {
		if err := w.Write(rec); err != nil {
			return rowErr(line, err)
		}
		prog.Add(1)
		return nil
	}
	if err := readRows(in, inFormat, codec, rowErr, write); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		prog.Abort()
		return outputError(o.out, err)
	}
	prog.Finish()
	// Settings Iceberg ignores with a warning (an invalid metrics mode):
	// written, and said.
	for _, warning := range w.Warnings() {
		fmt.Fprintf(cmd.ErrOrStderr(), "lab: warning: %s\n", warning)
	}
	return printDataFile(cmd.OutOrStdout(), o.out, spec.Schema, w.DataFile(), o.json)
}

// outputError names OUT as the user wrote it. A node --overwrite may not
// replace (a directory, FIFO, device or symlink) is said plainly, since
// "already exists; pass --overwrite" would be wrong advice.
func outputError(out string, err error) error {
	var nr *registry.NotReplaceableError
	if errors.As(err, &nr) {
		return fmt.Errorf("%s %w", out, nr)
	}
	return fmt.Errorf("%s: %w", out, err)
}

// writerProperties layers the writer properties: the schema's declarations,
// then --compression and --shred-variants, then --property, which wins.
func writerProperties(format registry.FileFormat, spec *schemaspec.Spec, o writeOptions) map[string]string {
	props := map[string]string{}
	if format == registry.PARQUET {
		maps.Copy(props, spec.Properties())
		if o.shred {
			props[parquet.PropShredVariants] = "true"
		}
	}
	if o.compression != "" {
		switch format {
		case registry.PARQUET:
			props[parquet.PropCompressionCodec] = o.compression
		case registry.AVRO:
			props[avro.CompressionCodecKey] = o.compression
		}
	}
	maps.Copy(props, o.properties)
	return props
}

// readRows decodes in (csv or jsonl, as writeInputFormat says) with codec,
// passing each record to write; an input error goes through rowErr, which
// names the input and line, and so do write's own.
func readRows(in io.Reader, inFormat string, codec *jsonrow.Codec, rowErr func(int, error) error, write func(int, *data.Record) error) error {
	read := codec.ReadJSONLines
	if inFormat == "csv" {
		read = codec.ReadCSV
	}
	err := read(in, write)
	if le, ok := err.(*jsonrow.LineError); ok { // not errors.As: write's errors are already rowErr's
		return rowErr(le.Line, le.Err)
	}
	return err
}

// openWriteInput opens --input, or stdin for "-"; the name is what errors show.
func openWriteInput(cmd *cobra.Command, path string) (io.Reader, string, func(), error) {
	if path == "-" || path == "" {
		return cmd.InOrStdin(), "stdin", func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("input: %w", err)
	}
	return f, path, func() { f.Close() }, nil
}

// writeOutputFormat resolves --format for OUT; auto goes by OUT's extension.
func writeOutputFormat(name, out string) (registry.FileFormat, error) {
	if name == "" || strings.EqualFold(name, "auto") {
		if f, ok := registry.FromFileName(out); ok {
			return f, nil
		}
		return registry.PARQUET, nil
	}
	f, err := registry.ParseFileFormat(name)
	if err != nil {
		return 0, usageError{fmt.Errorf("--format: %w", err)}
	}
	return f, nil
}

func writeInputFormat(name, input string) (string, error) {
	switch strings.ToLower(name) {
	case "", "auto":
		if strings.EqualFold(filepath.Ext(input), ".csv") {
			return "csv", nil
		}
		return "jsonl", nil
	case "jsonl", "json", "ndjson":
		return "jsonl", nil
	case "csv":
		return "csv", nil
	}
	return "", usageError{fmt.Errorf("--input-format %q: want auto, jsonl or csv", name)}
}

func parseWriteProperties(kvs []string) (map[string]string, error) {
	props := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageError{fmt.Errorf("--property %q: want key=value", kv)}
		}
		props[strings.TrimSpace(k)] = v
	}
	return props, nil
}

// dataFileSummary is what lab write prints; the JSON names are stable.
type dataFileSummary struct {
	Path          string          `json:"path"`
	Format        string          `json:"format"`
	RecordCount   int64           `json:"record_count"`
	FileSizeBytes int64           `json:"file_size_bytes"`
	Columns       []columnSummary `json:"columns"`
	SplitOffsets  []int64         `json:"split_offsets,omitempty"`
}

type columnSummary struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Values int64  `json:"values"`
	Nulls  int64  `json:"nulls"`
	NaNs   *int64 `json:"nans,omitempty"`
}

func printDataFile(w io.Writer, path string, schema *iceberg.Schema, df iceberg.DataFile, asJSON bool) error {
	s := dataFileSummary{
		Path: path, Format: string(df.FileFormat()), RecordCount: df.Count(),
		FileSizeBytes: df.FileSizeBytes(), SplitOffsets: df.SplitOffsets(),
	}
	values, nulls, nans := df.ValueCounts(), df.NullValueCounts(), df.NaNValueCounts()
	for _, id := range slices.Sorted(maps.Keys(values)) {
		name, _ := schema.FindColumnName(id)
		c := columnSummary{ID: id, Name: name, Values: values[id], Nulls: nulls[id]}
		if n, ok := nans[id]; ok {
			c.NaNs = &n
		}
		s.Columns = append(s.Columns, c)
	}
	if asJSON {
		return writeJSON(w, s)
	}
	fmt.Fprintf(w, "wrote %s: %s, %d records, %d bytes\n", s.Path, s.Format, s.RecordCount, s.FileSizeBytes)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COLUMN\tID\tVALUES\tNULLS\tNANS")
	for _, c := range s.Columns {
		nan := "-"
		if c.NaNs != nil {
			nan = fmt.Sprint(*c.NaNs)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", c.Name, c.ID, c.Values, c.Nulls, nan)
	}
	return tw.Flush()
}

func indentBlock(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// fixedCompletion completes a flag from a fixed list of values.
func fixedCompletion(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// writePropertyKeys are the --property keys completion offers: the Parquet
// writer's with every registered binding's (parquet.WriterPropertyKeys),
// then each value-level type's (coltype.Types), read when completing
// (after every init), so a new column type's keys complete without a change
// here; then Avro's.
func writePropertyKeys() []string {
	keys := parquet.WriterPropertyKeys()
	for _, t := range coltype.Types() {
		if !slices.Contains(keys, t.Property) {
			keys = append(keys, t.Property)
		}
	}
	return append(keys, avro.CompressionCodecKey, avro.CompressionLevelKey)
}

// keyCompletion completes "key=" prefixes, leaving the cursor after the "=".
func keyCompletion(keys ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		out := make([]string, len(keys))
		for i, k := range keys {
			if !strings.HasSuffix(k, ".") { // a per-column prefix: the column comes next
				k += "="
			}
			out[i] = k
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

func writeFlagString(cmd *cobra.Command, name string) string {
	s, _ := cmd.Flags().GetString(name)
	return s
}

func writeFlagBool(cmd *cobra.Command, name string) bool {
	b, _ := cmd.Flags().GetBool(name)
	return b
}

func writeFlagArray(cmd *cobra.Command, name string) []string {
	s, _ := cmd.Flags().GetStringArray(name)
	return s
}
