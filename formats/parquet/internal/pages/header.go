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

// ReadHeader reads the page header at pos of a column chunk ending at end,
// growing its window until the header fits or the chunk ends, so that no
// read is larger than the chunk. Whether the page fits the chunk is the
// caller's check (CheckChunk makes it for a whole chunk).
func ReadHeader(src io.ReaderAt, pos, end int64) (*format.PageHeader, int64, error) {
	for window := int64(256); ; window *= 4 {
		w := min(window, end-pos)
		if w <= 0 {
			return nil, 0, fmt.Errorf("past the end of the column chunk (%d)", end)
		}
		buf := make([]byte, w)
		if _, err := src.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		h, n, err := DecodeHeader(buf)
		if err != nil && w < end-pos {
			continue // may just need more bytes
		}
		if err != nil {
			return nil, 0, err
		}
		return &h, int64(n), nil
	}
}
