package vector

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"
)

// The float32 kernels come in several implementations so that the default
// can be chosen by measurement: go test -bench Kernel ./types/vector/.
//
// Measured 2026-11-29 on the lab machine (linux/amd64 AMD EPYC with AVX2 and
// AVX-512, 2 cores shared with other jobs, load 3–7, go1.26.8, gonum
// v0.17.0), ns/op, range of 3 runs:
//
//	                           dim 128    dim 768
//	Dot  naive (1 acc)         60–64      436–522
//	Dot  unrolled (8 acc)      44–49      542–827
//	Dot  blas32 (SSE)          16–17       92–110
//	Dot  simd (AVX2+FMA)       10–17       44–45   ← Dot
//	SquaredL2 unrolled         96–114     437–635
//	SquaredL2 blas32 (3 dots)  57–73      391–421
//	SquaredL2 simd             12–18       51–57   ← SquaredL2
//	Cosine 3 × blas32          76–88      269–476
//	Cosine default (DotNorm+Dot) 51–56     75–121  ← Cosine
//	Cosine per search row      12–27       41–45   (DotNorm, ‖q‖ known)
//
// The lab's AVX2+FMA assembly (kernels_amd64.s) is 2× gonum's SSE dot at
// 768 and 8× the exact unrolled L2, so it is the default; elsewhere the
// unrolled Go loops run. Its loads are unaligned and its summation order
// fixed by the length, so a score depends only on the values, not on where
// they sit in memory: a search scores pages where they lie in the file's
// mapping. gonum's DotBLAS does not have that property (it sums the
// elements before b's 16-byte boundary separately). Batched search uses the
// lab's own matrix product (gemm.go), which reads rows in place with a
// summation order fixed by the dimension alone.

// Dot is the inner product with the fastest kernel, DotSIMD.
func Dot(a, b []float32) float32 { return DotSIMD(a, b) }

// SquaredL2 is Σ (a_i − b_i)² with the fastest exact kernel, SquaredL2SIMD.
func SquaredL2(a, b []float32) float32 { return SquaredL2SIMD(a, b) }

// DotSIMD is the lab's AVX2+FMA dot product on amd64 (DotUnrolled
// elsewhere, or without AVX2): four 8-lane accumulators, unaligned loads, so
// unlike DotBLAS its rounding does not depend on where b sits in memory.
func DotSIMD(a, b []float32) float32 {
	sameLength(a, b)
	return dotSIMD(a, b)
}

// SquaredL2SIMD is the one-pass Σ (a_i − b_i)² of DotSIMD's construction.
func SquaredL2SIMD(a, b []float32) float32 {
	sameLength(a, b)
	return squaredL2SIMD(a, b)
}

// DotNorm returns a·b and b·b in one pass over b: what cosine needs per row
// once ‖a‖ is known. ab is bit-identical to Dot(a, b), bb to Dot(b, b).
func DotNorm(a, b []float32) (ab, bb float32) {
	sameLength(a, b)
	return dotNormSIMD(a, b)
}

// sameLength guards the kernels. A length mismatch is a bug in the caller
// (searches check dimensions once, up front), and a kernel returning a sum
// over the shorter vector would be a silently wrong value, so it panics like
// an out-of-range index would.
func sameLength(a, b []float32) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("vector: kernel on vectors of lengths %d and %d", len(a), len(b)))
	}
}

// DotNaive is the straightforward loop: one accumulator, so every addition
// waits for the previous one.
func DotNaive(a, b []float32) float32 {
	sameLength(a, b)
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// DotUnrolled keeps eight independent accumulators so that the additions of
// consecutive elements overlap in the pipeline instead of forming one chain.
func DotUnrolled(a, b []float32) float32 {
	sameLength(a, b)
	n := len(a)
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
		s4 += aa[4] * bb[4]
		s5 += aa[5] * bb[5]
		s6 += aa[6] * bb[6]
		s7 += aa[7] * bb[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// DotBLAS is gonum's blas32.Dot, which on amd64 runs gonum's SSE assembly.
func DotBLAS(a, b []float32) float32 {
	sameLength(a, b)
	return blas32.Dot(blas32.Vector{N: len(a), Inc: 1, Data: a}, blas32.Vector{N: len(b), Inc: 1, Data: b})
}

// SquaredL2Naive is the straightforward loop for Σ (a_i - b_i)².
func SquaredL2Naive(a, b []float32) float32 {
	sameLength(a, b)
	var s float32
	for i, x := range a {
		d := x - b[i]
		s += d * d
	}
	return s
}

// SquaredL2Unrolled is SquaredL2Naive with eight accumulators.
func SquaredL2Unrolled(a, b []float32) float32 {
	sameLength(a, b)
	n := len(a)
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		d0 := aa[0] - bb[0]
		d1 := aa[1] - bb[1]
		d2 := aa[2] - bb[2]
		d3 := aa[3] - bb[3]
		d4 := aa[4] - bb[4]
		d5 := aa[5] - bb[5]
		d6 := aa[6] - bb[6]
		d7 := aa[7] - bb[7]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		s4 += d4 * d4
		s5 += d5 * d5
		s6 += d6 * d6
		s7 += d7 * d7
	}
	for ; i < n; i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// SquaredL2BLAS computes ‖a‖² + ‖b‖² − 2a·b with three BLAS dots. It is
// here to be measured, not used: three passes, and cancellation makes it
// inexact for near neighbours.
func SquaredL2BLAS(a, b []float32) float32 {
	d := DotBLAS(a, a) + DotBLAS(b, b) - 2*DotBLAS(a, b)
	return max(d, 0)
}

// L2 is the Euclidean distance.
func L2(a, b []float32) float32 { return float32(math.Sqrt(float64(SquaredL2(a, b)))) }

// Norm is the Euclidean norm ‖a‖.
func Norm(a []float32) float32 { return float32(math.Sqrt(float64(Dot(a, a)))) }

// Cosine is the cosine similarity a·b / (‖a‖‖b‖), NaN when either vector is
// zero (the angle is undefined; search ranks NaN last).
func Cosine(a, b []float32) float32 {
	ab, bb := DotNorm(a, b)
	return cosineFrom(ab, Dot(a, a), bb)
}

// CosineNaive computes the three sums in one plain loop, for measurement.
func CosineNaive(a, b []float32) float32 {
	sameLength(a, b)
	var ab, aa, bb float32
	for i, x := range a {
		y := b[i]
		ab += x * y
		aa += x * x
		bb += y * y
	}
	return cosineFrom(ab, aa, bb)
}

func cosineFrom(ab, aa, bb float32) float32 {
	den := math.Sqrt(float64(aa)) * math.Sqrt(float64(bb))
	if den == 0 {
		return float32(math.NaN())
	}
	return float32(float64(ab) / den)
}

// DotInt8 is the exact dot product of int8 vectors. Each product fits in 15
// bits, so an int32 accumulator is exact for 131071 elements; longer vectors
// are summed in such chunks into an int64.
func DotInt8(a, b []int8) int64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("vector: kernel on vectors of lengths %d and %d", len(a), len(b)))
	}
	const chunk = math.MaxInt32 / (128 * 128)
	var total int64
	for start := 0; start < len(a); start += chunk {
		end := min(start+chunk, len(a))
		var s int32
		for i := start; i < end; i++ {
			s += int32(a[i]) * int32(b[i])
		}
		total += int64(s)
	}
	return total
}

// Metric is how a query and a row are compared.
type Metric uint8

const (
	// MetricDot is the inner product; higher is better.
	MetricDot Metric = iota + 1
	// MetricCosine is cosine similarity; higher is better. A zero vector
	// scores NaN.
	MetricCosine
	// MetricL2 is Euclidean distance; lower is better. Scores are squared
	// distances: the order is the same and the square root is saved.
	MetricL2
)

func (m Metric) String() string {
	switch m {
	case MetricDot:
		return "dot"
	case MetricCosine:
		return "cosine"
	case MetricL2:
		return "l2"
	}
	return fmt.Sprintf("Metric(%d)", uint8(m))
}

// Valid reports whether m is a known metric.
func (m Metric) Valid() bool { return m >= MetricDot && m <= MetricL2 }

// HigherIsBetter reports whether larger scores rank first.
func (m Metric) HigherIsBetter() bool { return m != MetricL2 }

// ParseMetric parses dot (ip, inner_product), cosine (angular) or l2
// (euclidean), ignoring case.
func ParseMetric(name string) (Metric, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "dot", "ip", "inner_product":
		return MetricDot, nil
	case "cosine", "angular":
		return MetricCosine, nil
	case "l2", "euclidean":
		return MetricL2, nil
	}
	return 0, fmt.Errorf("vector: unknown metric %q (want dot, cosine or l2)", name)
}

// Score compares a and b under m with the default kernels. The lengths must
// be equal.
func (m Metric) Score(a, b []float32) float32 {
	switch m {
	case MetricDot:
		return Dot(a, b)
	case MetricCosine:
		return Cosine(a, b)
	case MetricL2:
		return SquaredL2(a, b)
	}
	return float32(math.NaN())
}
