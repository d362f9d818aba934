package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

func TestFloor(t *testing.T) {
	tests := []struct {
		bytes, wantBytes int64
		runs             int
	}{
		{1 << 20, 1 << 20, 3},
		{1001, 1000, 1}, // rounded down to whole words
		{8, 8, 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.bytes), func(t *testing.T) {
			r, err := Floor(tt.bytes, tt.runs)
			if err != nil {
				t.Fatal(err)
			}
			n := uint64(tt.wantBytes / 8)
			wantSum := n*floorFill + n*(n-1)/2
			if r.Bytes != tt.wantBytes || r.Runs != tt.runs || r.Sum != wantSum {
				t.Fatalf("Floor = %+v, want %d bytes, %d runs, sum %d", r, tt.wantBytes, tt.runs, wantSum)
			}
			if r.Method != "words" && r.Method != "simd" {
				t.Fatalf("Floor = %+v: method %q is neither loop", r, r.Method)
			}
			if r.Seconds <= 0 || r.GBps <= 0 || r.Workers < 1 {
				t.Fatalf("Floor = %+v: time, bandwidth and workers must be positive", r)
			}
			if got := float64(r.Bytes) / r.Seconds / 1e9; got != r.GBps {
				t.Fatalf("GBps %g ≠ Bytes/Seconds/1e9 %g", r.GBps, got)
			}
		})
	}
	for _, bad := range []struct {
		bytes   int64
		runs    int
		wantErr string
	}{
		{0, 1, "0 bytes"},
		{7, 1, "7 bytes"},
		{64, 0, "runs 0"},
	} {
		if _, err := Floor(bad.bytes, bad.runs); err == nil || !strings.Contains(err.Error(), bad.wantErr) {
			t.Errorf("Floor(%d, %d) error = %v, want one containing %q", bad.bytes, bad.runs, err, bad.wantErr)
		}
	}
}

// TestPageCacheReadFloor reads files of sizes around the chunk and the
// cores' turns, and counts every byte once.
func TestPageCacheReadFloor(t *testing.T) {
	dir := t.TempDir()
	workers := runtime.GOMAXPROCS(0)
	for _, size := range []int{0, 1, pageCacheChunk - 1, pageCacheChunk, workers*pageCacheChunk + 5, 3*workers*pageCacheChunk + pageCacheChunk/2} {
		path := filepath.Join(dir, fmt.Sprintf("f%d", size))
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		probe, err := NewFloorProbe(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		r, err := PageCacheReadFloor(path, 2, probe)
		probe.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes != int64(size) || r.Runs != 2 || r.Workers != workers || r.ChunkBytes != pageCacheChunk || !(r.Seconds > 0) ||
			!(r.MemorySeconds > 0) || r.Ratio != r.Seconds/r.MemorySeconds {
			t.Fatalf("%d bytes: %+v", size, r)
		}
		if r, err := PageCacheReadFloor(path, 1, nil); err != nil || r.MemorySeconds != 0 || r.Ratio != 0 {
			t.Fatalf("%d bytes, no probe: %+v, %v", size, r, err)
		}
	}
	if _, err := PageCacheReadFloor(filepath.Join(dir, "missing"), 1, nil); err == nil || !strings.Contains(err.Error(), "page-cache floor") {
		t.Errorf("missing file: error %v", err)
	}
	if _, err := PageCacheReadFloor(filepath.Join(dir, "f1"), 0, nil); err == nil || !strings.Contains(err.Error(), "runs 0") {
		t.Errorf("0 runs: error %v", err)
	}
}

func TestParallelSum(t *testing.T) {
	for _, n := range []int{1, 3, 4, 5, 1000, 1023} {
		w := make([]uint64, n)
		var want uint64
		for i := range w {
			w[i] = uint64(i*i) ^ 0xdeadbeef
			want += w[i]
		}
		for _, workers := range []int{1, 2, 3, 8, 2000} {
			if got := parallelSum(w, workers); got != want {
				t.Errorf("parallelSum(n=%d, workers=%d) = %d, want %d", n, workers, got, want)
			}
		}
	}
}

// BenchmarkFloor times the floor's read alone at the named sizes (the
// buffer is filled once, outside the timer), so MB/s is the bandwidth.
func BenchmarkFloor(b *testing.B) {
	for _, size := range Sizes() {
		b.Run(size.Name, func(b *testing.B) {
			words := make([]uint64, size.Bytes()/8)
			for i := range words {
				words[i] = uint64(i)
			}
			workers := runtime.GOMAXPROCS(0)
			b.SetBytes(size.Bytes())
			for b.Loop() {
				parallelSum(words, workers)
			}
		})
	}
}

// BenchmarkExactSearchVsFloor runs exact search over each named dataset and
// reports its time as a multiple of the floor for the same bytes, measured
// in the same run: the ratio is comparable across machines, absolute times
// on shared machines are not.
func BenchmarkExactSearchVsFloor(b *testing.B) {
	const k, seed = 10, 42
	for _, size := range Sizes() {
		for _, m := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/queries=%d", size.Name, m), func(b *testing.B) {
				data, err := vector.NewMatrix(size.Dim, Clustered(size.N, size.Dim, 100, seed))
				if err != nil {
					b.Fatal(err)
				}
				queries, err := vector.NewMatrix(size.Dim, ClusteredQueries(m, size.Dim, 100, seed))
				if err != nil {
					b.Fatal(err)
				}
				floor, err := Floor(size.Bytes(), 5)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(size.Bytes())
				for b.Loop() {
					if _, err := vector.SearchBatch(vector.MetricDot, data, queries, k); err != nil {
						b.Fatal(err)
					}
				}
				perOp := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(perOp/floor.Seconds, "×floor")
				b.ReportMetric(floor.GBps, "floor-GB/s")
			})
		}
	}
}
