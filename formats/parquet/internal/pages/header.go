package pages

import (
	"errors"
	"fmt"
	"io"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

var compact thrift.CompactProtocol

// DecodeHeader decodes the thrift page header at the start of buf and
// returns it with its length. The struct is scanned first
// (footer.ScanStruct): every length and container size it declares must fit
// the bytes that follow, so a corrupt header cannot make the decoder
// allocate what it declares. Negative page sizes are refused.
// A header that buf cuts short fails like a corrupt one (a length past the
// end of buf may be either): a caller reading through a window retries
// with a larger one until the window is the rest of the chunk.
func DecodeHeader(buf []byte) (format.PageHeader, int, error) {
	var h format.PageHeader
	n, err := footer.ScanStruct(buf)
	if err != nil {
		return h, 0, err
	}
	if err := thrift.NewDecoder(compact.NewReaderFromBytes(buf[:n])).Decode(&h); err != nil {
		return h, 0, err
	}
	if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 {
		return h, 0, fmt.Errorf("negative page size (compressed %d, uncompressed %d)", h.CompressedPageSize, h.UncompressedPageSize)
	}
	return h, n, nil
}

// MaxHeaderBytes bounds the bytes one page header may take (Arrow C++'s
// default, 16 MiB): statistics of huge values aside, headers are tens of
// bytes, and a corrupt one must not have a whole gigabyte chunk read.
const MaxHeaderBytes = 16 << 20

// ReadHeader reads the page header at pos of a column chunk ending at end
// (ReadStruct into a format.PageHeader). Whether the page fits the chunk is
// the caller's check (CheckChunk makes it for a whole chunk).
func ReadHeader(src io.ReaderAt, pos, end int64) (*format.PageHeader, int64, error) {
	h := new(format.PageHeader)
	n, err := ReadStruct(src, pos, end, h)
	if err != nil {
		return nil, 0, err
	}
	if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 {
		return nil, 0, fmt.Errorf("negative page size (compressed %d, uncompressed %d)", h.CompressedPageSize, h.UncompressedPageSize)
	}
	return h, n, nil
}

// ReadStruct decodes the thrift struct at pos into v (a page header model:
// format.PageHeader, or one that keeps more, as lab pages does), reading at
// most to end and MaxHeaderBytes: a window that grows until the struct fits,
// so no read is larger than the chunk. footer.ScanStruct checks every
// length and container size against the bytes read before the decoder,
// which would allocate what they declare, sees them.
func ReadStruct(src io.ReaderAt, pos, end int64, v any) (int64, error) {
	limit := min(end-pos, MaxHeaderBytes)
	if limit <= 0 {
		return 0, fmt.Errorf("past the end of the column chunk (%d)", end)
	}
	for window := int64(256); ; window *= 4 {
		w := min(window, limit)
		buf := make([]byte, w)
		if n, err := src.ReadAt(buf, pos); err != nil && !(errors.Is(err, io.EOF) && int64(n) == w) {
			return 0, err
		}
		n, err := footer.ScanStruct(buf)
		if err != nil {
			if w < limit {
				continue // it may need more bytes
			}
			if limit < end-pos {
				return 0, fmt.Errorf("not a page header within its first %d bytes, the most a header may take: %w", limit, err)
			}
			return 0, fmt.Errorf("not a page header within the chunk's %d bytes left: %w", end-pos, err)
		}
		if err := thrift.Unmarshal(&compact, buf[:n], v); err != nil {
			return 0, err
		}
		return int64(n), nil
	}
}
