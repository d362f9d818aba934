//go:build !amd64 || purego

package vector

// Without the amd64 assembly the SIMD kernels are the pure Go unrolled ones.
const haveFMA = false

func dotSIMD(a, b []float32) float32       { return DotUnrolled(a, b) }
func squaredL2SIMD(a, b []float32) float32 { return SquaredL2Unrolled(a, b) }
func dotNormSIMD(a, b []float32) (ab, bb float32) {
	return DotUnrolled(a, b), DotUnrolled(b, b)
}
