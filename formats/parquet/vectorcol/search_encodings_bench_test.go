package vectorcol

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/coltype-lab/lab/types/vector"
)

// readFloor is the best of runs parallel reads (one goroutine per core,
// summing 8-byte words) of a buffer of n bytes: the memory floor a scan of
// n bytes is compared with. It is bench.Floor's word loop, kept here so
// that this package's benchmarks do not depend on bench.
func readFloor(n int64, runs int) time.Duration {
	words := make([]uint64, n/8)
	for i := range words {
		words[i] = uint64(i)
	}
	workers := runtime.GOMAXPROCS(0)
	sums := make([]uint64, workers) // stored, so the reads are not optimised away
	best := time.Duration(1<<63 - 1)
	for range runs {
		start := time.Now()
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				part := words[len(words)*w/workers : len(words)*(w+1)/workers]
				var a, b, c, d uint64
				for i := 0; i+4 <= len(part); i += 4 {
					a, b, c, d = a+part[i], b+part[i+1], c+part[i+2], d+part[i+3]
				}
				sums[w] = a + b + c + d
			}()
		}
		wg.Wait()
		best = min(best, time.Since(start))
	}
	return best
}

func bestOf(runs int, fn func() error) (time.Duration, error) {
	best := time.Duration(1<<63 - 1)
	for range runs {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		best = min(best, time.Since(start))
	}
	return best, nil
}

// BenchmarkSearchEncodings times a single-query top-10 over files of every
// layout and value encoding, uncompressed and zstd, larger than the last
// level cache, and reports each as a ratio to the memory floor of the same
// bytes measured in the same run (floor-x), and for zstd also to the
// decompression floor of the same pages (own-floor-x), as lab bench
// vectors does.
func BenchmarkSearchEncodings(b *testing.B) {
	const rows, dim = 40_000, 768
	m := randomMatrix(8, rows, dim)
	// Two decimal digits per element, as embeddings quantized on the way
	// often are: BYTE_STREAM_SPLIT and zstd then find something to
	// compress, and the decompression floor is not a copy.
	for i, x := range m.Data {
		m.Data[i] = float32(int(x*100)) / 100
	}
	data := m.Data
	dir := b.TempDir()
	raw := int64(rows * dim * 4)
	floor := readFloor(raw, 5)
	q := vector.Matrix{Dim: dim, Data: data[7*dim : 8*dim]}
	for _, l := range []Layout{LayoutFLBA, LayoutList, LayoutVectorRepetition} {
		for _, e := range ValueEncodings() {
			for _, c := range []Codec{CodecNone, CodecZstd} {
				b.Run(fmt.Sprintf("%v/%v/%v", l, e, c), func(b *testing.B) {
					// Written here, so that a -bench filter writes only the
					// files it searches; b.Loop starts the timer afresh.
					path := filepath.Join(dir, fmt.Sprintf("%v-%v-%v.parquet", l, e, c))
					if err := WriteFile(path, Column{Dim: dim, Data: data}, WriteOptions{Layout: l, Encoding: e, Codec: c}); err != nil {
						b.Fatal(err)
					}
					f, err := OpenFile(path)
					if err != nil {
						b.Fatal(err)
					}
					defer f.Close()
					f.SkipChecksums(true)
					var dsec time.Duration
					if c != CodecNone {
						dsec, err = bestOf(3, func() error { _, _, e := f.DecompressPages(0); return e })
						if err != nil {
							b.Fatal(err)
						}
					}
					b.SetBytes(raw)
					for b.Loop() {
						if _, err := f.Search(0, vector.MetricDot, q, 10); err != nil {
							b.Fatal(err)
						}
					}
					per := b.Elapsed().Seconds() / float64(b.N)
					b.ReportMetric(per/floor.Seconds(), "floor-x")
					if dsec > 0 {
						b.ReportMetric(per/max(dsec, floor).Seconds(), "own-floor-x")
					}
				})
			}
		}
	}
}
