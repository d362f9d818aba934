package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/registry"
)

func init() { commands = append(commands, newSchemaCommand) }

func newSchemaCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schema FILE",
		Short: "Print a Parquet or Avro file's Iceberg schema, with the lab's types, in the form lab write --schema takes",
		Long: `Schema prints the Iceberg schema JSON (spec.md, Appendix C) that lab read
reads the file with: the file's field ids, or for a file written without
them the ids derived from its own schema (or those of --name-mapping).
VECTOR columns are typed "vector<element,dim>" and FILE columns
"file<children>", so the output is what lab write --schema @FILE takes and
write, read and write again give the same file schema.

Exit status: 0 printed; 1 the file is missing or not a readable Parquet or
Avro file, or has a column the lab cannot read (named); 2 bad usage.`,
		Example: `  lab schema duckdb.parquet > schema.json
  lab read duckdb.parquet | lab write --schema @schema.json copy.parquet`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			mapping, err := readNameMapping(cmd)
			if err != nil {
				return err
			}
			path := args[0]
			abs, err := filepath.Abs(path)
			if err != nil {
				return usageError{err}
			}
			in := registry.LocalInput(abs)
			format, err := readFileFormat(in, path, v.GetString("schema.format"))
			if err != nil {
				return err
			}
			spec, err := readFileSpec(in, path, format, mapping)
			if err != nil {
				return err
			}
			out, err := spec.JSON()
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.String("format", "auto", "input format: auto (from the file's magic bytes), parquet or avro")
	f.String("name-mapping", "", "an Iceberg name mapping (JSON) for a file without field ids")
	_ = v.BindPFlag("schema.format", f.Lookup("format"))
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(writeFormats...))
	return cmd
}
