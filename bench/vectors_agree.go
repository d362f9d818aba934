package bench

import (
	"fmt"
	"hash/crc32"
	"unsafe"

	"github.com/coltype-lab/lab/types/vector"
)

// The vector benchmark's check (issue 18): every configuration's timed
// searches must return the top K that float64 brute force over the
// in-memory data returns, compared as the peer runner compares engines
// (compareTopK: ids equal, or a different id only as an equally scored
// row), so that no layout gets a speed figure for wrong neighbours. The
// runner checks them (RunConfig.Reference BruteForce); this file gives it
// the data.

// vectorSearchMetric is the metric every search of the vector benchmark
// scores by.
const vectorSearchMetric = vector.MetricDot

// vectorConfigName names a configuration in errors and figures as the
// verdicts do: "flba/plain/none", a peer's file prefixed by its writer.
func vectorConfigName(x *VectorBenchResult) string {
	s := fmt.Sprintf("%s/%s/%s", x.Layout, x.Encoding, x.Codec)
	if x.Writer != "lab" {
		s = x.Writer + " " + s
	}
	return s
}

// datasetChecksum identifies the dataset's bytes, so that the copy the
// check regenerates is known to be the one written.
func datasetChecksum(data []float32) uint32 {
	if len(data) == 0 {
		return 0
	}
	return crc32.Checksum(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data)), crc32.MakeTable(crc32.Castagnoli))
}

// vectorCheckData is the data the runner checks the searches against
// (RunConfig.CheckData). The timing runs without the dataset (a live one
// would inflate the sampled heap), so this regenerates it from the seed,
// after all the timing, verified against the checksum of the one written.
func vectorCheckData(cfg VectorBenchConfig, sum uint32) func() (vector.Matrix, error) {
	return func() (vector.Matrix, error) {
		values, _, err := Dataset(cfg.Dataset, cfg.Size.N, cfg.Size.Dim, cfg.Clusters, 0, cfg.Seed)
		if err != nil {
			return vector.Matrix{}, err
		}
		if got := datasetChecksum(values); got != sum {
			return vector.Matrix{}, fmt.Errorf("bench: the regenerated %s dataset (crc32c %08x) is not the one written (%08x)", cfg.Dataset, got, sum)
		}
		return vector.Matrix{Dim: cfg.Size.Dim, Data: values}, nil
	}
}

// checkedQueries is how many queries each configuration's check compared.
func (r *VectorBenchReport) checkedQueries() int {
	if len(r.Results) == 0 {
		return 0
	}
	return r.Results[0].Agreement.Queries
}
