package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkScoreSplit scores byte planes that stay in cache (rows × 3 KiB:
// 64 rows in L2, 341 in L3), the split kernels' own speed without memory.
func BenchmarkScoreSplit(b *testing.B) {
	const dim = 768
	r := rand.New(rand.NewPCG(1, 1))
	for _, rows := range []int{64, 341} {
		data := make([]float32, rows*dim)
		for i := range data {
			data[i] = float32(r.NormFloat64())
		}
		planes := splitPlanes(r, data, dim, 0, rows)
		for _, metric := range []Metric{MetricDot, MetricCosine} {
			s, err := NewScanScorer(metric, dim, Matrix{Dim: dim, Data: data[:dim]}, 10, 1)
			if err != nil {
				b.Fatal(err)
			}
			p := s.Stripes(0)
			b.Run(fmt.Sprintf("%d/%v", rows, metric), func(b *testing.B) {
				b.SetBytes(int64(len(planes)))
				for b.Loop() {
					if err := p.ScoreSplit(planes, rows, 0, rows, 0, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
