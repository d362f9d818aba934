package bench

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/coltype-lab/lab/types/vector"
)

// FloorResult is the memory-bandwidth floor: the fastest a buffer of Bytes
// can be read, summed by every core, best of Runs. No scan of data of that
// size can beat Seconds, so benchmarks report their time as a ratio to it.
type FloorResult struct {
	Bytes   int64
	Seconds float64 // best run
	GBps    float64 // Bytes / Seconds / 1e9
	Runs    int
	Workers int
	// Method is the read loop that set the floor: "words" (8-byte loads,
	// four integer accumulators) or "simd" (the vector kernels' 32-byte
	// loads). Both run; the faster is the floor, so a scan using wide loads
	// cannot appear to beat it.
	Method string
	// Sum of the buffer's words: checked against the known fill so that the
	// reads cannot be optimised away or silently wrong.
	Sum uint64
}

func (r FloorResult) String() string {
	return fmt.Sprintf("%d bytes in %.6f s = %.2f GB/s (best of %d, %d workers, %s loop)", r.Bytes, r.Seconds, r.GBps, r.Runs, r.Workers, r.Method)
}

// Floor measures the memory-bandwidth floor for a buffer of bytes (rounded
// down to whole 8-byte words): it allocates and touches the buffer, so page
// faults are not timed, then reads it with one goroutine per core
// (runtime.GOMAXPROCS) over disjoint slices, twice per run: summing 8-byte
// words, and with the SIMD dot kernel the vector search uses. The best time
// of either loop over all runs is the floor.
// Pass Size.Bytes() to measure at a dataset's size.
func Floor(bytes int64, runs int) (FloorResult, error) {
	p, err := NewFloorProbe(bytes)
	if err != nil {
		return FloorResult{}, err
	}
	defer p.Close()
	return p.Floor(runs)
}

// A FloorProbe keeps the floor's buffer so that the floor can be timed
// again beside each measurement of a long benchmark (BestOfEach with Read):
// on a shared machine the bandwidth a core gets moves by tens of percent
// within minutes, and a ratio to a floor timed minutes earlier carries that
// drift. Its buffer is mapped outside the Go heap where the system allows,
// so that keeping it does not raise the garbage collector's target, which
// the benchmarks' sampled heap peaks would show.
type FloorProbe struct {
	words   []uint64
	floats  []float32 // the same bytes, for the SIMD loop
	workers int
	want    uint64  // the words' sum
	wantDot float32 // the SIMD loop's result
	simd    bool    // Read uses the SIMD loop (the faster in Floor)
	free    func()
}

// NewFloorProbe allocates and fills the floor buffer of bytes (rounded
// down to whole words, at least one).
func NewFloorProbe(bytes int64) (*FloorProbe, error) {
	if bytes < 8 {
		return nil, fmt.Errorf("bench: floor buffer of %d bytes, want ≥ 8", bytes)
	}
	words, free := offHeapWords(int(bytes / 8))
	for i := range words {
		// Touch every page with a checkable pattern that is also a run of
		// normal float32s (1.0 plus a growing mantissa in the low half), so
		// the SIMD read meets no denormals and their slow paths.
		words[i] = floorFill + uint64(i)
	}
	n := uint64(len(words))
	p := &FloorProbe{words: words, workers: runtime.GOMAXPROCS(0), free: free,
		want: n*floorFill + n*(n-1)/2} // modulo 2^64 like the sum itself
	p.floats = unsafe.Slice((*float32)(unsafe.Pointer(&words[0])), 2*len(words))
	p.wantDot = parallelDot(p.floats, p.workers) // untimed: the reference the timed runs must equal
	return p, nil
}

// Floor times runs reads by each loop and returns the best, as Floor does;
// Read then uses the loop that set it.
func (p *FloorProbe) Floor(runs int) (FloorResult, error) {
	if runs < 1 {
		return FloorResult{}, fmt.Errorf("bench: floor runs %d, want ≥ 1", runs)
	}
	res := FloorResult{Bytes: int64(len(p.words)) * 8, Runs: runs, Workers: p.workers, Sum: p.want}
	keep := func(sec float64, method string) {
		if res.Seconds == 0 || sec < res.Seconds {
			res.Seconds, res.Method = sec, method
		}
	}
	for range runs {
		for _, simd := range []bool{false, true} {
			start := time.Now()
			err := p.read(simd)
			if err != nil {
				return FloorResult{}, err
			}
			method := "words"
			if simd {
				method = "simd"
			}
			keep(time.Since(start).Seconds(), method)
		}
	}
	p.simd = res.Method == "simd"
	res.Seconds = max(res.Seconds, 1e-9) // a timer tick of 0 must not divide
	res.GBps = float64(res.Bytes) / res.Seconds / 1e9
	return res, nil
}

// Read reads the buffer once on every core with the loop Floor found the
// faster, and checks the result: the function to time beside another.
func (p *FloorProbe) Read() error { return p.read(p.simd) }

func (p *FloorProbe) read(simd bool) error {
	if simd {
		if dot := parallelDot(p.floats, p.workers); dot != p.wantDot {
			return fmt.Errorf("bench: floor SIMD read gave %v, then %v", p.wantDot, dot)
		}
		return nil
	}
	if sum := parallelSum(p.words, p.workers); sum != p.want {
		return fmt.Errorf("bench: floor read summed to %d, want %d", sum, p.want)
	}
	return nil
}

// Close releases the buffer.
func (p *FloorProbe) Close() {
	if p.free != nil {
		p.free()
		p.free, p.words, p.floats = nil, nil, nil
	}
}

// floorFill is two float32 1.0s: the floor buffer's base pattern.
const floorFill = 0x3F800000_3F800000

// parallelDot reads floats with the vector kernels' SIMD dot product (each
// chunk against itself: one stream from memory), one goroutine per worker.
func parallelDot(floats []float32, workers int) float32 {
	var total float32
	for _, d := range inChunks(floats, workers, func(x []float32) float32 { return vector.DotSIMD(x, x) }) {
		total += d
	}
	return total
}

// parallelSum adds words with one goroutine per worker over contiguous
// slices (sequential access, so the hardware prefetchers run at full speed).
func parallelSum(words []uint64, workers int) uint64 {
	var total uint64
	for _, s := range inChunks(words, workers, sumWords) {
		total += s
	}
	return total
}

// inChunks runs read on contiguous chunks of xs, one goroutine per worker,
// and returns each chunk's result in order.
func inChunks[T, R any](xs []T, workers int, read func([]T) R) []R {
	workers = max(1, min(workers, len(xs)))
	out := make([]R, workers)
	var wg sync.WaitGroup
	chunk := (len(xs) + workers - 1) / workers
	for w := range workers {
		lo, hi := min(w*chunk, len(xs)), min((w+1)*chunk, len(xs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[w] = read(xs[lo:hi])
		}()
	}
	wg.Wait()
	return out
}

// sumWords keeps four accumulators so that the loop is limited by loads, not
// by the latency of one chain of additions.
func sumWords(w []uint64) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+4 <= len(w); i += 4 {
		v := w[i : i+4 : i+4]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
	}
	for ; i < len(w); i++ {
		s0 += w[i]
	}
	return s0 + s1 + s2 + s3
}

// DurableWriteFloor is the disk's floor for a durable write of b into dir:
// one write(2) of all of it into a fresh file, an fsync and a close, the
// best of runs, in MB/s. A writer that publishes durably (internal/publish
// fsyncs before its rename) cannot beat it, however fast it encodes, so a
// write benchmark reports it beside its own figures.
func DurableWriteFloor(dir string, b []byte, runs int) (float64, error) {
	if len(b) == 0 || runs < 1 {
		return 0, fmt.Errorf("bench: durable-write floor of %d bytes over %d runs", len(b), runs)
	}
	best := 0.0
	for range runs {
		f, err := os.CreateTemp(dir, ".write-floor-*")
		if err != nil {
			return 0, err
		}
		start := time.Now()
		_, err = f.Write(b)
		if err == nil {
			err = f.Sync()
		}
		sec := time.Since(start).Seconds()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		_ = os.Remove(f.Name())
		if err != nil {
			return 0, fmt.Errorf("bench: durable-write floor: %w", err)
		}
		if best == 0 || sec < best {
			best = sec
		}
	}
	return float64(len(b)) / max(best, 1e-9) / 1e6, nil
}

// PageCacheFloor is the operating system's floor for reading a file that is
// in its page cache: the fastest the file's bytes reach the process at all.
type PageCacheFloor struct {
	Bytes      int64
	Seconds    float64 // best run
	GBps       float64
	Runs       int
	Workers    int
	ChunkBytes int
	// MemorySeconds is the memory floor timed in turn with the reads, best
	// of the same runs (zero when no probe was given): Ratio is Seconds
	// over it, a ratio of two figures from the same moments.
	MemorySeconds float64
	Ratio         float64
}

// how says how the floor was read, for reports.
func (r PageCacheFloor) how() string {
	return fmt.Sprintf("the file read with pread into reused %d KiB buffers on %d cores, nothing else", r.ChunkBytes>>10, r.Workers)
}

// pageCacheChunk is the size of PageCacheReadFloor's reads: a Parquet page
// of the lab's writers, and a buffer that stays in a core's L2 cache.
const pageCacheChunk = 1 << 20

// PageCacheReadFloor opens the file at path and reads all of it with pread
// into one reused pageCacheChunk buffer per core (runtime.GOMAXPROCS), the
// cores taking turns along the file, then closes it: the best of runs. It
// is what a search of a file opened for that one search pays before it
// looks at a byte, with nothing else done (no checksum, no decoding), so a
// benchmark of such searches reports it beside the memory floor: when it
// is itself above a target's bound, no reader that opens the file can meet
// the bound on that machine. With a probe, the memory floor is read in
// turn with each read (MemorySeconds, Ratio). A first read, untimed, brings
// the file into the page cache.
func PageCacheReadFloor(path string, runs int, probe *FloorProbe) (PageCacheFloor, error) {
	if runs < 1 {
		return PageCacheFloor{}, fmt.Errorf("bench: page-cache floor runs %d, want ≥ 1", runs)
	}
	workers := runtime.GOMAXPROCS(0)
	res := PageCacheFloor{Runs: runs, Workers: workers, ChunkBytes: pageCacheChunk}
	bufs := make([][]byte, workers)
	for w := range bufs {
		bufs[w] = make([]byte, pageCacheChunk)
	}
	read := func() error {
		n, err := readAllInTurns(path, bufs)
		res.Bytes = n
		if err != nil {
			return fmt.Errorf("bench: page-cache floor: %w", err)
		}
		return nil
	}
	if err := read(); err != nil {
		return PageCacheFloor{}, err
	}
	fns := []func() error{read}
	if probe != nil {
		fns = append(fns, probe.Read)
	}
	best, err := BestOfEach(runs, fns...)
	if err != nil {
		return PageCacheFloor{}, err
	}
	res.Seconds = best[0]
	res.GBps = float64(res.Bytes) / res.Seconds / 1e9
	if probe != nil {
		res.MemorySeconds = best[1]
		res.Ratio = res.Seconds / res.MemorySeconds
	}
	return res, nil
}

// readAllInTurns opens path and reads it whole, worker w reading chunks w,
// w+len(bufs), … into bufs[w], and returns the bytes read.
func readAllInTurns(path string, bufs [][]byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size, stride := st.Size(), int64(len(bufs)*pageCacheChunk)
	got := make([]int64, len(bufs))
	errs := make([]error, len(bufs))
	var wg sync.WaitGroup
	for w, buf := range bufs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for off := int64(w * pageCacheChunk); off < size; off += stride {
				k, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
				got[w] += int64(k)
				if err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	var n int64
	for w := range bufs {
		if errs[w] != nil {
			return n, errs[w]
		}
		n += got[w]
	}
	if n != size {
		return n, fmt.Errorf("%s: read %d of its %d bytes", path, n, size)
	}
	return n, nil
}
