package vectorcol

import (
	"math"
	"math/rand/v2"

	"github.com/coltype-lab/lab/types/vector"
)

// metrics are the metrics every file search test runs.
var metrics = []vector.Metric{vector.MetricDot, vector.MetricCosine, vector.MetricL2}

// randomMatrix is rows × dim uniform values in [-1, 1), reproducible by seed.
func randomMatrix(seed uint64, rows, dim int) vector.Matrix {
	r := rand.New(rand.NewPCG(seed, 99))
	data := make([]float32, rows*dim)
	for i := range data {
		data[i] = r.Float32()*2 - 1
	}
	return vector.Matrix{Dim: dim, Data: data}
}

// sameResults compares ids and scores exactly, NaN equal to NaN.
func sameResults(a, b []vector.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
		an, bn := a[i].Score != a[i].Score, b[i].Score != b[i].Score
		if an != bn || (!an && a[i].Score != b[i].Score) {
			return false
		}
	}
	return true
}

var nan = float32(math.NaN())

// searchFile is one search of the file at path, as vector.SearchFile makes
// it through the registry: pages read into recycled buffers, layout 0
// detected, otherwise it must match.
func searchFile(path string, layout Layout, metric vector.Metric, queries vector.Matrix, k int) ([][]vector.Result, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	f.ReadPages(true)
	return f.Search(layout, metric, queries, k)
}
