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
		{"Dot/simd", DotSIMD},
		{"SquaredL2/naive", SquaredL2Naive},
		{"SquaredL2/unrolled", SquaredL2Unrolled},
		{"SquaredL2/blas32", SquaredL2BLAS},
		{"SquaredL2/simd", SquaredL2SIMD},
		{"Cosine/naive", CosineNaive},
		{"Cosine/3×blas32", func(a, b []float32) float32 { return cosineFrom(DotBLAS(a, b), DotBLAS(a, a), DotBLAS(b, b)) }},
		{"Cosine/default", Cosine},
		{"Cosine/rowpass", func(a, b []float32) float32 { // the search's per-row cost: ‖q‖ known
			ab, bb := DotNorm(a, b)
			return cosineFrom(ab, 1, bb)
		}},
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
