package bench

import (
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// TestCompareTopK: the agreement check accepts equal answers and ties, and
// names the engine and the query when a peer's answer is wrong.
func TestCompareTopK(t *testing.T) {
	const dim = 4
	// Rows 2 and 3 are the same vector, so they tie under every metric.
	data := vector.Matrix{Dim: dim, Data: []float32{
		1, 0, 0, 0,
		0, 1, 0, 0,
		1, 1, 0, 0,
		1, 1, 0, 0,
		-1, 0, 0, 0,
	}}
	queries := vector.Matrix{Dim: dim, Data: []float32{
		1, 0.9, 0, 0,
		0, 1, 0, 0,
	}}
	want, err := vector.SearchBatch(vector.MetricCosine, data, queries, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want[0][0].ID != 2 || want[0][1].ID != 3 {
		t.Fatalf("setup: query 0 should rank the twins 2, 3 first, got %v", want[0])
	}
	hits := func() []peers.Hits { return resultHits(want) }

	good, err := compareTopK("peer", "lab", vector.MetricCosine, data, queries, resultHits(want), hits())
	if err != nil || good.SameIDs != 2 || good.TieSwaps != 0 {
		t.Fatalf("identical answers: %+v, %v", good, err)
	}
	swapped := hits()
	swapped[0].IDs[0], swapped[0].IDs[1] = swapped[0].IDs[1], swapped[0].IDs[0]
	if a, err := compareTopK("peer", "lab", vector.MetricCosine, data, queries, resultHits(want), swapped); err != nil || a.TieSwaps != 2 || a.SameIDs != 1 {
		t.Fatalf("twins swapped: %+v, %v; want 2 tie swaps", a, err)
	}

	for _, tt := range []struct {
		name   string
		tamper func(h []peers.Hits)
		msg    string
	}{
		{"wrong id at the same score", func(h []peers.Hits) { h[1].IDs[0] = 4 }, "query 1: rank 0: id 4 instead of"},
		{"wrong score", func(h []peers.Hits) { h[0].Scores[2] += 0.01 }, "query 0: rank 2"},
		{"NaN score", func(h []peers.Hits) { h[1].Scores[1] = nanScore() }, "query 1: rank 1"},
		{"repeated id", func(h []peers.Hits) { h[0].IDs[1] = h[0].IDs[0] }, "query 0: rank 1: id 2 repeats"},
		{"id out of range", func(h []peers.Hits) { h[1].IDs[2] = 99 }, "query 1: rank 2: id 99 is not a row"},
		{"short answer", func(h []peers.Hits) { h[1].IDs, h[1].Scores = h[1].IDs[:2], h[1].Scores[:2] }, "query 1: 2 ids and 2 scores"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := hits()
			tt.tamper(h)
			_, err := compareTopK("faiss single", "lab", vector.MetricCosine, data, queries, resultHits(want), h)
			if err == nil || !strings.Contains(err.Error(), "faiss single disagrees with the lab on "+tt.msg) {
				t.Fatalf("error %v; want one naming faiss single and %q", err, tt.msg)
			}
		})
	}
	if _, err := compareTopK("lancedb flat", "lab", vector.MetricCosine, data, queries, resultHits(want), hits()[:1]); err == nil ||
		!strings.Contains(err.Error(), "lancedb flat answered 1 queries") {
		t.Errorf("missing query: %v", err)
	}
}

func nanScore() float64 {
	var zero float64
	return zero / zero
}
