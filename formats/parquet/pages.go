package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/coltype-lab/lab/formats/parquet/footer"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// checkChunkPages walks the page headers of a column chunk before
// parquet-go reads it. parquet-go decodes a page header from a stream and
// allocates whatever the header declares: a string length, a list size or
// a compressed page size of up to 2 GiB, from a few corrupt bytes. Here
// every header must parse within the chunk, its thrift lengths must fit
// the bytes that follow, and its page must end inside the chunk.
func checkChunkPages(src io.ReaderAt, md *format.ColumnMetaData) error {
	start := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		start = md.DictionaryPageOffset // where parquet-go starts reading
	}
	end := start + md.TotalCompressedSize
	for pos := start; pos < end; {
		h, n, err := readPageHeader(src, pos, end)
		if err != nil {
			return fmt.Errorf("page header at offset %d: %w", pos, err)
		}
		body := end - pos - n
		if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > body {
			return fmt.Errorf("page at offset %d declares %d bytes, the column chunk has %d left", pos, h.CompressedPageSize, body)
		}
		if h.UncompressedPageSize < 0 {
			return fmt.Errorf("page at offset %d declares a negative uncompressed size %d", pos, h.UncompressedPageSize)
		}
		var values int64
		switch {
		case h.DataPageHeader.Valid:
			values = int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			v2 := &h.DataPageHeaderV2.V
			values = int64(v2.NumValues)
			levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
			if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 || levels > int64(h.CompressedPageSize) {
				return fmt.Errorf("page at offset %d declares %d bytes of levels in a %d-byte page", pos, levels, h.CompressedPageSize)
			}
		case h.DictionaryPageHeader.Valid:
			values = int64(h.DictionaryPageHeader.V.NumValues)
		}
		// Levels are decoded into one byte per value: a page cannot hold
		// more values than its column chunk says it has.
		if values < 0 || values > md.NumValues {
			return fmt.Errorf("page at offset %d declares %d values, the column chunk has %d", pos, values, md.NumValues)
		}
		if err := checkCompressed(src, md.Codec, h, pos+n); err != nil {
			return fmt.Errorf("page at offset %d: %w", pos, err)
		}
		pos += n + int64(h.CompressedPageSize)
	}
	return nil
}

// readPageHeader reads the thrift page header at pos, growing its window
// until the header fits or the chunk ends, so that no read is larger than
// the chunk.
func readPageHeader(src io.ReaderAt, pos, end int64) (*format.PageHeader, int64, error) {
	for window := int64(256); ; window *= 4 {
		w := min(window, end-pos)
		buf := make([]byte, w)
		if _, err := src.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		n, err := footer.ScanStruct(buf)
		if err != nil {
			if w < end-pos {
				continue // may just need more bytes
			}
			return nil, 0, err
		}
		h := new(format.PageHeader)
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), buf[:n], h); err != nil {
			return nil, 0, err
		}
		return h, int64(n), nil
	}
}

// maxExpansion is the largest ratio of decompressed to compressed bytes a
// codec can produce (zstd: a 4-byte RLE block yields 128 KiB).
var maxExpansion = map[format.CompressionCodec]int64{
	format.Uncompressed: 1,
	format.Snappy:       32,
	format.Gzip:         1100,
	format.Lz4Raw:       256,
	format.Zstd:         32768,
	format.Brotli:       65536,
}

// checkCompressed bounds what decompressing a page will allocate. The
// declared uncompressed size must be one the codec can reach from the
// compressed bytes; the sizes inside zstd and snappy frames must match it;
// LZ4_RAW data must decode, because parquet-go retries a failing LZ4 block
// with ever larger buffers until memory runs out.
func checkCompressed(src io.ReaderAt, codec format.CompressionCodec, h *format.PageHeader, bodyAt int64) error {
	compressed, uncompressed := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if ratio, ok := maxExpansion[codec]; ok && uncompressed > compressed*ratio+64<<10 {
		return fmt.Errorf("%s page of %d bytes declares %d bytes uncompressed", codec, compressed, uncompressed)
	}
	// In v2 data pages the levels precede the data uncompressed.
	skip := int64(0)
	if h.DataPageHeaderV2.Valid {
		v2 := &h.DataPageHeaderV2.V
		if v2.IsCompressed.Valid && !v2.IsCompressed.V {
			return nil
		}
		skip = int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
	}
	data, want := compressed-skip, uncompressed-skip
	if data <= 0 {
		return nil
	}
	switch codec {
	case format.Zstd, format.Snappy:
		head := make([]byte, min(data, 32))
		if _, err := src.ReadAt(head, bodyAt+skip); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		var size uint64
		var known bool
		if codec == format.Zstd {
			size, known = zstdContentSize(head)
		} else {
			var n int
			size, n = binary.Uvarint(head)
			known = n > 0
		}
		if known && size > uint64(max(want, 0)) {
			return fmt.Errorf("%s frame declares %d bytes, the page header %d", codec, size, want)
		}
	case format.Lz4Raw:
		body := make([]byte, data)
		if _, err := src.ReadAt(body, bodyAt+skip); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if want < 0 {
			return fmt.Errorf("LZ4_RAW page declares %d bytes of data", want)
		}
		if _, err := lz4.UncompressBlock(body, make([]byte, want)); err != nil {
			return fmt.Errorf("LZ4_RAW page does not decode into its declared %d bytes: %w", want, err)
		}
	}
	return nil
}

// zstdContentSize reads the content size of a zstd frame header, when the
// frame declares one.
func zstdContentSize(b []byte) (uint64, bool) {
	if len(b) < 6 || binary.LittleEndian.Uint32(b) != 0xFD2FB528 {
		return 0, false
	}
	fhd := b[4]
	single := fhd>>5&1 == 1
	pos := 5
	if !single {
		pos++ // window descriptor
	}
	pos += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	size := [4]int{0, 2, 4, 8}[fhd>>6]
	if size == 0 && single {
		size = 1
	}
	if size == 0 || pos+size > len(b) {
		return 0, false
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[pos+i])
	}
	if size == 2 {
		v += 256
	}
	return v, true
}
