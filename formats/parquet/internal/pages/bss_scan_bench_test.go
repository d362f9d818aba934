package pages

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// sumFloats reads b as float32s, as a scorer reads a decoded page.
func sumFloats(b []byte) float32 {
	f := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
	var s0, s1, s2, s3 float32
	for i := 0; i+4 <= len(f); i += 4 {
		s0 += f[i]
		s1 += f[i+1]
		s2 += f[i+2]
		s3 += f[i+3]
	}
	return s0 + s1 + s2 + s3
}

// BenchmarkDecodeBSSScan is a scan's shape on every core: pages of a
// buffer larger than the last-level cache are decoded into a ring of page
// buffers (as FileBlocks recycles them) and each decoded page is then read
// whole. plain reads the source pages themselves: the floor of the same
// walk. prefetch and no-prefetch compare the wide kernel's software
// prefetch of the next streams.
func BenchmarkDecodeBSSScan(b *testing.B) {
	const total = 256 << 20
	big := randBytes(rand.New(rand.NewPCG(5, 5)), total)
	workers := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ k, n int }{{3072, 341}, {4, 341 * 768}} {
		page := c.k * c.n
		pagesN := total / page
		rings := make([][][]byte, workers)
		for w := range rings {
			for range 6 {
				rings[w] = append(rings[w], make([]byte, page))
			}
		}
		sink := make([]float32, workers)
		run := func(name string, decode bool) {
			b.Run(fmt.Sprintf("K=%d/N=%d/%s", c.k, c.n, name), func(b *testing.B) {
				b.SetBytes(int64(pagesN * page))
				for b.Loop() {
					var wg sync.WaitGroup
					for w := range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for p := w; p < pagesN; p += workers {
								src := big[p*page : (p+1)*page]
								if decode {
									dst := rings[w][p%len(rings[w])]
									_ = DecodeBSS(dst, src, c.k)
									src = dst
								}
								sink[w] += sumFloats(src)
							}
						}()
					}
					wg.Wait()
				}
			})
		}
		for range 2 {
			run("plain", false)
			bssPrefetchOn = true
			run("prefetch", true)
			bssPrefetchOn = false
			run("no-prefetch", true)
			bssPrefetchOn = true
		}
	}
}
