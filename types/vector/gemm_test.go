package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// gemmCase is one product with its layout: strides beyond the minimum and
// operands starting off at element offsets (so off 16-byte boundaries).
type gemmCase struct {
	m, n, k          int
	padA, padB, padC int // stride − minimum
	offA, offB, offC int // first element's offset in its buffer
}

// gemmOperands fills A and B with random values and every element gemmNT
// must not read (stride padding, before and after the operands) with NaN, so
// that a stray read poisons a result; C's padding holds a sentinel that must
// survive.
func gemmOperands(r *rand.Rand, tc gemmCase) (a, b, c []float32, lda, ldb, ldc int) {
	lda, ldb, ldc = tc.k+tc.padA, tc.k+tc.padB, tc.n+tc.padC
	nan := float32(math.NaN())
	fill := func(rows, cols, ld, off int) []float32 {
		buf := make([]float32, off+max(rows*ld, 1)+8)
		for i := range buf {
			buf[i] = nan
		}
		for i := range rows {
			for l := range cols {
				buf[off+i*ld+l] = r.Float32()*2 - 1
			}
		}
		return buf[off:]
	}
	a = fill(tc.m, tc.k, lda, tc.offA)
	b = fill(tc.n, tc.k, ldb, tc.offB)
	cbuf := make([]float32, tc.offC+max(tc.m*ldc, 1)+8)
	for i := range cbuf {
		cbuf[i] = gemmSentinel
	}
	return a, b, cbuf[tc.offC:], lda, ldb, ldc
}

const gemmSentinel = -12345.5

// checkGemm runs gemmNT on tc and compares every entry with a float64
// reference, within the rounding bound of its summation order: eight lanes
// of ⌈k/8⌉ terms, then three levels of adds.
func checkGemm(t *testing.T, r *rand.Rand, tc gemmCase) {
	t.Helper()
	a, b, c, lda, ldb, ldc := gemmOperands(r, tc)
	gemmNT(c, ldc, a, lda, b, ldb, tc.m, tc.n, tc.k)
	const u = 1.0 / (1 << 24)
	gamma := float64((tc.k+7)/8+3) * u * 1.01
	for i := range tc.m {
		for j := range ldc {
			got := c[i*ldc+j]
			if j >= tc.n {
				if got != gemmSentinel {
					t.Fatalf("%+v: C[%d][%d] (padding) written: %g", tc, i, j, got)
				}
				continue
			}
			var want, abs float64
			for l := range tc.k {
				p := float64(a[i*lda+l]) * float64(b[j*ldb+l])
				want += p
				abs += math.Abs(p)
			}
			if d := math.Abs(float64(got) - want); !(d <= gamma*abs) {
				t.Fatalf("%+v: C[%d][%d] = %g, want %g (error %g > bound %g)", tc, i, j, got, want, d, gamma*abs)
			}
			// The entry is summed as it is alone: the same bits as a 1×1
			// product of its two vectors.
			var one [1]float32
			gemmNT(one[:], 1, a[i*lda:i*lda+tc.k], tc.k, b[j*ldb:j*ldb+tc.k], tc.k, 1, 1, tc.k)
			if math.Float32bits(one[0]) != math.Float32bits(got) {
				t.Fatalf("%+v: C[%d][%d] = %g in the product, %g alone", tc, i, j, got, one[0])
			}
		}
	}
	for i := (tc.m-1)*ldc + ldc; i < len(c); i++ {
		if c[i] != gemmSentinel {
			t.Fatalf("%+v: C written past its end at %d", tc, i)
		}
	}
}

// gemmCases picks a representative set of shapes from the sizes around the
// kernels' edges (groups of 3, 6 and 4, chunks of 8) and the search's tiles,
// with and without padding and misalignment.
func gemmCases() []gemmCase {
	sizes := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 192, 768, 1000}
	small := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17}
	var cases []gemmCase
	add := func(m, n, k, v int) {
		// v varies the layout: minimum strides and aligned starts, or
		// padded strides and odd offsets.
		tc := gemmCase{m: m, n: n, k: k}
		if v%2 == 1 {
			tc.padA, tc.padB, tc.padC = 1+v%5, 3, 2+v%3
			tc.offA, tc.offB, tc.offC = 1, 3, 2
		}
		cases = append(cases, tc)
	}
	v := 0
	// every small m against every small n, at k around the chunk size
	for _, m := range small {
		for _, n := range small {
			add(m, n, small[v%len(small)], v)
			v++
		}
	}
	// every size as m, n and k against moderate others
	for _, s := range sizes {
		add(s, 17, 33, v)
		add(7, s, 31, v+1)
		add(5, 13, s, v)
		add(9, 7, s, v+1)
		v += 2
	}
	// the search's shapes
	for _, k := range []int{1, 7, 64, 65, 192, 768} {
		add(64, 96, k, v)
		add(65, 97, k, v+1)
		v += 2
	}
	add(192, 192, 768, 1)
	add(63, 1000, 16, 0)
	add(1000, 15, 9, 1)
	return cases
}

// gemmPaths are the ways gemmNT can compute on this machine: the widest
// assembly kernels, the AVX2 ones where AVX-512 would run, and the pure Go
// fallback.
var gemmPaths = []struct {
	name              string
	generic, avx2Only bool
}{{"asm", false, false}, {"avx2", false, true}, {"generic", true, false}}

// onGemmPath runs f with gemmNT on path, restoring the defaults after.
func onGemmPath(generic, avx2Only bool, f func()) {
	defer func(g, a bool) { gemmForceGeneric, gemmAVX2Only = g, a }(gemmForceGeneric, gemmAVX2Only)
	gemmForceGeneric, gemmAVX2Only = generic, avx2Only
	f()
}

func TestGemmNT(t *testing.T) {
	for _, path := range gemmPaths {
		t.Run(path.name, func(t *testing.T) {
			onGemmPath(path.generic, path.avx2Only, func() {
				r := rand.New(rand.NewPCG(41, 42))
				cases := gemmCases()
				if testing.Short() {
					cases = cases[:len(cases)/2]
				}
				for _, tc := range cases {
					checkGemm(t, r, tc)
				}
			})
		})
	}
}

// TestGemmNTBlocks cuts A into several cache blocks, even and odd, with a
// shorter last one.
func TestGemmNTBlocks(t *testing.T) {
	defer func(old int) { gemmL2Bytes = old }(gemmL2Bytes)
	gemmL2Bytes = 4 * 40 * 10 // at most 10 rows of A a block at k = 40
	r := rand.New(rand.NewPCG(43, 44))
	for _, m := range []int{9, 10, 11, 19, 21, 37} {
		for _, n := range []int{5, 6, 7, 13, 36} {
			checkGemm(t, r, gemmCase{m: m, n: n, k: 40, padB: 1, offB: 1})
			checkGemm(t, r, gemmCase{m: m, n: n, k: 43, padA: 2, offA: 3})
		}
	}
}

// TestGemmNTAVX512MatchesAVX2 holds the AVX-512 kernel to the AVX2 ones bit
// for bit, over every C entry of shapes around its edges (four rows of A, six
// of B, chunks of 8) and with the values that order and fusing show in:
// NaN, infinities, subnormals, signed zeros and cancelling products.
func TestGemmNTAVX512MatchesAVX2(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	r := rand.New(rand.NewPCG(59, 60))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(1), -math.Float32frombits(0x7fffff), float32(math.Copysign(0, -1)), 0, 3e38, -3e38, 1e-30}
	for _, k := range []int{1, 5, 7, 8, 9, 15, 16, 17, 64, 100, 768, 771} {
		for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 70} {
			for _, n := range []int{6, 7, 11, 12, 13, 20} {
				tc := gemmCase{m: m, n: n, k: k}
				if (m+n+k)%2 == 1 {
					tc.padA, tc.padB, tc.padC, tc.offA, tc.offB = 3, 1, 2, 1, 3
				}
				a, b, c, lda, ldb, ldc := gemmOperands(r, tc)
				for range (m + n) * k / 50 {
					a[r.IntN(m)*lda+r.IntN(k)] = special[r.IntN(len(special))]
					b[r.IntN(n)*ldb+r.IntN(k)] = special[r.IntN(len(special))]
				}
				onGemmPath(false, true, func() { gemmNT(c, ldc, a, lda, b, ldb, m, n, k) })
				want := slices.Clone(c)
				clear(c)
				gemmNT(c, ldc, a, lda, b, ldb, m, n, k)
				for i := range m {
					for j := range n {
						if got, w := c[i*ldc+j], want[i*ldc+j]; math.Float32bits(got) != math.Float32bits(w) {
							t.Fatalf("%+v: C[%d][%d] = %g (%08x) with AVX-512, %g (%08x) with AVX2", tc, i, j, got, math.Float32bits(got), w, math.Float32bits(w))
						}
					}
				}
			}
		}
	}
}

// TestGemmNTGenericMatchesAsm compares the fallback with the assembly: the
// same order, so equal up to the fusing of each multiply-add.
func TestGemmNTGenericMatchesAsm(t *testing.T) {
	if !haveFMA || !haveGemmAsm {
		t.Skip("no assembly kernels")
	}
	defer func(old bool) { gemmForceGeneric = old }(gemmForceGeneric)
	r := rand.New(rand.NewPCG(45, 46))
	for _, tc := range []gemmCase{{m: 9, n: 13, k: 768}, {m: 5, n: 7, k: 29}} {
		a, b, c, lda, ldb, ldc := gemmOperands(r, tc)
		gemmForceGeneric = false
		gemmNT(c, ldc, a, lda, b, ldb, tc.m, tc.n, tc.k)
		asm := append([]float32(nil), c...)
		gemmForceGeneric = true
		gemmNT(c, ldc, a, lda, b, ldb, tc.m, tc.n, tc.k)
		for i := range tc.m {
			for j := range tc.n {
				x, y := asm[i*ldc+j], c[i*ldc+j]
				if absDiff(x, y) > 1e-5*max(1, abs32(x)) {
					t.Fatalf("%+v: C[%d][%d] = %g (asm), %g (generic)", tc, i, j, x, y)
				}
			}
		}
	}
}

func abs32(x float32) float32 { return max(x, -x) }

// TestGemmNTDeterminism checks the property the search relies on: a (row,
// query) pair scores the same bits whether the row is first or last of a
// tile of 192, whether its slice is 16-byte aligned or not, and whichever
// kernel (2×6 groups, a single query, the overlapping last group, 4×3
// strips for few rows, entry by entry) computes it.
func TestGemmNTDeterminism(t *testing.T) {
	const rows = 192
	for _, k := range []int{768, 100, 13} {
		r := rand.New(rand.NewPCG(47, uint64(k)))
		queries := randomMatrix(uint64(48+k), 7, k)
		row := randomMatrix(uint64(49+k), 1, k).Data
		var want []float32
		for _, pos := range []int{0, 1, 95, 190, 191} {
			for _, off := range []int{0, 1, 2, 3} {
				for _, m := range []int{7, 4, 3, 2, 1} {
					for _, n := range []int{rows, pos + 1, pos + 3, pos + 6} {
						n = min(n, rows)
						if pos >= n {
							continue
						}
						buf := make([]float32, off+rows*k)
						b := buf[off:]
						for i := range b {
							b[i] = r.Float32()*2 - 1
						}
						copy(b[pos*k:], row)
						c := make([]float32, m*n)
						gemmNT(c, n, queries.Data, k, b, k, m, n, k)
						got := make([]float32, m)
						for i := range m {
							got[i] = c[i*n+pos]
						}
						if want == nil {
							want = got
							continue
						}
						for i := range m {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("k %d: query %d, row at %d of %d (offset %d, %d queries): %g, first %g", k, i, pos, n, off, m, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestSearchBatchPlacement checks the same property through a search: the
// batched scores of a column do not depend on how its blocks are cut nor on
// their alignment (the blocks of uneven are fresh copies), here with
// dimensions that are not a multiple of the kernels' chunk.
func TestSearchBatchPlacement(t *testing.T) {
	for _, dim := range []int{13, 96} {
		data := randomMatrix(50, 1500, dim)
		queries := randomMatrix(51, 9, dim)
		for _, metric := range metrics {
			want, err := SearchStream(metric, dim, MatrixBlocks(data, 1500), queries, 7, 1)
			if err != nil {
				t.Fatal(err)
			}
			src := &uneven{m: data, sizes: []int{1, 191, 2, 97, 500, 11}}
			got, err := SearchStream(metric, dim, src, queries, 7, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !sameResults(got[i], want[i]) {
					t.Fatalf("%v dim %d query %d: %v, one block %v", metric, dim, i, got[i], want[i])
				}
			}
		}
	}
}

func FuzzGemmNT(f *testing.F) {
	f.Add(uint8(4), uint8(3), uint16(8), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(7), uint8(13), uint16(29), uint8(0x5a), uint8(3), uint64(2))
	f.Add(uint8(1), uint8(1), uint16(1), uint8(0xff), uint8(1), uint64(3))
	f.Add(uint8(65), uint8(97), uint16(768), uint8(0x11), uint8(2), uint64(4))
	f.Fuzz(func(t *testing.T, m, n uint8, k uint16, layout, mode uint8, seed uint64) {
		tc := gemmCase{m: int(m%70) + 1, n: int(n%100) + 1, k: int(k%1100) + 1,
			padA: int(layout & 3), padB: int(layout>>2) & 3, padC: int(layout>>4) & 3,
			offA: int(layout>>6) & 1, offB: int(layout>>7) & 1, offC: int(layout>>5) & 1}
		defer func(oldL2 int) { gemmL2Bytes = oldL2 }(gemmL2Bytes)
		if mode&2 != 0 {
			gemmL2Bytes = 4 * tc.k * 12 // small blocks of A
		}
		onGemmPath(mode&1 == 1, mode&4 != 0, func() { checkGemm(t, rand.New(rand.NewPCG(seed, 52)), tc) })
	})
}

var (
	peakOnce sync.Once
	peakRate float64
)

// peakGFLOPS is the core's FMA peak, measured once per test binary.
func peakGFLOPS() float64 {
	peakOnce.Do(func() { peakRate = PeakFMAGFLOPS(200 * time.Millisecond) })
	return peakRate
}

func TestPeakFMAGFLOPS(t *testing.T) {
	g := PeakFMAGFLOPS(20 * time.Millisecond)
	if !(g > 0.1) || g > 1e5 {
		t.Fatalf("peak %g GFLOP/s", g)
	}
	t.Logf("single-core FMA peak ≈ %.1f GFLOP/s", g)
}

// BenchmarkGemmNT measures the kernel on the search's tile shapes, one core,
// as GFLOP/s and as a percentage of the FMA peak measured in the same run
// (PeakFMAGFLOPS), on average and for the fastest call.
func BenchmarkGemmNT(b *testing.B) {
	peak := peakGFLOPS()
	for _, sh := range []struct{ m, n, k int }{{64, 192, 768}, {256, 192, 768}, {64, 96, 768}} {
		for _, path := range gemmPaths {
			if path.generic && sh.m > 64 || path.avx2Only && !haveAVX512 {
				continue
			}
			name := fmt.Sprintf("%dx%dx%d/%s", sh.m, sh.n, sh.k, path.name)
			b.Run(name, func(b *testing.B) {
				onGemmPath(path.generic, path.avx2Only, func() { benchGemmNT(b, sh.m, sh.n, sh.k, peak) })
			})
		}
	}
}

// benchGemmNT is one shape of BenchmarkGemmNT on the path set for it.
func benchGemmNT(b *testing.B, m, n, k int, peak float64) {
	a := randomMatrix(53, m, k).Data
	x := randomMatrix(54, n, k).Data
	c := make([]float32, m*n)
	flops := 2 * float64(m*n*k)
	// The fastest call is reported too, measured like the peak (best
	// round): on a loaded machine it is what the kernel does when it has
	// the core.
	fastest := time.Duration(1 << 62)
	for b.Loop() {
		start := time.Now()
		gemmNT(c, n, a, k, x, k, m, n, k)
		fastest = min(fastest, time.Since(start))
	}
	gflops := flops * float64(b.N) / b.Elapsed().Seconds() / 1e9
	best := flops / fastest.Seconds() / 1e9
	b.ReportMetric(gflops, "GFLOP/s")
	b.ReportMetric(100*gflops/peak, "%peak")
	b.ReportMetric(best, "bestGFLOP/s")
	b.ReportMetric(100*best/peak, "best%peak")
	b.ReportMetric(peak, "peakGFLOP/s")
}

// BenchmarkSearchBatch runs batched dot-product searches (FAISS IndexFlatIP's
// work) through SearchStream with 2 workers, the old gonum path against
// gemmNT (and, where AVX-512 runs, against gemmNT on its AVX2 kernels),
// reporting ms per query and the GFLOP/s of the products (2 workers:
// compare with twice the single-core peak).
func BenchmarkSearchBatch(b *testing.B) {
	const rows, dim = 50_000, 768
	data := randomMatrix(55, rows, dim)
	peak := peakGFLOPS()
	for _, m := range []int{64, 256} {
		queries := randomMatrix(56, m, dim)
		for _, path := range []string{"gonum", "gemmNT", "gemmNT-avx2"} {
			if path == "gemmNT-avx2" && !haveAVX512 {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/dim=%d/queries=%d/%s", rows, dim, m, path), func(b *testing.B) {
				defer func(g, a bool) { scoreWithGonum, gemmAVX2Only = g, a }(scoreWithGonum, gemmAVX2Only)
				scoreWithGonum, gemmAVX2Only = path == "gonum", path == "gemmNT-avx2"
				for b.Loop() {
					src := MatrixBlocks(data, defaultBlockRows(dim))
					if _, err := SearchStream(MetricDot, dim, src, queries, 10, 2); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(1e3*sec/float64(m), "ms/query")
				gflops := 2 * float64(rows) * dim * float64(m) / sec / 1e9
				b.ReportMetric(gflops, "GFLOP/s")
				b.ReportMetric(100*gflops/(2*peak), "%peak2")
			})
		}
	}
}

// TestSearchBatchGonumPath keeps the former path (scoreWithGonum, which the
// benchmarks compare against) working: the same hits as gemmNT's, scores
// equal up to rounding.
func TestSearchBatchGonumPath(t *testing.T) {
	defer func(old bool) { scoreWithGonum = old }(scoreWithGonum)
	data := randomMatrix(57, 2000, 40)
	queries := randomMatrix(58, 70, 40)
	for _, metric := range metrics {
		scoreWithGonum = false
		want, err := SearchBatch(metric, data, queries, 10)
		if err != nil {
			t.Fatal(err)
		}
		scoreWithGonum = true
		got, err := SearchBatch(metric, data, queries, 10)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			for j := range want[i] {
				if got[i][j].ID != want[i][j].ID || absDiff(got[i][j].Score, want[i][j].Score) > 1e-4 {
					t.Fatalf("%v query %d rank %d: gonum %v, gemmNT %v", metric, i, j, got[i][j], want[i][j])
				}
			}
		}
	}
}
