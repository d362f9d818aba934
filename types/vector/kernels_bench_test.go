package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func randomVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return v
}

var sinkFloat32 float32

// BenchmarkKernel compares the kernel implementations at the two reference
// dimensions; the fastest is wired up as the default in kernels.go.
func BenchmarkKernel(b *testing.B) {
	kernels := []struct {
		name string
		fn   func(a, b []float32) float32
	}{
		{"Dot/naive", DotNaive},
		{"Dot/unrolled", DotUnrolled},
		{"Dot/blas32", DotBLAS},
		{"SquaredL2/naive", SquaredL2Naive},
		{"SquaredL2/unrolled", SquaredL2Unrolled},
		{"SquaredL2/blas32", SquaredL2BLAS},
		{"Cosine/naive", CosineNaive},
		{"Cosine/default", Cosine},
	}
	for _, dim := range []int{128, 768} {
		r := rand.New(rand.NewPCG(1, uint64(dim)))
		x, y := randomVector(r, dim), randomVector(r, dim)
		for _, k := range kernels {
			b.Run(fmt.Sprintf("%s/dim=%d", k.name, dim), func(b *testing.B) {
				b.SetBytes(int64(8 * dim))
				var s float32
				for b.Loop() {
					s += k.fn(x, y)
				}
				sinkFloat32 = s
			})
		}
	}
}
