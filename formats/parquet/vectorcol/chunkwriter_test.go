package vectorcol

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/parquet-go/parquet-go/encoding/bytestreamsplit"
)

// encodeBSS agrees with parquet-go's BYTE_STREAM_SPLIT encoder for every
// width it special-cases and the tails around them.
func TestEncodeBSSMatchesParquetGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{1, 2, 3, 4, 7, 8, 12, 16, 63, 64, 65, 200, 3072} {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 33, 100, 1000} {
			src := make([]byte, width*n)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			want, err := new(bytestreamsplit.Encoding).EncodeFixedLenByteArray(nil, src, width)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(src))
			pages.EncodeBSS(got, src, width)
			if !bytes.Equal(got, want) {
				t.Fatalf("width %d, %d values: encodeBSS differs from parquet-go", width, n)
			}
		}
	}
}

func BenchmarkEncodeBSS(b *testing.B) {
	for _, width := range []int{4, 8, 3072} {
		src := make([]byte, 1<<20)
		src = src[:len(src)/width*width]
		dst := make([]byte, len(src))
		b.Run(map[int]string{4: "float32", 8: "float64", 3072: "flba768"}[width], func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				pages.EncodeBSS(dst, src, width)
			}
		})
		b.Run(map[int]string{4: "float32", 8: "float64", 3072: "flba768"}[width]+"-parquet-go", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				_, _ = new(bytestreamsplit.Encoding).EncodeFixedLenByteArray(dst[:0], src, width)
			}
		})
	}
}

func BenchmarkEncodeBSSCopyFloor(b *testing.B) {
	src := make([]byte, 1<<20)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}
