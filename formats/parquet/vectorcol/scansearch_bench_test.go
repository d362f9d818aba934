package vectorcol

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

// BenchmarkFusedSearch times a single-query top-10 over files of 40,000
// 768-dimension vectors (larger than the last-level cache), uncompressed,
// in each layout and encoding, by the ways the search can run: the block
// stream (pages decoded on some goroutines and scored on others), the
// fused scan as File.Search runs it (each page scored where it is decoded;
// FIXED_LEN_BYTE_ARRAY BYTE_STREAM_SPLIT pages by stripes, read from the
// page's byte planes in place), the fused scan with those stripes decoded
// into planes first (fused-planes), and the fused scan with every
// BYTE_STREAM_SPLIT page decoded in row tiles. floor-x is
// the time over the memory floor of the same bytes, measured once at the
// start: compare the ways within a run.
func BenchmarkFusedSearch(b *testing.B) {
	const rows, dim = 40_000, 768
	m := randomMatrix(8, rows, dim)
	dir := b.TempDir()
	raw := int64(rows * dim * 4)
	floor := readFloor(raw, 5)
	q := vector.Matrix{Dim: dim, Data: m.Data[7*dim : 8*dim]}
	for _, l := range []Layout{LayoutFLBA, LayoutList, LayoutVectorRepetition} {
		for _, e := range ValueEncodings() {
			path := filepath.Join(dir, fmt.Sprintf("%v-%v.parquet", l, e))
			if err := WriteFile(path, Column{Dim: dim, Data: m.Data}, WriteOptions{Layout: l, Encoding: e}); err != nil {
				b.Fatal(err)
			}
			for _, way := range []string{"stream", "fused", "fused-planes", "fused-tiles"} {
				if (way == "fused-planes" || way == "fused-tiles") && (l != LayoutFLBA || e != EncodingByteStreamSplit) {
					continue
				}
				b.Run(fmt.Sprintf("%v/%v/%s", l, e, way), func(b *testing.B) {
					f, err := OpenFile(path)
					if err != nil {
						b.Fatal(err)
					}
					defer f.Close()
					f.SkipChecksums(true)
					fusedScanOn, scanStripesOn, scanSplitOn = way != "stream", way != "fused-tiles", way == "fused"
					defer func() { fusedScanOn, scanStripesOn, scanSplitOn = true, true, true }()
					b.SetBytes(raw)
					for b.Loop() {
						if _, err := f.Search(0, vector.MetricDot, q, 10); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/floor.Seconds(), "floor-x")
				})
			}
		}
	}
}
