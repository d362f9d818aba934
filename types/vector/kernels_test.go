package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func refDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func refSquaredL2(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}

// Every kernel agrees with the float64 reference within float32 summation
// error, at lengths that exercise the unrolled loops' tails.
func TestKernelsMatchFloat64Reference(t *testing.T) {
	type kernel struct {
		name string
		fn   func(a, b []float32) float32
		ref  func(a, b []float32) float64
	}
	refCos := func(a, b []float32) float64 { return refDot(a, b) / math.Sqrt(refDot(a, a)*refDot(b, b)) }
	kernels := []kernel{
		{"DotNaive", DotNaive, refDot},
		{"DotUnrolled", DotUnrolled, refDot},
		{"DotBLAS", DotBLAS, refDot},
		{"Dot", Dot, refDot},
		{"SquaredL2Naive", SquaredL2Naive, refSquaredL2},
		{"SquaredL2Unrolled", SquaredL2Unrolled, refSquaredL2},
		{"SquaredL2", SquaredL2, refSquaredL2},
		{"L2", L2, func(a, b []float32) float64 { return math.Sqrt(refSquaredL2(a, b)) }},
		{"Cosine", Cosine, refCos},
		{"CosineNaive", CosineNaive, refCos},
		{"MetricDot", MetricDot.Score, refDot},
		{"MetricCosine", MetricCosine.Score, refCos},
		{"MetricL2", MetricL2.Score, refSquaredL2},
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, dim := range []int{1, 3, 7, 8, 9, 17, 128, 768, 1001} {
		a, b := randomVector(r, dim), randomVector(r, dim)
		for _, k := range kernels {
			t.Run(fmt.Sprintf("%s/dim=%d", k.name, dim), func(t *testing.T) {
				got, want := float64(k.fn(a, b)), k.ref(a, b)
				// The classic bound for float32 summation in any order,
				// dim × 2⁻²⁴ × Σ|terms|, plus the rounding of each term;
				// cosine is a ratio of such sums, near 1 in size.
				tol := float64(dim+2) * 0x1p-24 * absTerms(a, b)
				if strings.Contains(k.name, "Cosine") {
					tol = float64(dim+4) * 0x1p-23
				}
				if k.name == "L2" {
					tol = math.Sqrt(tol)
				}
				if math.Abs(got-want) > tol {
					t.Fatalf("%s = %.9g, reference %.9g (tolerance %.3g)", k.name, got, want, tol)
				}
			})
		}
	}
}

// absTerms bounds Σ|terms| of both dot and squared L2 of a and b.
func absTerms(a, b []float32) float64 {
	var s float64
	for i := range a {
		x, y := math.Abs(float64(a[i])), math.Abs(float64(b[i]))
		s += max(x*y, (x+y)*(x+y))
	}
	return s
}

func TestKernelValues(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	b := []float32{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	tests := []struct {
		name string
		got  float32
		want float32
	}{
		{"Dot", Dot(a, b), 220},
		{"DotNaive", DotNaive(a, b), 220},
		{"DotUnrolled", DotUnrolled(a, b), 220},
		{"DotBLAS", DotBLAS(a, b), 220},
		{"SquaredL2", SquaredL2(a, b), 330},
		{"SquaredL2Naive", SquaredL2Naive(a, b), 330},
		{"SquaredL2BLAS", SquaredL2BLAS(a, b), 330},
		{"L2 3-4-5", L2([]float32{0, 0}, []float32{3, 4}), 5},
		{"Norm", Norm([]float32{3, 4}), 5},
		{"Cosine parallel", Cosine([]float32{1, 2}, []float32{2, 4}), 1},
		{"Cosine orthogonal", Cosine([]float32{1, 0}, []float32{0, 3}), 0},
		{"Cosine opposite", Cosine([]float32{1, 1}, []float32{-2, -2}), -1},
	}
	for _, tt := range tests {
		if math.Abs(float64(tt.got-tt.want)) > 1e-6 {
			t.Errorf("%s = %g, want %g", tt.name, tt.got, tt.want)
		}
	}
	if c := Cosine([]float32{0, 0}, []float32{1, 2}); c == c {
		t.Errorf("Cosine with a zero vector = %g, want NaN", c)
	}
	if got := Dot(nil, nil); got != 0 {
		t.Errorf("Dot of empty vectors = %g", got)
	}
}

func TestDotInt8(t *testing.T) {
	tests := []struct {
		name string
		a, b []int8
		want int64
	}{
		{"small", []int8{1, -2, 3}, []int8{4, 5, -6}, 4 - 10 - 18},
		{"extremes", []int8{-128, -128, 127}, []int8{-128, 127, 127}, 16384 - 16256 + 16129},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		if got := DotInt8(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: DotInt8 = %d, want %d", tt.name, got, tt.want)
		}
	}
	// Longer than one int32 chunk: all products 16384 would overflow int32.
	n := 200_000
	a := make([]int8, n)
	for i := range a {
		a[i] = -128
	}
	if got, want := DotInt8(a, a), int64(n)*16384; got != want {
		t.Errorf("DotInt8 over %d elements = %d, want %d", n, got, want)
	}
}

func TestParseMetric(t *testing.T) {
	tests := []struct {
		in     string
		want   Metric
		higher bool
	}{
		{"dot", MetricDot, true},
		{"IP", MetricDot, true},
		{"cosine", MetricCosine, true},
		{"angular", MetricCosine, true},
		{"l2", MetricL2, false},
		{"Euclidean", MetricL2, false},
	}
	for _, tt := range tests {
		got, err := ParseMetric(tt.in)
		if err != nil || got != tt.want || got.HigherIsBetter() != tt.higher {
			t.Errorf("ParseMetric(%q) = %v, %v", tt.in, got, err)
		}
		if back, err := ParseMetric(got.String()); err != nil || back != got {
			t.Errorf("ParseMetric(%q) = %v, %v", got.String(), back, err)
		}
	}
	if _, err := ParseMetric("hamming"); err == nil || !strings.Contains(err.Error(), "hamming") {
		t.Errorf("ParseMetric(hamming) error = %v", err)
	}
}

func TestKernelLengthMismatchPanics(t *testing.T) {
	kernels := map[string]func(){
		"Dot":         func() { Dot([]float32{1, 2}, []float32{1}) },
		"DotNaive":    func() { DotNaive([]float32{1}, []float32{1, 2}) },
		"DotUnrolled": func() { DotUnrolled([]float32{1}, nil) },
		"SquaredL2":   func() { SquaredL2([]float32{1}, []float32{1, 2}) },
		"Cosine":      func() { Cosine([]float32{1}, []float32{1, 2}) },
		"DotInt8":     func() { DotInt8([]int8{1}, nil) },
		"Distance64":  func() { Distance64(MetricL2, []float32{1}, []float32{1, 2}) },
	}
	for name, call := range kernels {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), "lengths") {
					t.Errorf("%s on unequal lengths: recovered %v, want a panic naming the lengths", name, r)
				}
			}()
			call()
		}()
	}
}

// The SIMD kernels' results depend only on the values: the same vector at
// every byte offset (aligned or not, as a page in a file's mapping may be)
// scores bit for bit the same, and DotNorm's two sums are Dot's.
func TestSIMDKernelsIgnorePlacement(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, dim := range []int{1, 7, 8, 31, 32, 33, 768, 1001} {
		a, b := randomVector(r, dim), randomVector(r, dim)
		wantDot, wantL2 := DotSIMD(a, b), SquaredL2SIMD(a, b)
		ab, bb := DotNorm(a, b)
		if math.Float32bits(ab) != math.Float32bits(wantDot) || math.Float32bits(bb) != math.Float32bits(Dot(b, b)) {
			t.Errorf("dim %d: DotNorm = (%v, %v), Dot gives (%v, %v)", dim, ab, bb, wantDot, Dot(b, b))
		}
		enc, _ := Float32.EncodeAppend(nil, b)
		for shift := range 8 {
			buf := append(make([]byte, shift), enc...)[shift:]
			v, ok := Float32ViewUnaligned(buf)
			if !ok {
				continue // an architecture without free unaligned loads
			}
			if got := DotSIMD(a, v); math.Float32bits(got) != math.Float32bits(wantDot) {
				t.Errorf("dim %d shift %d: dot %v, want %v", dim, shift, got, wantDot)
			}
			if got := SquaredL2SIMD(a, v); math.Float32bits(got) != math.Float32bits(wantL2) {
				t.Errorf("dim %d shift %d: l2 %v, want %v", dim, shift, got, wantL2)
			}
		}
	}
}
