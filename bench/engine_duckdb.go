package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// DuckDBEngine is DuckDB's exact top-k with its array functions over a
// Parquet file (bench/peers/duckdb.mjs), one process per search.
type DuckDBEngine struct {
	// Mode is "parquet" (read_parquet on every query, straight from the
	// file) or "memory" (a FLOAT[N] table loaded from the file first, its
	// time reported as load).
	Mode string
	// File and Column are the Parquet file and its vector column, which
	// DuckDB must read as FLOAT[N] or LIST<FLOAT> (it reads a
	// FIXED_LEN_BYTE_ARRAY as BLOB and cannot cast that).
	File, Column string
	// IDColumn is the id column (default "id"); RowIDs makes the ids the
	// file's row numbers instead, for files without an id column.
	IDColumn string
	RowIDs   bool
	// Reads labels the report's row; empty means a description of Mode.
	Reads string
	// Threads, when positive, caps DuckDB's threads.
	Threads int
	// Timeout, when positive, bounds the search process (default
	// peers.DefaultTimeout).
	Timeout time.Duration

	metric vector.Metric
}

func (e *DuckDBEngine) Info() EngineInfo {
	info := EngineInfo{Engine: peers.DuckDB.Name, Mode: e.Mode, Reads: e.Reads, Computes: duckDBComputes(e.metric)}
	if info.Reads == "" {
		info.Reads = "the Parquet file, read_parquet per query"
		if e.Mode == "memory" {
			info.Reads = "a FLOAT[N] table loaded from the Parquet file first (load ms)"
		}
	}
	return info
}

func (e *DuckDBEngine) Available() error { return peers.DuckDB.Available() }

func (e *DuckDBEngine) Prepare(_ context.Context, _ vector.Matrix, metric vector.Metric) error {
	if e.Mode != "parquet" && e.Mode != "memory" {
		return fmt.Errorf("bench: duckdb mode %q: want parquet or memory", e.Mode)
	}
	e.metric = metric
	return nil
}

func (e *DuckDBEngine) Search(ctx context.Context, queries vector.Matrix, k int) (*Answer, error) {
	req := peers.SearchRequest{File: e.File, Column: e.Column, IDColumn: e.IDColumn, RowIDs: e.RowIDs,
		Dim: queries.Dim, Metric: e.metric.String(), K: k, Queries: peers.QueryRows(queries),
		Modes: []string{e.Mode}, Threads: e.Threads, Timeout: e.Timeout}
	return peerAnswer(peers.DuckDB.Name, e.Mode, func() (*peers.SearchResult, error) { return peers.DuckDBTopK(ctx, req) })
}

func (e *DuckDBEngine) Close() error { return nil }

func duckDBComputes(m vector.Metric) string {
	switch m {
	case vector.MetricCosine:
		return "array_cosine_similarity(CAST(emb AS FLOAT[N]), q::FLOAT[N]), float32"
	case vector.MetricDot:
		return "array_inner_product, float32"
	case vector.MetricL2:
		return "pow(array_distance, 2), float32 distance squared"
	}
	return ""
}
