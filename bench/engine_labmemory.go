package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/types/vector"
)

// LabMemoryEngine is the lab's exact batch search of vectors already in
// memory (vector.SearchBatch): the lab's best case, with no file to read,
// beside which the file searches show what reading Parquet costs.
type LabMemoryEngine struct {
	// Mode and Reads label the report's row; empty means "memory" and "the
	// in-memory matrix".
	Mode, Reads string

	data   vector.Matrix
	metric vector.Metric
}

func (e *LabMemoryEngine) Info() EngineInfo {
	info := EngineInfo{Engine: "lab", Mode: e.Mode, Batch: true, Reads: e.Reads,
		Computes: labComputes(e.metric), InProcess: true}
	if info.Mode == "" {
		info.Mode = "memory"
	}
	if info.Reads == "" {
		info.Reads = "the in-memory matrix, all queries at once"
	}
	return info
}

func (e *LabMemoryEngine) Available() error { return nil }

func (e *LabMemoryEngine) Prepare(_ context.Context, data vector.Matrix, metric vector.Metric) error {
	e.data, e.metric = data, metric
	return nil
}

func (e *LabMemoryEngine) Search(_ context.Context, queries vector.Matrix, k int) (*Answer, error) {
	start := time.Now()
	res, err := vector.SearchBatch(e.metric, e.data, queries, k)
	if err != nil {
		return nil, fmt.Errorf("bench: lab in-memory search: %w", err)
	}
	return &Answer{Hits: resultHits(res), TotalMS: msSince(start)}, nil
}

func (e *LabMemoryEngine) Close() error {
	e.data = vector.Matrix{}
	return nil
}
