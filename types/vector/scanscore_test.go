package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestStripeScorerMatchesRows scores blocks stripe by stripe and row by row
// (SearchStream's single-query path) and wants every score bit for bit the
// same: k covers every row, and the values include NaNs, infinities,
// subnormals and magnitudes whose products round.
func TestStripeScorerMatchesRows(t *testing.T) {
	if !haveStripeKernels {
		t.Skip("no stripe kernels on this CPU or build: sources score whole rows")
	}
	r := rand.New(rand.NewPCG(4, 4))
	for _, dim := range []int{32, 64, 96, 768} {
		for _, metric := range []Metric{MetricDot, MetricCosine, MetricL2} {
			for _, rows := range []int{0, 1, 2, 3, 5, 64, 341} {
				data, queries := stripeTestRows(r, rows, dim)
				k := rows + 1
				want, err := NewScanScorer(metric, dim, queries, k, 1)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := NewScanScorer(metric, dim, queries, k, 1)
				ids := make([]int64, rows)
				for i := range ids {
					ids[i] = int64(3 * i)
				}
				if err := want.Score(0, Block{IDs: ids, Vectors: data, Dim: dim}); err != nil {
					t.Fatal(err)
				}
				p := got.Stripes(0)
				if p == nil {
					t.Fatalf("dim %d: no stripe scorer", dim)
				}
				p.Begin(rows)
				stride := StripePlane(rows)
				planes := make([]float32, 8*stride)
				for e0 := 0; e0 < dim; e0 += StripeElems {
					for i := range planes {
						planes[i] = float32(math.NaN()) // the padding rows must not matter
					}
					for j := range 8 {
						for row := range rows {
							copy(planes[j*stride+2*row:j*stride+2*row+2], data[row*dim+e0+2*j:])
						}
					}
					if err := p.Add(e0, planes); err != nil {
						t.Fatal(err)
					}
				}
				if err := p.Finish(0, ids); err != nil {
					t.Fatal(err)
				}
				sameScores(t, fmt.Sprintf("dim %d %v rows %d", dim, metric, rows), want, got)
			}
		}
	}
}

// stripeTestRows draws rows × dim values, with NaNs, infinities,
// subnormals and magnitudes whose products round among them, and a query.
func stripeTestRows(r *rand.Rand, rows, dim int) ([]float32, Matrix) {
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40, -1e-41, 3.4e38, 0, float32(math.Copysign(0, -1))}
	data := make([]float32, rows*dim)
	for i := range data {
		data[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(9)-4)))
		if r.IntN(200) == 0 {
			data[i] = special[r.IntN(len(special))]
		}
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	return data, Matrix{Dim: dim, Data: q}
}

// sameScores wants got's results to be want's, ids equal and scores bit for
// bit (any NaN matching any NaN).
func sameScores(t *testing.T, what string, want, got *ScanScorer) {
	t.Helper()
	w, g := want.Results()[0], got.Results()[0]
	if len(w) != len(g) {
		t.Fatalf("%s: %d results, want %d", what, len(g), len(w))
	}
	for i := range w {
		if w[i].ID != g[i].ID || math.Float32bits(w[i].Score) != math.Float32bits(g[i].Score) && !(w[i].Score != w[i].Score && g[i].Score != g[i].Score) {
			t.Fatalf("%s: result %d = %+v, row by row %+v", what, i, g[i], w[i])
		}
	}
}

func TestStripeScorerRefuses(t *testing.T) {
	one := Matrix{Dim: 32, Data: make([]float32, 32)}
	two := Matrix{Dim: 32, Data: make([]float32, 64)}
	odd := Matrix{Dim: 40, Data: make([]float32, 40)}
	for _, tc := range []struct {
		name string
		q    Matrix
		k    int
		want bool
	}{
		{"one query", one, 3, haveStripeKernels}, {"two queries", two, 3, false}, {"dim 40", odd, 3, false}, {"k=0", one, 0, false},
	} {
		s, err := NewScanScorer(MetricDot, tc.q.Dim, tc.q, tc.k, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Stripes(1) != nil; got != tc.want {
			t.Errorf("%s: stripe scorer %v, want %v", tc.name, got, tc.want)
		}
	}
	if !haveStripeKernels {
		return
	}
	s, _ := NewScanScorer(MetricL2, 32, one, 3, 1)
	p := s.Stripes(0)
	p.Begin(2)
	if err := p.Add(16, make([]float32, 32)); err == nil {
		t.Error("a stripe out of order: no error")
	}
	if err := p.Add(0, make([]float32, 8*StripePlane(2)-1)); err == nil {
		t.Error("a short stripe: no error")
	}
	if err := p.Finish(0, nil); err == nil {
		t.Error("finished before every stripe: no error")
	}
}
