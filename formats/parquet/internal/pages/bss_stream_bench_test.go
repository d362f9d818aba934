package pages

import (
	"fmt"
	"math/rand/v2"
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
