package vectorcol

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

// searchAlloc is the bytes a search opening path allocates, the least of a
// few runs (a run can catch a stray allocation of the test runner); reads
// reads the pages into recycled buffers (File.ReadPages, as SearchFile
// does), otherwise the file is mapped.
func searchAlloc(t *testing.T, path string, queries vector.Matrix, reads bool) uint64 {
	t.Helper()
	best := ^uint64(0)
	for range 3 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f.ReadPages(reads)
		_, err = f.Search(0, vector.MetricDot, queries, 10)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}

func pageCount(t *testing.T, path string) int {
	t.Helper()
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for ci := range f.chunks {
		refs, err := f.pageRefs(ci)
		if err != nil {
			t.Fatal(err)
		}
		n += len(refs)
	}
	return n
}

// TestSearchMemoryIndependentOfFileSize checks that a search allocates no
// memory in proportion to the data: with pages of a fixed size, a file 4×
// larger costs only a small per-page bookkeeping constant more (no page
// buffer per page: uncompressed pages are used where they lie in the
// mapping, decompression buffers are recycled); with a fixed number of
// pages, an uncompressed file 4× larger costs about the same when mapped
// (pages read into buffers, File.ReadPages, cost a buffer per page in
// flight, so their memory grows with the page size as decompression
// buffers do).
func TestSearchMemoryIndependentOfFileSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and searches files of a few MiB")
	}
	dir := t.TempDir()
	const dim, n, pageBytes = 16, 8192, 16 << 10
	// Far below a page: a buffer per page would cost ≥ pageBytes each.
	const perPageLimit = 2 << 10
	queries := vector.Matrix{Dim: dim, Data: testColumn(1, dim, false, false, 3).Data}
	write := func(t *testing.T, layout Layout, codec Codec, rows, pageBytes int) string {
		path := filepath.Join(dir, fmt.Sprintf("%v-%v-%d-%d.parquet", layout, codec, rows, pageBytes))
		if err := WriteFile(path, testColumn(rows, dim, false, false, 1), WriteOptions{Layout: layout, Codec: codec, PageBytes: pageBytes}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, layout := range []Layout{LayoutFLBA, LayoutFLBARaw, LayoutVectorRepetition} {
		for _, codec := range []Codec{CodecNone, CodecZstd, CodecLZ4} {
			t.Run(fmt.Sprintf("%v/%v/fixed-page-size", layout, codec), func(t *testing.T) {
				small, large := write(t, layout, codec, n, pageBytes), write(t, layout, codec, 4*n, pageBytes)
				ps, pl := pageCount(t, small), pageCount(t, large)
				if pl < ps+3*ps/2 {
					t.Fatalf("%d and %d pages: the larger file should have about 4× the pages", ps, pl)
				}
				for _, reads := range []bool{false, true} {
					as, al := searchAlloc(t, small, queries, reads), searchAlloc(t, large, queries, reads)
					perPage := (int64(al) - int64(as)) / int64(pl-ps)
					t.Logf("reads %v: %d pages: %d B, %d pages: %d B, %d B per extra page", reads, ps, as, pl, al, perPage)
					limit := int64(perPageLimit)
					if reads {
						// The scan's read buffers: as many as its pool holds
						// (4×workers+4), allocated while it warms up, more of
						// them the more pages are in flight, which depends on
						// timing; a buffer per page would be ≥ readGrain each.
						limit += int64(4*runtime.GOMAXPROCS(0)+4) * readGrain / int64(pl-ps)
					}
					if perPage > limit {
						t.Errorf("reads %v: each extra page of %d bytes costs %d allocated bytes, want ≤ %d (%d pages: %d B, %d pages: %d B)",
							reads, pageBytes, perPage, limit, ps, as, pl, al)
					}
				}
			})
			if codec != CodecNone {
				continue // a decompression buffer is a page: it grows with the page size
			}
			t.Run(fmt.Sprintf("%v/%v/fixed-page-count", layout, codec), func(t *testing.T) {
				const pages = 16
				small := write(t, layout, codec, n, n*dim*4/pages)
				large := write(t, layout, codec, 4*n, 4*n*dim*4/pages)
				as, al := searchAlloc(t, small, queries, false), searchAlloc(t, large, queries, false)
				t.Logf("%d rows: %d B, %d rows: %d B", n, as, 4*n, al)
				if float64(al) > 1.5*float64(as) {
					t.Errorf("searching %d rows allocates %d bytes, %d rows %d bytes: want < 1.5×", 4*n, al, n, as)
				}
			})
		}
	}
}
