package vector

import (
	"math"
	"strings"
	"testing"
)

func TestDistance64(t *testing.T) {
	a, b := []float32{1, 0}, []float32{0, 2}
	tests := []struct {
		metric Metric
		want   float64
	}{
		{MetricL2, math.Sqrt(5)},
		{MetricCosine, 1},
		{MetricDot, 0},
	}
	for _, tt := range tests {
		if got := Distance64(tt.metric, a, b); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Distance64(%v) = %g, want %g", tt.metric, got, tt.want)
		}
	}
	if got := Distance64(MetricDot, []float32{2, 3}, []float32{4, 5}); got != -23 {
		t.Errorf("dot distance = %g, want -23", got)
	}
}

func TestRecall(t *testing.T) {
	data := randomMatrix(11, 2000, 16)
	queries := randomMatrix(12, 20, 16)
	const k = 10
	for _, metric := range metrics {
		t.Run(metric.String(), func(t *testing.T) {
			truth, err := ComputeGroundTruth(metric, data, queries, k)
			if err != nil {
				t.Fatal(err)
			}
			res, err := SearchBatch(metric, data, queries, k)
			if err != nil {
				t.Fatal(err)
			}
			exact := make([][]int64, len(res))
			perturbed := make([][]int64, len(res))
			for i, r := range res {
				exact[i] = IDsOf(r)
				// Swap the best hit for the worst row of the column: a
				// deliberately wrong answer.
				worst, err := Search(metric, data, queries.Row(i), data.Rows())
				if err != nil {
					t.Fatal(err)
				}
				perturbed[i] = append([]int64{worst[len(worst)-1].ID}, exact[i][1:]...)
			}
			st, err := truth.KNNRecall(data, queries, exact, DefaultRecallEpsilon)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mean != 1 || st.Std != 0 {
				t.Fatalf("recall of the exact search = %g ± %g, want 1 ± 0", st.Mean, st.Std)
			}
			st, err = truth.KNNRecall(data, queries, perturbed, DefaultRecallEpsilon)
			if err != nil {
				t.Fatal(err)
			}
			if want := 1 - 1.0/k; math.Abs(st.Mean-want) > 1e-12 || st.PerQuery[0] != want {
				t.Fatalf("recall of the perturbed result = %g (first query %g), want %g", st.Mean, st.PerQuery[0], want)
			}
			if metric != MetricDot {
				st, err = truth.EpsilonRecall(data, queries, exact, 0.01)
				if err != nil || st.Mean != 1 {
					t.Fatalf("epsilon recall of exact = %v, %v", st.Mean, err)
				}
			}
			// Ground truth ids agree with the float32 search on these data.
			for i := range res {
				for j := range res[i] {
					if truth.IDs[i][j] != res[i][j].ID {
						t.Fatalf("query %d rank %d: float64 truth %d, float32 search %d", i, j, truth.IDs[i][j], res[i][j].ID)
					}
				}
			}
		})
	}
}

func TestRecallDetails(t *testing.T) {
	// Rows at distance 0, 1, 1, 2 from the query on a line.
	data := Matrix{Dim: 1, Data: []float32{0, 1, -1, 2}}
	queries := Matrix{Dim: 1, Data: []float32{0}}
	truth, err := ComputeGroundTruth(MetricL2, data, queries, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := truth.IDs[0]; got[0] != 0 || got[1] != 1 {
		t.Fatalf("ground truth = %v, want [0 1] (tie at distance 1 → lower id)", got)
	}
	tests := []struct {
		name string
		ids  []int64
		want float64
	}{
		{"exact", []int64{0, 1}, 1},
		{"the other tied row counts too", []int64{0, 2}, 1},
		{"a far row does not", []int64{3, 0}, 0.5},
		{"a repeated id counts once", []int64{0, 0}, 0.5},
		{"short result", []int64{1}, 0.5},
		{"only k ids are read", []int64{3, 3, 0, 1}, 0},
	}
	for _, tt := range tests {
		st, err := truth.KNNRecall(data, queries, [][]int64{tt.ids}, DefaultRecallEpsilon)
		if err != nil || st.Mean != tt.want {
			t.Errorf("%s: recall = %g, %v; want %g", tt.name, st.Mean, err, tt.want)
		}
	}
	if _, err := truth.KNNRecall(data, queries, [][]int64{{0, 9}}, DefaultRecallEpsilon); err == nil ||
		!strings.Contains(err.Error(), "id 9 outside the data's 4 rows") {
		t.Errorf("out-of-range id error = %v", err)
	}
	// ε is additive: a row at distance d_k + ε/2 counts, at d_k + 2ε does not.
	data2 := Matrix{Dim: 1, Data: []float32{1, 1.0005, 1.002}}
	truth2, _ := ComputeGroundTruth(MetricL2, data2, queries, 1)
	for _, tt := range []struct {
		id   int64
		want float64
	}{{0, 1}, {1, 1}, {2, 0}} {
		st, err := truth2.KNNRecall(data2, queries, [][]int64{{tt.id}}, DefaultRecallEpsilon)
		if err != nil || st.Mean != tt.want {
			t.Errorf("row %d: recall %g, %v; want %g", tt.id, st.Mean, err, tt.want)
		}
	}
	// Fewer rows than k: every row is a neighbour.
	truth3, _ := ComputeGroundTruth(MetricDot, data, queries, 10)
	if len(truth3.IDs[0]) != 4 {
		t.Errorf("k > rows: %d neighbours, want 4", len(truth3.IDs[0]))
	}
	if _, err := ComputeGroundTruth(MetricL2, data, Matrix{Dim: 2, Data: []float32{1, 2}}, 1); err == nil ||
		!strings.Contains(err.Error(), "query dimension 2 ≠ column dimension 1") {
		t.Errorf("ground truth dimension mismatch error = %v", err)
	}
}
