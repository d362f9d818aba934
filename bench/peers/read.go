package peers

import (
	"context"
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

// ReadOptions tune a reader peer's read op beyond Read's row limit.
type ReadOptions struct {
	// Limit is the number of rows to read; negative reads them all.
	Limit int
	// BinaryAsBytes asks for BYTE_ARRAY columns without a STRING annotation
	// as bytes (lowercase hex in the result). DuckDB and parquet-wasm always
	// do; hyparquet decodes them as UTF-8 text unless asked.
	BinaryAsBytes bool
}

type readRequest struct {
	Op            string `json:"op"`
	File          string `json:"file"`
	Limit         *int   `json:"limit,omitempty"`
	BinaryAsBytes bool   `json:"binary_as_bytes,omitempty"`
}

// ReadWith is Read with options.
func ReadWith(ctx context.Context, p Peer, file string, opts ReadOptions) (*ReadResult, error) {
	req := readRequest{Op: "read", File: file, BinaryAsBytes: opts.BinaryAsBytes}
	if opts.Limit >= 0 {
		req.Limit = &opts.Limit
	}
	var res ReadResult
	if err := Run(ctx, p, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
