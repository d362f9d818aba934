package vector

import (
	"fmt"
	"runtime"
)

// ScanScorer scores the blocks of one search from several goroutines at
// once, each into top-k collectors of its own, merged by Results. It is
// for a source that decodes on goroutines of its own: scoring a block on
// the goroutine that decoded it, right after decoding, reads it from that
// core's cache, where handing it to a scoring goroutine (SearchStream) has
// another core read it back from a cache further out or from memory.
//
// Scores and ranking are SearchStream's: a score depends only on the
// values and the ranking is total (TopK), so the results do not depend on
// which worker scored a block, on how the column is cut into blocks, or on
// the order the blocks come in.
type ScanScorer struct {
	metric  Metric
	dim     int
	m, k    int
	scorers []*scorer
}

// NewScanScorer prepares workers scorers (≤ 0: runtime.GOMAXPROCS) of
// queries against a column of dimension dim, with SearchStream's checks.
func NewScanScorer(metric Metric, dim int, queries Matrix, k, workers int) (*ScanScorer, error) {
	if !metric.Valid() {
		return nil, fmt.Errorf("vector: invalid metric %v", metric)
	}
	if dim < 1 {
		return nil, fmt.Errorf("vector: column dimension %d, want ≥ 1", dim)
	}
	if queries.Dim != dim {
		return nil, DimMismatchError(queries.Dim, dim)
	}
	if err := queries.check("queries"); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, fmt.Errorf("vector: k = %d, want ≥ 0", k)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &ScanScorer{metric: metric, dim: dim, m: queries.Rows(), k: k}
	if s.m == 0 || k == 0 {
		return s, nil
	}
	s.scorers = make([]*scorer, workers)
	for w := range s.scorers {
		s.scorers[w] = newScorer(metric, queries, k)
	}
	return s, nil
}

// Workers is the number of workers the scorer serves.
func (s *ScanScorer) Workers() int { return len(s.scorers) }

// Idle reports that nothing can be found (no query, or k = 0): the source
// need not be read at all, as SearchStream does not read it.
func (s *ScanScorer) Idle() bool { return s.scorers == nil }

// Score scores block b for worker w < Workers(). Calls for different
// workers may run concurrently, calls for the same worker must not. b is
// not kept: its memory may be reused once Score returns.
func (s *ScanScorer) Score(w int, b Block) error {
	if s.Idle() {
		return nil
	}
	if err := checkBlock(b, s.dim); err != nil {
		return err
	}
	s.scorers[w].score(b)
	return nil
}

// Results merges the workers' collectors: for each query its k best rows,
// best first. Call it once every Score has returned.
func (s *ScanScorer) Results() [][]Result {
	out := make([][]Result, s.m)
	for i := range out {
		if s.Idle() {
			out[i] = []Result{}
			continue
		}
		top := NewTopK(s.k, s.metric)
		for _, sc := range s.scorers {
			top.Merge(sc.tops[i])
		}
		out[i] = top.Results()
	}
	return out
}

// checkBlock checks a block against the column dimension: SearchStream's
// checks of what a source hands it.
func checkBlock(b Block, dim int) error {
	if b.Dim != 0 && b.Dim != dim {
		return DimMismatchError(dim, b.Dim)
	}
	if len(b.Vectors)%dim != 0 {
		return fmt.Errorf("vector: block (first row %d): %d elements is not a multiple of column dimension %d", b.FirstRow, len(b.Vectors), dim)
	}
	if b.IDs != nil && len(b.IDs) != len(b.Vectors)/dim {
		return fmt.Errorf("vector: block (first row %d): %d ids for %d vectors", b.FirstRow, len(b.IDs), len(b.Vectors)/dim)
	}
	return nil
}

// StripeElems is how many consecutive elements of each row a
// StripeScorer takes at a time.
const StripeElems = 16

// StripeScorer scores a block of rows against a search's single query when
// the rows' elements come a stripe at a time: StripeElems consecutive
// elements of every row, stripe after stripe from element 0 on, as a
// BYTE_STREAM_SPLIT page of FIXED_LEN_BYTE_ARRAY vectors decodes 64 of its
// byte streams at a time. A stripe comes in 8 planes, plane j holding
// elements 2j and 2j+1 of every row (row r's at plane[2r:]), the rows
// padded to a multiple of 4: the shape the decoder's first transpose step
// leaves them in. The rows are never whole in memory: each stripe is
// folded into per-row accumulators (the SIMD kernels' own, 32 floats a
// row, 64 for cosine) and the scores come out at the end, bit for bit the
// ones SearchStream computes row by row (the same fused multiply-adds in
// the same order, the same fold).
type StripeScorer struct {
	s     *scorer
	rows  int
	acc   []float32
	quad  int // accumulator floats per quad of rows
	next  int // the element the next stripe starts at
	lanes [64]float32
	sums  []float32 // ScoreSplit's folded sums (cosine: then ‖x‖²s)
}

// Stripes returns worker w's stripe scorer, or nil where scoring by
// stripes would not give SearchStream's scores: more than one query (the
// batched path sums in another order), a dimension that is not a multiple
// of 32 (the kernels' tails), or no FMA kernels. Its memory is the
// accumulators of the largest block it is given.
func (s *ScanScorer) Stripes(w int) *StripeScorer {
	if s.Idle() || s.m != 1 || !haveStripeKernels || s.dim%32 != 0 {
		return nil
	}
	quad := 128
	if s.metric == MetricCosine {
		quad = 256
	}
	return &StripeScorer{s: s.scorers[w], quad: quad}
}

// StripePlane is the stride, in float32s, of a stripe's planes for rows
// rows: 2 a row, the rows padded to a multiple of 4.
func StripePlane(rows int) int { return (rows + 3) / 4 * 8 }

// Begin starts a block of rows rows.
func (p *StripeScorer) Begin(rows int) {
	n := (rows + 3) / 4 * p.quad
	if cap(p.acc) < n {
		p.acc = make([]float32, n)
	}
	p.acc = p.acc[:n]
	clear(p.acc)
	p.rows, p.next = rows, 0
}

// Add takes the next stripe, elements e0 to e0+StripeElems of every row of
// the block, in 8 planes of StripePlane(rows) float32s. Stripes come in
// order, e0 = 0, 16, 32, …
func (p *StripeScorer) Add(e0 int, planes []float32) error {
	if e0 != p.next || e0+StripeElems > p.s.dim {
		return fmt.Errorf("vector: stripe at element %d, want the one at %d of %d", e0, p.next, p.s.dim)
	}
	stride := StripePlane(p.rows)
	if len(planes) < 8*stride {
		return fmt.Errorf("vector: stripe of %d elements for 8 planes of %d", len(planes), stride)
	}
	if p.rows > 0 {
		// Elements e0..e0+15 go to accumulators 0, 1 or 2, 3 of the
		// 32-wide step: the second or first half of each quad's.
		half := (e0 / StripeElems) % 2
		stripeAdd(p.s.metric, p.acc[half*64:], planes, p.s.q[e0:e0+StripeElems], (p.rows+3)/4, stride)
	}
	p.next += StripeElems
	return nil
}

// Finish scores the block once every stripe is in, pushing each row to the
// worker's top k: ids[r] is row r's id when ids is not nil, firstRow + r
// otherwise.
func (p *StripeScorer) Finish(firstRow int64, ids []int64) error {
	if p.next != p.s.dim {
		return fmt.Errorf("vector: %d of %d elements striped in", p.next, p.s.dim)
	}
	if ids != nil && len(ids) != p.rows {
		return fmt.Errorf("vector: %d ids for %d rows", len(ids), p.rows)
	}
	top, qq := p.s.tops[0], p.s.qq[0]
	for r := range p.rows {
		q := p.acc[r/4*p.quad : (r/4+1)*p.quad]
		ri := r % 4
		// Lane l of accumulator a sits in register 4a + l/2 of the quad,
		// at 2·ri + l%2; bb's registers follow ab's.
		for reg := range p.quad / 8 {
			l := 2*(reg&^3) + 2*(reg&3) // 8a + 2(l/2)
			p.lanes[l] = q[reg*8+2*ri]
			p.lanes[l+1] = q[reg*8+2*ri+1]
		}
		var sc float32
		switch p.s.metric {
		case MetricCosine:
			sc = cosineFrom(foldLanes(p.lanes[:32]), qq, foldLanes(p.lanes[32:]))
		default:
			sc = foldLanes(p.lanes[:32])
		}
		id := firstRow + int64(r)
		if ids != nil {
			id = ids[r]
		}
		top.Push(id, sc)
	}
	return nil
}

// foldLanes sums four 8-lane accumulators as the FMA kernels do:
// (acc0 + acc1) + (acc2 + acc3) lane by lane, then the lanes (HSUM):
// ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
func foldLanes(a []float32) float32 {
	var y [8]float32
	for l := range 8 {
		y[l] = (a[l] + a[8+l]) + (a[16+l] + a[24+l])
	}
	s0, s1, s2, s3 := y[0]+y[4], y[1]+y[5], y[2]+y[6], y[3]+y[7]
	return (s0 + s2) + (s1 + s3)
}
