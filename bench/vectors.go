package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coltype-lab/lab/types/vector"
)

// VectorBenchConfig configures RunVectorBench.
type VectorBenchConfig struct {
	Size Size
	// Dataset is "clustered" (default) or "uniform".
	Dataset  string
	Clusters int    // default 64
	Seed     uint64 // default 1
	// Dir holds the files (default: a new temporary directory, removed
	// afterwards).
	Dir string
	// Layouts, Encodings and Codecs default to all of them.
	Layouts   []vector.Layout
	Encodings []vector.ValueEncoding
	Codecs    []vector.Codec
	Runs      int // timed runs per measurement, best kept; default 3
	Batch     int // queries of the batched search; default 64
	K         int // default 10
	TakeRows  int // default 100
	PageBytes int // default: vector.WriteFile's
}

// VectorBenchResult is one layout × encoding × codec.
type VectorBenchResult struct {
	Layout, Encoding, Codec string
	WriteMBps               float64 // raw float32 bytes written per second / 1e6
	FileBytes               int64
	SizeRatio               float64 // file size / raw float32 size
	DecodeGBps              float64 // full decode of every page into float32 blocks
	DecodeFloorRatio        float64 // decode time / floor time
	SearchMs                float64 // one query, top K, whole file
	SearchFloorRatio        float64 // search time / floor time
	BatchQPS                float64 // queries per second, Batch queries at once
	BatchFloorRatio         float64 // batched search time / floor time
	TakeMs                  float64 // TakeRows random rows, one call (open included)
	// SearchPeakHeapMB is the peak of runtime.MemStats.HeapInuse, sampled
	// every millisecond during the single-query search, minus HeapInuse
	// just before it (after a GC): the memory the search itself holds.
	SearchPeakHeapMB float64
}

// VectorBenchReport is the outcome of RunVectorBench.
type VectorBenchReport struct {
	Size     string
	N, Dim   int
	Dataset  string
	RawBytes int64
	Floor    FloorResult
	Results  []VectorBenchResult
}

// RunVectorBench writes the dataset in every layout × encoding × codec and
// measures writing, size, full decode, single and batched search and take,
// each scan also as a ratio to the memory-bandwidth floor measured in the
// same run at the dataset's size. Reads come from the page cache (the file
// was just written), so the ratios compare decoding and scoring with memory
// bandwidth, not with the disk.
func RunVectorBench(cfg VectorBenchConfig) (*VectorBenchReport, error) {
	if cfg.Size.N <= 0 || cfg.Size.Dim <= 0 {
		return nil, fmt.Errorf("bench: vector size %v has no rows or no dimensions", cfg.Size)
	}
	if cfg.Dataset == "" {
		cfg.Dataset = "clustered"
	}
	if cfg.Clusters <= 0 {
		cfg.Clusters = 64
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Runs <= 0 {
		cfg.Runs = 3
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.K <= 0 {
		cfg.K = 10
	}
	if cfg.TakeRows <= 0 {
		cfg.TakeRows = 100
	}
	if cfg.Layouts == nil {
		cfg.Layouts = vector.Layouts()
	}
	if cfg.Encodings == nil {
		cfg.Encodings = vector.ValueEncodings()
	}
	if cfg.Codecs == nil {
		cfg.Codecs = vector.Codecs()
	}
	n, dim := cfg.Size.N, cfg.Size.Dim
	var data, queries []float32
	switch cfg.Dataset {
	case "clustered":
		data = Clustered(n, dim, cfg.Clusters, cfg.Seed)
		queries = ClusteredQueries(cfg.Batch, dim, cfg.Clusters, cfg.Seed)
	case "uniform":
		data = Uniform(n, dim, cfg.Seed)
		queries = UniformQueries(cfg.Batch, dim, cfg.Seed)
	default:
		return nil, fmt.Errorf("bench: unknown dataset %q (want clustered or uniform)", cfg.Dataset)
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "lab-vectors-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	floor, err := Floor(cfg.Size.Bytes(), cfg.Runs)
	if err != nil {
		return nil, err
	}
	rep := &VectorBenchReport{Size: cfg.Size.Name, N: n, Dim: dim, Dataset: cfg.Dataset, RawBytes: cfg.Size.Bytes(), Floor: floor}
	raw := float64(cfg.Size.Bytes())
	r := rand.New(rand.NewPCG(cfg.Seed, 9))
	takeRows := make([]int64, cfg.TakeRows)
	for i := range takeRows {
		takeRows[i] = r.Int64N(int64(n))
	}
	col := vector.Column{Dim: dim, Data: data}
	one := vector.Matrix{Dim: dim, Data: queries[:dim]}
	batch := vector.Matrix{Dim: dim, Data: queries}
	// Write every file first, then drop the in-memory dataset: the garbage
	// collector's target grows with the live heap, so with the dataset alive
	// the sampled heap would show GOGC headroom proportional to the dataset
	// instead of what the search holds.
	type combo struct {
		path string
		res  VectorBenchResult
	}
	var combos []combo
	for _, layout := range cfg.Layouts {
		for _, enc := range cfg.Encodings {
			for _, codec := range cfg.Codecs {
				res := VectorBenchResult{Layout: layout.String(), Encoding: enc.String(), Codec: codec.String()}
				path := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.parquet", layout, enc, codec))
				opts := vector.WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: cfg.PageBytes}
				sec, err := best(cfg.Runs, func() error { return vector.WriteFile(path, col, opts) })
				if err != nil {
					return nil, fmt.Errorf("bench: %s: %w", path, err)
				}
				res.WriteMBps = raw / sec / 1e6
				st, err := os.Stat(path)
				if err != nil {
					return nil, err
				}
				res.FileBytes = st.Size()
				res.SizeRatio = float64(st.Size()) / raw
				combos = append(combos, combo{path, res})
			}
		}
	}
	data, col = nil, vector.Column{}
	one.Data = append([]float32(nil), one.Data...)
	batch.Data = append([]float32(nil), batch.Data...)
	queries = nil
	runtime.GC()
	for _, cb := range combos {
		path, res := cb.path, cb.res
		f, err := vector.OpenFile(path)
		if err != nil {
			return nil, err
		}
		sec, err := best(cfg.Runs, func() error { return drain(f) })
		if err != nil {
			f.Close()
			return nil, err
		}
		res.DecodeGBps = raw / sec / 1e9
		res.DecodeFloorRatio = sec / floor.Seconds
		var peak float64
		sec, err = best(cfg.Runs, func() error {
			var e error
			peak = max(peak, heapPeak(func() { _, e = f.Search(0, vector.MetricDot, one, cfg.K) }))
			return e
		})
		if err != nil {
			f.Close()
			return nil, err
		}
		res.SearchMs = sec * 1e3
		res.SearchFloorRatio = sec / floor.Seconds
		res.SearchPeakHeapMB = peak / 1e6
		sec, err = best(cfg.Runs, func() error {
			_, e := f.Search(0, vector.MetricDot, batch, cfg.K)
			return e
		})
		f.Close()
		if err != nil {
			return nil, err
		}
		res.BatchQPS = float64(cfg.Batch) / sec
		res.BatchFloorRatio = sec / floor.Seconds
		sec, err = best(cfg.Runs, func() error {
			_, e := vector.Take(path, takeRows)
			return e
		})
		if err != nil {
			return nil, err
		}
		res.TakeMs = sec * 1e3
		rep.Results = append(rep.Results, res)
		if cfg.Dir == "" {
			os.Remove(path)
		}
	}
	return rep, nil
}

// best runs fn runs times and returns the fastest run in seconds.
func best(runs int, fn func() error) (float64, error) {
	b := 0.0
	for i := range runs {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		if s := time.Since(start).Seconds(); i == 0 || s < b {
			b = s
		}
	}
	return max(b, 1e-9), nil
}

// drain decodes every page of f, keeping nothing.
func drain(f *vector.File) error {
	src := f.Blocks(0)
	defer src.Close()
	for {
		_, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// heapPeak runs fn and returns the peak HeapInuse seen while it ran above
// the HeapInuse before it, in bytes.
func heapPeak(fn func()) float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	peak.Store(base)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	fn()
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > peak.Load() {
		peak.Store(ms.HeapInuse)
	}
	close(stop)
	wg.Wait()
	return float64(peak.Load() - base)
}

// Markdown renders the report as a Markdown table, one row per layout ×
// encoding × codec.
func (r *VectorBenchReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Dataset %s %s (%d × %d float32, %.1f MB raw); floor %.2f GB/s (%.3f ms).\n\n",
		r.Dataset, r.Size, r.N, r.Dim, float64(r.RawBytes)/1e6, r.Floor.GBps, r.Floor.Seconds*1e3)
	b.WriteString("| layout | encoding | codec | write MB/s | size/raw | decode GB/s | decode/floor | top-10 ms | top-10/floor | batch q/s | batch/floor | take 100 ms | search peak heap MB |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Results {
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.3f | %.2f | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f | %.1f |\n",
			x.Layout, x.Encoding, x.Codec, x.WriteMBps, x.SizeRatio, x.DecodeGBps, x.DecodeFloorRatio,
			x.SearchMs, x.SearchFloorRatio, x.BatchQPS, x.BatchFloorRatio, x.TakeMs, x.SearchPeakHeapMB)
	}
	return b.String()
}
