package vector

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// maxPageBytes bounds the uncompressed size a page header may declare. The
// lab writes 1 MiB pages; the bound only keeps a corrupt or hostile header
// from making the reader allocate gigabytes.
var maxPageBytes = 256 << 20

// zstdDecoders are single-threaded decoders whose memory is capped at a
// page, reused across pages (building one is costly).
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(maxPageBytes)))
	if err != nil {
		return err
	}
	return d
}}

// decompress inflates src, which the page header says holds size bytes
// uncompressed, and fails unless it holds exactly that. The codecs are
// called with an output of the declared size rather than through
// parquet-go's Decode, which for LZ4_RAW doubles its buffer on every error
// and so never returns on corrupt input.
func decompress(codec format.CompressionCodec, src []byte, size int) ([]byte, error) {
	if size < 0 || size > maxPageBytes {
		return nil, fmt.Errorf("uncompressed size %d is outside [0, %d]", size, maxPageBytes)
	}
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
		out, err = snappy.Decode(alignedBody(size, 0), src)
	case format.Zstd:
		d := zstdDecoders.Get()
		dec, ok := d.(*zstd.Decoder)
		if !ok {
			return nil, fmt.Errorf("zstd: %v", d)
		}
		out, err = dec.DecodeAll(src, alignedBody(size, 0)[:0])
		zstdDecoders.Put(dec)
	case format.Lz4Raw:
		out = alignedBody(size, 0)
		var n int
		n, err = lz4.UncompressBlock(src, out)
		out = out[:max(n, 0)]
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
