package bench

import (
	"context"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// Engine is one way of answering exact top-k queries over a dataset: one
// row of a search report. As in ann-benchmarks, the runner (RunEngines)
// owns the timing discipline, the floor and the checks; an engine only
// readies itself and answers. The lab's file and in-memory searches and the
// peers (DuckDB, LanceDB, FAISS, run as processes by package peers)
// implement it, so each is measured and checked the same way.
type Engine interface {
	// Info names the engine and says what it reads and computes. It is read
	// after Prepare, which tells the engine the metric.
	Info() EngineInfo
	// Available says why the engine cannot run here (a peer that is not
	// installed: a *peers.Error of kind peers.ErrMissing), or nil. The
	// runner asks before any work, so a missing peer costs nothing.
	Available() error
	// Prepare readies the engine to search data by metric: it builds
	// whatever the engine keeps apart from its per-run load (LanceDB's
	// table). It is not timed as part of the queries.
	Prepare(ctx context.Context, data vector.Matrix, metric vector.Metric) error
	// Search answers every query, its top k best first, with the engine's
	// own timing. It may be called more than once (best-of).
	Search(ctx context.Context, queries vector.Matrix, k int) (*Answer, error)
	// Close releases what Prepare made.
	Close() error
}

// A FloorEngine reads an input with a floor of its own above the memory
// floor: work no search of that input can skip (a compressed file's
// decompression, every page inflated and nothing else). The runner times
// its search in turn with the memory floor and its own floor, run after run
// (BestOfEach), so that the search's ratios to either floor, or to the
// larger, compare figures of the same moments; every other engine's ratio
// is to the floor measured once at the start of the run.
type FloorEngine interface {
	Engine
	// OwnFloor does that work once.
	OwnFloor() error
}

// EngineInfo describes an engine for the report.
type EngineInfo struct {
	Engine string // lab, duckdb, lancedb, faiss
	Mode   string // single, batch, parquet, memory, flat, or the caller's label
	// Batch is true when all queries go in one call: the per-query time is
	// then the call's time per query, there is no single query's time.
	Batch bool
	// Reads says where the vectors come from for each query.
	Reads string
	// Computes says exactly what the score is.
	Computes string
	// Prepares, when set, says what Prepare does, for the progress line
	// (it can take long: LanceDB builds a table).
	Prepares string
	// InProcess engines run inside this process and are cheap to repeat,
	// so the runner keeps their best of several searches. A peer runs once
	// per mode: each search is a process start, and the peer's own timing
	// already leaves the start-up out.
	InProcess bool
}

// Name is "engine mode", how errors and the agreement reference name a run.
func (i EngineInfo) Name() string { return i.Engine + " " + i.Mode }

// Answer is one search of every query.
type Answer struct {
	// Hits are the queries' answers in query order, each best first: ids
	// (row numbers of the data) and scores as vector.Metric scores them,
	// and MS, the query's own time, where the engine times queries singly.
	// It is the peers' wire form, so a peer's answer passes through as is.
	Hits []peers.Hits
	// LoadMS is the time to load or index the data before the queries
	// (DuckDB's FLOAT[N] table, FAISS's index, opening LanceDB's table),
	// within the search but not part of the query times.
	LoadMS float64
	// TotalMS is the queries' time as the engine measured it.
	TotalMS float64
	// ProcessMS is a peer process's wall time seen from Go; 0 in-process.
	ProcessMS float64
	// Version is the engine's own version string, where it reports one.
	Version string
}

// Taker is an engine that also reads rows by position with their vectors,
// as a user fetching search hits does.
type Taker interface {
	Engine
	// Take reads rows with their vectors runs times on one open file or
	// table, so the runner can keep the best time like the searches'.
	Take(ctx context.Context, rows []int64, runs int) (*TakeAnswer, error)
}

// TakeAnswer is one engine's takes of the same rows.
type TakeAnswer struct {
	// IDs and Vectors are the last run's rows, in the engine's order (not
	// necessarily the order asked: LanceDB returns ascending offsets).
	IDs     []int64
	Vectors [][]float32
	// OpenMS opens the file or table once; TakeMS is each run's take on it,
	// in order.
	OpenMS float64
	TakeMS []float64
	// OpenTakeMS is each run of one call that opens and takes, where the
	// engine has such a call (vectorcol.Take); empty otherwise.
	OpenTakeMS []float64
	// ProcessMS is a peer process's wall time seen from Go; 0 in-process.
	ProcessMS float64
}
