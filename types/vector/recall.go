package vector

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// DefaultRecallEpsilon is ann-benchmarks' default ε for k-nn recall.
const DefaultRecallEpsilon = 1e-3

// Distance64 is the distance ann-benchmarks reports for metric, computed in
// float64 from the float32 inputs: Euclidean distance for L2 (not squared),
// 1 − cosine for cosine ("angular"), and −a·b for dot, so that smaller is
// always closer. A zero vector has NaN cosine distance.
func Distance64(metric Metric, a, b []float32) float64 {
	sameLength(a, b)
	switch metric {
	case MetricL2:
		var s float64
		for i, x := range a {
			d := float64(x) - float64(b[i])
			s += d * d
		}
		return math.Sqrt(s)
	case MetricCosine:
		var ab, aa, bb float64
		for i, x := range a {
			y := float64(b[i])
			ab += float64(x) * y
			aa += float64(x) * float64(x)
			bb += y * y
		}
		den := math.Sqrt(aa) * math.Sqrt(bb)
		if den == 0 {
			return math.NaN()
		}
		return 1 - ab/den
	case MetricDot:
		var ab float64
		for i, x := range a {
			ab += float64(x) * float64(b[i])
		}
		return -ab
	}
	return math.NaN()
}

// GroundTruth holds the exact k nearest rows of every query, computed in
// float64 by brute force.
type GroundTruth struct {
	Metric Metric
	K      int
	// IDs[i] and Distances[i] are query i's neighbours, nearest first (ties
	// by lower id, NaN last), with their Distance64.
	IDs       [][]int64
	Distances [][]float64
}

// ComputeGroundTruth finds the exact k nearest rows of data for each query in
// float64, spreading the queries over every core. When data has fewer than k
// rows, every row is a neighbour.
func ComputeGroundTruth(metric Metric, data, queries Matrix, k int) (*GroundTruth, error) {
	if !metric.Valid() {
		return nil, fmt.Errorf("vector: invalid metric %v", metric)
	}
	if err := data.check("data"); err != nil {
		return nil, err
	}
	if queries.Dim != data.Dim {
		return nil, DimMismatchError(queries.Dim, data.Dim)
	}
	if err := queries.check("queries"); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, fmt.Errorf("vector: k = %d, want ≥ 0", k)
	}
	m, n := queries.Rows(), data.Rows()
	kk := min(k, n)
	g := &GroundTruth{Metric: metric, K: k, IDs: make([][]int64, m), Distances: make([][]float64, m)}
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ids := make([]int64, 0, kk)
				ds := make([]float64, 0, kk)
				q := queries.Row(i)
				for j := range n {
					ids, ds = insertNearest(ids, ds, kk, int64(j), Distance64(metric, q, data.Row(j)))
				}
				g.IDs[i], g.Distances[i] = ids, ds
			}
		}()
	}
	for i := range m {
		next <- i
	}
	close(next)
	wg.Wait()
	return g, nil
}

// nearer orders distances ascending, NaN last, ties by id.
func nearer(da float64, ia int64, db float64, ib int64) bool {
	an, bn := math.IsNaN(da), math.IsNaN(db)
	switch {
	case an && bn:
		return ia < ib
	case an:
		return false
	case bn:
		return true
	case da != db:
		return da < db
	}
	return ia < ib
}

// insertNearest keeps ids/ds as the sorted k nearest seen so far. Insertion
// into a sorted slice is O(k) but most rows are rejected by the first
// comparison, and k is small for recall.
func insertNearest(ids []int64, ds []float64, k int, id int64, d float64) ([]int64, []float64) {
	if k == 0 {
		return ids, ds
	}
	if len(ids) == k {
		if !nearer(d, id, ds[k-1], ids[k-1]) {
			return ids, ds
		}
		ids, ds = ids[:k-1], ds[:k-1]
	}
	pos := len(ids)
	for pos > 0 && nearer(d, id, ds[pos-1], ids[pos-1]) {
		pos--
	}
	ids = append(ids, 0)
	ds = append(ds, 0)
	copy(ids[pos+1:], ids[pos:])
	copy(ds[pos+1:], ds[pos:])
	ids[pos], ds[pos] = id, d
	return ids, ds
}

// RecallStats summarizes recall over queries, as ann-benchmarks reports it.
type RecallStats struct {
	Mean, Std float64
	PerQuery  []float64
}

// IDsOf returns the ids of results, in order.
func IDsOf(results []Result) []int64 {
	ids := make([]int64, len(results))
	for i, r := range results {
		ids[i] = r.ID
	}
	return ids
}

// KNNRecall is ann-benchmarks' "k-nn" recall (plotting/metrics.py, knn and
// knn_threshold, https://github.com/erikbern/ann-benchmarks): for each query,
// the first k returned ids are re-scored with the true distance (Distance64,
// float64), and an id counts when its distance ≤ d_k + ε, where d_k is the
// true k-th nearest distance; recall is the count / k, and Mean/Std are over
// queries. The additive ε (default 1e-3) forgives float rounding at the k-th
// boundary, so a correct result with ties there still scores 1.
//
// Two deliberate differences, both only stricter: an id repeated in a result
// counts once (ann-benchmarks would count it twice), and an id outside the
// data is an error. When the data has fewer than k rows, k becomes the row
// count.
func (g *GroundTruth) KNNRecall(data, queries Matrix, results [][]int64, epsilon float64) (RecallStats, error) {
	return g.recall(data, queries, results, func(dk float64) float64 { return dk + epsilon })
}

// EpsilonRecall is ann-benchmarks' "epsilon" recall (epsilon_threshold): the
// threshold is d_k × (1 + ε) instead. It is meaningful for L2 and cosine
// distances, which are non-negative; dot distances (−a·b) can be negative,
// which is why k-nn recall, not this, is the default.
func (g *GroundTruth) EpsilonRecall(data, queries Matrix, results [][]int64, epsilon float64) (RecallStats, error) {
	return g.recall(data, queries, results, func(dk float64) float64 { return dk * (1 + epsilon) })
}

func (g *GroundTruth) recall(data, queries Matrix, results [][]int64, threshold func(float64) float64) (RecallStats, error) {
	if len(results) != len(g.IDs) || queries.Rows() != len(g.IDs) {
		return RecallStats{}, fmt.Errorf("vector: recall: %d results and %d queries for a ground truth of %d queries", len(results), queries.Rows(), len(g.IDs))
	}
	if queries.Dim != data.Dim {
		return RecallStats{}, DimMismatchError(queries.Dim, data.Dim)
	}
	n := data.Rows()
	st := RecallStats{PerQuery: make([]float64, len(results))}
	for i, ids := range results {
		k := len(g.IDs[i])
		if k == 0 {
			st.PerQuery[i] = 1 // nothing to find
			continue
		}
		t := threshold(g.Distances[i][k-1])
		q := queries.Row(i)
		seen := make(map[int64]bool, k)
		hits := 0
		for _, id := range ids[:min(k, len(ids))] {
			if id < 0 || id >= int64(n) {
				return RecallStats{}, fmt.Errorf("vector: recall: query %d: id %d outside the data's %d rows", i, id, n)
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			if Distance64(g.Metric, q, data.Row(int(id))) <= t {
				hits++
			}
		}
		st.PerQuery[i] = float64(hits) / float64(k)
	}
	if len(st.PerQuery) > 0 {
		for _, r := range st.PerQuery {
			st.Mean += r
		}
		st.Mean /= float64(len(st.PerQuery))
		for _, r := range st.PerQuery {
			st.Std += (r - st.Mean) * (r - st.Mean)
		}
		st.Std = math.Sqrt(st.Std / float64(len(st.PerQuery))) // population std, as numpy's np.std
	}
	return st, nil
}
