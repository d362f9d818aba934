package vector

import "slices"

// Result is one search hit: the row id and its score under the metric.
type Result struct {
	ID    int64
	Score float32
}

// TopK collects the k best (id, score) pairs seen so far in O(k) memory.
//
// Ranking is total and deterministic so that parallel and sequential searches
// return identical results:
//   - a better score ranks first (higher for dot and cosine, lower for L2);
//   - equal scores rank the lower id first (+0 and -0 are equal);
//   - NaN ranks below every number, under every metric, so a NaN enters the
//     top k only when fewer than k rows have a numeric score; NaNs among
//     themselves rank by id.
//
// The heap keeps the worst kept result at the root, so a new candidate is
// compared with one element and usually rejected there.
type TopK struct {
	k      int
	higher bool
	heap   []Result
}

// NewTopK returns a collector for the k best results under m. A k ≤ 0
// collects nothing.
func NewTopK(k int, m Metric) *TopK {
	k = max(k, 0)
	return &TopK{k: k, higher: m.HigherIsBetter(), heap: make([]Result, 0, min(k, 1<<16))}
}

// K is the number of results the collector keeps.
func (t *TopK) K() int { return t.k }

// Len is the number of results currently kept.
func (t *TopK) Len() int { return len(t.heap) }

// better reports whether a ranks ahead of b.
func (t *TopK) better(a, b Result) bool {
	an, bn := a.Score != a.Score, b.Score != b.Score
	switch {
	case an && bn:
		return a.ID < b.ID
	case an:
		return false
	case bn:
		return true
	}
	if a.Score != b.Score {
		if t.higher {
			return a.Score > b.Score
		}
		return a.Score < b.Score
	}
	return a.ID < b.ID
}

// Push offers one candidate.
func (t *TopK) Push(id int64, score float32) {
	r := Result{ID: id, Score: score}
	if len(t.heap) < t.k {
		t.heap = append(t.heap, r)
		t.up(len(t.heap) - 1)
		return
	}
	if t.k == 0 || !t.better(r, t.heap[0]) {
		return
	}
	t.heap[0] = r
	t.down(0)
}

// Merge offers every result kept by o.
func (t *TopK) Merge(o *TopK) {
	for _, r := range o.heap {
		t.Push(r.ID, r.Score)
	}
}

// Reset empties the collector, keeping k and the metric.
func (t *TopK) Reset() { t.heap = t.heap[:0] }

// Results returns the kept results, best first, in a new slice; the
// collector is unchanged.
func (t *TopK) Results() []Result {
	out := slices.Clone(t.heap)
	if out == nil {
		out = []Result{}
	}
	slices.SortFunc(out, func(a, b Result) int {
		switch {
		case t.better(a, b):
			return -1
		case t.better(b, a):
			return 1
		}
		return 0
	})
	return out
}

// worst-at-root heap: parent is never better than its children.
func (t *TopK) up(i int) {
	h := t.heap
	for i > 0 {
		p := (i - 1) / 2
		if !t.better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *TopK) down(i int) {
	h := t.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l // the worse child
		if r := l + 1; r < n && t.better(h[l], h[r]) {
			w = r
		}
		if !t.better(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
