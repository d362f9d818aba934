package pages

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// bssEncodeNaive is the reference encoder: dst[k*N+i] = src[i*K+k].
func bssEncodeNaive(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := 0; i < n; i++ {
		for k := 0; k < width; k++ {
			dst[k*n+i] = src[i*width+k]
		}
	}
	return dst
}

// TestEncodeBSS checks EncodeBSS against the reference for every width
// and count of the decoder's tests, on both paths, from and into unaligned
// buffers with guard bytes around dst, and that decoding gives src back.
func TestEncodeBSS(t *testing.T) {
	bssPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, width := range bssTestWidths {
			for _, n := range bssTestCounts {
				for _, off := range []int{0, 3} {
					src := randBytes(r, off+width*n)[off:]
					want := bssEncodeNaive(src, width)
					buf := make([]byte, off+len(src)+2)
					buf[off], buf[len(buf)-1] = 0xa5, 0x5a
					dst := buf[off+1 : off+1+len(src)]
					EncodeBSS(dst, src, width)
					if buf[off] != 0xa5 || buf[len(buf)-1] != 0x5a {
						t.Fatalf("width %d, %d values, offset %d: wrote outside dst", width, n, off)
					}
					if !bytes.Equal(dst, want) {
						t.Fatalf("width %d, %d values, offset %d: first difference at %d", width, n, off, firstDiff(dst, want))
					}
					back := make([]byte, len(src))
					if err := DecodeBSS(back, dst, width); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(back, src) {
						t.Fatalf("width %d, %d values: decode(encode(x)) != x", width, n)
					}
				}
			}
		}
	})
}

func BenchmarkEncodeBSS(b *testing.B) {
	for _, width := range []int{4, 3072} {
		src := make([]byte, 1<<20)
		src = src[:len(src)/width*width]
		dst := make([]byte, len(src))
		for _, force := range []bool{false, true} {
			name := map[int]string{4: "float32", 3072: "flba768"}[width]
			if force {
				name += "-go"
			}
			b.Run(name, func(b *testing.B) {
				old := bssForceGo
				bssForceGo = force
				defer func() { bssForceGo = old }()
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					EncodeBSS(dst, src, width)
				}
			})
		}
	}
}
