package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

// prefixHash hashes the little-endian bytes of the first 1024 values, enough
// to pin a generator's output without storing it.
func prefixHash(v []float32) string {
	h := sha256.New()
	for _, x := range v[:min(len(v), 1024)] {
		binary.Write(h, binary.LittleEndian, math.Float32bits(x))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// The hashes pin the datasets across runs and machines. If one changes (say
// a Go release changes how math/rand/v2 derives floats from PCG), recorded
// benchmark results were measured on different data, and this test says so.
func TestDatasetsDeterministic(t *testing.T) {
	tests := []struct {
		name string
		gen  func(seed uint64) []float32
		want string
	}{
		{"Uniform", func(s uint64) []float32 { return Uniform(Quick.N, Quick.Dim, s) }, "c091a289d734cb1a"},
		{"UniformQueries", func(s uint64) []float32 { return UniformQueries(100, Quick.Dim, s) }, "f4607cd9957a5420"},
		{"Clustered", func(s uint64) []float32 { return Clustered(Quick.N, Quick.Dim, 10, s) }, "03fcb8f6ab81f70a"},
		{"ClusteredQueries", func(s uint64) []float32 { return ClusteredQueries(100, Quick.Dim, 10, s) }, "132db69ceb4440b8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, other := tt.gen(1), tt.gen(1), tt.gen(2)
			ha := prefixHash(a)
			if hb := prefixHash(b); ha != hb || len(a) != len(b) {
				t.Fatalf("same seed, different data: %s vs %s", ha, hb)
			}
			if prefixHash(other) == ha {
				t.Fatal("seeds 1 and 2 gave the same data")
			}
			if ha != tt.want {
				t.Fatalf("prefix hash = %s, want %s", ha, tt.want)
			}
		})
	}
}

func TestDatasetShapes(t *testing.T) {
	const dim = 8
	u := Uniform(300, dim, 5)
	if len(u) != 300*dim {
		t.Fatalf("len(Uniform) = %d", len(u))
	}
	for i, x := range u {
		if x < -1 || x >= 1 {
			t.Fatalf("Uniform[%d] = %g outside [-1, 1)", i, x)
		}
	}
	// More rows extend the dataset; they do not change the first ones.
	if prefixHash(Uniform(200, dim, 5)) != prefixHash(u[:200*dim]) ||
		prefixHash(Clustered(200, dim, 4, 5)) != prefixHash(Clustered(300, dim, 4, 5)[:200*dim]) {
		t.Fatal("a longer dataset does not start with the shorter one")
	}
	// Queries are held out: a different stream, not copies of data rows.
	if prefixHash(UniformQueries(10, dim, 5)) == prefixHash(u[:10*dim]) {
		t.Fatal("queries repeat the data")
	}
	if got := len(Clustered(0, dim, 3, 1)) + len(Uniform(-1, dim, 1)) + len(Clustered(5, 2, 0, 1)); got != 10 {
		t.Fatalf("degenerate sizes gave %d values, want 0 + 0 + 10", got)
	}
	for _, s := range Sizes() {
		if s.Bytes() != int64(s.N)*int64(s.Dim)*4 || s.N < 1 || s.Dim < 1 {
			t.Errorf("size %v: %d bytes", s, s.Bytes())
		}
	}
	if Reference768.Bytes() != 307_200_000 || Reference128.Bytes() != 512_000_000 {
		t.Errorf("reference sizes changed: %d, %d", Reference768.Bytes(), Reference128.Bytes())
	}
}

// The clustered data has the intended spectrum: per-dimension variance
// follows 1.25 × DimVariance, decaying with the dimension index, and the
// queries share it.
func TestClusteredVarianceDecays(t *testing.T) {
	const n, dim, clusters = 4000, 64, 200
	for name, data := range map[string][]float32{
		"data":    Clustered(n, dim, clusters, 7),
		"queries": ClusteredQueries(n, dim, clusters, 7),
	} {
		v := columnVariance(data, dim)
		quarter := func(q int) (got, want float64) {
			for j := q * dim / 4; j < (q+1)*dim/4; j++ {
				got += v[j]
				want += 1.25 * DimVariance(j, dim)
			}
			return got, want
		}
		prev := math.Inf(1)
		for q := range 4 {
			got, want := quarter(q)
			if math.Abs(got/want-1) > 0.25 {
				t.Errorf("%s quarter %d: variance %.4g, want %.4g ± 25%%", name, q, got, want)
			}
			if got >= prev {
				t.Errorf("%s quarter %d: variance %.4g does not decay from %.4g", name, q, got, prev)
			}
			prev = got
		}
		first, _ := quarter(0)
		last, _ := quarter(3)
		if first/last < 10 {
			t.Errorf("%s: first/last quarter variance ratio %.3g, want ≥ 10", name, first/last)
		}
	}
}

func columnVariance(data []float32, dim int) []float64 {
	n := len(data) / dim
	mean := make([]float64, dim)
	for i := range n {
		for j := range dim {
			mean[j] += float64(data[i*dim+j])
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	v := make([]float64, dim)
	for i := range n {
		for j := range dim {
			d := float64(data[i*dim+j]) - mean[j]
			v[j] += d * d
		}
	}
	for j := range v {
		v[j] /= float64(n - 1)
	}
	return v
}
