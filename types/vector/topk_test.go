package vector

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

var nan = float32(math.NaN())

func TestTopK(t *testing.T) {
	type push struct {
		id    int64
		score float32
	}
	tests := []struct {
		name   string
		metric Metric
		k      int
		pushes []push
		want   []Result // NaN scores compared by id only
	}{
		{
			name: "higher is better", metric: MetricDot, k: 3,
			pushes: []push{{0, 0.1}, {1, 0.9}, {2, 0.5}, {3, 0.7}, {4, -1}},
			want:   []Result{{1, 0.9}, {3, 0.7}, {2, 0.5}},
		},
		{
			name: "lower is better", metric: MetricL2, k: 3,
			pushes: []push{{0, 0.1}, {1, 0.9}, {2, 0.5}, {3, 0.7}, {4, 0}},
			want:   []Result{{4, 0}, {0, 0.1}, {2, 0.5}},
		},
		{
			name: "ties: lower id first, whatever the push order", metric: MetricDot, k: 3,
			pushes: []push{{9, 1}, {5, 1}, {7, 1}, {2, 1}, {8, 1}},
			want:   []Result{{2, 1}, {5, 1}, {7, 1}},
		},
		{
			name: "ties at the boundary keep the lower id", metric: MetricL2, k: 2,
			pushes: []push{{4, 0}, {6, 3}, {5, 3}, {1, 3}},
			want:   []Result{{4, 0}, {1, 3}},
		},
		{
			name: "+0 and -0 tie", metric: MetricDot, k: 2,
			pushes: []push{{3, float32(math.Copysign(0, -1))}, {1, 0}},
			want:   []Result{{1, 0}, {3, 0}},
		},
		{
			name: "NaN never ahead of a number (dot)", metric: MetricDot, k: 2,
			pushes: []push{{0, nan}, {1, -1e30}, {2, nan}, {3, float32(math.Inf(-1))}},
			want:   []Result{{1, -1e30}, {3, float32(math.Inf(-1))}},
		},
		{
			name: "NaN never ahead of a number (l2)", metric: MetricL2, k: 2,
			pushes: []push{{0, nan}, {1, 1e30}, {2, float32(math.Inf(1))}},
			want:   []Result{{1, 1e30}, {2, float32(math.Inf(1))}},
		},
		{
			name: "NaN fills the tail only when numbers run out, by id", metric: MetricCosine, k: 4,
			pushes: []push{{8, nan}, {3, 0.5}, {5, nan}, {6, nan}},
			want:   []Result{{3, 0.5}, {5, nan}, {6, nan}, {8, nan}},
		},
		{
			name: "k larger than the input", metric: MetricDot, k: 10,
			pushes: []push{{1, 1}, {2, 2}},
			want:   []Result{{2, 2}, {1, 1}},
		},
		{
			name: "k zero collects nothing", metric: MetricDot, k: 0,
			pushes: []push{{1, 1}},
			want:   []Result{},
		},
		{
			name: "no input", metric: MetricL2, k: 3,
			want: []Result{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := NewTopK(tt.k, tt.metric)
			for _, p := range tt.pushes {
				top.Push(p.id, p.score)
			}
			got := top.Results()
			if !sameResults(got, tt.want) {
				t.Fatalf("Results = %v, want %v", got, tt.want)
			}
		})
	}
}

// sameResults compares exactly, treating NaN scores as equal to each other.
func sameResults(a, b []Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
		an, bn := a[i].Score != a[i].Score, b[i].Score != b[i].Score
		if an != bn || (!an && a[i].Score != b[i].Score) {
			return false
		}
	}
	return true
}

// TopK agrees with sorting everything, and merging partial collectors
// agrees with one collector: the property the parallel search relies on.
func TestTopKMatchesSortAndMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, metric := range []Metric{MetricDot, MetricL2} {
		for trial := range 50 {
			n, k := 1+r.IntN(300), 1+r.IntN(20)
			all := make([]Result, n)
			for i := range all {
				s := float32(r.IntN(20)) // many ties
				if r.IntN(10) == 0 {
					s = nan
				}
				all[i] = Result{ID: int64(r.IntN(1000)*1000 + i), Score: s}
			}
			one := NewTopK(k, metric)
			parts := []*TopK{NewTopK(k, metric), NewTopK(k, metric), NewTopK(k, metric)}
			for i, x := range all {
				one.Push(x.ID, x.Score)
				parts[i%3].Push(x.ID, x.Score)
			}
			merged := NewTopK(k, metric)
			for _, p := range parts {
				merged.Merge(p)
			}
			want := slices.Clone(all)
			slices.SortFunc(want, func(a, b Result) int {
				if one.better(a, b) {
					return -1
				}
				if one.better(b, a) {
					return 1
				}
				return 0
			})
			want = want[:min(k, n)]
			if got := one.Results(); !sameResults(got, want) {
				t.Fatalf("%v trial %d: TopK = %v, want %v", metric, trial, got, want)
			}
			if got := merged.Results(); !sameResults(got, want) {
				t.Fatalf("%v trial %d: merged = %v, want %v", metric, trial, got, want)
			}
		}
	}
	top := NewTopK(2, MetricDot)
	top.Push(1, 1)
	top.Reset()
	if top.Len() != 0 || !reflect.DeepEqual(top.Results(), []Result{}) {
		t.Fatal("Reset did not empty the collector")
	}
}
