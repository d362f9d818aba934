package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/table"
	"github.com/coltype-lab/lab/types/vector"
)

func newTableSearchCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "search NS.NAME (--query JSON | --query-file F) [--column emb] [--k N] [--filter EXPR] [--columns ...]",
		Short: "Exact top-k search of a table's VECTOR column over every file the planner keeps",
		Long: `Search plans the table with iceberg-go (--filter prunes files by partition
and column metrics), searches the VECTOR column of every kept data file and
merges the per-file top lists into the k best rows, best first, ranked as
lab vector search ranks them (ties: the earlier file, then the lower row).

A Parquet data file with no filter and no equality deletes is read as blocks
of vectors (one registry read through the table's FileIO, decoded page by
page), asking for k more hits than the file has deleted rows (deletion
vectors, position deletes) and dropping those; any other file is read as
records with the filter and deletes applied, as lab table scan reads it. Each hit names its data file and row position; --columns
adds those columns of the row.

A query is a JSON array of numbers, or an array of such arrays for several.`,
		Example: `  lab table search lab.docs --query '[0.1, 0.2, 0.3]' --k 5 --columns id,img.uri
  lab table search lab.docs --column emb --query-file q.json --metric l2 --filter "region = 'eu'" --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			query, _ := f.GetString("query")
			queryFile, _ := f.GetString("query-file")
			k, _ := f.GetInt("k")
			metricName, _ := f.GetString("metric")
			column, _ := f.GetString("column")
			filterText, _ := f.GetString("filter")
			cols, _ := f.GetStringSlice("columns")
			ci, _ := f.GetBool("case-insensitive")
			asJSON, _ := f.GetBool("json")
			metric, err := vector.ParseMetric(metricName)
			if err != nil {
				return usageError{fmt.Errorf("--metric: %w", err)}
			}
			if k < 0 {
				return usageError{fmt.Errorf("--k %d: want ≥ 0", k)}
			}
			queries, err := readQueries(query, queryFile)
			if err != nil {
				return usageError{err}
			}
			m := vector.Matrix{Dim: len(queries[0])}
			for _, q := range queries {
				m.Data = append(m.Data, q...)
			}
			cat, t, err := loadTable(cmd, v, args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			o := table.SearchOptions{Column: column, Metric: metric, Queries: m, K: k, Columns: cols, CaseInsensitive: ci}
			if filterText != "" {
				if o.Filter, err = table.ParseFilter(filterText, t.Iceberg().Schema(), !ci); err != nil {
					return usageError{fmt.Errorf("--filter: %w", err)}
				}
			}
			res, err := t.Search(cmd.Context(), o)
			if errors.Is(err, table.ErrColumns) {
				return usageError{fmt.Errorf("--columns: %w", err)}
			}
			if err != nil {
				return err
			}
			return printSearch(cmd.OutOrStdout(), res, metric, k, asJSON)
		},
	}
	f := cmd.Flags()
	f.String("query", "", "the query as JSON: [x, y, ...] or [[...], [...]] for several")
	f.String("query-file", "", "a file holding the query JSON (- for standard input)")
	f.Int("k", 10, "results per query")
	f.String("metric", "cosine", "dot, cosine or l2 (squared Euclidean distance)")
	f.String("column", "", "the VECTOR column (default: the table's only one)")
	f.String("filter", "", "search only the rows this matches, e.g. \"region = 'eu'\" (see lab table scan --help)")
	f.StringSlice("columns", nil, "columns of each hit's row to print, comma-separated, dotted for nested fields")
	f.Bool("case-insensitive", false, "match column names ignoring case")
	f.Bool("json", false, "print the results as JSON")
	_ = cmd.RegisterFlagCompletionFunc("columns", cobra.NoFileCompletions)
	return cmd
}

type searchHit struct {
	File  string          `json:"file"`
	Pos   int64           `json:"pos"`
	Score jsonFloat       `json:"score"`
	Row   json.RawMessage `json:"row,omitempty"`
}

func printSearch(w io.Writer, r *table.SearchResult, metric vector.Metric, k int, asJSON bool) error {
	var codec *jsonrow.Codec
	if r.Columns != nil {
		var err error
		if codec, err = jsonrow.New(r.Columns); err != nil {
			return fmt.Errorf("table %s: %w", r.Table, err)
		}
	}
	results := make([][]searchHit, len(r.Hits))
	for q, hits := range r.Hits {
		results[q] = []searchHit{}
		for _, h := range hits {
			sh := searchHit{File: h.File, Pos: h.Pos, Score: jsonFloat(h.Score)}
			if codec != nil && h.Row != nil {
				b, err := codec.AppendJSON(nil, h.Row)
				if err != nil {
					return fmt.Errorf("table %s: %s row %d: %w", r.Table, h.File, h.Pos, err)
				}
				sh.Row = b
			}
			results[q] = append(results[q], sh)
		}
	}
	if asJSON {
		return writeJSON(w, struct {
			Table      string        `json:"table"`
			SnapshotID int64         `json:"snapshot_id"`
			Column     string        `json:"column"`
			Type       string        `json:"type"`
			Metric     string        `json:"metric"`
			K          int           `json:"k"`
			Files      int           `json:"files"`
			Paged      int           `json:"files_paged"`
			Rows       int64         `json:"rows"`
			PlanMS     float64       `json:"plan_ms"`
			ScanMS     float64       `json:"scan_ms"`
			Results    [][]searchHit `json:"results"`
		}{r.Table, r.SnapshotID, r.Column.Column, r.Column.TypeName(), metric.String(), k, r.Files, r.Paged, r.Rows,
			ms(r.Plan), ms(r.Scan), results})
	}
	fmt.Fprintf(w, "%s snapshot %d: %s %s, metric %v, top %d; %d file(s) searched (%d as vector blocks), %d rows, plan %.1f ms, scan %.1f ms\n",
		r.Table, r.SnapshotID, r.Column.Column, r.Column.TypeName(), metric, k, r.Files, r.Paged, r.Rows, ms(r.Plan), ms(r.Scan))
	for q, hits := range results {
		fmt.Fprintf(w, "query %d:\n", q)
		for rank, h := range hits {
			fmt.Fprintf(w, "  %3d  %v  %s row %d", rank+1, float32(h.Score), h.File, h.Pos)
			if h.Row != nil {
				fmt.Fprintf(w, "  %s", h.Row)
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}
