package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// LanceDBEngine is LanceDB's flat search (no vector index) of a Lance
// table built from a raw float32 sidecar (bench/peers/lancedb.mjs), and its
// takeOffsets.
type LanceDBEngine struct {
	// Sidecar is the raw float32 file (peers.WriteSidecar) the table is
	// built from; Dir is where the table goes.
	Sidecar, Dir string
	// Reads labels the report's row; empty means a description.
	Reads string
	// Timeout, when positive, bounds the search process (default
	// peers.DefaultTimeout). The build and the takes run within
	// peers.DefaultTimeout.
	Timeout time.Duration

	table  *peers.LanceDBTable
	metric vector.Metric
}

// lanceDBMode is the one way LanceDB searches here: exhaustively.
const lanceDBMode = "flat"

func (e *LanceDBEngine) Info() EngineInfo {
	info := EngineInfo{Engine: peers.LanceDB.Name, Mode: lanceDBMode, Reads: e.Reads, Computes: lanceDBComputes(e.metric),
		Prepares: "building the table from the sidecar"}
	if info.Reads == "" {
		info.Reads = "the Lance dataset on disk, no vector index (bypassVectorIndex), table opened once (load ms)"
	}
	return info
}

func (e *LanceDBEngine) Available() error { return peers.LanceDB.Available() }

// Prepare builds the table: LanceDB's equivalent of writing the lab's file,
// so it is not in the search's load (BuildMS reports it).
func (e *LanceDBEngine) Prepare(ctx context.Context, data vector.Matrix, metric vector.Metric) error {
	e.metric = metric
	t, err := peers.LanceDBBuild(ctx, e.Sidecar, data.Rows(), data.Dim, e.Dir)
	if err != nil {
		return err
	}
	e.table = t
	return nil
}

// Table is the table Prepare built, or nil before it.
func (e *LanceDBEngine) Table() *peers.LanceDBTable { return e.table }

// BuildMS is the table build's time as LanceDB measured it (reading the
// sidecar and writing the table).
func (e *LanceDBEngine) BuildMS() float64 {
	if e.table == nil {
		return 0
	}
	return e.table.TimingsMS["read"] + e.table.TimingsMS["build"]
}

func (e *LanceDBEngine) Search(ctx context.Context, queries vector.Matrix, k int) (*Answer, error) {
	if e.table == nil {
		return nil, fmt.Errorf("bench: lancedb search before Prepare")
	}
	req := peers.SearchRequest{Dir: e.table.Dir, Table: e.table.Table, Dim: queries.Dim, Metric: e.metric.String(), K: k,
		Queries: peers.QueryRows(queries), Timeout: e.Timeout}
	return peerAnswer(peers.LanceDB.Name, lanceDBMode, func() (*peers.SearchResult, error) { return peers.LanceDBSearch(ctx, req) })
}

// Take runs LanceDB's takeOffsets runs times in one process, on one open
// table, as the lab's take runs on one open file.
func (e *LanceDBEngine) Take(ctx context.Context, rows []int64, runs int) (*TakeAnswer, error) {
	if e.table == nil {
		return nil, fmt.Errorf("bench: lancedb take before Prepare")
	}
	start := time.Now()
	taken, err := peers.LanceDBTakeRuns(ctx, e.table, rows, true, runs)
	if err != nil {
		return nil, err
	}
	return &TakeAnswer{IDs: taken.IDs, Vectors: taken.Vectors, OpenMS: taken.TimingsMS["open"], TakeMS: taken.TakeMS,
		ProcessMS: msSince(start)}, nil
}

func (e *LanceDBEngine) Close() error { return nil }

func lanceDBComputes(m vector.Metric) string {
	switch m {
	case vector.MetricCosine:
		return "1 − LanceDB's cosine distance (distanceType cosine), float32"
	case vector.MetricDot:
		return "1 − LanceDB's dot distance (distanceType dot), float32"
	case vector.MetricL2:
		return "LanceDB's l2 distance (squared), float32"
	}
	return ""
}
