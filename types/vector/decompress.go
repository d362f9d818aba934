package vector

import (
	"errors"
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

// zstdDecoders are single-threaded decoders, reused across pages (building
// one is costly). DecodeAll stops at the capacity of the buffer it is given
// (WithDecodeAllCapLimit): without that it grows its output to whatever the
// frames produce, and a frame that leaves its size out can expand 32 KiB
// into gigabytes, stopped only by WithDecoderMaxMemory after growing a
// buffer to maxPageBytes, several times over.
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(maxPageBytes)), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return err
	}
	return d
}}

// decompress inflates src, which the page header says holds size bytes
// uncompressed, and fails unless it holds exactly that. The codecs are
// called with an output of the declared size rather than through
// parquet-go's Decode, which for LZ4_RAW doubles its buffer on every error
// and so never returns on corrupt input. The output goes to a new aligned
// buffer, or to one from bufs when bufs is not nil (the caller then owns it
// and hands it back with bufs.put once nothing aliases it).
func decompress(codec format.CompressionCodec, src []byte, size int, bufs *pageBuffers) ([]byte, error) {
	if size < 0 || size > maxPageBytes {
		return nil, fmt.Errorf("uncompressed size %d is outside [0, %d]", size, maxPageBytes)
	}
	dst := bufs.get(size)
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

// pageBuffers recycles the decompression buffers of one scan: a page's
// buffer returns when the search is done with its block, so a scan holds
// as many buffers as it has pages in flight, whatever the file size, and
// allocates no new ones once warm. Buffers that pages are read into
// (File.ReadPages) are kept apart and sized in steps of readGrain, so that
// pages of slightly different sizes share them.
type pageBuffers struct {
	free  chan []byte // 4-byte aligned buffers, length = capacity − 3
	reads chan []byte // 4-byte aligned, capacity a multiple of readGrain
}

const readGrain = 64 << 10

func newPageBuffers(n int) *pageBuffers {
	return &pageBuffers{free: make(chan []byte, n), reads: make(chan []byte, n)}
}

// get returns a 4-byte aligned buffer of size bytes; a nil pool allocates.
func (p *pageBuffers) get(size int) []byte {
	if p != nil {
		select {
		case b := <-p.free:
			if cap(b) >= size {
				return b[:size]
			}
		default:
		}
	}
	return alignedBody(size, 0)
}

// getRead returns a 4-byte aligned buffer of at least size bytes to read a
// page into, its capacity a multiple of readGrain.
func (p *pageBuffers) getRead(size int) []byte {
	size = (size + readGrain - 1) / readGrain * readGrain
	if p != nil {
		select {
		case b := <-p.reads:
			if cap(b) >= size {
				return b[:cap(b)]
			}
		default:
		}
	}
	return alignedBody(size, 0)
}

// put hands b back for reuse; a full or nil pool drops it.
func (p *pageBuffers) put(b []byte) { p.putTo(b, false) }

// putRead hands back a buffer from getRead.
func (p *pageBuffers) putRead(b []byte) { p.putTo(b, true) }

// release hands back the buffer a decoded page holds, to its pool.
func (p *pageBuffers) release(d *decodedPage) { p.putTo(d.buf, d.bufRead) }

func (p *pageBuffers) putTo(b []byte, read bool) {
	if p == nil || b == nil {
		return
	}
	pool := p.free
	if read {
		pool = p.reads
	}
	select {
	case pool <- b[:cap(b)]:
	default:
	}
}
