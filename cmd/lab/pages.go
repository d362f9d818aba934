package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
)

func init() { commands = append(commands, newPagesCommand) }

func newPagesCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pages FILE.parquet",
		Short: "Show every page header of every column chunk, and the column and offset indexes",
		Long: `pages walks each column chunk of a Parquet file, as parquet-cli's pages
command does, and prints per page its header: type, offset, header length,
compressed and uncompressed sizes, values, encoding, how the levels are stored
(v1: their encodings; v2: their byte lengths), whether it has a CRC, nulls and
min/max statistics; then the chunk's column index (per page: null page, null
count, bounds) and offset index (per page: offset, size, first row).

Every read is bounded by the footer and the file: a page header that does not
parse inside its chunk, a page that ends past the chunk, a chunk or an index
outside the file fail naming the row group, the column and the byte offset.
The text view shows bounds as lab inspect shows statistics: a VECTOR's as its
first elements and length ("[0.1, 0.2, …] 768×float32"), other long ones cut
to their start and length, and the page headers' bounds in a table of their
own; --json keeps them whole.

Exit status: 0 printed; 1 the file is missing, not Parquet, or a chunk or
index is corrupt (named); 2 bad usage.`,
		Example: `  lab pages data.parquet
  lab pages data.parquet --json | jq '.row_groups[0].columns[0].pages | length'`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := vectorIDFlag(v.GetInt("pages.vector_id"))
			if err != nil {
				return err
			}
			asJSON := v.GetBool("pages.json")
			rep, err := inspect.PagesFile(args[0], inspect.Options{VectorID: id, FullStatistics: asJSON})
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().Bool("json", false, "print the report as JSON")
	cmd.Flags().Int("vector-id", int(footer.DefaultVectorID), "LogicalType union id read as VECTOR (not 1-19)")
	_ = v.BindPFlag("pages.json", cmd.Flags().Lookup("json"))
	_ = v.BindPFlag("pages.vector_id", cmd.Flags().Lookup("vector-id"))
	return cmd
}
