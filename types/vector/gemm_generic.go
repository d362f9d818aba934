//go:build !amd64 || purego

package vector

const haveGemmAsm = false

func gemmNTAsm(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	gemmNTGeneric(c, ldc, a, lda, b, ldb, m, n, k)
}

func peakFMA(iters int) { _ = iters }

func peakFMAZ(iters int) { _ = iters }

func gemmUseZ() bool { return false }

// haveAVX512 is false: this build has no AVX-512 kernels.
const haveAVX512 = false

// gemmAVX2Only has no effect here (tests set it).
var gemmAVX2Only = false
