package peers

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/types/vector"
)

// Column is one top-level column as a reader reports it; Type is the
// reader's own spelling (DuckDB's SQL type, Arrow's type, Parquet's types).
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ReadResult is a reader's view of a Parquet file. Values are in the peers'
// common JSON form (common.mjs jsonSafe): 64-bit integers as decimal strings,
// other numbers as numbers, bytes as lowercase hex, NaN and infinities as
// "NaN", "Infinity", "-Infinity", lists as arrays, groups as objects.
type ReadResult struct {
	Peer      string             `json:"peer"`
	Columns   []Column           `json:"columns"`
	Rows      []map[string]any   `json:"rows"`
	NumRows   int64              `json:"num_rows"`
	TimingsMS map[string]float64 `json:"timings_ms"`
}

// Read asks a reader peer (one of Readers) for the first limit rows of a
// Parquet file; limit < 0 reads them all.
func Read(ctx context.Context, p Peer, file string, limit int) (*ReadResult, error) {
	return ReadWith(ctx, p, file, ReadOptions{Limit: limit})
}

// Hits is one query's answer, best first. Scores are cosine similarity,
// inner product, or squared Euclidean distance, as vector.Metric scores
// them. MS is the query's own time, where the peer times queries singly.
type Hits struct {
	IDs    []int64   `json:"ids"`
	Scores []float64 `json:"scores"`
	MS     float64   `json:"ms,omitempty"`
}

// SearchRun is one way a peer answered all the queries: DuckDB's "parquet"
// (straight from the file) and "memory" (a FLOAT[dim] table loaded first),
// LanceDB's "flat", FAISS's "single" and "batch". LoadMS is the time to load
// or index the data before the queries, TotalMS the queries' time.
type SearchRun struct {
	Mode    string  `json:"mode"`
	LoadMS  float64 `json:"load_ms"`
	TotalMS float64 `json:"total_ms"`
	Results []Hits  `json:"results"`
}

// SearchResult is a peer's answer to a top-k search.
type SearchResult struct {
	Peer   string `json:"peer"`
	Metric string `json:"metric"`
	K      int    `json:"k"`
	// Version is the engine's own version string, where it reports one.
	Version string      `json:"version,omitempty"`
	Runs    []SearchRun `json:"runs"`
}

// Run returns the run of the given mode, or nil.
func (r *SearchResult) Run(mode string) *SearchRun {
	for i := range r.Runs {
		if r.Runs[i].Mode == mode {
			return &r.Runs[i]
		}
	}
	return nil
}

// SearchRequest is a top-k search for any of the search peers; each uses the
// fields its script documents and ignores the rest.
type SearchRequest struct {
	Op string `json:"op"`
	// DuckDB: the Parquet file, its vector column (LIST<FLOAT> or FLOAT[dim])
	// and id column (default "id"). RowIDs makes the ids the file's row
	// numbers instead (read_parquet's file_row_number), for files that have
	// no id column, such as the lab's layout files.
	File     string `json:"file,omitempty"`
	Column   string `json:"column,omitempty"`
	IDColumn string `json:"id_column,omitempty"`
	RowIDs   bool   `json:"row_ids,omitempty"`
	// FAISS: the sidecar (WriteSidecar) and its shape.
	Sidecar string `json:"sidecar,omitempty"`
	N       int    `json:"n,omitempty"`
	// LanceDB: the dataset directory and table made by LanceDBBuild.
	Dir   string `json:"dir,omitempty"`
	Table string `json:"table,omitempty"`

	Dim     int         `json:"dim,omitempty"`
	Metric  string      `json:"metric"`
	K       int         `json:"k"`
	Queries [][]float32 `json:"queries"`
	// Modes selects runs (DuckDB: parquet, memory; FAISS: single, batch);
	// empty means all.
	Modes []string `json:"modes,omitempty"`
	// Threads, when positive, caps the peer's threads (DuckDB, FAISS).
	Threads int `json:"threads,omitempty"`
	// Timeout, when positive, bounds this run instead of the peer's own
	// Timeout: a search over a large dataset can rightly take longer than
	// DefaultTimeout.
	Timeout time.Duration `json:"-"`
}

// QueryRows splits a query matrix into the request's rows.
func QueryRows(q vector.Matrix) [][]float32 {
	rows := make([][]float32, q.Rows())
	for i := range rows {
		rows[i] = q.Row(i)
	}
	return rows
}

// DuckDBTopK searches a Parquet file's vector column with DuckDB.
func DuckDBTopK(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	req.Op = "topk"
	return search(ctx, DuckDB, req)
}

// FAISSSearch searches a sidecar with FAISS's flat indexes.
func FAISSSearch(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	req.Op = "search"
	return search(ctx, FAISS, req)
}

// LanceDBSearch searches a table made by LanceDBBuild, flat (no index).
func LanceDBSearch(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	req.Op = "search"
	return search(ctx, LanceDB, req)
}

func search(ctx context.Context, p Peer, req SearchRequest) (*SearchResult, error) {
	if m, err := vector.ParseMetric(req.Metric); err != nil {
		return nil, fmt.Errorf("peer %s: %w", p.Name, err)
	} else {
		req.Metric = m.String() // the scripts know the canonical names only
	}
	if req.Timeout > 0 {
		p.Timeout = req.Timeout
	}
	var res SearchResult
	if err := Run(ctx, p, req, &res); err != nil {
		return nil, err
	}
	if len(res.Runs) == 0 {
		return nil, &Error{Peer: p.Name, Kind: ErrGarbage, Detail: "the result has no runs"}
	}
	for _, run := range res.Runs {
		if len(run.Results) != len(req.Queries) {
			return nil, &Error{Peer: p.Name, Kind: ErrGarbage,
				Detail: fmt.Sprintf("run %q answered %d of %d queries", run.Mode, len(run.Results), len(req.Queries))}
		}
	}
	return &res, nil
}

// LanceDBTable is a LanceDB table made by LanceDBBuild.
type LanceDBTable struct {
	Dir       string             `json:"dir"`
	Table     string             `json:"table"`
	N         int                `json:"n"`
	Dim       int                `json:"dim"`
	TimingsMS map[string]float64 `json:"timings_ms"`
}

// LanceDBBuild makes a LanceDB table in dir from a sidecar of n×dim float32
// values (WriteSidecar), with ids 0..n-1 in column "id" and the vectors in
// column "vector". An empty dir makes a new temporary directory, which the
// caller removes.
func LanceDBBuild(ctx context.Context, sidecar string, n, dim int, dir string) (*LanceDBTable, error) {
	req := struct {
		Op      string `json:"op"`
		Sidecar string `json:"sidecar"`
		N       int    `json:"n"`
		Dim     int    `json:"dim"`
		Dir     string `json:"dir,omitempty"`
	}{"build", sidecar, n, dim, dir}
	var res LanceDBTable
	if err := Run(ctx, LanceDB, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Taken is what LanceDBTake returns, rows in LanceDB's order (ascending
// offsets); IDs say which row is which. TimingsMS holds "open" (the table)
// and "take" (the first take); TakeMS every take's time, in order.
type Taken struct {
	IDs       []int64            `json:"ids"`
	Vectors   [][]float32        `json:"vectors"`
	TimingsMS map[string]float64 `json:"timings_ms"`
	TakeMS    []float64          `json:"take_ms"`
}

// LanceDBTake reads the rows at the given offsets, with their vectors when
// vectors is true.
func LanceDBTake(ctx context.Context, t *LanceDBTable, offsets []int64, vectors bool) (*Taken, error) {
	return LanceDBTakeRuns(ctx, t, offsets, vectors, 1)
}

// LanceDBTakeRuns is LanceDBTake repeated runs times on one open table, so
// that a benchmark can keep the best time like the lab's own; the rows
// returned are the last run's.
func LanceDBTakeRuns(ctx context.Context, t *LanceDBTable, offsets []int64, vectors bool, runs int) (*Taken, error) {
	req := struct {
		Op      string  `json:"op"`
		Dir     string  `json:"dir"`
		Table   string  `json:"table,omitempty"`
		Offsets []int64 `json:"offsets"`
		Vectors bool    `json:"vectors"`
		Runs    int     `json:"runs"`
	}{"take", t.Dir, t.Table, offsets, vectors, max(runs, 1)}
	var res Taken
	if err := Run(ctx, LanceDB, req, &res); err != nil {
		return nil, err
	}
	if len(res.TakeMS) != req.Runs {
		return nil, &Error{Peer: LanceDB.Name, Kind: ErrGarbage,
			Detail: fmt.Sprintf("take reported %d timings for %d runs", len(res.TakeMS), req.Runs)}
	}
	return &res, nil
}

// ExecResult is DuckDB's answer to DuckDBExec: each statement's rows, each
// value in the common JSON form.
type ExecResult struct {
	Peer    string    `json:"peer"`
	Version string    `json:"version"`
	Results [][][]any `json:"results"`
}

// DuckDBExec runs SQL statements in order on one in-memory DuckDB database
// and returns every statement's rows: how the reverse compatibility matrix
// writes files with DuckDB's COPY and reads DuckDB's own values back.
func DuckDBExec(ctx context.Context, sql ...string) (*ExecResult, error) {
	var res ExecResult
	req := struct {
		Op  string   `json:"op"`
		SQL []string `json:"sql"`
	}{"exec", sql}
	if err := Run(ctx, DuckDB, req, &res); err != nil {
		return nil, err
	}
	if len(res.Results) != len(sql) {
		return nil, fmt.Errorf("duckdb exec: %d results for %d statements", len(res.Results), len(sql))
	}
	return &res, nil
}

// WriteColumn is one column of a Write request: its values in JSON, kind
// as the writer scripts document it (parquetwasm.mjs, hyparquetwriter.mjs).
type WriteColumn struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Dim    int    `json:"dim,omitempty"`
	Values []any  `json:"values"`
}

// Write asks a writer peer (ParquetWasm, HyparquetWriter) to write columns
// to a Parquet file with the options its script documents.
func Write(ctx context.Context, p Peer, file string, columns []WriteColumn, options map[string]any) error {
	req := struct {
		Op      string         `json:"op"`
		File    string         `json:"file"`
		Columns []WriteColumn  `json:"columns"`
		Options map[string]any `json:"options,omitempty"`
	}{"write", file, columns, options}
	var res struct {
		File string `json:"file"`
	}
	if err := Run(ctx, p, req, &res); err != nil {
		return err
	}
	if res.File != file {
		return fmt.Errorf("%s wrote %q, asked for %q", p.Name, res.File, file)
	}
	return nil
}
