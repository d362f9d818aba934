//go:build !purego

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The AVX2+FMA kernels of gemm_amd64.s, gated by haveFMA (kernels_amd64.go),
// and the AVX-512 ones, gated by haveAVX512 as well (gemmUseZ). Pointers must cover
// what the arguments address; gemmNT checks that.

//go:noescape
func gemmNT4x3(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, n, k int, mask unsafe.Pointer)

//go:noescape
func gemmNT2x6T(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, m, k int, mask, pf unsafe.Pointer, pfLines int)

//go:noescape
func gemmDot1(a, b unsafe.Pointer, k int, mask unsafe.Pointer) float32

//go:noescape
func peakFMA(iters int)

//go:noescape
func gemmNT4x6Z(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, m, k int, pf unsafe.Pointer, pfLines int)

//go:noescape
func peakFMAZ(iters int)

// haveAVX512 says the CPU has, and the OS saves the registers of, what the
// 512-bit kernels use: AVX-512 F, DQ (the 256-bit inserts, extracts and
// broadcasts) and VL (masked 256-bit loads, and 256-bit moves of Y16..Y31).
var haveAVX512 = haveFMA && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL

// gemmAVX2Only keeps gemmNT and PeakFMAGFLOPS on the AVX2 kernels where the
// AVX-512 ones would run (tests compare the two; benchmarks measure both).
var gemmAVX2Only = false

// gemmUseZ reports whether gemmNT takes the AVX-512 kernel.
func gemmUseZ() bool { return haveAVX512 && !gemmAVX2Only }

const haveGemmAsm = true

// gemmMasks holds, from index 8−r on, 8 lanes whose first r are set: the
// mask of a last partial chunk of r elements.
var gemmMasks = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

func gemmMask(k int) unsafe.Pointer {
	r := k & 7
	if r == 0 {
		return nil
	}
	return unsafe.Pointer(&gemmMasks[8-r])
}

// gemmNTAsm is gemmNT on the register kernels; the arguments are checked
// and m, n, k ≥ 1.
//
// Rows of A are taken in blocks that fit the L2 cache (gemmL2Bytes); for
// each block, groups of six rows of B, held in L1, meet every row of the
// block, four at a time with AVX-512 (gemmNT4x6Z), then two at a time
// (gemmNT2x6T). So each row of B is fetched from memory once per block of A
// and used by all of it at once, and A streams from L2. A last odd row of A
// goes through the kernel with its A and C strides 0 (both results are the
// same number, stored twice). When n is not a multiple of 6, one more group
// ends at the last row, overlapping the one before: the recomputed entries
// are bit for bit the same. Fewer than six rows of B go through
// gemmNTFewRows.
func gemmNTAsm(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	mask := gemmMask(k)
	if n < 6 {
		gemmNTFewRows(c, ldc, a, lda, b, ldb, m, n, k, mask)
		return
	}
	z := gemmUseZ()
	mb := gemmBlockQueries(m, k, z)
	for i0 := 0; i0 < m; i0 += mb {
		mi := min(mb, m-i0)
		quads := 0
		if z {
			quads = mi &^ 3
		}
		even := mi &^ 1
		last := i0 + mi - 1
		// The calls each group of B goes through, which share its
		// prefetching: the AVX-512 kernel's when it runs, else the pairs'.
		calls := quads / 4
		if calls == 0 {
			calls = (mi + 1) / 2
		}
		for j := 0; j < n; j += 6 {
			j = min(j, n-6)
			bj := unsafe.Pointer(&b[j*ldb])
			// The next group's rows, spread over this group's calls.
			var pf unsafe.Pointer
			pfLines := 0
			if next := min(j+6, n-6); next > j {
				pf = unsafe.Pointer(&b[next*ldb])
				pfLines = ((5*ldb+k)*4/64 + 1 + calls) / calls
			}
			if quads > 0 {
				gemmNT4x6Z(unsafe.Pointer(&c[i0*ldc+j]), ldc, unsafe.Pointer(&a[i0*lda]), lda, bj, ldb, quads, k, pf, pfLines)
				pf, pfLines = nil, 0
			}
			if i := i0 + quads; even > quads {
				gemmNT2x6T(unsafe.Pointer(&c[i*ldc+j]), ldc, unsafe.Pointer(&a[i*lda]), lda, bj, ldb, even-quads, k, mask, pf, pfLines)
			}
			if mi&1 == 1 {
				gemmNT2x6T(unsafe.Pointer(&c[last*ldc+j]), 0, unsafe.Pointer(&a[last*lda]), 0, bj, ldb, 2, k, mask, pf, pfLines)
			}
		}
	}
}

// gemmBlockQueries is the number of rows of A per block: at most what fits
// in gemmL2Bytes, a multiple of the kernel's step (4 rows with AVX-512, z,
// else 2), and the blocks of m as equal as that allows.
func gemmBlockQueries(m, k int, z bool) int {
	step := 2
	if z {
		step = 4
	}
	most := max(gemmL2Bytes/(4*k)/step*step, step)
	blocks := (m + most - 1) / most
	mb := (m + blocks - 1) / blocks
	return (mb + step - 1) / step * step
}

// gemmNTFewRows is gemmNTAsm for n < 6: strips of four rows of A against
// groups of three rows of B (gemmNT4x3) when n ≥ 3, the last m mod 4 rows of
// A one at a time (strides 0: the four results are the same number), and
// entry by entry when n < 3.
func gemmNTFewRows(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int, mask unsafe.Pointer) {
	for i := 0; i < m; {
		if i+4 <= m {
			gemmStrip(gemmNT4x3, 3, c[i*ldc:], ldc, a[i*lda:], lda, b, ldb, 4, n, k, mask)
			i += 4
		} else {
			gemmStrip(gemmNT4x3, 3, c[i*ldc:], 0, a[i*lda:], 0, b, ldb, 1, n, k, mask)
			i++
		}
	}
}

type gemmKernel func(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, n, k int, mask unsafe.Pointer)

// gemmStrip computes rows × n entries of C with kernel, whose groups are of
// nr rows of B. rows is only used for the entry-by-entry path.
func gemmStrip(kernel gemmKernel, nr int, c []float32, ldc int, a []float32, lda int, b []float32, ldb int, rows, n, k int, mask unsafe.Pointer) {
	if n < nr {
		for i := range rows {
			for j := range n {
				c[i*ldc+j] = gemmDot1(unsafe.Pointer(&a[i*lda]), unsafe.Pointer(&b[j*ldb]), k, mask)
			}
		}
		return
	}
	whole := n / nr * nr
	kernel(unsafe.Pointer(&c[0]), ldc, unsafe.Pointer(&a[0]), lda, unsafe.Pointer(&b[0]), ldb, whole, k, mask)
	if whole < n {
		j := n - nr
		kernel(unsafe.Pointer(&c[j]), ldc, unsafe.Pointer(&a[0]), lda, unsafe.Pointer(&b[j*ldb]), ldb, nr, k, mask)
	}
}
