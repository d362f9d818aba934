package main

import (
	"fmt"
	"io"

	"github.com/apache/iceberg-go"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/table"
)

func newTableDeleteCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete NS.NAME (--filter EXPR | --all) [--equality COLS]",
		Short: "Delete the rows a filter matches, as a row-delta snapshot of delete files",
		Long: `Delete scans the table for the rows --filter matches (through the registry,
as lab table scan does, with the deletes already committed applied) and
commits one row-delta snapshot of delete files; data files are not
rewritten (merge-on-read):

  - format-version 3: a deletion vector (Puffin) per data file; a data file
    that already has one gets a new one holding both, and the old one is
    removed in the same snapshot, as the v3 spec requires;
  - format-version 2: a Parquet position-delete file per partition;
  - --equality COLS: a Parquet equality-delete file per partition, keyed on
    those top-level primitive columns, with one row per distinct key of the
    matched rows. It removes every row of that partition with such a key
    committed before it, not only the rows --filter matched.

A commit that loses a race with another writer is redone on the refreshed
table. A filter that matches nothing commits nothing.

--filter syntax:
` + indentBlock(table.FilterSyntax, "  "),
		Example: `  lab table delete lab.docs --filter "region = 'eu' and id < 100"
  lab table delete lab.events --filter "day = '2026-11-30'" --equality user_id
  lab table delete lab.scratch --all`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			filterText, _ := cmd.Flags().GetString("filter")
			all, _ := cmd.Flags().GetBool("all")
			eq, _ := cmd.Flags().GetStringSlice("equality")
			ci, _ := cmd.Flags().GetBool("case-insensitive")
			asJSON, _ := cmd.Flags().GetBool("json")
			switch {
			case filterText == "" && !all:
				return usageError{fmt.Errorf("give --filter EXPR, or --all to delete every row")}
			case filterText != "" && all:
				return usageError{fmt.Errorf("--filter and --all exclude each other")}
			}
			cat, t, err := loadTable(cmd, v, args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			o := table.DeleteOptions{EqualityColumns: eq, CaseInsensitive: ci, Filter: iceberg.AlwaysTrue{}}
			if !all {
				if o.Filter, err = table.ParseFilter(filterText, t.Iceberg().Schema(), !ci); err != nil {
					return usageError{fmt.Errorf("--filter: %w", err)}
				}
			}
			res, err := t.Delete(cmd.Context(), o)
			if err != nil {
				return err
			}
			return printDelete(cmd.OutOrStdout(), res, asJSON)
		},
	}
	f := cmd.Flags()
	f.String("filter", "", "the rows to delete, e.g. \"id > 10 and region = 'eu'\" (see --help)")
	f.Bool("all", false, "delete every row")
	f.StringSlice("equality", nil, "write equality deletes keyed on these columns instead of position deletes")
	f.Bool("case-insensitive", false, "match column names in --filter and --equality ignoring case")
	f.Bool("json", false, "print the result as JSON")
	_ = cmd.RegisterFlagCompletionFunc("equality", cobra.NoFileCompletions)
	return cmd
}

type deleteSummary struct {
	Table       string       `json:"table"`
	SnapshotID  int64        `json:"snapshot_id"`
	Rows        int64        `json:"rows"`
	DataFiles   int          `json:"data_files"`
	DeleteFiles []deleteFile `json:"delete_files"`
	Removed     []deleteFile `json:"removed_delete_files"`
	CommitMS    float64      `json:"commit_ms"`
}

type deleteFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Records int64  `json:"records"`
}

func deleteFiles(files []iceberg.DataFile) []deleteFile {
	out := []deleteFile{}
	for _, f := range files {
		out = append(out, deleteFile{Path: f.FilePath(), Content: table.ContentName(f), Records: f.Count()})
	}
	return out
}

func printDelete(w io.Writer, r *table.DeleteResult, asJSON bool) error {
	s := deleteSummary{Table: r.Table, SnapshotID: r.SnapshotID, Rows: r.Rows, DataFiles: r.DataFiles,
		DeleteFiles: deleteFiles(r.DeleteFiles), Removed: deleteFiles(r.Removed), CommitMS: ms(r.CommitTime)}
	if asJSON {
		return writeJSON(w, s)
	}
	if r.SnapshotID == 0 {
		fmt.Fprintf(w, "no rows of %s match: nothing committed\n", r.Table)
		return nil
	}
	fmt.Fprintf(w, "deleted %d rows in %d data file(s) of %s: snapshot %d (%.1f ms)\n", r.Rows, r.DataFiles, r.Table, r.SnapshotID, s.CommitMS)
	for _, f := range s.DeleteFiles {
		fmt.Fprintf(w, "  %s: %s, %d records\n", f.Path, f.Content, f.Records)
	}
	for _, f := range s.Removed {
		fmt.Fprintf(w, "  superseded: %s\n", f.Path)
	}
	return nil
}
