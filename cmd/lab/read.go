package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/specread"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

func init() { commands = append(commands, newReadCommand) }

func newReadCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "read FILE",
		Short: "Print the rows of a Parquet or Avro data file as JSON Lines, read through the registry",
		Long: `Read opens a data file through the registry's read builder for
(format, *data.Record) and prints one JSON object per row, in the form lab
write reads (see lab write --help), so that write, read and write again give
the same rows. Every column is printed, in schema order, nulls as null.

VECTOR columns print as arrays of numbers: in Parquet they are found by their
VECTOR annotation, in Avro by the lab.vector-columns header key lab write
leaves. FILE columns print as objects of their children. Floats that JSON
numbers cannot hold print as "NaN", "Infinity" and "-Infinity".

--format auto tells Parquet from Avro by the file's first bytes (PAR1, Obj 1).
--columns projects top-level or dotted nested columns (address.zip); the
reader reads only their column chunks.

Exit status: 0 read; 1 the file is missing or not a readable Parquet or Avro
file (truncated, corrupt); 2 bad usage (flags, an unknown column).`,
		Example: `  lab read people.parquet
  lab read rows.avro --columns id,emb --limit 10
  lab read rows.parquet | lab write --schema @schema.json copy.parquet`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			limit, _ := cmd.Flags().GetInt64("limit")
			if limit < 0 {
				return usageError{fmt.Errorf("--limit %d is negative", limit)}
			}
			cols, _ := cmd.Flags().GetStringSlice("columns")
			opts := readCLIOptions{columns: cols, limit: limit}
			opts.variantInvalid, _ = cmd.Flags().GetString("variant-invalid")
			if _, err := variant.ParsePolicy(opts.variantInvalid); err != nil {
				return usageError{fmt.Errorf("--variant-invalid: %w", err)}
			}
			var err error
			if opts.nameMapping, err = readNameMapping(cmd); err != nil {
				return err
			}
			return runRead(cmd, args[0], v.GetString("read.format"), opts)
		},
	}
	f := cmd.Flags()
	f.String("variant-invalid", "error", "a VARIANT value the spec forbids: error (name the row and path), repair-key-order (also read objects whose keys are out of order, which changes nothing they mean), or null (read it as null and report it on stderr)")
	f.String("name-mapping", "", "an Iceberg name mapping (JSON, as the schema.name-mapping.default table property holds it) for a file without field ids; default: ids derived from the file's own schema")
	f.String("format", "auto", "input format: auto (from the file's magic bytes), parquet or avro")
	f.StringSlice("columns", nil, "columns to read, comma-separated (default: all)")
	f.Int64("limit", 0, "read at most N rows (0: all)")
	addQuietFlag(cmd)
	_ = v.BindPFlag("read.format", f.Lookup("format"))
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(writeFormats...))
	_ = cmd.RegisterFlagCompletionFunc("columns", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("limit", cobra.NoFileCompletions)
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return []string{"parquet", "avro"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

// readCLIOptions are lab read's flags past the file and format.
type readCLIOptions struct {
	columns        []string
	limit          int64
	variantInvalid string
	nameMapping    iceberg.NameMapping
}

// readNameMapping reads --name-mapping: a file holding Iceberg's name
// mapping JSON (spec.md "Column Projection", table property
// schema.name-mapping.default).
func readNameMapping(cmd *cobra.Command) (iceberg.NameMapping, error) {
	path, _ := cmd.Flags().GetString("name-mapping")
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("--name-mapping: %w", err)}
	}
	var m iceberg.NameMapping
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, usageError{fmt.Errorf("--name-mapping %s: not an Iceberg name mapping: %w", path, err)}
	}
	if len(m) == 0 {
		return nil, usageError{fmt.Errorf("--name-mapping %s maps no field", path)}
	}
	return m, nil
}

func runRead(cmd *cobra.Command, path, formatName string, opts readCLIOptions) error {
	columns, limit := opts.columns, opts.limit
	abs, err := filepath.Abs(path)
	if err != nil {
		return usageError{err}
	}
	in := registry.LocalInput(abs)
	format, err := readFileFormat(in, path, formatName)
	if err != nil {
		return err
	}
	b, err := registry.NewReadBuilder[*data.Record](format, in)
	if err != nil {
		return usageError{err}
	}
	if opts.nameMapping != nil {
		b.WithNameMapping(opts.nameMapping)
	}
	if format == registry.PARQUET {
		b.Set(variant.ReadPolicyKey, opts.variantInvalid)
	}
	var spec *schemaspec.Spec
	var reader registry.Reader[*data.Record]
	if format == registry.PARQUET && len(columns) == 0 {
		// The reader without a projection reads the schema readFileSpec
		// would derive (it builds the same reader), so it serves for both.
		if spec, reader, err = specread.OpenParquet(in, path, b.ReuseContainers()); err != nil {
			return err
		}
		defer reader.Close()
	} else if spec, err = readFileSpec(in, path, format, opts.nameMapping); err != nil {
		return err
	}
	switch {
	case reader != nil: // built above
	case len(columns) > 0:
		// The Avro reader rebuilds the projection for its name mapping.
		if spec, err = selectColumns(spec, path, columns); err != nil {
			return err
		}
		b.Project(spec.Schema)
	default:
		b.Project(spec.Schema)
	}
	codec, err := jsonrow.New(spec)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if reader == nil {
		if reader, err = b.ReuseContainers().Build(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer reader.Close()
	}

	out := newJSONLinesOut(cmd, codec, "rows read from "+path)
	for row := int64(0); limit == 0 || row < limit; row++ {
		rec, err := reader.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var writeErr error
		if err == nil {
			err, writeErr = out.write(rec)
		}
		if inv, ok := reader.(interface{ TakeInvalid() []parquet.InvalidValue }); ok {
			for _, v := range inv.TakeInvalid() {
				fmt.Fprintf(cmd.ErrOrStderr(), "lab: %s: %s\n", path, v)
			}
		}
		if err != nil {
			return out.fail(fmt.Errorf("%s: row %d: %w", path, row, err))
		}
		if writeErr != nil {
			return out.fail(writeErr)
		}
	}
	return out.finish()
}

// readFileFormat resolves --format for a file; auto asks the registry, which
// knows the magic each imported format registered.
func readFileFormat(in registry.InputFile, shown, name string) (registry.FileFormat, error) {
	if name != "" && !strings.EqualFold(name, "auto") {
		f, err := registry.ParseFileFormat(name)
		if err != nil {
			return 0, usageError{fmt.Errorf("--format: %w", err)}
		}
		return f, nil
	}
	r, _, err := in.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	f, err := registry.DetectFormat(r)
	var unknown *registry.UnknownFormatError
	if !errors.As(err, &unknown) {
		if err != nil {
			return 0, fmt.Errorf("%s: %w", shown, err)
		}
		return f, nil
	}
	// Named as a user reads them: "Parquet (starts with PAR1)", "Avro
	// (starts with Obj 0x01)".
	printable := func(m string) string {
		var b strings.Builder
		for i := 0; i < len(m); i++ {
			if c := m[i]; c >= 0x21 && c < 0x7f {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, " 0x%02x", c)
			}
		}
		return strings.TrimSpace(b.String())
	}
	known := make([]string, len(unknown.Known))
	longest := 0
	for i, m := range unknown.Known {
		name := m.Format.String()
		known[i] = fmt.Sprintf("%s%s (starts with %s)", name[:1], strings.ToLower(name[1:]), printable(m.Magic))
		longest = max(longest, len(m.Magic))
	}
	if len(known) == 0 {
		return 0, fmt.Errorf("%s: %w", shown, err)
	}
	if unknown.Size >= 0 && len(unknown.Head) < longest {
		return 0, fmt.Errorf("%s is %d bytes, too short for %s", shown, unknown.Size, strings.Join(known, " or "))
	}
	what := "neither " + strings.Join(known, " nor ")
	if len(known) == 1 {
		what = "not " + known[0]
	} else if len(known) > 2 {
		what = "none of " + strings.Join(known, ", ")
	}
	return 0, fmt.Errorf("%s is %s: it starts with %q", shown, what, unknown.Head)
}

// readFileSpec is the file's schema with its FILE and VECTOR columns
// (formats/specread); a format without one is a usage error.
func readFileSpec(in registry.InputFile, shown string, format registry.FileFormat, mapping iceberg.NameMapping) (*schemaspec.Spec, error) {
	spec, err := specread.Read(in, shown, format, mapping)
	if errors.Is(err, specread.ErrUnsupportedFormat) {
		return nil, usageError{fmt.Errorf("lab read reads Parquet and Avro files, not %s", format)}
	}
	return spec, err
}

// selectColumns is spec narrowed to the named columns (dotted for nested
// fields), its columns of registered types kept (a FILE column with the
// children selected); an unknown name is a usage error naming the file's
// columns.
func selectColumns(spec *schemaspec.Spec, shown string, columns []string) (*schemaspec.Spec, error) {
	sel, err := spec.Schema.Select(true, columns...)
	if err != nil {
		return nil, usageError{fmt.Errorf("--columns: %w (columns: %s)", err, strings.Join(topLevelNames(spec.Schema), ", "))}
	}
	var decls []coltype.Decl
	for _, d := range spec.Decls {
		if f, ok := sel.FindFieldByName(d.ColumnName()); ok {
			if st, ok := f.Type.(*iceberg.StructType); ok && len(st.FieldList) == 0 {
				continue // nothing of the column is read
			}
			decls = append(decls, d)
		}
	}
	out, err := schemaspec.FromSchema(sel, decls)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return out, nil
}
