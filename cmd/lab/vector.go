package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

func init() { commands = append(commands, newVectorCommand) }

func newVectorCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use: "vector",
		Example: `  lab vector search emb.parquet --query '[0.1,0.2,0.3]' --k 5
  lab vector take emb.parquet --rows 0,17,42 --json`,
		Short: "Search and take rows of a VECTOR column (any of the lab's layouts: flba, flba-raw, list, vector-repetition, fixed-size-list)",
		Long: `Search and take rows of a vector column in any of the layouts the lab
writes and reads (spec/VECTOR.md), detected from the file:

  flba               the lab's own variant: FIXED_LEN_BYTE_ARRAY(dim x width)
                     with the lab's VECTOR annotation (an empty struct, union
                     id 20 by default); element and dimension in key/value
                     metadata. Not parquet-format PR #241.
  flba-raw           the same bytes, no annotation.
  list               the 3-level LIST baseline.
  vector-repetition  PR #592: a VECTOR group over a "list" group with
                     repetition VECTOR and vector_length, element "element".
  fixed-size-list    PR #241: FIXED_LEN_BYTE_ARRAY annotated
                     FIXED_SIZE_LIST(type=FLOAT|DOUBLE, num_values=dim), union
                     id 21 by default or PR #241's own 19.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newVectorSearchCommand(v), newVectorTakeCommand(v))
	return cmd
}

const vectorExitStatus = `
Exit status: 0 on success, 1 when the file cannot be read as a vector column
(missing, not Parquet, corrupt, an unsupported layout), 2 for usage errors
(bad flags, a malformed query, a query dimension other than the column's, a
row outside the file).`

func newVectorSearchCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "search FILE.parquet|URL (--query JSON | --query-file F)",
		Short: "Exact top-k search of a vector column: row numbers and scores, best first",
		Long: `Search scores every row of the vector column against each query and prints
the k best rows, best first, with their scores: dot and cosine rank higher
scores first, l2 ranks lower squared distances first. Ties rank the lower row
first; a row whose score is NaN (a null element, or a zero vector under
cosine) ranks after every number. Null vectors are skipped.

A query is a JSON array of numbers, or an array of such arrays for several
queries (scored together through a matrix product).

FILE may be an http:// or https:// URL: the file is read with range requests
(its footer, then the vector column's pages), never downloaded whole; a server
that ignores ranges, stalls, or changes the file mid-read is an error.` + vectorExitStatus,
		Example: `  lab vector search emb.parquet --query '[0.1, 0.2, 0.3]' --k 5 --metric l2
  lab vector search emb.parquet --query-file queries.json --metric cosine --json | jq '.results[0][0]'
  lab vector search https://example.com/emb.parquet --query '[0.1, 0.2, 0.3]'
  lab vector search docs.parquet --query '[0.1, 0.2, 0.3]' --columns id,img.uri`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVectorSearch(cmd.OutOrStdout(), args[0], vectorSearchOptions{
				query:     v.GetString("vector.search.query"),
				queryFile: v.GetString("vector.search.query-file"),
				k:         v.GetInt("vector.search.k"),
				metric:    v.GetString("vector.search.metric"),
				column:    v.GetString("vector.search.column"),
				json:      v.GetBool("vector.search.json"),
				columns:   v.GetStringSlice("vector.search.columns"),
			})
		},
	}
	f := cmd.Flags()
	f.String("query", "", "the query as JSON: [x, y, ...] or [[...], [...]] for several")
	f.String("query-file", "", "a file holding the query JSON (- for standard input)")
	f.Int("k", 10, "results per query")
	f.String("metric", "cosine", "dot, cosine or l2 (squared Euclidean distance)")
	f.String("column", "", "the vector column (default: emb, or the file's only column)")
	f.Bool("json", false, "print the results as JSON")
	f.StringSlice("columns", nil, "other columns of each hit's row to print, comma-separated, dotted for nested fields")
	for _, name := range []string{"query", "query-file", "k", "metric", "column", "json", "columns"} {
		_ = v.BindPFlag("vector.search."+name, f.Lookup(name))
	}
	return cmd
}

type vectorSearchOptions struct {
	query, queryFile string
	k                int
	metric, column   string
	json             bool
	columns          []string // other columns of the hit rows to print
}

func runVectorSearch(out io.Writer, path string, o vectorSearchOptions) error {
	metric, err := vector.ParseMetric(o.metric)
	if err != nil {
		return usageError{fmt.Errorf("--metric: %w", err)}
	}
	if o.k < 0 {
		return usageError{fmt.Errorf("--k %d: want ≥ 0", o.k)}
	}
	queries, err := readQueries(o.query, o.queryFile)
	if err != nil {
		return usageError{err}
	}
	// One registry read of the column's blocks, as every search makes it.
	blocks, err := vectorcol.OpenVectorBlocks(inputFile(path), func(b *registry.ReadBuilder[vector.Block]) {
		b.Set(vectorcol.PropVectorColumn, o.column)
	})
	if err != nil {
		return err
	}
	defer blocks.Close()
	info := blocks.Info()
	dim := len(queries[0])
	if info.Dim != 0 && dim != info.Dim {
		return usageError{fmt.Errorf("%s: column %s: query dimension %d ≠ column dimension %d", path, columnName(o.column), dim, info.Dim)}
	}
	data := make([]float32, 0, len(queries)*dim)
	for _, q := range queries {
		data = append(data, q...)
	}
	res, err := blocks.Search(metric, vector.Matrix{Dim: dim, Data: data}, o.k)
	if err != nil {
		return err
	}
	var rows map[int64]json.RawMessage
	if len(o.columns) > 0 {
		if rows, err = hitRows(inputFile(path), path, o.columns, res); err != nil {
			return err
		}
	}
	if o.json {
		type hit struct {
			Row     int64           `json:"row"`
			Score   jsonFloat       `json:"score"`
			Columns json.RawMessage `json:"columns,omitempty"`
		}
		doc := struct {
			File      string         `json:"file"`
			Layout    string         `json:"layout"`
			Dim       int            `json:"dim"`
			Rows      int64          `json:"rows"`
			Metric    string         `json:"metric"`
			K         int            `json:"k"`
			Checksums checksumReport `json:"checksums"`
			Results   [][]hit        `json:"results"`
		}{File: path, Layout: info.Layout.String(), Dim: info.Dim, Rows: info.Rows, Metric: metric.String(), K: o.k,
			Checksums: checksumsOf(blocks)}
		for _, rs := range res {
			hits := make([]hit, len(rs))
			for i, r := range rs {
				hits[i] = hit{Row: r.ID, Score: jsonFloat(r.Score), Columns: rows[r.ID]}
			}
			doc.Results = append(doc.Results, hits)
		}
		return writeJSON(out, doc)
	}
	fmt.Fprintf(out, "%s: %s, %d rows × %d, metric %v, top %d; %s\n", path, info.Layout, info.Rows, info.Dim, metric, o.k, checksumsOf(blocks))
	for qi, rs := range res {
		fmt.Fprintf(out, "query %d:\n", qi)
		for rank, r := range rs {
			fmt.Fprintf(out, "  %3d  row %-10d %v", rank+1, r.ID, r.Score)
			if row, ok := rows[r.ID]; ok {
				fmt.Fprintf(out, "  %s", row)
			}
			fmt.Fprintln(out)
		}
	}
	return nil
}

// checksumReport counts the page reads of a command whose page had a CRC,
// verified, and those without: a file without CRCs cannot show corruption.
type checksumReport struct {
	Verified int64 `json:"pages_verified"`
	Without  int64 `json:"pages_without_crc"`
}

func checksumsOf(f interface {
	Checksums() (verified, without int64)
}) checksumReport {
	v, n := f.Checksums()
	return checksumReport{Verified: v, Without: n}
}

func (c checksumReport) String() string {
	switch {
	case c.Without == 0:
		return fmt.Sprintf("page checksums: %d page reads verified", c.Verified)
	case c.Verified == 0:
		return fmt.Sprintf("page checksums: none (the %d page reads had no CRC to verify)", c.Without)
	}
	return fmt.Sprintf("page checksums: %d page reads verified, %d without a CRC", c.Verified, c.Without)
}

func columnName(c string) string {
	if c == "" {
		return vectorcol.ColumnName
	}
	return c
}

// readQueries parses one query ([x, ...]) or several ([[...], ...]) from
// the flag or the file; every query must have the same, positive length.
func readQueries(query, file string) ([][]float32, error) {
	var src []byte
	switch {
	case query != "" && file != "":
		return nil, errors.New("give --query or --query-file, not both")
	case query != "":
		src = []byte(query)
	case file == "-":
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("--query-file -: %w", err)
		}
		src = b
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--query-file: %w", err)
		}
		src = b
	default:
		return nil, errors.New("a query is required: --query '[x, y, ...]' or --query-file F")
	}
	where := "--query"
	if file != "" {
		where = "--query-file " + file
	}
	var many [][]float32
	if err := json.Unmarshal(src, &many); err != nil {
		var one []float32
		if err1 := json.Unmarshal(src, &one); err1 != nil {
			return nil, fmt.Errorf("%s: want a JSON array of numbers or of arrays of numbers: %w", where, err1)
		}
		many = [][]float32{one}
	}
	if len(many) == 0 {
		return nil, fmt.Errorf("%s: no query", where)
	}
	for i, q := range many {
		if len(q) == 0 {
			return nil, fmt.Errorf("%s: query %d is empty; a vector has at least one element", where, i)
		}
		if len(q) != len(many[0]) {
			return nil, fmt.Errorf("%s: query %d has %d elements, query 0 has %d", where, i, len(q), len(many[0]))
		}
	}
	return many, nil
}

func newVectorTakeCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "take FILE.parquet --rows 1,5,9",
		Short: "Print the vectors of the given rows, reading only the pages that hold them",
		Long: `Take finds each row's page through the page index (OffsetIndex) and reads only
those pages; for uncompressed PLAIN pages of fixed-width vectors, only the
row's bytes. Rows are numbered from 0 and printed in the order asked (repeats
allowed). A null vector prints as null, a null element as NaN (null in JSON).` + vectorExitStatus,
		Example: `  lab vector take emb.parquet --rows 0,17,42
  lab vector take emb.parquet --rows 3 --column emb --json | jq '.rows[0].vector | length'`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVectorTake(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], v.GetString("vector.take.rows"),
				v.GetString("vector.take.column"), v.GetBool("vector.take.json"))
		},
	}
	f := cmd.Flags()
	f.String("rows", "", "comma-separated row numbers, from 0")
	f.String("column", "", "the vector column (default: emb, or the file's only column)")
	f.Bool("json", false, "print the rows as JSON")
	for _, name := range []string{"rows", "column", "json"} {
		_ = v.BindPFlag("vector.take."+name, f.Lookup(name))
	}
	return cmd
}

func runVectorTake(out, errOut io.Writer, path, rowList, column string, asJSON bool) error {
	if strings.TrimSpace(rowList) == "" {
		return usageError{errors.New("--rows is required, e.g. --rows 0,5,9")}
	}
	var rows []int64
	for _, s := range strings.Split(rowList, ",") {
		r, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || r < 0 {
			return usageError{fmt.Errorf("--rows: %q is not a row number (an integer ≥ 0)", s)}
		}
		rows = append(rows, r)
	}
	f, err := vectorcol.OpenColumn(path, column)
	if err != nil {
		return err
	}
	defer f.Close()
	info := f.Info()
	for _, r := range rows {
		if r >= info.Rows {
			return usageError{fmt.Errorf("%s: column %s: row %d is outside the file's %d rows", path, columnName(column), r, info.Rows)}
		}
	}
	vecs, err := f.Take(rows)
	if err != nil {
		return err
	}
	if asJSON {
		type row struct {
			Row    int64       `json:"row"`
			Vector []jsonFloat `json:"vector"` // null for a null vector
		}
		doc := struct {
			File      string         `json:"file"`
			Layout    string         `json:"layout"`
			Dim       int            `json:"dim"`
			Checksums checksumReport `json:"checksums"`
			Rows      []row          `json:"rows"`
		}{File: path, Layout: info.Layout.String(), Dim: info.Dim, Checksums: checksumsOf(f), Rows: []row{}}
		for i, v := range vecs {
			var jv []jsonFloat
			if v != nil {
				jv = make([]jsonFloat, len(v))
				for j, x := range v {
					jv[j] = jsonFloat(x)
				}
			}
			doc.Rows = append(doc.Rows, row{Row: rows[i], Vector: jv})
		}
		return writeJSON(out, doc)
	}
	for i, v := range vecs {
		if v == nil {
			fmt.Fprintf(out, "row %d: null\n", rows[i])
			continue
		}
		parts := make([]string, len(v))
		for j, x := range v {
			parts[j] = strconv.FormatFloat(float64(x), 'g', -1, 32)
		}
		fmt.Fprintf(out, "row %d: [%s]\n", rows[i], strings.Join(parts, ", "))
	}
	fmt.Fprintf(errOut, "lab: %s: %s\n", path, checksumsOf(f))
	return nil
}

// jsonFloat is a float32 that encodes NaN and ±Inf as null, which JSON
// cannot otherwise carry, and finite values in their shortest form.
type jsonFloat float32

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 32), nil
}
