package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/iceberg-go"
	itable "github.com/apache/iceberg-go/table"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/table"
)

func init() { commands = append(commands, newTableCommand) }

// tableCatalogKey is the lab.yaml map of catalog properties (catalog: {type:
// rest, uri: ...}); --catalog k=v,... goes on top of it.
const tableCatalogKey = "catalog"

func newTableCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "table",
		Short: "Iceberg tables: create, append, scan, search, delete, describe, list and drop, in any iceberg-go catalog",
		Long: `Table works with Apache Iceberg tables in an iceberg-go catalog. Rows are
written through the registry's data writer and committed one snapshot per
append; a scan is iceberg-go's planning (manifest, partition and metrics
pruning) and then one registry read per planned file.

The catalog (--catalog k=v,..., or catalog: in lab.yaml) is any iceberg-go
catalog, chosen by its properties: type=rest,uri=http://host:8181 opens a
REST catalog. Without a type or uri it is the embedded SQL catalog on
SQLite, ./warehouse/catalog.db, warehouse ./warehouse (warehouse=DIR moves
it); lab table create makes it. Catalog settings in a lab.yaml found in the
working directory count only when it is named with --config or trusted with
--trust-config, since they decide what the lab opens and where it sends
credentials.

Tables are format-version 3 (VARIANT needs it). VECTOR columns are
fixed[dim x width] with counts metrics; FILE columns are structs; the lab
types are declared in table properties (write.parquet.file-columns,
write.parquet.vector-columns). Data files keep FILE and VECTOR out of their
footers' logical types, in the key/value mirror only, because arrow-go (so
iceberg-go's scan) and released parquet-java crash on logical types they do
not know; write.parquet.footer-annotations=true opts a table in.

Exit status: 0 done; 1 failure (a missing catalog or table, a data file that
does not match or is missing, a failed commit); 2 bad usage.`,
		Example: `  lab table create lab.docs --schema 'id:long!,emb:vector<float32,768>,doc:variant,img:file' --partition 'bucket(16, id)'
  lab table append lab.docs --input rows.jsonl
  lab table scan lab.docs --columns id,doc --filter 'id < 100' --limit 10`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringArray("catalog", nil, "catalog properties k=v,... (repeatable), e.g. type=rest,uri=http://localhost:8181 or warehouse=DIR; default: the embedded SQLite catalog in ./warehouse")
	cmd.AddCommand(newTableCreateCommand(v), newTableAppendCommand(v), newTableScanCommand(v),
		newTableSearchCommand(v), newTableDeleteCommand(v), newTableDescribeCommand(v), newTableFilesCommand(v), newTableListCommand(v), newTableDropCommand(v))
	return cmd
}

// catalogProperties are the catalog properties: lab.yaml's catalog: map
// (from a named or trusted file only), then --catalog.
func catalogProperties(cmd *cobra.Command, v *viper.Viper) (map[string]string, error) {
	props := map[string]string{}
	if v.InConfig(tableCatalogKey) {
		load := loadedConfig(cmd)
		if load.named || load.trusted {
			for k, val := range v.GetStringMapString(tableCatalogKey) {
				props[k] = val
			}
		} else {
			fmt.Fprintf(cmd.ErrOrStderr(), "lab: warning: %s: ignoring %s: it decides which catalog the lab opens, and the file was found in the working directory, not named with --config (pass --trust-config to take it)\n",
				load.file, tableCatalogKey)
		}
	}
	flags, _ := cmd.Flags().GetStringArray("catalog")
	for _, arg := range flags {
		kvs, err := parseCatalogFlag(arg)
		if err != nil {
			return nil, usageError{err}
		}
		maps.Copy(props, kvs)
	}
	return props, nil
}

// parseCatalogFlag reads k=v,k=v; a piece without "=" belongs to the value
// before it (a value may hold commas).
func parseCatalogFlag(s string) (map[string]string, error) {
	out := map[string]string{}
	last := ""
	for _, part := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(part, "=")
		if !ok {
			if last == "" {
				return nil, fmt.Errorf("--catalog %q: want key=value[,key=value...]", s)
			}
			out[last] += "," + part
			continue
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, fmt.Errorf("--catalog %q: empty key", s)
		}
		out[k], last = val, k
	}
	return out, nil
}

// openTableCatalog opens the catalog; create lets it make the embedded one.
func openTableCatalog(cmd *cobra.Command, v *viper.Viper, create bool) (*table.Catalog, error) {
	props, err := catalogProperties(cmd, v)
	if err != nil {
		return nil, err
	}
	var opts []table.OpenOption
	if create {
		opts = append(opts, table.CreateIfMissing())
	}
	return table.OpenCatalog(cmd.Context(), props, opts...)
}

// loadTable opens the catalog and the table named by arg.
func loadTable(cmd *cobra.Command, v *viper.Viper, arg string) (*table.Catalog, *table.Table, error) {
	id, err := table.ParseIdentifier(arg)
	if err != nil {
		return nil, nil, usageError{err}
	}
	cat, err := openTableCatalog(cmd, v, false)
	if err != nil {
		return nil, nil, err
	}
	t, err := cat.Load(cmd.Context(), id)
	if err != nil {
		cat.Close()
		return nil, nil, err
	}
	return cat, t, nil
}

func newTableCreateCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "create NS.NAME --schema SCHEMA [--partition SPEC] [--property k=v]",
		Short: "Create a format-version 3 table from a lab schema",
		Long: `Create makes a table, and its namespace if the catalog lacks it, from the
schema lab write takes (--schema: the compact form, Iceberg schema JSON, or
@FILE; see lab write --help). VECTOR columns become fixed[dim x width] with
write.metadata.metrics.column.<col>=counts (their bounds would be kilobytes per
file that no planner uses), VARIANT columns v3 variant, FILE columns the
struct of FILE children. --property sets table properties (format-version=2
for a table without VARIANT columns, write.parquet.footer-annotations=true,
write.parquet.compression-codec=zstd, ...).

Partition spec (--partition):
` + indentBlock(table.PartitionSyntax, "  "),
		Example: `  lab table create lab.events --schema 'id:long!,ts:timestamptz,emb:vector<float32,768>' --partition 'day(ts), bucket(8, id)'
  lab table create lab.docs --schema @schema.json --property write.parquet.compression-codec=zstd`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := table.ParseIdentifier(args[0])
			if err != nil {
				return usageError{err}
			}
			schemaArg, _ := cmd.Flags().GetString("schema")
			if strings.TrimSpace(schemaArg) == "" {
				return usageError{errors.New("--schema is required: e.g. --schema 'id:long!,emb:vector<float32,768>' (see lab write --help)")}
			}
			spec, err := schemaspec.Load(schemaArg)
			if err != nil {
				return usageError{fmt.Errorf("--schema: %w", err)}
			}
			props, err := parseWriteProperties(writeFlagArray(cmd, "property"))
			if err != nil {
				return err
			}
			partition, _ := cmd.Flags().GetString("partition")
			if _, err := table.ParsePartitionSpec(partition, spec.Schema); err != nil {
				return usageError{fmt.Errorf("--partition: %w", err)}
			}
			location, _ := cmd.Flags().GetString("location")
			cat, err := openTableCatalog(cmd, v, true)
			if err != nil {
				return err
			}
			defer cat.Close()
			t, err := cat.Create(cmd.Context(), id, table.CreateOptions{Spec: spec, Partition: partition, Properties: props, Location: location})
			if err != nil {
				return err
			}
			if writeFlagBool(cmd, "json") {
				d, err := t.Describe()
				if err != nil {
					return err
				}
				return writeJSON(cmd.OutOrStdout(), d)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s: format-version %d at %s in %s\n", t.Name(), t.FormatVersion(), t.Location(), cat)
			return nil
		},
	}
	f := cmd.Flags()
	f.String("schema", "", "the schema: compact form, Iceberg schema JSON, or @FILE holding either (required)")
	f.String("partition", "", "partition spec, e.g. 'region, day(ts), bucket(16, id)'")
	f.StringArrayP("property", "p", nil, "table property key=value (repeatable)")
	f.String("location", "", "the table's location (default: the catalog's)")
	f.Bool("json", false, "print the new table's description as JSON")
	return cmd
}

func newTableAppendCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "append NS.NAME [--input ROWS.jsonl|ROWS.csv] [FILE.parquet...]",
		Short: "Append rows (JSON Lines or CSV) and existing Parquet data files in one snapshot",
		Long: `Append writes the rows of --input (JSON Lines, or CSV for .csv; - or no
--input and no files reads stdin) through the registry's Parquet data writer
into the table's data location, one file per partition, and commits them,
with any FILE.parquet given, in one snapshot. Rows take the form lab write
reads, in the table's schema (see lab write --help).

Each data file is complete on storage before the commit names it. A bad row
stops the append with the input line at fault and leaves no file behind.
FILE.parquet files are committed where they are, after checks: the file is
there, its schema matches the table's (field ids, or names for a file
without them), its footer carries no logical type iceberg-go would crash on
(FILE, VECTOR) unless the table opts in, and it holds one partition.`,
		Example: `  lab table append lab.docs --input rows.jsonl
  lab table append lab.docs part-0.parquet part-1.parquet
  lab read old.parquet | lab table append lab.docs`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			input, _ := cmd.Flags().GetString("input")
			inputFormat, _ := cmd.Flags().GetString("input-format")
			files := args[1:]
			if input == "" && len(files) == 0 {
				input = "-"
			}
			inFormat := ""
			if input != "" {
				var err error
				if inFormat, err = writeInputFormat(inputFormat, input); err != nil {
					return err
				}
			}
			locations := make([]string, len(files))
			for i, f := range files {
				locations[i] = tableFileLocation(f)
			}
			cat, t, err := loadTable(cmd, v, args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			var rows table.RowSource
			if input != "" {
				spec, err := t.Spec()
				if err != nil {
					return err
				}
				codec, err := jsonrow.New(spec)
				if err != nil {
					return fmt.Errorf("table %s: %w", t.Name(), err)
				}
				in, inName, closeIn, err := openWriteInput(cmd, input)
				if err != nil {
					return err
				}
				defer closeIn()
				prog := newProgress(cmd, -1, "rows appended to "+t.Name())
				defer prog.Finish()
				rows = func(write func(*data.Record) error) error {
					rowErr := func(line int, err error) error {
						prog.Abort()
						return fmt.Errorf("%s:%d: %w", inName, line, err)
					}
					w := func(line int, rec *data.Record) error {
						if err := write(rec); err != nil {
							return rowErr(line, err)
						}
						prog.Add(1)
						return nil
					}
					return readRows(in, inFormat, codec, rowErr, w)
				}
			}
			c, err := t.Append(cmd.Context(), rows, locations, nil)
			if err != nil {
				return err
			}
			return printCommit(cmd.OutOrStdout(), c, writeFlagBool(cmd, "json"))
		},
	}
	f := cmd.Flags()
	f.StringP("input", "i", "", "rows to append: JSON Lines or CSV; - reads stdin (the default without FILE.parquet arguments)")
	f.String("input-format", "auto", "input format: auto (csv for .csv, else jsonl), jsonl or csv")
	f.Bool("json", false, "print the commit as JSON")
	addQuietFlag(cmd)
	_ = cmd.MarkFlagFilename("input", "jsonl", "ndjson", "json", "csv")
	return cmd
}

// tableFileLocation names a local path as the table does: an absolute
// file:// URI. A location with a scheme (s3://...) stays as given.
func tableFileLocation(path string) string {
	if strings.Contains(path, "://") {
		return path
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "file://" + path
}

// commitSummary is what lab table append prints; the JSON names are stable.
type commitSummary struct {
	Table      string            `json:"table"`
	SnapshotID int64             `json:"snapshot_id,omitempty"`
	Records    int64             `json:"records"`
	Files      []commitFile      `json:"files"`
	WriteMS    float64           `json:"write_ms"`
	CommitMS   float64           `json:"commit_ms"`
	Summary    map[string]string `json:"summary,omitempty"`
}

type commitFile struct {
	Path       string `json:"path"`
	Records    int64  `json:"records"`
	Bytes      int64  `json:"bytes"`
	FirstRowID *int64 `json:"first_row_id,omitempty"`
}

func printCommit(w io.Writer, c *table.Commit, asJSON bool) error {
	s := commitSummary{Table: c.Table, SnapshotID: c.SnapshotID, Records: c.Records, Files: []commitFile{},
		WriteMS: ms(c.Write), CommitMS: ms(c.CommitTime)}
	for _, df := range c.Files {
		s.Files = append(s.Files, commitFile{Path: df.FilePath(), Records: df.Count(), Bytes: df.FileSizeBytes(), FirstRowID: df.FirstRowID()})
	}
	if asJSON {
		return writeJSON(w, s)
	}
	if c.SnapshotID == 0 {
		fmt.Fprintf(w, "nothing to append to %s: no rows and no files\n", c.Table)
		return nil
	}
	fmt.Fprintf(w, "appended %d records in %d file(s) to %s: snapshot %d (write %.1f ms, commit %.1f ms)\n",
		c.Records, len(c.Files), c.Table, c.SnapshotID, s.WriteMS, s.CommitMS)
	for _, f := range s.Files {
		first := ""
		if f.FirstRowID != nil {
			first = fmt.Sprintf(", first_row_id %d", *f.FirstRowID)
		}
		fmt.Fprintf(w, "  %s: %d records, %d bytes%s\n", f.Path, f.Records, f.Bytes, first)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func newTableScanCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scan NS.NAME [--columns ...] [--filter EXPR] [--snapshot ID] [--limit N]",
		Short: "Print a table's rows as JSON Lines: iceberg-go's planning, then one registry read per file",
		Long: `Scan plans with iceberg-go (manifests, partitions and column metrics prune
files), then reads each planned file through the registry's read builder
for its format and *data.Record, with the projection, the file's split and
the filter, several files at once, and prints one JSON object per row in
task order, in the form lab read prints and lab write reads.

--filter is applied in planning, to row groups, and to every row. Syntax:
` + indentBlock(table.FilterSyntax, "  ") + `

--snapshot reads an older snapshot, with the schema it was written with
(lab table describe lists them). Delete files are applied: deletion
vectors and position deletes by row position, equality deletes by key.`,
		Example: `  lab table scan lab.docs --limit 5
  lab table scan lab.docs --columns id,img.uri --filter "region = 'eu' and id >= 100"
  lab table scan lab.events --filter "variant_get(v, '$.user.id', 'long') > 1000"
  lab table scan lab.docs --snapshot 3051729675574597004 | lab write --schema @schema.json copy.parquet`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			limit, _ := cmd.Flags().GetInt64("limit")
			if limit < 0 {
				return usageError{fmt.Errorf("--limit %d is negative", limit)}
			}
			cols, _ := cmd.Flags().GetStringSlice("columns")
			filterText, _ := cmd.Flags().GetString("filter")
			snapText, _ := cmd.Flags().GetString("snapshot")
			ci, _ := cmd.Flags().GetBool("case-insensitive")
			o := table.ScanOptions{Columns: cols, Limit: limit, CaseInsensitive: ci}
			if snapText != "" {
				id, err := strconv.ParseInt(snapText, 10, 64)
				if err != nil || id == 0 {
					return usageError{fmt.Errorf("--snapshot %q: want a snapshot id (lab table describe lists them)", snapText)}
				}
				o.SnapshotID = id
			}
			cat, t, err := loadTable(cmd, v, args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			if filterText != "" {
				schema := t.Iceberg().Schema()
				if o.SnapshotID != 0 {
					if s, err := t.Snapshot(o.SnapshotID); err == nil && s.SchemaID != nil {
						if sc, ok := t.Iceberg().Schemas()[*s.SchemaID]; ok {
							schema = sc
						}
					}
				}
				if o.Filter, err = table.ParseFilter(filterText, schema, !ci); err != nil {
					return usageError{fmt.Errorf("--filter: %w", err)}
				}
			}
			return runTableScan(cmd, t, o)
		},
	}
	f := cmd.Flags()
	f.StringSlice("columns", nil, "columns to read, comma-separated, dotted for nested fields (default: all)")
	f.String("filter", "", "row filter, e.g. \"id > 10 and region = 'eu'\" (see --help)")
	f.String("snapshot", "", "snapshot id to read (default: the current snapshot)")
	f.Int64("limit", 0, "print at most N rows (0: all)")
	f.Bool("case-insensitive", false, "match column names in --columns and --filter ignoring case")
	addQuietFlag(cmd)
	_ = cmd.RegisterFlagCompletionFunc("columns", cobra.NoFileCompletions)
	return cmd
}

func runTableScan(cmd *cobra.Command, t *table.Table, o table.ScanOptions) error {
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	s, err := t.Scan(ctx, o)
	if errors.Is(err, table.ErrColumns) {
		return usageError{fmt.Errorf("--columns: %w", err)}
	}
	if err != nil {
		return err
	}
	codec, err := jsonrow.New(s.Spec)
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Name(), err)
	}
	out := newJSONLinesOut(cmd, codec, "rows read from "+t.Name())
	for rec, err := range s.Rows(ctx) {
		if err != nil {
			return out.fail(err)
		}
		if encErr, writeErr := out.write(rec); encErr != nil || writeErr != nil {
			return out.fail(errors.Join(encErr, writeErr))
		}
	}
	// The rows are right either way; a predicate not pushed down cost a
	// full read of the files it was not pushed into.
	for _, w := range s.Warnings() {
		fmt.Fprintf(cmd.ErrOrStderr(), "lab: warning: %s\n", w)
	}
	return out.finish()
}

func newTableDescribeCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "describe NS.NAME [--json]",
		Short: "Print a table's schema, partition spec, properties and snapshots",
		Example: `  lab table describe lab.docs
  lab table describe lab.docs --json | jq '.snapshots[-1].id'`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, t, err := loadTable(cmd, v, args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			d, err := t.Describe()
			if err != nil {
				return err
			}
			if writeFlagBool(cmd, "json") {
				return writeJSON(cmd.OutOrStdout(), d)
			}
			return printDescription(cmd.OutOrStdout(), d)
		},
	}
	cmd.Flags().Bool("json", false, "print the description as JSON")
	return cmd
}

func printDescription(w io.Writer, d *table.Description) error {
	fmt.Fprintf(w, "table %s\n  location: %s\n  format-version: %d\n", d.Name, d.Location, d.FormatVersion)
	if d.CurrentSnapshotID != nil {
		fmt.Fprintf(w, "  current snapshot: %d\n", *d.CurrentSnapshotID)
	}
	if d.FormatVersion >= 3 {
		fmt.Fprintf(w, "  next row id: %d\n", d.NextRowID)
	}
	fmt.Fprintf(w, "  footer annotations: %v (%s)\n", d.FooterAnnotations, table.PropFooterAnnotations)
	fmt.Fprintln(w, "schema:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	labTypes := columnTypeNames(d.Columns)
	for _, f := range d.Schema.Fields() {
		typ := f.Type.String()
		if lt, ok := labTypes[f.Name]; ok {
			typ = lt + ": " + typ
		}
		req := "optional"
		if f.Required {
			req = "required"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", f.ID, f.Name, req, typ)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "partition spec: %s\n", partitionString(d.Partition))
	fmt.Fprintln(w, "properties:")
	for _, k := range slices.Sorted(maps.Keys(d.Properties)) {
		val := d.Properties[k]
		if len(val) > 120 {
			val = val[:117] + "..."
		}
		fmt.Fprintf(w, "  %s=%s\n", k, val)
	}
	fmt.Fprintf(w, "snapshots: %d\n", len(d.Snapshots))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(d.Snapshots) > 0 {
		fmt.Fprintln(tw, "  ID\tPARENT\tTIME\tOPERATION\tADDED FILES\tADDED RECORDS\tFIRST ROW ID")
	}
	for _, s := range d.Snapshots {
		parent, first := "-", "-"
		if s.ParentID != nil {
			parent = strconv.FormatInt(*s.ParentID, 10)
		}
		if s.FirstRowID != nil {
			first = strconv.FormatInt(*s.FirstRowID, 10)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, parent, s.Time.Format(time.RFC3339), s.Operation,
			orDash(s.Summary["added-data-files"]), orDash(s.Summary["added-records"]), first)
	}
	return tw.Flush()
}

// columnTypeNames maps each column of a registered column type
// (table.Description.Columns) to the type as describe shows it: the
// spelling its property entry gives ("vector<float32,3>"), or the type's
// name for an entry that is the bare column name ("file").
func columnTypeNames(columns map[string][]string) map[string]string {
	out := map[string]string{}
	for name, entries := range columns {
		for _, e := range coltype.ParseEntries(strings.Join(entries, ",")) {
			out[e.Column] = name
			if e.Spelling != "" {
				out[e.Column] = e.Spelling
			}
		}
	}
	return out
}

func partitionString(spec iceberg.PartitionSpec) string {
	if spec.IsUnpartitioned() {
		return "unpartitioned"
	}
	var parts []string
	for _, f := range spec.Fields() {
		parts = append(parts, fmt.Sprintf("%s=%s(%d) [%d]", f.Name, f.Transform, f.SourceID(), f.FieldID))
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newTableFilesCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "files NS.NAME [--snapshot ID] [--json]",
		Short: "List a snapshot's data and delete files with their metrics",
		Example: `  lab table files lab.docs
  lab table files lab.docs --snapshot 3051729675574597004 --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var snap int64
			if s, _ := cmd.Flags().GetString("snapshot"); s != "" {
				id, err := strconv.ParseInt(s, 10, 64)
				if err != nil || id == 0 {
					return usageError{fmt.Errorf("--snapshot %q: want a snapshot id", s)}
				}
				snap = id
			}
			cat, t, err := loadTable(cmd, v, args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			files, err := t.Files(cmd.Context(), snap)
			if err != nil {
				return err
			}
			if files == nil {
				files = []table.FileInfo{}
			}
			if writeFlagBool(cmd, "json") {
				return writeJSON(cmd.OutOrStdout(), files)
			}
			return printFiles(cmd.OutOrStdout(), t.Name(), files)
		},
	}
	cmd.Flags().String("snapshot", "", "snapshot id (default: the current snapshot)")
	cmd.Flags().Bool("json", false, "print the files as JSON")
	return cmd
}

func printFiles(w io.Writer, name string, files []table.FileInfo) error {
	if len(files) == 0 {
		fmt.Fprintf(w, "%s has no files\n", name)
		return nil
	}
	for _, f := range files {
		fmt.Fprintf(w, "%s\n  %s %s, %d records, %d bytes", f.Path, f.Content, f.Format, f.Records, f.Bytes)
		if f.FirstRowID != nil {
			fmt.Fprintf(w, ", first_row_id %d", *f.FirstRowID)
		}
		if len(f.Partition) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(f.Partition)) {
				parts = append(parts, fmt.Sprintf("%s=%v", k, f.Partition[k]))
			}
			fmt.Fprintf(w, ", partition %s", strings.Join(parts, "/"))
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  COLUMN\tID\tBYTES\tVALUES\tNULLS\tNANS\tLOWER\tUPPER")
		for _, c := range f.Columns {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.ID, num(c.Bytes), num(c.Values), num(c.Nulls), num(c.NaNs), orDash(short(c.Lower)), orDash(short(c.Upper)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func num(p *int64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatInt(*p, 10)
}

func short(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

func newTableListCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [NS]",
		Short: "List the tables of a namespace, or of every namespace",
		Example: `  lab table list
  lab table list lab --catalog type=rest,uri=http://localhost:8181`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ns itable.Identifier
			if len(args) == 1 {
				var err error
				if ns, err = table.ParseNamespace(args[0]); err != nil {
					return usageError{err}
				}
			}
			cat, err := openTableCatalog(cmd, v, false)
			if err != nil {
				return err
			}
			defer cat.Close()
			ids, err := cat.List(cmd.Context(), ns)
			if err != nil {
				return err
			}
			names := make([]string, len(ids))
			for i, id := range ids {
				names[i] = strings.Join(id, ".")
			}
			if writeFlagBool(cmd, "json") {
				return writeJSON(cmd.OutOrStdout(), names)
			}
			for _, n := range names {
				fmt.Fprintln(cmd.OutOrStdout(), n)
			}
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print the names as a JSON array")
	return cmd
}

func newTableDropCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drop NS.NAME [--purge]",
		Short: "Drop a table from the catalog; --purge deletes its files too",
		Example: `  lab table drop lab.scratch
  lab table drop lab.scratch --purge`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := table.ParseIdentifier(args[0])
			if err != nil {
				return usageError{err}
			}
			cat, err := openTableCatalog(cmd, v, false)
			if err != nil {
				return err
			}
			defer cat.Close()
			purge := writeFlagBool(cmd, "purge")
			if err := cat.Drop(cmd.Context(), id, purge); err != nil {
				return err
			}
			what := "dropped %s from %s (its files stay; --purge deletes them)\n"
			if purge {
				what = "dropped %s from %s and deleted its files\n"
			}
			fmt.Fprintf(cmd.OutOrStdout(), what, args[0], cat)
			return nil
		},
	}
	cmd.Flags().Bool("purge", false, "delete the table's data and metadata files too")
	return cmd
}
