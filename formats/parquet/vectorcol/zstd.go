package vectorcol

import (
	"sync"

	"github.com/klauspost/compress/huff0"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
)

// Zstd is the codec of VECTOR pages compressed with zstd at no chosen level:
// pages whose elements are BYTE_STREAM_SPLIT (list, vector-repetition) get
// literal-only frames (pages.AppendZstdLiterals), every other page Other's
// zstd. A split page's byte streams are skewed but
// hold no repeats, so Huffman coding per 128 KiB block is what compresses
// them: on clustered 768-dimension float32 embeddings 0.842 of the raw
// size, against 0.856-0.858 from klauspost's levels 1 and 3, encoded at about
// twice their speed and decoded as fast (spec/VECTOR.md, "Writing from the
// registry"). Any zstd decoder reads the frames. A level set by the writer
// properties names Other directly and bypasses this.
type Zstd struct {
	// Other compresses the pages that are not BYTE_STREAM_SPLIT and
	// decodes every page. It must be a zstd codec.
	Other compress.Codec
}

func (z Zstd) String() string                            { return "ZSTD" }
func (z Zstd) CompressionCodec() format.CompressionCodec { return format.Zstd }
func (z Zstd) Encode(dst, src []byte) ([]byte, error)    { return z.Other.Encode(dst, src) }
func (z Zstd) Decode(dst, src []byte) ([]byte, error)    { return z.Other.Decode(dst, src) }

var huffScratch = sync.Pool{New: func() any { return new(huff0.Scratch) }}

// encodeSplit compresses a BYTE_STREAM_SPLIT page body: levels bytes of
// levels, then the values' width byte streams, with blocks cut at the
// streams' starts. The flba layout splits whole cells, into streams of one
// byte per row whose kinds (exponent, mantissa) alternate within every
// block, so no block holds one distribution: those pages go to Other,
// whose matches find the cells' repeats.
func (z Zstd) encodeSplit(dst, body []byte, levels, width int) ([]byte, error) {
	if width > maxElementWidth {
		return z.Other.Encode(dst, body)
	}
	s := huffScratch.Get().(*huff0.Scratch)
	defer huffScratch.Put(s)
	var at [maxElementWidth + 1]int
	stream := (len(body) - levels) / width
	for k := range width + 1 {
		at[k] = levels + k*stream
	}
	return pages.AppendZstdLiterals(dst[:0], body, at[:width+1], s)
}

// maxElementWidth is the widest VECTOR element, float64.
const maxElementWidth = 8

// pageEncoder is a codec that compresses split pages its own way (Zstd).
type pageEncoder interface {
	encodeSplit(dst, body []byte, levels, width int) ([]byte, error)
}
