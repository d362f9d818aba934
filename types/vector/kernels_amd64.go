//go:build !purego

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveFMA gates the assembly kernels: AVX2 and FMA with the OS saving the
// YMM registers (x/sys/cpu's HasAVX and HasAVX2 check XCR0). Without them
// the pure Go unrolled kernels run instead.
var haveFMA = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotFMA(a, b unsafe.Pointer, n int) float32

//go:noescape
func squaredL2FMA(a, b unsafe.Pointer, n int) float32

//go:noescape
func dotNormFMA(a, b unsafe.Pointer, n int) (ab, bb float32)

func dotSIMD(a, b []float32) float32 {
	if !haveFMA || len(a) == 0 {
		return DotUnrolled(a, b)
	}
	return dotFMA(unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), len(a))
}

func squaredL2SIMD(a, b []float32) float32 {
	if !haveFMA || len(a) == 0 {
		return SquaredL2Unrolled(a, b)
	}
	return squaredL2FMA(unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), len(a))
}

func dotNormSIMD(a, b []float32) (ab, bb float32) {
	if !haveFMA || len(a) == 0 {
		return DotUnrolled(a, b), DotUnrolled(b, b)
	}
	return dotNormFMA(unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), len(a))
}
