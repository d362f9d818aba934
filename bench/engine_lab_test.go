package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/types/vector"
)

// TestLabEnginesThroughRunner runs the lab's own engines (no peers) through
// the runner on real files: every run finds the true neighbours and agrees
// with the single-query search of the flba file, and the take returns the
// dataset's rows.
func TestLabEnginesThroughRunner(t *testing.T) {
	const n, dim, queries = 500, 16, 6
	raw, q, err := Dataset("clustered", n, dim, 8, queries, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := vector.Matrix{Dim: dim, Data: raw}
	dir := t.TempDir()
	flba, list := filepath.Join(dir, "flba.parquet"), filepath.Join(dir, "list.parquet")
	if err := WritePlainVectors(flba, data, vectorcol.LayoutFLBA); err != nil {
		t.Fatal(err)
	}
	if err := WritePlainVectors(list, data, vectorcol.LayoutList); err != nil {
		t.Fatal(err)
	}
	single := &LabFileEngine{Path: flba}
	res, err := RunEngines(context.Background(), RunConfig{
		Data: data, Queries: q, Metric: vector.MetricL2, K: 5,
		Engines: []Engine{
			single,
			&LabFileEngine{Path: list, Mode: "single (list file)"},
			&LabFileEngine{Path: flba, Batch: true},
			&LabMemoryEngine{},
		},
		Reference: "lab single", SearchRuns: 2, FloorRuns: 1, Recall: true,
		Takers: []Taker{single}, TakeRows: DistinctRows(20, n, 1), TakeRuns: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantModes := []string{"single", "single (list file)", "batch", "memory"}
	if len(res.Search) != len(wantModes) {
		t.Fatalf("%d runs, want %d", len(res.Search), len(wantModes))
	}
	for i, r := range res.Search {
		if r.Engine != "lab" || r.Mode != wantModes[i] || r.Recall != 1 || r.Agreement.Queries != queries {
			t.Errorf("run %d: %s, recall %v, agreement %+v; want lab %s with recall 1 over %d queries",
				i, r.Name(), r.Recall, r.Agreement, wantModes[i], queries)
		}
		if r.Computes != "squared Euclidean distance in float32" || r.Reads == "" || r.MedianMS <= 0 || r.LabRatio <= 0 {
			t.Errorf("%s: %+v", r.Name(), r)
		}
	}
	if !res.Search[2].Batch || !res.Search[3].Batch || res.Search[0].Batch {
		t.Error("batch flags wrong")
	}
	if len(res.Take) != 1 || res.Take[0].LabRatio != 1 || res.Take[0].OpenTakeMS <= 0 || res.Take[0].TakeMS > res.Take[0].FirstTakeMS {
		t.Errorf("take %+v", res.Take)
	}
}
