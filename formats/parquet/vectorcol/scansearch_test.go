package vectorcol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/types/vector"
)

// withFusedScan runs f with the fused search on or off.
func withFusedScan(on bool, f func()) {
	old := fusedScanOn
	fusedScanOn = on
	defer func() { fusedScanOn = old }()
	f()
}

// withScanTiles runs f with the fused scan's tile sizes set.
func withScanTiles(tile, wide int, f func()) {
	oldT, oldW := scanTileBytes, scanWideTileBytes
	scanTileBytes, scanWideTileBytes = tile, wide
	defer func() { scanTileBytes, scanWideTileBytes = oldT, oldW }()
	f()
}

// bruteForce is the top k of query against the column's rows as a reader
// gives them back (expected), by metric.Score.
func bruteForce(col Column, metric vector.Metric, query []float32, k int) []vector.Result {
	top := vector.NewTopK(k, metric)
	for i := range col.Rows() {
		if v := expected(col, i); v != nil {
			top.Push(int64(i), metric.Score(query, v))
		}
	}
	return top.Results()
}

// TestFusedSearchMatchesStream searches files of every layout, encoding
// and a few codecs, with and without nulls, mapped and read into buffers,
// with the fused scan (FIXED_LEN_BYTE_ARRAY rows by stripes, read from
// the page's byte planes or decoded into planes, and rows in whole pages
// and in tiles of a few rows, the last tile of a page short)
// and with the block stream: the results must be
// the same, and for float32 and one query those of brute force, bit for
// bit.
func TestFusedSearchMatchesStream(t *testing.T) {
	dir := t.TempDir()
	const n = 263
	for _, dim := range []int{5, 24, 32, 40, 64} {
		queries := vector.Matrix{Dim: dim, Data: testColumn(3, dim, false, false, 77).Data}
		one := vector.Matrix{Dim: dim, Data: queries.Data[:dim]}
		for _, layout := range Layouts() {
			for _, enc := range ValueEncodings() {
				for _, codec := range []Codec{CodecNone, CodecZstd, CodecSnappy} {
					for _, nulls := range []bool{false, true} {
						elemNulls := nulls && (layout == LayoutList || layout == LayoutVectorRepetition)
						name := fmt.Sprintf("dim=%d/%v/%v/%v/nulls=%v", dim, layout, enc, codec, nulls)
						t.Run(name, func(t *testing.T) {
							col := testColumn(n, dim, nulls, elemNulls, uint64(dim))
							path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".parquet")
							// About 70 rows a page: several pages, a short last one.
							if err := WriteFile(path, col, WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: 70 * dim * 4}); err != nil {
								t.Fatal(err)
							}
							checkFusedPath(t, path, enc == EncodingByteStreamSplit && !elemNulls)
							for _, m := range metrics {
								want := bruteForce(col, m, one.Data, 7)
								for _, reads := range []bool{false, true} {
									for _, q := range []vector.Matrix{one, queries} {
										var stream, fused [][]vector.Result
										var err error
										withFusedScan(false, func() { stream, err = searchWith(path, reads, m, q, 7) })
										if err != nil {
											t.Fatal(err)
										}
										// tiles[2]: 1 stripes from the byte planes in place, 2
										// stripes decoded into planes, 0 row tiles.
										for _, tiles := range [][3]int{{scanTileBytes, scanWideTileBytes, 1}, {scanTileBytes, scanWideTileBytes, 2}, {scanTileBytes, scanWideTileBytes, 0}, {1, 1, 0}, {3 * dim * 4, 40 * dim * 4, 0}} {
											scanStripesOn, scanSplitOn = tiles[2] != 0, tiles[2] == 1
											withScanTiles(tiles[0], tiles[1], func() {
												withFusedScan(true, func() { fused, err = searchWith(path, reads, m, q, 7) })
											})
											scanStripesOn, scanSplitOn = true, true
											if err != nil {
												t.Fatal(err)
											}
											for i := range stream {
												if !sameResults(fused[i], stream[i]) {
													t.Fatalf("%v reads=%v tiles %v query %d of %d: fused %v\nstream %v", m, reads, tiles, i, q.Rows(), fused[i], stream[i])
												}
											}
											if q.Rows() == 1 && !sameResults(fused[0], want) {
												t.Fatalf("%v reads=%v tiles %v: fused %v\nbrute force %v", m, reads, tiles, fused[0], want)
											}
										}
									}
								}
							}
						})
					}
				}
			}
		}
	}
}

// checkFusedPath checks that the file at path takes the fused search (an
// offset index on every chunk) and that its pages leave their rows to be
// decoded in tiles when deferred says they should.
func checkFusedPath(t *testing.T, path string, deferred bool) {
	t.Helper()
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bufs := newPageBuffers(2)
	bufs.deferBSS = true
	for ci, c := range f.chunks {
		if c.pages == nil {
			t.Fatalf("chunk %d has no offset index: the fused search does not apply", ci)
		}
		refs, err := f.pageRefs(ci)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			p, err := f.decodePageWith(ref, f.info.Dim, bufs)
			if err != nil {
				t.Fatal(err)
			}
			if (p.bss != nil) != deferred {
				t.Fatalf("page at byte %d: rows left encoded %v, want %v", ref.offset, p.bss != nil, deferred)
			}
			bufs.release(&p)
		}
	}
}

func searchWith(path string, reads bool, m vector.Metric, q vector.Matrix, k int) ([][]vector.Result, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	f.ReadPages(reads)
	return f.Search(0, m, q, k)
}

// TestFusedSearchEdges: k = 0, k beyond the rows, no query, and no row
// group kept give what the block stream gives.
func TestFusedSearchEdges(t *testing.T) {
	const n, dim = 100, 8
	col := testColumn(n, dim, true, false, 5)
	path := filepath.Join(t.TempDir(), "edges.parquet")
	if err := WriteFile(path, col, WriteOptions{Layout: LayoutFLBA, Encoding: EncodingByteStreamSplit, PageBytes: 30 * dim * 4}); err != nil {
		t.Fatal(err)
	}
	q := vector.Matrix{Dim: dim, Data: col.Data[:2*dim]}
	for _, tc := range []struct {
		name    string
		q       vector.Matrix
		k       int
		keepAll bool
	}{
		{"k=0", q, 0, true}, {"k>rows", q, n + 5, true}, {"no query", vector.Matrix{Dim: dim}, 3, true}, {"no group kept", q, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [2][][]vector.Result
			for i, on := range []bool{false, true} {
				f, err := OpenFile(path)
				if err != nil {
					t.Fatal(err)
				}
				f.KeepRowGroups(func(int) bool { return tc.keepAll })
				withFusedScan(on, func() { got[i], err = f.Search(0, vector.MetricL2, tc.q, tc.k) })
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(got[0]) != len(got[1]) {
				t.Fatalf("fused %d result lists, stream %d", len(got[1]), len(got[0]))
			}
			for i := range got[0] {
				if !sameResults(got[0][i], got[1][i]) {
					t.Fatalf("query %d: fused %v, stream %v", i, got[1][i], got[0][i])
				}
			}
		})
	}
}

var pageAt = regexp.MustCompile(`page at byte [0-9]+`)

// TestFusedSearchBrokenPages corrupts one byte at a time across the pages
// of files in every layout and encoding: the fused search fails where the
// block stream fails, naming the file, and gives its results where it
// does not. An error naming a page names the same one.
func TestFusedSearchBrokenPages(t *testing.T) {
	dir := t.TempDir()
	const n, dim = 40, 16
	q := vector.Matrix{Dim: dim, Data: testColumn(1, dim, false, false, 9).Data}
	for _, layout := range Layouts() {
		for _, enc := range ValueEncodings() {
			for _, codec := range []Codec{CodecNone, CodecZstd} {
				name := fmt.Sprintf("%v/%v/%v", layout, enc, codec)
				t.Run(name, func(t *testing.T) {
					col := testColumn(n, dim, true, layout == LayoutList || layout == LayoutVectorRepetition, 3)
					path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".parquet")
					if err := WriteFile(path, col, WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: 12 * dim * 4}); err != nil {
						t.Fatal(err)
					}
					good, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					f, err := openReader(bytes.NewReader(good), int64(len(good)), "good.parquet")
					if err != nil {
						t.Fatal(err)
					}
					start, end := f.chunks[0].start, f.chunks[len(f.chunks)-1].end
					step := max((end-start)/97, 1)
					for at := start; at < end; at += step {
						for _, skipCRC := range []bool{false, true} {
							b := bytes.Clone(good)
							b[at] ^= 0x5a
							var errs [2]error
							var res [2][][]vector.Result
							for i, on := range []bool{false, true} {
								bf, err := openReader(bytes.NewReader(b), int64(len(b)), "broken.parquet")
								if err != nil {
									errs[i] = err
									continue
								}
								bf.SkipChecksums(skipCRC)
								withFusedScan(on, func() { res[i], errs[i] = bf.Search(0, vector.MetricDot, q, 5) })
							}
							if (errs[0] == nil) != (errs[1] == nil) {
								t.Fatalf("byte %d flipped, skip CRC %v: stream error %v, fused error %v", at, skipCRC, errs[0], errs[1])
							}
							if errs[1] != nil {
								if !strings.Contains(errs[1].Error(), "broken.parquet") {
									t.Fatalf("byte %d flipped: fused error %q does not name the file", at, errs[1])
								}
								if w, g := pageAt.FindString(errs[0].Error()), pageAt.FindString(errs[1].Error()); w != g {
									t.Fatalf("byte %d flipped: fused error %q, stream error %q: not the same page", at, errs[1], errs[0])
								}
								continue
							}
							if !sameResults(res[0][0], res[1][0]) {
								t.Fatalf("byte %d flipped, skip CRC %v: fused %v, stream %v", at, skipCRC, res[1][0], res[0][0])
							}
						}
					}
				})
			}
		}
	}
}

// FuzzFusedSearch: on any bytes, the fused search and the block stream
// agree: both fail, or both give the same results.
func FuzzFusedSearch(f *testing.F) {
	col := testColumn(9, 3, true, false, 1)
	elemNull := testColumn(9, 3, true, true, 2)
	addLayoutSeeds(f, []Codec{CodecNone, CodecZstd}, func(l Layout) []Column {
		if l.flat() {
			return []Column{col, {Dim: 3, Data: col.Data}}
		}
		return []Column{col, {Dim: 3, Data: col.Data}, elemNull}
	})
	defer func(old int) { pages.MaxPageBytes = old }(pages.MaxPageBytes)
	pages.MaxPageBytes = 1 << 20 // keep hostile headers from allocating much per run
	f.Fuzz(func(t *testing.T, data []byte) {
		var errs [2]error
		var res [2][][]vector.Result
		for i, on := range []bool{false, true} {
			vf, err := openReader(bytes.NewReader(data), int64(len(data)), "fuzz.parquet")
			if err != nil {
				return
			}
			info := vf.Info()
			if info.Dim <= 0 || info.Dim >= 1<<12 {
				return
			}
			vf.SkipChecksums(true) // reach the decoders
			q := vector.Matrix{Dim: info.Dim, Data: make([]float32, info.Dim)}
			q.Data[0] = 1
			withFusedScan(on, func() { res[i], errs[i] = vf.Search(0, vector.MetricL2, q, 4) })
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("stream error %v, fused error %v", errs[0], errs[1])
		}
		if errs[0] == nil && !sameResults(res[0][0], res[1][0]) {
			t.Fatalf("fused %v, stream %v", res[1][0], res[0][0])
		}
	})
}

// A file of one large page (as DuckDB writes a row group's column) is
// scored on the scorer slots no decoder uses, in parts: the results are the
// block stream's and brute force's, with and without nulls.
func TestFusedSearchSplitsLargePages(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	oldRows, oldSeen := splitRows, splitSeen
	defer func() { splitRows, splitSeen = oldRows, oldSeen }()
	var mu sync.Mutex
	seen := map[int]int{}
	splitRows = 50
	splitSeen = func(parts int) { mu.Lock(); seen[parts]++; mu.Unlock() }
	dir := t.TempDir()
	const n, dim = 1003, 16
	for _, layout := range []Layout{LayoutList, LayoutVectorRepetition} {
		for _, codec := range []Codec{CodecNone, CodecZstd} {
			for _, nulls := range []bool{false, true} {
				name := fmt.Sprintf("%v/%v/nulls=%v", layout, codec, nulls)
				t.Run(name, func(t *testing.T) {
					clear(seen)
					col := testColumn(n, dim, nulls, false, 11)
					path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".parquet")
					if err := WriteFile(path, col, WriteOptions{Layout: layout, Encoding: EncodingByteStreamSplit, Codec: codec, PageBytes: 1 << 20}); err != nil {
						t.Fatal(err)
					}
					q := vector.Matrix{Dim: dim, Data: testColumn(1, dim, false, false, 5).Data}
					for _, m := range metrics {
						var stream, fused [][]vector.Result
						var err error
						withFusedScan(false, func() { stream, err = searchWith(path, true, m, q, 9) })
						if err != nil {
							t.Fatal(err)
						}
						if fused, err = searchWith(path, true, m, q, 9); err != nil {
							t.Fatal(err)
						}
						if !sameResults(fused[0], stream[0]) || !sameResults(fused[0], bruteForce(col, m, q.Data, 9)) {
							t.Fatalf("%v: fused %v, stream %v", m, fused[0], stream[0])
						}
					}
					// One page and four slots: three spare, so four parts.
					if seen[4] == 0 {
						t.Fatalf("the page was not split: %v", seen)
					}
				})
			}
		}
	}
}
