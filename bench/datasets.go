package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/coltype-lab/lab/types/vector"
)

// Size names a dataset shape: N vectors of Dim float32 elements.
type Size struct {
	Name   string
	N, Dim int
}

// The reference sizes are the two shapes the lab reports on: a typical text
// embedding (768) at 100k rows and a compact one (128, SIFT-like) at 1M rows;
// both are a few hundred MB, larger than any cache. Quick is for tests.
var (
	Reference768 = Size{Name: "100k×768", N: 100_000, Dim: 768}
	Reference128 = Size{Name: "1M×128", N: 1_000_000, Dim: 128}
	Quick        = Size{Name: "quick-2000×64", N: 2000, Dim: 64}
)

// Sizes lists the named sizes.
func Sizes() []Size { return []Size{Quick, Reference768, Reference128} }

// Bytes is the size of the dataset as float32, the default buffer size for
// the memory-bandwidth floor.
func (s Size) Bytes() int64 { return int64(s.N) * int64(s.Dim) * 4 }

func (s Size) String() string { return s.Name }

// PCG stream selectors: one seed yields independent streams for cluster
// centres, data and queries, so queries are held out (never rows of the
// data) yet come from the same distribution, and asking for more rows does
// not change the rows already generated.
const (
	streamData    = 1
	streamQueries = 2
	streamCenters = 3
)

func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// Uniform returns n×dim values uniform in [-1, 1), row-major, deterministic
// for a seed.
func Uniform(n, dim int, seed uint64) []float32 {
	return uniform(newRand(seed, streamData), n, dim)
}

// UniformQueries returns m held-out points from Uniform's distribution.
func UniformQueries(m, dim int, seed uint64) []float32 {
	return uniform(newRand(seed, streamQueries), m, dim)
}

func uniform(r *rand.Rand, n, dim int) []float32 {
	out := make([]float32, max(n, 0)*max(dim, 0))
	for i := range out {
		out[i] = float32(r.Float64()*2 - 1)
	}
	return out
}

// Generators take sizes as given: n or dim ≤ 0 yields an empty slice and
// fewer than one cluster means one, so a generator never fails.

// Clustered returns n×dim values drawn from a mixture of Gaussian clusters,
// row-major, deterministic for a seed. Exact search does not care, but ANN
// indexes and compression do: uniform data has no structure to exploit,
// while real embeddings cluster by topic and concentrate their variance in
// few directions. So each dimension j has its own scale, variance
// DimVariance(j, dim) = exp(-4j/dim), decaying like an embedding's spectrum;
// centres are N(0, variance) per dimension and points are their centre plus
// N(0, variance/4) noise, clusters chosen uniformly.
func Clustered(n, dim, clusters int, seed uint64) []float32 {
	return clustered(newRand(seed, streamData), n, dim, clusters, seed)
}

// ClusteredQueries returns m held-out points from the same mixture (the same
// centres) as Clustered with the same dim, clusters and seed.
func ClusteredQueries(m, dim, clusters int, seed uint64) []float32 {
	return clustered(newRand(seed, streamQueries), m, dim, clusters, seed)
}

// DimVariance is the variance of the cluster centres along dimension j,
// exp(-4j/dim): the last dimension keeps about 2% of the first one's. A
// Clustered dimension's total variance is 1.25 × DimVariance (centres plus
// noise of a quarter of that).
func DimVariance(j, dim int) float64 { return math.Exp(-4 * float64(j) / float64(dim)) }

const clusterNoise = 0.5 // noise standard deviation relative to the centre spread

func clustered(r *rand.Rand, n, dim, clusters int, seed uint64) []float32 {
	n, dim, clusters = max(n, 0), max(dim, 0), max(clusters, 1)
	scale := make([]float64, dim)
	for j := range scale {
		scale[j] = math.Sqrt(DimVariance(j, dim))
	}
	cr := newRand(seed, streamCenters)
	centers := make([]float64, clusters*dim)
	for c := range clusters {
		for j := range dim {
			centers[c*dim+j] = cr.NormFloat64() * scale[j]
		}
	}
	out := make([]float32, n*dim)
	for i := range n {
		c := centers[r.IntN(clusters)*dim:][:dim]
		row := out[i*dim : (i+1)*dim]
		for j := range row {
			row[j] = float32(c[j] + clusterNoise*scale[j]*r.NormFloat64())
		}
	}
	return out
}

// Dataset generates a named vector dataset ("clustered" or "uniform") and
// its held-out queries, as every vector benchmark does.
func Dataset(name string, n, dim, clusters, queries int, seed uint64) (data []float32, q vector.Matrix, err error) {
	var qs []float32
	switch name {
	case "clustered":
		data, qs = Clustered(n, dim, clusters, seed), ClusteredQueries(queries, dim, clusters, seed)
	case "uniform":
		data, qs = Uniform(n, dim, seed), UniformQueries(queries, dim, seed)
	default:
		return nil, vector.Matrix{}, fmt.Errorf("bench: unknown dataset %q (want clustered or uniform)", name)
	}
	return data, vector.Matrix{Dim: dim, Data: qs}, nil
}

// datasetDefaults checks and fills the dataset settings the vector
// benchmarks share: size must have rows and dimensions (what names the
// benchmark in the error), the dataset is clustered unless named, with 64
// clusters and seed 1 unless set.
func datasetDefaults(what string, size Size, dataset *string, clusters *int, seed *uint64) error {
	if size.N <= 0 || size.Dim <= 0 {
		return fmt.Errorf("bench: %s size %v has no rows or no dimensions", what, size)
	}
	switch *dataset {
	case "":
		*dataset = "clustered"
	case "clustered", "uniform":
	default:
		return fmt.Errorf("bench: unknown dataset %q (want clustered or uniform)", *dataset)
	}
	if *clusters <= 0 {
		*clusters = 64
	}
	if *seed == 0 {
		*seed = 1
	}
	return nil
}

// ParseSize reads "ROWSxDIM" (an X in either case) with both numbers
// positive; ok is false otherwise. Callers give the error in their own
// words and name the size as they show it.
func ParseSize(s string) (rows, dim int, ok bool) {
	r, d, found := strings.Cut(strings.ToLower(s), "x")
	n, err1 := strconv.Atoi(r)
	m, err2 := strconv.Atoi(d)
	if !found || err1 != nil || err2 != nil || n <= 0 || m <= 0 {
		return 0, 0, false
	}
	return n, m, true
}
