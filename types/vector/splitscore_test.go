package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// splitPlanes lays rows out as a byte-split matrix of stride rows, the
// rows at offset first; the other rows' bytes are noise.
func splitPlanes(r *rand.Rand, data []float32, dim, first, stride int) []byte {
	rows := len(data) / dim
	planes := make([]byte, 4*dim*stride)
	for i := range planes {
		planes[i] = byte(r.Uint32())
	}
	var b [4]byte
	for row := range rows {
		for e := range dim {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(data[row*dim+e]))
			for k := range 4 {
				planes[(4*e+k)*stride+first+row] = b[k]
			}
		}
	}
	return planes
}

// TestScoreSplitMatchesRows scores rows from byte planes and row by row
// (SearchStream's single-query path) and wants every score bit for bit the
// same, for row counts on and off the kernels' 32-row blocks, rows that
// start inside the planes and end before their end, and values that
// include NaNs, infinities, subnormals and products that round.
func TestScoreSplitMatchesRows(t *testing.T) {
	if !haveStripeKernels {
		t.Skip("no stripe kernels on this CPU or build: sources score whole rows")
	}
	r := rand.New(rand.NewPCG(5, 5))
	for _, dim := range []int{32, 64, 96, 768} {
		for _, metric := range []Metric{MetricDot, MetricCosine, MetricL2} {
			for _, rows := range []int{32, 33, 47, 63, 64, 100, 341, 512} {
				for _, shape := range []struct{ first, after int }{{0, 0}, {5, 0}, {0, 40}, {17, 3}} {
					data, queries := stripeTestRows(r, rows, dim)
					k := rows + 1
					want, err := NewScanScorer(metric, dim, queries, k, 1)
					if err != nil {
						t.Fatal(err)
					}
					got, _ := NewScanScorer(metric, dim, queries, k, 1)
					var ids []int64
					if shape.first%2 == 1 {
						ids = make([]int64, rows)
						for i := range ids {
							ids[i] = int64(3 * i)
						}
					}
					if err := want.Score(0, Block{FirstRow: 7, IDs: ids, Vectors: data, Dim: dim}); err != nil {
						t.Fatal(err)
					}
					planes := splitPlanes(r, data, dim, shape.first, shape.first+rows+shape.after)
					if err := got.Stripes(0).ScoreSplit(planes, shape.first+rows+shape.after, shape.first, rows, 7, ids); err != nil {
						t.Fatal(err)
					}
					sameScores(t, fmt.Sprintf("dim %d %v rows %d %+v", dim, metric, rows, shape), want, got)
				}
			}
		}
	}
}

func TestScoreSplitRefuses(t *testing.T) {
	if !haveStripeKernels {
		t.Skip("no stripe kernels on this CPU or build")
	}
	const dim = 32
	s, err := NewScanScorer(MetricDot, dim, Matrix{Dim: dim, Data: make([]float32, dim)}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Stripes(0)
	planes := make([]byte, 4*dim*64)
	for _, tc := range []struct {
		name                 string
		planes               []byte
		stride, first, count int
		ids                  []int64
	}{
		{"too few rows", planes, 64, 0, 31, nil},
		{"rows past the planes' stride", planes, 64, 40, 32, nil},
		{"negative first row", planes, 64, -1, 32, nil},
		{"planes too short", planes[:len(planes)-1], 64, 32, 32, nil},
		{"ids of another count", planes, 64, 0, 32, make([]int64, 31)},
	} {
		if err := p.ScoreSplit(tc.planes, tc.stride, tc.first, tc.count, 0, tc.ids); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if err := p.ScoreSplit(planes[:len(planes)-32], 64, 0, 32, 0, nil); err != nil {
		t.Errorf("the last plane need only reach the last row: %v", err)
	}
}

// FuzzScoreSplit scores byte planes of any shape the fuzzer picks (rows,
// where they start and end among the planes, the metric, the dimension)
// and wants SearchStream's scores bit for bit, or an error for shapes
// ScoreSplit refuses; never a panic or a read outside the planes.
func FuzzScoreSplit(f *testing.F) {
	f.Add(uint64(1), uint16(33), uint8(0), uint8(0), uint8(0), uint8(1))
	f.Add(uint64(2), uint16(341), uint8(5), uint8(40), uint8(1), uint8(24))
	f.Add(uint64(3), uint16(31), uint8(0), uint8(0), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, seed uint64, rows uint16, first, after, metricN, dims uint8) {
		if !haveStripeKernels {
			t.Skip("no stripe kernels on this CPU or build")
		}
		dim := 32 * (1 + int(dims)%24)
		metric := []Metric{MetricDot, MetricCosine, MetricL2}[int(metricN)%3]
		n := int(rows) % 600
		r := rand.New(rand.NewPCG(seed, seed))
		data, queries := stripeTestRows(r, n, dim)
		stride := int(first) + n + int(after)
		planes := splitPlanes(r, data, dim, int(first), stride)
		got, err := NewScanScorer(metric, dim, queries, n+1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Stripes(0).ScoreSplit(planes, stride, int(first), n, 0, nil); err != nil {
			if n >= SplitMinRows {
				t.Fatalf("%d rows at %d of %d refused: %v", n, first, stride, err)
			}
			return
		}
		if n < SplitMinRows {
			t.Fatalf("%d rows accepted, fewer than %d", n, SplitMinRows)
		}
		want, _ := NewScanScorer(metric, dim, queries, n+1, 1)
		if err := want.Score(0, Block{Vectors: data, Dim: dim}); err != nil {
			t.Fatal(err)
		}
		sameScores(t, fmt.Sprintf("dim %d %v rows %d at %d of %d", dim, metric, n, first, stride), want, got)
	})
}
