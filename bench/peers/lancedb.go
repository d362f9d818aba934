package peers

import (
	"context"
	"fmt"
)

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
