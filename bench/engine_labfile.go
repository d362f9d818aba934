package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// LabFileEngine is the lab's exact search straight from a Parquet VECTOR
// file (vector.SearchFile), as `lab vector search` runs it, and its take
// (vectorcol).
type LabFileEngine struct {
	// Path is the Parquet file with the vector column.
	Path string
	// Batch answers all queries in one scan of the file; otherwise each
	// query is its own SearchFile call, opening the file as a user's one-off
	// search would, and timed alone.
	Batch bool
	// Mode and Reads label the report's row; empty means "single" or
	// "batch", and a description of Path's use.
	Mode, Reads string

	metric vector.Metric
}

func (e *LabFileEngine) Info() EngineInfo {
	info := EngineInfo{Engine: "lab", Mode: e.Mode, Batch: e.Batch, Reads: e.Reads,
		Computes: labComputes(e.metric), InProcess: true}
	if info.Mode == "" {
		info.Mode = "single"
		if e.Batch {
			info.Mode = "batch"
		}
	}
	if info.Reads == "" {
		info.Reads = "the Parquet file, opened per query"
		if e.Batch {
			info.Reads = "the Parquet file, one pass for all queries"
		}
	}
	return info
}

func (e *LabFileEngine) Available() error { return nil }

func (e *LabFileEngine) Prepare(_ context.Context, _ vector.Matrix, metric vector.Metric) error {
	e.metric = metric
	return nil
}

func (e *LabFileEngine) Search(_ context.Context, queries vector.Matrix, k int) (*Answer, error) {
	in := registry.LocalInput(e.Path)
	if e.Batch {
		start := time.Now()
		res, err := vector.SearchFile(in, e.metric, queries, k, nil)
		if err != nil {
			return nil, fmt.Errorf("bench: lab batch search of %s: %w", e.Path, err)
		}
		return &Answer{Hits: resultHits(res), TotalMS: msSince(start)}, nil
	}
	ans := &Answer{Hits: make([]peers.Hits, queries.Rows())}
	for i := range ans.Hits {
		q := vector.Matrix{Dim: queries.Dim, Data: queries.Row(i)}
		start := time.Now()
		res, err := vector.SearchFile(in, e.metric, q, k, nil)
		ms := msSince(start)
		if err != nil {
			return nil, fmt.Errorf("bench: lab search of %s, query %d: %w", e.Path, i, err)
		}
		ans.Hits[i] = resultHits(res)[0]
		ans.Hits[i].MS = ms
		ans.TotalMS += ms
	}
	return ans, nil
}

// Take times two ways of reading the rows: vectorcol.Take, which opens the
// file on every call (a user's one-off take), and File.Take on a file
// opened once (a service holding it open), like LanceDB's open table.
func (e *LabFileEngine) Take(_ context.Context, rows []int64, runs int) (*TakeAnswer, error) {
	ans := &TakeAnswer{IDs: rows}
	for range runs {
		start := time.Now()
		if _, err := vectorcol.Take(e.Path, rows); err != nil {
			return nil, fmt.Errorf("bench: lab take from %s: %w", e.Path, err)
		}
		ans.OpenTakeMS = append(ans.OpenTakeMS, msSince(start))
	}
	start := time.Now()
	f, err := vectorcol.OpenFile(e.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ans.OpenMS = msSince(start)
	for range runs {
		start := time.Now()
		if ans.Vectors, err = f.Take(rows); err != nil {
			return nil, fmt.Errorf("bench: lab take from %s: %w", e.Path, err)
		}
		ans.TakeMS = append(ans.TakeMS, msSince(start))
	}
	return ans, nil
}

func (e *LabFileEngine) Close() error { return nil }

// resultHits turns the lab's results into the answers' common form.
func resultHits(res [][]vector.Result) []peers.Hits {
	out := make([]peers.Hits, len(res))
	for i, r := range res {
		out[i].IDs = vector.IDsOf(r)
		out[i].Scores = make([]float64, len(r))
		for j, x := range r {
			out[i].Scores[j] = float64(x.Score)
		}
	}
	return out
}

// labComputes says what the lab's score is, for every lab engine.
func labComputes(m vector.Metric) string {
	switch m {
	case vector.MetricCosine:
		return "cosine similarity q·x/(‖q‖‖x‖) in float32 (vector.Cosine)"
	case vector.MetricDot:
		return "inner product q·x in float32"
	case vector.MetricL2:
		return "squared Euclidean distance in float32"
	}
	return ""
}
