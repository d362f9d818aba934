package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
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
	Layouts   []vectorcol.Layout
	Encodings []vectorcol.ValueEncoding
	Codecs    []vectorcol.Codec
	Runs      int // timed runs per measurement, best kept; default 3
	Batch     int // queries of the batched search; default 64
	K         int // default 10
	TakeRows  int // default 100
	PageBytes int // default: vectorcol.WriteFile's
	// PeerFiles has DuckDB (V2 pages + zstd, its FLOAT[dim] array) and
	// parquet-wasm (arrow-rs: BYTE_STREAM_SPLIT + zstd, FixedSizeList)
	// write the same vectors, and measures the lab's reader on their files
	// beside its own (issue 14: other writers' files at the same bounds,
	// and the lab's BSS + zstd no larger than the smaller of theirs). Each
	// missing peer is an error.
	PeerFiles bool
	// Progress, when set, receives one line per step.
	Progress io.Writer
}

// VectorBenchResult is one layout × encoding × codec.
type VectorBenchResult struct {
	Layout, Encoding, Codec string
	// Writer is who wrote the file: "lab", or a peer (PeerFiles), whose
	// files are described by Layout (what the lab's reader detects),
	// Encoding and Codec as the peer was asked to write them.
	Writer string
	// EncodeMBps is raw float32 bytes per second (/ 1e6) through the
	// writer: pages and footer encoded and handed to the operating system
	// (vectorcol.WriteStats.Encode), the best of the runs. WriteMBps is the
	// same bytes made durable, fsync and rename included; the disk bounds
	// it (VectorBenchReport.WriteFloorMBps), not the writer.
	EncodeMBps float64
	WriteMBps  float64
	FileBytes  int64
	SizeRatio  float64 // file size / raw float32 size
	// DecodeGBps is a full decode: every page turned into float32 blocks on
	// every core and every element read once (summed as words, the floor's
	// own loop), so that a zero-copy view is not counted as free.
	DecodeGBps float64
	// FloorMs is the memory floor timed alternately with this
	// configuration's single-query search and its decompression floor
	// (DecompressMs), best of the same runs (FloorProbe): every ratio of the
	// row is to these two, so that the machine's drift over a run of many
	// configurations does not move them.
	FloorMs          float64
	DecodeFloorRatio float64 // decode time / floor time
	SearchMs         float64 // one query, top K, whole file
	SearchFloorRatio float64 // search time / floor time
	// DecompressMs is the file's decompression floor: every page inflated
	// on every core into recycled buffers and nothing else
	// (vectorcol.File.DecompressPages); for an uncompressed file, one touch of
	// each page. OwnFloorRatio is the search time over the larger of it and
	// the memory floor: what issue 14 judges a compressed search by.
	DecompressMs    float64
	OwnFloorRatio   float64
	BatchQPS        float64 // queries per second, Batch queries at once
	BatchFloorRatio float64 // batched search time / floor time
	TakeMs          float64 // TakeRows random rows, one call (open included)
	// The scans above measure the layouts' readers, page CRCs unchecked
	// (vectorcol.File.SkipChecksums); the same search and take with every
	// page CRC verified, as lab vector search and take run by default:
	VerifiedSearchMs         float64
	VerifiedSearchFloorRatio float64
	VerifiedTakeMs           float64
	// SearchPeakHeapMB is the peak of runtime.MemStats.HeapInuse, sampled
	// every millisecond during one extra, untimed single-query search
	// (sampling stops the world, so it never runs during a timed one), minus
	// HeapInuse just before it (after a GC): the memory the search holds.
	SearchPeakHeapMB float64
	// Agreement compares the answers of the three timed searches (single
	// query, batch, verified single query; each its fastest run) with
	// float64 brute force over the in-memory data, same metric and K:
	// summed over them, 1 + Batch + 1 queries. Checked by the runner after
	// all the timing (RunEngines, Reference BruteForce), outside it; any
	// disagreement fails the run naming the configuration and the search.
	Agreement Agreement
	// Recall is the lowest of the three searches' mean k-nn recall against
	// the same brute force.
	Recall float64
}

// PeakScaling is the search's peak heap on the same layout at a quarter of
// the rows and at all of them: independent of the file size when equal.
type PeakScaling struct {
	Layout, Encoding, Codec string
	QuarterRows, Rows       int
	QuarterPeakMB, PeakMB   float64
}

// VectorVerdict is one of issue 4's or 14's targets, met or missed, with the figure.
type VectorVerdict struct {
	Target string
	Figure string
	Met    bool
	// Measured is false when the run did not include what the target
	// needs (a layout, encoding or codec left out).
	Measured bool
}

// VectorBenchReport is the outcome of RunVectorBench.
type VectorBenchReport struct {
	Size     string
	N, Dim   int
	K        int // neighbours per query in every search
	Dataset  string
	RawBytes int64
	Floor    FloorResult
	// WriteFloorMBps is the disk's durable-write floor, measured in the
	// run: the raw float32 bytes written with one write(2) into a file in
	// the same directory and fsynced, best of the runs. No durable write of
	// those bytes can beat it.
	WriteFloorMBps float64
	Results        []VectorBenchResult
	Peak           []PeakScaling
	Verdicts       []VectorVerdict
	Load           string // /proc/loadavg at the start and the end
}

// RunVectorBench writes the dataset in every layout × encoding × codec and
// measures writing, size, full decode, single and batched search and take,
// each scan also as a ratio to the memory-bandwidth floor measured in the
// same run at the dataset's size. Reads come from the page cache (the file
// was just written), so the ratios compare decoding and scoring with memory
// bandwidth, not with the disk. The searches, their floors and their check
// go through the runner (RunEngines), three engines per configuration;
// the rest is measured here.
func RunVectorBench(cfg VectorBenchConfig) (*VectorBenchReport, error) {
	if err := datasetDefaults("vector", cfg.Size, &cfg.Dataset, &cfg.Clusters, &cfg.Seed); err != nil {
		return nil, err
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
		cfg.Layouts = vectorcol.Layouts()
	}
	if cfg.Encodings == nil {
		cfg.Encodings = vectorcol.ValueEncodings()
	}
	if cfg.Codecs == nil {
		cfg.Codecs = vectorcol.Codecs()
	}
	n, dim := cfg.Size.N, cfg.Size.Dim
	data, qm, err := Dataset(cfg.Dataset, n, dim, cfg.Clusters, cfg.Batch, cfg.Seed)
	if err != nil {
		return nil, err
	}
	queries := qm.Data
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "lab-vectors-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rep := &VectorBenchReport{Size: cfg.Size.Name, N: n, Dim: dim, K: cfg.K, Dataset: cfg.Dataset, RawBytes: cfg.Size.Bytes(), Load: loadAverage()}
	raw := float64(cfg.Size.Bytes())
	r := rand.New(rand.NewPCG(cfg.Seed, 9))
	takeRows := make([]int64, cfg.TakeRows)
	for i := range takeRows {
		takeRows[i] = r.Int64N(int64(n))
	}
	col := vectorcol.Column{Dim: dim, Data: data}
	if rep.WriteFloorMBps, err = DurableWriteFloor(dir, unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data)), cfg.Runs); err != nil {
		return nil, err
	}
	batch := vector.Matrix{Dim: dim, Data: queries}
	// Write every file first, then drop the in-memory dataset: the garbage
	// collector's target grows with the live heap, so with the dataset alive
	// the sampled heap would show GOGC headroom proportional to the dataset
	// instead of what the search holds.
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "vectors: "+format+"\n", args...)
		}
	}
	var combos []vectorFile
	for _, layout := range cfg.Layouts {
		for _, enc := range cfg.Encodings {
			for _, codec := range cfg.Codecs {
				res := VectorBenchResult{Writer: "lab", Layout: layout.String(), Encoding: enc.String(), Codec: codec.String()}
				progress("writing %s/%s/%s", layout, enc, codec)
				path := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.parquet", layout, enc, codec))
				opts := vectorcol.WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: cfg.PageBytes}
				var encode float64
				sec, err := BestOf(cfg.Runs, func() error {
					st, err := vectorcol.WriteFileStats(path, col, opts)
					if e := st.Encode.Seconds(); err == nil && (encode == 0 || e < encode) {
						encode = e
					}
					return err
				})
				if err != nil {
					return nil, fmt.Errorf("bench: %s: %w", path, err)
				}
				res.WriteMBps = raw / sec / 1e6
				res.EncodeMBps = raw / max(encode, 1e-9) / 1e6
				st, err := os.Stat(path)
				if err != nil {
					return nil, err
				}
				res.FileBytes = st.Size()
				res.SizeRatio = float64(st.Size()) / raw
				combos = append(combos, vectorFile{path, res})
			}
		}
	}
	if cfg.PeerFiles {
		peerCombos, err := writeOtherWriters(dir, col, raw, progress)
		if err != nil {
			return nil, err
		}
		combos = append(combos, peerCombos...)
	}
	// The check after the timing regenerates the dataset; the checksum
	// proves it the same.
	checkData := vectorCheckData(cfg, datasetChecksum(data))
	data, col = nil, vectorcol.Column{}
	batch.Data = append([]float32(nil), batch.Data...)
	one := firstQueries(batch, 1)
	queries = nil
	runtime.GC()
	// Per configuration, in this order: its single-query search in turn
	// with the memory floor and its decompression floor (vectorFloorEngine:
	// the row's floors), then the batch and the verified single-query
	// search; the runner checks them all against brute force after the
	// timing. What is not a search is measured just before the first, on
	// its open file.
	engines := make([]Engine, 0, 3*len(combos))
	singles := map[Engine]int{} // each configuration's first engine, to its index
	for i, cb := range combos {
		name := vectorConfigName(&cb.res)
		single := vectorFloorEngine{&vectorFileEngine{path: cb.path, config: name}}
		singles[single] = i
		engines = append(engines, single,
			&vectorFileEngine{path: cb.path, config: name, batch: true},
			&vectorFileEngine{path: cb.path, config: name, verify: true})
	}
	// decodeSec is each configuration's full decode, best of the runs:
	// DecodeFloorRatio's numerator once the floor beside it is measured.
	decodeSec := make([]float64, len(combos))
	beside := func(e Engine) error {
		i, ok := singles[e]
		if !ok {
			return nil
		}
		f, x := e.(vectorFloorEngine).f, &combos[i].res
		progress("decoding, searching and taking %s", vectorConfigName(x))
		var err error
		if decodeSec[i], err = BestOf(cfg.Runs, func() error { return drain(f) }); err != nil {
			return err
		}
		x.DecodeGBps = raw / decodeSec[i] / 1e9
		peak, err := searchPeak(f, one, cfg.K)
		if err != nil {
			return err
		}
		x.SearchPeakHeapMB = peak / 1e6
		if x.TakeMs, err = bestTakeMs(cfg.Runs, combos[i].path, takeRows, false); err != nil {
			return err
		}
		x.VerifiedTakeMs, err = bestTakeMs(cfg.Runs, combos[i].path, takeRows, true)
		return err
	}
	run, err := RunEngines(context.Background(), RunConfig{
		Queries: batch, CheckData: checkData, Metric: vectorSearchMetric, K: cfg.K, SingleQueries: 1,
		Engines: engines, BeforeSearch: beside,
		Reference: BruteForce, Recall: true,
		SearchRuns: cfg.Runs, FloorRuns: cfg.Runs, FloorBytes: cfg.Size.Bytes(),
		Progress: progress,
	})
	if err != nil {
		return nil, err
	}
	rep.Floor = run.Floor
	for i, cb := range combos {
		x := cb.res
		// The runs are in the engines' order, three per configuration.
		single, batchRun, verified := run.Search[3*i], run.Search[3*i+1], run.Search[3*i+2]
		here := single.FloorMS
		x.FloorMs = here
		x.DecodeFloorRatio = decodeSec[i] * 1e3 / here
		x.SearchMs = single.TotalMS
		x.SearchFloorRatio = single.TotalMS / here
		x.DecompressMs = single.OwnFloorMS
		x.OwnFloorRatio = single.TotalMS / max(single.OwnFloorMS, here)
		x.BatchQPS = batchRun.QPS
		x.BatchFloorRatio = batchRun.TotalMS / here
		x.VerifiedSearchMs = verified.TotalMS
		x.VerifiedSearchFloorRatio = verified.TotalMS / here
		x.Recall = 1
		for _, r := range []EngineRun{single, batchRun, verified} {
			x.Agreement.Queries += r.Agreement.Queries
			x.Agreement.SameIDs += r.Agreement.SameIDs
			x.Agreement.TieSwaps += r.Agreement.TieSwaps
			x.Agreement.MaxScoreDiff = max(x.Agreement.MaxScoreDiff, r.Agreement.MaxScoreDiff)
			x.Recall = min(x.Recall, r.Recall)
		}
		rep.Results = append(rep.Results, x)
		// The peak-scaling files (the run's last encoding and codec) stay
		// until measurePeakScaling has searched them again; the temporary
		// directory goes at the end.
		keep := x.Writer == "lab" && x.Encoding == cfg.Encodings[len(cfg.Encodings)-1].String() && x.Codec == cfg.Codecs[len(cfg.Codecs)-1].String()
		if cfg.Dir == "" && !keep {
			os.Remove(cb.path)
		}
	}
	if err := rep.measurePeakScaling(cfg, dir, one); err != nil {
		return nil, err
	}
	rep.Verdicts = rep.verdicts()
	rep.Load += " / " + loadAverage()
	return rep, nil
}

// vectorFile is one file the benchmark measures, with its results so far.
type vectorFile struct {
	path string
	res  VectorBenchResult
}

// bestTakeMs times taking rows from the file at path, opening it each time
// as vectorcol.Take does, with page CRCs verified or not.
func bestTakeMs(runs int, path string, rows []int64, verify bool) (float64, error) {
	sec, err := BestOf(runs, func() error {
		f, err := vectorcol.OpenFile(path)
		if err != nil {
			return err
		}
		defer f.Close()
		f.SkipChecksums(!verify)
		_, err = f.Take(rows)
		return err
	})
	return sec * 1e3, err
}

// searchPeak runs one untimed single-query search under the heap sampler.
func searchPeak(f *vectorcol.File, q vector.Matrix, k int) (float64, error) {
	var err error
	peak := heapPeak(func() { _, err = f.Search(0, vectorSearchMetric, q, k) })
	return peak, err
}

// measurePeakScaling writes, per layout, the dataset's first quarter of rows
// and compares the search's peak heap on it with the full file's (already
// measured). The encoding and codec are the run's last ones (by default
// BYTE_STREAM_SPLIT and lz4): a decoded, decompressed page is the largest
// buffer a search holds, so that is where a dependence on the file size
// would show.
func (r *VectorBenchReport) measurePeakScaling(cfg VectorBenchConfig, dir string, q vector.Matrix) error {
	enc, codec := cfg.Encodings[len(cfg.Encodings)-1], cfg.Codecs[len(cfg.Codecs)-1]
	quarter := max(r.N/4, 1)
	data, _, err := Dataset(r.Dataset, quarter, r.Dim, cfg.Clusters, 0, cfg.Seed)
	if err != nil {
		return err
	}
	// Write first, then drop the data: a live dataset would raise the
	// garbage collector's target and with it the sampled peak.
	type quarterFile struct {
		path string
		full *VectorBenchResult
	}
	var files []quarterFile
	for _, layout := range cfg.Layouts {
		full := r.find(layout.String(), enc.String(), codec.String())
		if full == nil {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("quarter-%s-%s-%s.parquet", layout, enc, codec))
		opts := vectorcol.WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: cfg.PageBytes}
		if err := vectorcol.WriteFile(path, vectorcol.Column{Dim: r.Dim, Data: data}, opts); err != nil {
			return fmt.Errorf("bench: %s: %w", path, err)
		}
		files = append(files, quarterFile{path, full})
	}
	data = nil
	for _, qf := range files {
		full := qf.full
		fullPath := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.parquet", full.Layout, full.Encoding, full.Codec))
		// Both sizes are measured here the same way, alternating, and
		// each keeps the median of its runs: one search's sample can miss
		// the peak or catch a collection late, and comparing one sample
		// of each size let that noise flip the verdict.
		var qPeaks, fPeaks []float64
		for range max(cfg.Runs, 3) {
			for _, m := range []struct {
				path  string
				peaks *[]float64
			}{{qf.path, &qPeaks}, {fullPath, &fPeaks}} {
				f, err := vectorcol.OpenFile(m.path)
				if err != nil {
					return err
				}
				p, err := searchPeak(f, q, cfg.K)
				f.Close()
				if err != nil {
					return err
				}
				*m.peaks = append(*m.peaks, p)
			}
		}
		if cfg.Dir == "" {
			os.Remove(qf.path)
		}
		r.Peak = append(r.Peak, PeakScaling{
			Layout: full.Layout, Encoding: full.Encoding, Codec: full.Codec,
			QuarterRows: quarter, Rows: r.N, QuarterPeakMB: median(qPeaks) / 1e6, PeakMB: median(fPeaks) / 1e6,
		})
	}
	return nil
}

// The targets of issues 4 and 14.
const (
	// Issue 14: single-query search over every uncompressed layout and
	// encoding, × the memory floor; over every compressed configuration, ×
	// the larger of its decompression floor and the memory floor; writes of
	// every uncompressed layout.
	targetUncompressedFloor = 1.5
	targetCompressedFloor   = 1.5
	targetWriteMBps         = 1000
	targetSearchFloor       = 1.5  // single-query search over uncompressed flba, × floor
	targetDecodeGBps        = 2.0  // full decode of flba PLAIN
	targetTakeMs            = 5.0  // take of 100 random rows
	targetSizeRatio         = 0.90 // flba or list, BYTE_STREAM_SPLIT + zstd, clustered
	// A peak counts as independent of the file size when 4× the rows hold
	// at most 25% (+1 MB for the sampler's granularity) more heap.
	peakSlack, peakSlackMB = 1.25, 1.0
)

func (r *VectorBenchReport) find(layout, enc, codec string) *VectorBenchResult {
	for i := range r.Results {
		if x := &r.Results[i]; x.Layout == layout && x.Encoding == enc && x.Codec == codec {
			return x
		}
	}
	return nil
}

// verdicts judges the run against the targets.
func (r *VectorBenchReport) verdicts() []VectorVerdict {
	var out []VectorVerdict
	flba := r.find("flba", "plain", "none")
	v := VectorVerdict{Target: fmt.Sprintf("single-query exact search over uncompressed flba ≤ %.1f× the floor", targetSearchFloor)}
	if flba != nil {
		v.Measured, v.Met = true, flba.SearchFloorRatio <= targetSearchFloor
		v.Figure = fmt.Sprintf("%.2f× (%.2f ms, floor %.2f ms)", flba.SearchFloorRatio, flba.SearchMs, flba.FloorMs)
	}
	out = append(out, v)
	v = VectorVerdict{Target: fmt.Sprintf("full decode of flba PLAIN ≥ %.0f GB/s", targetDecodeGBps)}
	if flba != nil {
		v.Measured, v.Met = true, flba.DecodeGBps >= targetDecodeGBps
		v.Figure = fmt.Sprintf("%.2f GB/s (%.2f× the floor)", flba.DecodeGBps, flba.DecodeFloorRatio)
	}
	out = append(out, v)
	v = VectorVerdict{Target: fmt.Sprintf("take of 100 random rows < %.0f ms (flba PLAIN, page cache, open included)", targetTakeMs)}
	if flba != nil {
		v.Measured, v.Met = true, flba.TakeMs < targetTakeMs
		v.Figure = fmt.Sprintf("%.2f ms", flba.TakeMs)
	}
	out = append(out, v)
	v = VectorVerdict{Target: fmt.Sprintf("flba or list, BYTE_STREAM_SPLIT + zstd ≤ %.2f× raw (clustered)", targetSizeRatio)}
	if r.Dataset == "clustered" {
		var figs []string
		for _, l := range []string{"flba", "list"} {
			if x := r.find(l, "bss", "zstd"); x != nil {
				v.Measured = true
				v.Met = v.Met || x.SizeRatio <= targetSizeRatio
				figs = append(figs, fmt.Sprintf("%s %.3f", l, x.SizeRatio))
			}
		}
		v.Figure = strings.Join(figs, ", ")
	} else {
		v.Figure = "needs the clustered dataset"
	}
	out = append(out, v)
	out = append(out, r.everyConfig(
		fmt.Sprintf("single-query search over every uncompressed layout and encoding ≤ %.1f× the memory floor", targetUncompressedFloor),
		func(x *VectorBenchResult) bool { return x.Writer == "lab" && x.Codec == "none" },
		func(x *VectorBenchResult) (float64, bool) {
			return x.SearchFloorRatio, x.SearchFloorRatio <= targetUncompressedFloor
		}, "%.2f×"))
	out = append(out, r.everyConfig(
		fmt.Sprintf("single-query search over every compressed configuration ≤ %.1f× max(its decompression floor, the memory floor)", targetCompressedFloor),
		func(x *VectorBenchResult) bool { return x.Writer == "lab" && x.Codec != "none" },
		func(x *VectorBenchResult) (float64, bool) {
			return x.OwnFloorRatio, x.OwnFloorRatio <= targetCompressedFloor
		}, "%.2f×"))
	if r.hasWriter(func(w string) bool { return w != "lab" }) {
		out = append(out, r.everyConfig(
			fmt.Sprintf("single-query search over DuckDB's and parquet-wasm's files ≤ %.1f× max(their decompression floor, the memory floor)", targetCompressedFloor),
			func(x *VectorBenchResult) bool { return x.Writer != "lab" },
			func(x *VectorBenchResult) (float64, bool) {
				return x.OwnFloorRatio, x.OwnFloorRatio <= targetCompressedFloor
			}, "%.2f×"))
		out = append(out, r.sizeAgainstPeers())
	}
	out = append(out, r.everyConfig(
		fmt.Sprintf("write of every uncompressed layout ≥ %d MB/s through the writer (encoded and handed to the OS; the fsync after it is the disk's, shown apart)", targetWriteMBps),
		func(x *VectorBenchResult) bool { return x.Writer == "lab" && x.Codec == "none" },
		func(x *VectorBenchResult) (float64, bool) { return x.EncodeMBps, x.EncodeMBps >= targetWriteMBps }, "%.0f MB/s"))
	v = VectorVerdict{Target: "peak heap of a search independent of the file size"}
	if len(r.Peak) > 0 {
		v.Measured, v.Met = true, true
		var figs []string
		for _, p := range r.Peak {
			v.Met = v.Met && p.PeakMB <= p.QuarterPeakMB*peakSlack+peakSlackMB
			figs = append(figs, fmt.Sprintf("%s/%s/%s %.1f MB at %d rows, %.1f MB at %d", p.Layout, p.Encoding, p.Codec, p.QuarterPeakMB, p.QuarterRows, p.PeakMB, p.Rows))
		}
		v.Figure = strings.Join(figs, "; ")
	}
	out = append(out, v)
	return out
}

func (r *VectorBenchReport) hasWriter(match func(string) bool) bool {
	for _, x := range r.Results {
		if match(x.Writer) {
			return true
		}
	}
	return false
}

// sizeAgainstPeers judges the lab's smaller BYTE_STREAM_SPLIT + zstd file
// against the smaller of DuckDB's and parquet-wasm's files of the same data.
func (r *VectorBenchReport) sizeAgainstPeers() VectorVerdict {
	v := VectorVerdict{Target: "the lab's BYTE_STREAM_SPLIT + zstd no larger than the smaller of DuckDB's and parquet-wasm's files"}
	var lab, peer *VectorBenchResult
	for i := range r.Results {
		x := &r.Results[i]
		switch {
		case x.Writer == "lab" && x.Encoding == "bss" && x.Codec == "zstd":
			if lab == nil || x.FileBytes < lab.FileBytes {
				lab = x
			}
		case x.Writer != "lab":
			if peer == nil || x.FileBytes < peer.FileBytes {
				peer = x
			}
		}
	}
	if lab == nil || peer == nil {
		v.Figure = "needs a bss/zstd configuration of the lab's"
		return v
	}
	v.Measured, v.Met = true, lab.FileBytes <= peer.FileBytes
	v.Figure = fmt.Sprintf("lab %s %.4f of raw, %s %.4f", lab.Layout, lab.SizeRatio, peer.Writer, peer.SizeRatio)
	return v
}

// everyConfig is a verdict over every result that applies: met when each
// one meets it; the figure lists them, the ones that miss first.
func (r *VectorBenchReport) everyConfig(target string, applies func(*VectorBenchResult) bool, judge func(*VectorBenchResult) (float64, bool), unit string) VectorVerdict {
	v := VectorVerdict{Target: target, Met: true}
	var missed, met []string
	for i := range r.Results {
		x := &r.Results[i]
		if !applies(x) {
			continue
		}
		v.Measured = true
		fig, ok := judge(x)
		s := fmt.Sprintf("%s/%s/%s "+unit, x.Layout, x.Encoding, x.Codec, fig)
		if x.Writer != "lab" {
			s = x.Writer + " " + s
		}
		if ok {
			met = append(met, s)
		} else {
			v.Met = false
			missed = append(missed, s)
		}
	}
	if !v.Measured {
		v.Met = false
	}
	if len(missed) > 0 {
		v.Figure = "missed: " + strings.Join(missed, ", ")
		if len(met) > 0 {
			v.Figure += "; met: " + strings.Join(met, ", ")
		}
	} else {
		v.Figure = strings.Join(met, ", ")
	}
	return v
}

// drain decodes every page of f and reads every element once, on every
// core: one goroutine takes the blocks, the others sum them as the floor
// does. Without the read, a zero-copy page (a view of the file's mapping)
// would be "decoded" without its bytes ever being loaded.
func drain(f *vectorcol.File) error {
	workers := runtime.GOMAXPROCS(0)
	src := f.Blocks(workers)
	defer src.Close()
	blocks := make(chan []float32, workers)
	sums := make([]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range blocks {
				sums[w] += sumFloat32Words(v)
			}
		}()
	}
	var err error
	for {
		b, e := src.Next()
		if e != nil {
			if e != io.EOF {
				err = e
			}
			break
		}
		blocks <- b.Vectors
	}
	close(blocks)
	wg.Wait()
	drainSink.Add(sums[0])
	return err
}

// drainSink keeps the sums observable so the reads cannot be dropped.
var drainSink atomic.Uint64

// sumFloat32Words sums the bits of v as 64-bit words with sumWords (the
// floor's loop), the odd last element on its own.
func sumFloat32Words(v []float32) uint64 {
	if len(v) == 0 {
		return 0
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), len(v)/2)
	s := sumWords(words)
	if len(v)%2 == 1 {
		s += uint64(math.Float32bits(v[len(v)-1]))
	}
	return s
}

// heapPeak runs fn and returns the peak HeapInuse seen while it ran above
// the HeapInuse before it, in bytes.
func heapPeak(fn func()) float64 {
	// Two collections: the first moves sync.Pool's cached page buffers to
	// its victim cache, the second frees them, so a search starts from the
	// same empty pool whichever file was searched before it.
	runtime.GC()
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

// floorRange is the lowest and highest floor timed beside the searches, in
// ms.
func (r *VectorBenchReport) floorRange() (lo, hi float64) {
	for i, x := range r.Results {
		if i == 0 || x.FloorMs < lo {
			lo = x.FloorMs
		}
		hi = max(hi, x.FloorMs)
	}
	return lo, hi
}

// Markdown renders the report as a Markdown table, one row per layout ×
// encoding × codec.
func (r *VectorBenchReport) Markdown() string {
	var b strings.Builder
	lo, hi := r.floorRange()
	fmt.Fprintf(&b, "Dataset %s %s (%d × %d float32, %.1f MB raw); floor %.2f GB/s (%.3f ms) at the start; timed again beside each configuration's search, %.3f–%.3f ms (floor ms), which that row's ratios divide by.\n\n",
		r.Dataset, r.Size, r.N, r.Dim, float64(r.RawBytes)/1e6, r.Floor.GBps, r.Floor.Seconds*1e3, lo, hi)
	if r.Load != "" {
		fmt.Fprintf(&b, "Load average at the start and the end: %s.\n\n", r.Load)
	}
	b.WriteString("Targets (issues 4 and 14); scans as a ratio to the floors of this run:\n\n")
	for _, v := range r.Verdicts {
		mark := "not measured in this run"
		switch {
		case v.Measured && v.Met:
			mark = "met"
		case v.Measured:
			mark = "missed"
		}
		fmt.Fprintf(&b, "- %s: **%s**", v.Target, mark)
		if v.Figure != "" {
			fmt.Fprintf(&b, " (%s)", v.Figure)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString("Scans and takes read pages without checking their CRCs (the layouts' readers); the verified columns are the same search and take with every page CRC checked, as `lab vector search` and `take` run.\n\n")
	b.WriteString("The decompression floor is every page inflated on every core and nothing else; top-10/own floor is the search over the larger of it and the memory floor.\n\n")
	fmt.Fprintf(&b, "Writes: \"write MB/s\" is the writer's own work, pages and footer encoded and handed to the operating system; \"durable MB/s\" adds the fsync and rename that publish the file, which the disk bounds: its durable-write floor in this run (one write(2) of the raw bytes and an fsync) was %.0f MB/s.\n\n", r.WriteFloorMBps)
	fmt.Fprintf(&b, "Agreement: every configuration's single-query, batch and verified searches (%d queries per configuration) returned the top-%d of float64 brute force over the in-memory data, by dot product: \"same ids\" counts the queries whose ids equal it in order, tie swaps the ranks where a row of equal score (within %.0e) stands instead; recall is the lowest of the three searches' k-nn recall against it.\n\n",
		r.checkedQueries(), r.K, scoreTolerance)
	b.WriteString("| writer | layout | encoding | codec | write MB/s | durable MB/s | size/raw | decode GB/s | floor ms | decode/floor | top-10 ms | top-10/floor | decompress floor ms | top-10/own floor | batch q/s | batch/floor | take 100 ms | top-10 verified/floor | take 100 verified ms | search peak heap MB | same ids (tie swaps) | recall |\n")
	b.WriteString("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Results {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.0f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f | %.2f | %.2f | %.1f | %d/%d (%d) | %.3f |\n",
			x.Writer, x.Layout, x.Encoding, x.Codec, encodeCell(x.EncodeMBps), x.WriteMBps, x.SizeRatio, x.DecodeGBps, x.FloorMs, x.DecodeFloorRatio,
			x.SearchMs, x.SearchFloorRatio, x.DecompressMs, x.OwnFloorRatio, x.BatchQPS, x.BatchFloorRatio, x.TakeMs,
			x.VerifiedSearchFloorRatio, x.VerifiedTakeMs, x.SearchPeakHeapMB,
			x.Agreement.SameIDs, x.Agreement.Queries, x.Agreement.TieSwaps, x.Recall)
	}
	if len(r.Peak) > 0 {
		b.WriteString("\nSearch peak heap against the file size:\n\n| layout | encoding | codec | rows | peak MB | rows | peak MB |\n|---|---|---|--:|--:|--:|--:|\n")
		for _, p := range r.Peak {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %.1f | %d | %.1f |\n", p.Layout, p.Encoding, p.Codec, p.QuarterRows, p.QuarterPeakMB, p.Rows, p.PeakMB)
		}
	}
	return b.String()
}

// encodeCell is the writer's own rate, "–" for a peer's file: a peer is timed
// as a whole process, its writer's work not apart from its publishing.
func encodeCell(mbps float64) string {
	if mbps <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", mbps)
}
