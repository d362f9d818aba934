package peers

import (
	"context"
	"fmt"
)

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
