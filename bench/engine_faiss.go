package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// FAISSEngine is FAISS's exact flat index (IndexFlatIP or IndexFlatL2, on
// OpenBLAS) over a raw float32 sidecar (bench/peers/faiss_search.py), one
// process per search; building the index is its load.
type FAISSEngine struct {
	// Mode is "single" (one search call per query) or "batch" (all queries
	// in one call, where BLAS shares the pass over the data).
	Mode string
	// Sidecar is the raw float32 file (peers.WriteSidecar) of the data.
	Sidecar string
	// Reads labels the report's row; empty means a description.
	Reads string
	// Threads, when positive, caps FAISS's threads.
	Threads int
	// Timeout, when positive, bounds the search process (default
	// peers.DefaultTimeout).
	Timeout time.Duration

	rows   int
	metric vector.Metric
}

func (e *FAISSEngine) Info() EngineInfo {
	info := EngineInfo{Engine: peers.FAISS.Name, Mode: e.Mode, Batch: e.Mode == "batch", Reads: e.Reads, Computes: faissComputes(e.metric)}
	if info.Reads == "" {
		info.Reads = "an in-memory IndexFlat built from the sidecar first (load ms)"
	}
	return info
}

func (e *FAISSEngine) Available() error { return peers.FAISS.Available() }

func (e *FAISSEngine) Prepare(_ context.Context, data vector.Matrix, metric vector.Metric) error {
	if e.Mode != "single" && e.Mode != "batch" {
		return fmt.Errorf("bench: faiss mode %q: want single or batch", e.Mode)
	}
	e.rows, e.metric = data.Rows(), metric
	return nil
}

func (e *FAISSEngine) Search(ctx context.Context, queries vector.Matrix, k int) (*Answer, error) {
	req := peers.SearchRequest{Sidecar: e.Sidecar, N: e.rows, Dim: queries.Dim, Metric: e.metric.String(), K: k,
		Queries: peers.QueryRows(queries), Modes: []string{e.Mode}, Threads: e.Threads, Timeout: e.Timeout}
	return peerAnswer(peers.FAISS.Name, e.Mode, func() (*peers.SearchResult, error) { return peers.FAISSSearch(ctx, req) })
}

func (e *FAISSEngine) Close() error { return nil }

func faissComputes(m vector.Metric) string {
	switch m {
	case vector.MetricCosine:
		return "inner product of L2-normalised float32 vectors (IndexFlatIP after normalize_L2 on data and queries)"
	case vector.MetricDot:
		return "IndexFlatIP inner product, float32"
	case vector.MetricL2:
		return "IndexFlatL2 squared distance, float32"
	}
	return ""
}
