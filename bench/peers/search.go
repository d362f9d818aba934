package peers

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/types/vector"
)

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
