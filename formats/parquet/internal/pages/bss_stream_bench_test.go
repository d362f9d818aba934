package pages

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// BenchmarkDecodeBSSStream decodes page after page of a buffer larger than
// the last-level cache into one reused page-sized buffer, as a scan does:
// the source comes from memory, the destination stays in cache. copy is the
// same walk with a memmove, the floor of one thread.
func BenchmarkDecodeBSSStream(b *testing.B) {
	const total = 128 << 20
	big := randBytes(rand.New(rand.NewPCG(3, 3)), total)
	for _, c := range []struct{ k, n int }{{3072, 341}, {1536, 682}, {4, 341 * 768}} {
		page := c.k * c.n
		pagesN := total / page
		dst := make([]byte, page)
		run := func(name string, f func(src []byte)) {
			b.Run(fmt.Sprintf("K=%d/N=%d/%s", c.k, c.n, name), func(b *testing.B) {
				b.SetBytes(int64(pagesN * page))
				for b.Loop() {
					for p := range pagesN {
						f(big[p*page : (p+1)*page])
					}
				}
			})
		}
		run("bss", func(src []byte) { _ = DecodeBSS(dst, src, c.k) })
		run("no-prefetch", func(src []byte) {
			bssPrefetchOn = false
			_ = DecodeBSS(dst, src, c.k)
			bssPrefetchOn = true
		})
		run("copy", func(src []byte) { copy(dst, src) })
	}
}

// BenchmarkDecodeBSSRowsMemory decodes 160 pages of 341 rows × 768 float32
// elements (BYTE_STREAM_SPLIT FLOAT, 1 MiB each, 168 MB in all: past the
// last-level cache) 32 rows at a time into a tile that stays in cache, as
// the fused scan decodes list and vector-repetition pages, on one core and
// on two (the pages taken in turns).
func BenchmarkDecodeBSSRowsMemory(b *testing.B) {
	const pageVals, npages, tile = 341 * 768, 160, 32 * 768
	src := randBytes(rand.New(rand.NewPCG(6, 6)), 4*pageVals*npages)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("cores=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						dst := make([]byte, 4*tile)
						for p := w; p < npages; p += workers {
							page := src[p*4*pageVals : (p+1)*4*pageVals]
							for first := 0; first < pageVals; first += tile {
								n := min(tile, pageVals-first)
								if err := DecodeBSSRows(dst[:4*n], page, 4, first, n); err != nil {
									b.Error(err)
									return
								}
							}
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}
