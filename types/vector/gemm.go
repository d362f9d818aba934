package vector

import (
	"fmt"
	"runtime"
	"time"
)

// gemmNT computes C = A·Bᵀ for row-major A (m×k, row stride lda) and B (n×k,
// row stride ldb): C[i*ldc+j] = Σ_l A[i*lda+l]·B[j*ldb+l]. With queries as A
// and a block of column vectors as B it scores every pair at once.
//
// Each entry is summed in one order fixed by k alone, whatever m, n, the
// strides, the entry's place in C or where the operands sit in memory:
// eight lanes, lane t taking the products of elements t, t+8, t+16, … in
// increasing order, each by a fused multiply-add on amd64 with AVX2+FMA,
// AVX-512 or not (a last partial chunk counts as zero-padded to 8), then
// the lanes summed as
// ((s0+s1)+(s2+s3)) + ((s4+s5)+(s6+s7)). The pure Go fallback (other
// architectures, no FMA, purego, or gemmForceGeneric) follows the same
// order with a multiply and an add where the Go compiler does not fuse them
// (amd64 below GOAMD64=v3), so its results may differ from the assembly's
// in the last bits; on one machine and build every entry is reproducible.
//
// The kernels are dot-product shaped: 4×6 (AVX-512, two entries to a
// register), 2×6 or 4×3 blocks of C, each entry an 8-lane accumulator, both
// operands read in place along k, so nothing is packed or copied; see
// gemm_amd64.s and gemmNTAsm.
func gemmNT(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("vector: gemmNT with m=%d n=%d k=%d", m, n, k))
	}
	if m == 0 || n == 0 {
		return
	}
	if ldc < n || lda < k || ldb < k ||
		len(c) < (m-1)*ldc+n || len(a) < (m-1)*lda+k || len(b) < (n-1)*ldb+k {
		panic(fmt.Sprintf("vector: gemmNT m=%d n=%d k=%d: C %d (ldc %d), A %d (lda %d), B %d (ldb %d) elements",
			m, n, k, len(c), ldc, len(a), lda, len(b), ldb))
	}
	if k == 0 {
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	if haveFMA && haveGemmAsm && !gemmForceGeneric {
		gemmNTAsm(c, ldc, a, lda, b, ldb, m, n, k)
		return
	}
	gemmNTGeneric(c, ldc, a, lda, b, ldb, m, n, k)
}

// gemmForceGeneric makes gemmNT use the pure Go fallback (tests).
var gemmForceGeneric = false

// gemmL2Bytes is how much of A the assembly path keeps in a core's L2 cache
// (512 KiB on the lab machine) while groups of rows of B meet it: 64 rows
// at k = 768, chosen by measurement (BenchmarkGemmNT).
var gemmL2Bytes = 192 << 10

// gemmNTGeneric is the portable gemmNT: every entry by gemmDotGeneric.
func gemmNTGeneric(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	for i := range m {
		ai := a[i*lda : i*lda+k : i*lda+k]
		ci := c[i*ldc : i*ldc+n : i*ldc+n]
		for j := range ci {
			ci[j] = gemmDotGeneric(ai, b[j*ldb:j*ldb+k:j*ldb+k])
		}
	}
}

// gemmDotGeneric sums one entry in gemmNT's order. Every entry goes through
// this one function, so the compiler's choice to fuse (or not) each
// multiply-add is the same for all of them.
func gemmDotGeneric(a, b []float32) float32 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	k := len(a)
	b = b[:k]
	l := 0
	for ; l+8 <= k; l += 8 {
		x := a[l : l+8 : l+8]
		y := b[l : l+8 : l+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	if l < k {
		// The last partial chunk, zero-padded to 8 lanes as the
		// assembly's masked loads are.
		var x, y [8]float32
		copy(x[:], a[l:])
		copy(y[:], b[l:])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// PeakFMAGFLOPS measures, for about d, the single-core peak rate of float32
// multiply-adds in GFLOP/s (an FMA counting 2) with the widest FMAs gemmNT
// uses: an assembly loop of 16-lane (AVX-512) or 8-lane (AVX2+FMA) FMAs
// into 12 independent accumulators, enough to cover the latency of both FMA
// pipes; elsewhere a Go loop of independent scalar multiply-adds. It runs on a locked OS thread in short rounds and returns
// the best round, so that on a shared machine it approaches what the core
// can do rather than what it did on average. Benchmarks report kernel rates
// as a fraction of it, measured in the same run.
func PeakFMAGFLOPS(d time.Duration) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	asm, z := haveFMA && haveGemmAsm, gemmUseZ()
	// flops per iteration of the measured loop
	perIter := 24.0 * 8 * 2
	switch {
	case z:
		perIter = 24 * 16 * 2
	case !asm:
		perIter = 8 * 2
	}
	run := func(iters int) time.Duration {
		start := time.Now()
		switch {
		case z:
			peakFMAZ(iters)
		case asm:
			peakFMA(iters)
		default:
			peakGoSink += peakGo(iters)
		}
		return time.Since(start)
	}
	iters := 1024
	for run(iters) < time.Millisecond && iters < 1<<40 {
		iters *= 2
	}
	best := 0.0
	deadline := time.Now().Add(d)
	for {
		if r := perIter * float64(iters) / run(iters).Seconds() / 1e9; r > best {
			best = r
		}
		if time.Now().After(deadline) {
			return best
		}
	}
}

var peakGoSink float32

// peakGo is the fallback's peak loop: eight independent multiply-add chains.
func peakGo(iters int) float32 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	x, y := float32(1), peakGoSink*0+1
	for range iters {
		s0 += x * y
		s1 += x * y
		s2 += x * y
		s3 += x * y
		s4 += x * y
		s5 += x * y
		s6 += x * y
		s7 += x * y
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
