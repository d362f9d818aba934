package pages

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// MaxPageBytes bounds the uncompressed size a page header may declare. The
// lab writes 1 MiB pages; the bound only keeps a corrupt or hostile header
// from making the reader allocate gigabytes.
var MaxPageBytes = 256 << 20

// zstdDecoders are single-threaded decoders, reused across pages (building
// one is costly). DecodeAll stops at the capacity of the buffer it is given
// (WithDecodeAllCapLimit): without that it grows its output to whatever the
// frames produce, and a frame that leaves its size out can expand 32 KiB
// into gigabytes, stopped only by WithDecoderMaxMemory after growing a
// buffer to MaxPageBytes, several times over.
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(MaxPageBytes)), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return err
	}
	return d
}}

// Decompress inflates src, which the page header says holds size bytes
// uncompressed, and fails unless it holds exactly that. The codecs are
// called with an output of the declared size rather than through
// parquet-go's Decode, which for LZ4_RAW doubles its buffer on every error
// and so never returns on corrupt input. The output goes to the buffer of
// size bytes that get returns, which the caller owns.
func Decompress(codec format.CompressionCodec, src []byte, size int, get func(size int) []byte) ([]byte, error) {
	if size < 0 || size > MaxPageBytes {
		return nil, fmt.Errorf("uncompressed size %d is outside [0, %d]", size, MaxPageBytes)
	}
	dst := get(size)
	var out []byte
	var err error
	switch codec {
	case format.Snappy:
		n, e := snappy.DecodedLen(src)
		if e != nil {
			return nil, e
		}
		if n != size {
			return nil, fmt.Errorf("snappy block of %d bytes, the header says %d", n, size)
		}
		out, err = snappy.Decode(dst, src)
	case format.Zstd:
		d := zstdDecoders.Get()
		dec, ok := d.(*zstd.Decoder)
		if !ok {
			return nil, fmt.Errorf("zstd: %v", d)
		}
		// Capacity size: a page yields what its header declares or fails,
		// having held that and, if a block overflowed it, one grown copy.
		out, err = dec.DecodeAll(src, dst[:0:size])
		zstdDecoders.Put(dec)
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, fmt.Errorf("%v: data exceeds the %d bytes the header says", codec, size)
		}
	case format.Lz4Raw:
		out = dst
		var n int
		n, err = lz4.UncompressBlock(src, out)
		out = out[:max(n, 0)]
	case format.Gzip, format.Brotli:
		out, err = decompressStream(codec, src, dst)
	case format.Uncompressed:
		out = append(dst[:0], src...)
	default:
		return nil, fmt.Errorf("codec %v is not supported", codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%v: %w", codec, err)
	}
	if len(out) != size {
		return nil, fmt.Errorf("%v: %d bytes decompressed, the header says %d", codec, len(out), size)
	}
	return out, nil
}

// decompressStream inflates a GZIP or BROTLI page into dst, which has the
// size the header declares: neither format bounds its output up front, so
// the stream is read into dst and one byte more must not come.
func decompressStream(codec format.CompressionCodec, src, dst []byte) ([]byte, error) {
	in := bytes.NewReader(src)
	var r io.Reader
	switch codec {
	case format.Gzip:
		z := gzipCheckReaders.Get().(*gzip.Reader)
		defer gzipCheckReaders.Put(z)
		if err := z.Reset(in); err != nil {
			return nil, err
		}
		r = z
	default:
		br := brotliCheckReaders.Get().(*brotli.Reader)
		defer brotliCheckReaders.Put(br)
		if err := br.Reset(in); err != nil {
			return nil, err
		}
		r = br
	}
	n, err := io.ReadFull(r, dst)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return dst[:n], nil // short: the caller names the sizes
	}
	if err != nil {
		return nil, err
	}
	var one [1]byte
	if m, _ := io.ReadFull(r, one[:]); m > 0 {
		return nil, fmt.Errorf("data exceeds the %d bytes the header says", len(dst))
	}
	return dst, nil
}

// Supported reports whether Decompress takes codec: every Parquet codec
// but the deprecated LZO and Hadoop-framed LZ4, which no pinned writer
// produces.
func Supported(codec format.CompressionCodec) bool {
	switch codec {
	case format.Uncompressed, format.Snappy, format.Gzip, format.Brotli, format.Zstd, format.Lz4Raw:
		return true
	}
	return false
}
