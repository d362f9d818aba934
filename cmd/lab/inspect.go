package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

func init() { commands = append(commands, newInspectCommand) }

func newInspectCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect FILE.parquet",
		Short: "Show a Parquet footer: schema and every annotation, row groups, column chunks, statistics, key/value metadata",
		Long: `Inspect reads a Parquet file's footer with the lab's extended codec, so it
shows what the bytes hold whichever writer made them: FILE (id 19), VECTOR
(id --vector-id, default 20) with its element, dim and layout, VECTOR
repetition and vector_length, shredded VARIANT layouts, every standard logical
and converted type, and annotations it does not know as "unknown (id N)".

Only the footer is read. --json prints the report as JSON; the field names are
documented in package formats/parquet/inspect and are stable. The text view
cuts a statistics value longer than 36 columns to its start and its length
("0x3f800000… (3072 bytes)"); --json keeps min and max whole.

The report holds the first ` + strconv.Itoa(inspect.DefaultRowGroups) + ` row groups; the header counts them all and a
line names those left out. --row-groups selects others: all, N, FIRST-LAST
(inclusive) or FIRST- (to the last); the others are not decoded, so a footer
of 100,000 row groups costs what is printed. In JSON, num_row_groups is the
file's count, row_groups_omitted those left out, and each row group has its
index; --row-groups all keeps the report complete.`,
		Example: `  lab inspect data.parquet
  lab inspect data.parquet --json | jq '.row_groups[0].columns[].statistics'
  lab inspect data.parquet --row-groups 100-199
  lab inspect data.parquet --json --row-groups all > footer.json
  lab inspect --vector-id 33 vectors.parquet`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := vectorIDFlag(v.GetInt("inspect.vector_id"))
			if err != nil {
				return err
			}
			groups, err := inspect.ParseRowGroupRange(v.GetString("inspect.row_groups"))
			if err != nil {
				return usageError{fmt.Errorf("--row-groups: %w", err)}
			}
			rep, err := inspect.InspectFile(args[0], inspect.Options{VectorID: int16(id), FullKeyValue: v.GetBool("inspect.json"), FullStatistics: v.GetBool("inspect.json"), RowGroups: groups})
			if err != nil {
				return err
			}
			if v.GetBool("inspect.json") {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().Bool("json", false, "print the report as JSON")
	cmd.Flags().Int("vector-id", int(footer.DefaultVectorID), "LogicalType union id read as VECTOR (not 1-19)")
	cmd.Flags().String("row-groups", "", "row groups to report: all, N, FIRST-LAST or FIRST- (default: the first "+strconv.Itoa(inspect.DefaultRowGroups)+")")
	_ = v.BindPFlag("inspect.json", cmd.Flags().Lookup("json"))
	_ = v.BindPFlag("inspect.row_groups", cmd.Flags().Lookup("row-groups"))
	_ = v.BindPFlag("inspect.vector_id", cmd.Flags().Lookup("vector-id"))
	return cmd
}

// vectorIDFlag checks a VECTOR union id given on the command line, so that a
// bad value is a usage error (footer.WithVectorID states the same rule).
func vectorIDFlag(id int) (int16, error) {
	n, err := vectorcol.CheckVectorID(id)
	if err != nil {
		return 0, usageError{err}
	}
	return n, nil
}
