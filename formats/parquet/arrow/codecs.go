package arrow

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// arrow-go v18.8.0 sizes a page's buffer from the page header (checked
// against its 256 MiB limit) and then lets the codec decode into it; the
// snappy and zstd codecs, though, grow the buffer to whatever length the
// compressed block itself declares. A page whose snappy header claims 2 GiB
// makes arrow-go allocate 2 GiB before it notices the data is corrupt, and a
// zstd frame can claim up to 64 GiB. Since arrow-go already rejects any page
// whose decoded length differs from the header's, a codec that refuses to
// decode past the buffer it was given changes nothing for valid files and
// turns those allocations into errors.
//
// arrow-go has one codec registry per process (compress.RegisterCodec), so
// the bounded codecs replace the stock ones for every arrow-go user in a
// program that imports this package, iceberg-go's scans included. Encoding
// and streaming are delegated to the stock codecs unchanged.
func init() {
	arrowBoundCodec(compress.Codecs.Snappy, arrowDecodeSnappy)
	arrowBoundCodec(compress.Codecs.Zstd, arrowDecodeZstd)
}

// arrowStreamingCodec is what arrow-go's stock codecs implement.
type arrowStreamingCodec interface {
	compress.Codec
	compress.StreamingCodec
}

// arrowBoundedCodec is a stock codec whose block decoding never writes past dst.
type arrowBoundedCodec struct {
	arrowStreamingCodec
	stock  compress.Codec
	decode func(stock compress.Codec, dst, src []byte) ([]byte, error)
}

func arrowBoundCodec(c compress.Compression, decode func(stock compress.Codec, dst, src []byte) ([]byte, error)) {
	stock, err := compress.GetCodec(c)
	if err != nil {
		return
	}
	if _, done := stock.(arrowBoundedCodec); done {
		return
	}
	sc, ok := stock.(arrowStreamingCodec)
	if !ok {
		return // a codec someone else registered: leave it alone
	}
	compress.RegisterCodec(c, arrowBoundedCodec{arrowStreamingCodec: sc, stock: stock, decode: decode})
}

func (c arrowBoundedCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if dst == nil { // the caller asked the codec to size the output
		return compress.Decode(c.stock, dst, src)
	}
	return c.decode(c.stock, dst, src)
}

// Decode keeps Codec's signature; arrow-go calls DecodeWithError instead.
func (c arrowBoundedCodec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

func arrowDecodeSnappy(stock compress.Codec, dst, src []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if n > len(dst) {
		return nil, fmt.Errorf("snappy: block decodes to %d bytes, the page holds %d", n, len(dst))
	}
	return compress.Decode(stock, dst, src)
}

var (
	arrowZstdOnce sync.Once
	arrowZstd     *zstd.Decoder
	arrowZstdErr  error
)

func arrowDecodeZstd(_ compress.Codec, dst, src []byte) ([]byte, error) {
	arrowZstdOnce.Do(func() {
		arrowZstd, arrowZstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecodeAllCapLimit(true))
	})
	if arrowZstdErr != nil {
		return nil, arrowZstdErr
	}
	out, err := arrowZstd.DecodeAll(src, dst[:0:len(dst)])
	if err != nil {
		return nil, fmt.Errorf("zstd: %w (the page holds %d bytes)", err, len(dst))
	}
	return out, nil
}
