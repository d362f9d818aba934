package vector

import (
	"fmt"
	"testing"
)

// BenchmarkSearch measures exact search over an in-memory matrix. The
// reported MB/s is data bytes scanned per second, to be compared with the
// memory-bandwidth floor measured by the bench package in the same run.
func BenchmarkSearch(b *testing.B) {
	for _, size := range []struct{ rows, dim int }{{20_000, 128}, {5_000, 768}} {
		data := randomMatrix(21, size.rows, size.dim)
		for _, m := range []int{1, 16} {
			queries := randomMatrix(22, m, size.dim)
			for _, metric := range metrics {
				name := fmt.Sprintf("%v/n=%d/dim=%d/queries=%d", metric, size.rows, size.dim, m)
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(4 * len(data.Data)))
					for b.Loop() {
						if _, err := SearchBatch(metric, data, queries, 10); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkBatchScoring compares one Gemm tile against the same scores
// computed pair by pair with the default kernel: the reason batches go
// through blas32.Gemm.
func BenchmarkBatchScoring(b *testing.B) {
	const dim = 128
	q := randomMatrix(23, tileQueries, dim)
	x := randomMatrix(24, tileRows, dim)
	s := newScorer(MetricDot, q, 10)
	copy(s.tile, x.Data) // stride 128 = dim: no padding needed
	b.Run("gemm", func(b *testing.B) {
		for b.Loop() {
			s.scoreMany(tileRows, func(j int) int64 { return int64(j) })
		}
	})
	b.Run("pairwise", func(b *testing.B) {
		for b.Loop() {
			for i := range tileQueries {
				qi := q.Row(i)
				for j := range tileRows {
					s.tops[i].Push(int64(j), Dot(qi, x.Row(j)))
				}
			}
		}
	})
}
