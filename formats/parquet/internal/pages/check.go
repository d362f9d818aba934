package pages

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// CheckChunk walks the page headers of a column chunk before
// parquet-go reads it. parquet-go decodes a page header from a stream and
// allocates whatever the header declares: a string length, a list size or
// a compressed page size of up to 2 GiB, from a few corrupt bytes. Here
// every header must parse within the chunk, its thrift lengths must fit
// the bytes that follow, its page must end inside the chunk, its
// decompression must stay within the size it declares (checkCompressed),
// and its level runs within its values (checkLevels). maxRep and maxDef are
// the column's maximum repetition and definition levels.
func CheckChunk(src io.ReaderAt, md *format.ColumnMetaData, maxRep, maxDef int) error {
	start, end := ChunkBounds(md)
	scratch := getScratch() // checkCompressed reads page bodies into it
	defer putScratch(scratch)
	for pos := start; pos < end; {
		p, err := ReadPageAt(src, md, pos, end)
		if err != nil {
			return err
		}
		if err := CheckPage(src, md, p, maxRep, maxDef, scratch); err != nil {
			return err
		}
		pos = p.End()
	}
	return nil
}

// scratchPool holds CheckChunk's page-body buffers: a read checks every
// chunk of every row group it reads, and a shredded variant's thirty-odd
// small chunks per group allocated a buffer each, half of what a one-path
// projection allocated (a throwaway allocation profile, 200,000 rows).
var scratchPool sync.Pool // of *[]byte

// maxPooledScratch is the largest buffer the pool keeps; a larger page's
// buffer goes to the collector rather than stay alive unused.
const maxPooledScratch = 4 << 20

func getScratch() *[]byte {
	if b, ok := scratchPool.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

func putScratch(b *[]byte) {
	if cap(*b) <= maxPooledScratch {
		scratchPool.Put(b)
	}
}

// ChunkBounds is where a column chunk's pages begin (its dictionary page,
// when it has one: where parquet-go starts reading) and end.
func ChunkBounds(md *format.ColumnMetaData) (start, end int64) {
	start = md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		start = md.DictionaryPageOffset
	}
	return start, start + md.TotalCompressedSize
}

// PageAt is a page header read at Offset, HeaderLen bytes long, whose
// sizes and value count were checked against its chunk (ReadPageAt).
type PageAt struct {
	Offset    int64
	HeaderLen int64
	Header    *format.PageHeader
}

// End is where the page's body ends: the next page's offset.
func (p PageAt) End() int64 { return p.Offset + p.HeaderLen + int64(p.Header.CompressedPageSize) }

// ReadPageAt reads the page header at pos of the chunk ending at end and
// checks what can be checked without the body: its page ends inside the
// chunk, and it declares no more values than the chunk has.
func ReadPageAt(src io.ReaderAt, md *format.ColumnMetaData, pos, end int64) (PageAt, error) {
	h, n, err := ReadHeader(src, pos, end)
	if err != nil {
		return PageAt{}, fmt.Errorf("page header at offset %d: %w", pos, err)
	}
	body := end - pos - n
	if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > body {
		return PageAt{}, fmt.Errorf("page at offset %d declares %d bytes, the column chunk has %d left", pos, h.CompressedPageSize, body)
	}
	if h.UncompressedPageSize < 0 {
		return PageAt{}, fmt.Errorf("page at offset %d declares a negative uncompressed size %d", pos, h.UncompressedPageSize)
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
			return PageAt{}, fmt.Errorf("page at offset %d declares %d bytes of levels in a %d-byte page", pos, levels, h.CompressedPageSize)
		}
	case h.DictionaryPageHeader.Valid:
		values = int64(h.DictionaryPageHeader.V.NumValues)
	}
	// Levels are decoded into one byte per value: a page cannot hold
	// more values than its column chunk says it has.
	if values < 0 || values > md.NumValues {
		return PageAt{}, fmt.Errorf("page at offset %d declares %d values, the column chunk has %d", pos, values, md.NumValues)
	}
	return PageAt{Offset: pos, HeaderLen: n, Header: h}, nil
}

// CheckPage checks the body of a page ReadPageAt read: its decompression
// stays within the size it declares, its level runs within its values,
// and a PLAIN BYTE_ARRAY page's values within the page
// (checkPlainByteArrays).
// scratch is reused across the pages of a chunk.
func CheckPage(src io.ReaderAt, md *format.ColumnMetaData, p PageAt, maxRep, maxDef int, scratch *[]byte) error {
	h, bodyAt := p.Header, p.Offset+p.HeaderLen
	if err := checkCompressed(src, md.Codec, h, bodyAt, scratch); err != nil {
		return fmt.Errorf("page at offset %d: %w", p.Offset, err)
	}
	err := checkLevels(src, md.Codec, h, bodyAt, maxRep, maxDef)
	if err == nil && md.Type == format.ByteArray && walkable[md.Codec] {
		err = checkPlainByteArrays(src, md.Codec, h, bodyAt, maxRep, maxDef)
	}
	if err != nil {
		// A page whose bytes were damaged says so before its levels or
		// values do: the CRC is checked only here, on the way to an error,
		// since parquet-go checks it on every page it reads.
		if h.CRC != 0 {
			body := make([]byte, h.CompressedPageSize)
			if rerr := footer.ReadFull(src, body, bodyAt); rerr == nil {
				if _, cerr := CheckCRC(h, body); cerr != nil {
					err = cerr
				}
			}
		}
		return fmt.Errorf("page at offset %d: %w", p.Offset, err)
	}
	return nil
}

// walkable are the codecs whose pages CheckPage inflates to walk their
// values; parquet-go reads no other.
var walkable = map[format.CompressionCodec]bool{
	format.Uncompressed: true, format.Snappy: true, format.Gzip: true,
	format.Lz4Raw: true, format.Zstd: true, format.Brotli: true,
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

// checkCompressed bounds what decompressing a page will allocate: no more
// than the page header's uncompressed size, whatever the compressed bytes
// say. parquet-go decodes a page with no limit of its own: zstd with
// DecodeAll, which grows its output to whatever the frames produce; GZIP
// and BROTLI by reading the stream to its end into a doubling buffer. So:
//
//   - SNAPPY: the block's length prefix must fit the page; snappy.Decode
//     allocates exactly that and fails unless the block fills it.
//   - LZ4_RAW: the block must decode into the declared size, because
//     parquet-go retries a failing block with ever larger buffers; one that
//     fits stops the retries below twice the declared size.
//   - ZSTD: every frame is walked (checkZstd); only a page whose frames
//     leave their size open, and could exceed the page, is decoded.
//   - GZIP, BROTLI: no header bounds the output, so the page is decoded,
//     streaming, and refused once it yields more than the declared size.
//
// buf is scratch space for the page body, reused across a chunk's pages.
func checkCompressed(src io.ReaderAt, codec format.CompressionCodec, h *format.PageHeader, bodyAt int64, buf *[]byte) error {
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
	if want < 0 {
		return fmt.Errorf("%s page declares %d bytes uncompressed, fewer than its %d bytes of levels", codec, uncompressed, skip)
	}
	// Snappy needs only the block's length prefix; the others all the data.
	read := data
	switch codec {
	case format.Snappy:
		read = min(data, binary.MaxVarintLen64)
	case format.Lz4Raw, format.Zstd, format.Gzip, format.Brotli:
	default:
		return nil
	}
	if int64(cap(*buf)) < read {
		*buf = make([]byte, read)
	}
	b := (*buf)[:read]
	if n, err := src.ReadAt(b, bodyAt+skip); n < len(b) {
		return fmt.Errorf("%s page data: %w", codec, err)
	}
	switch codec {
	case format.Snappy:
		if size, n := binary.Uvarint(b); n > 0 && size > uint64(want) {
			return fmt.Errorf("%s block declares %d bytes, the page header %d", codec, size, want)
		}
	case format.Lz4Raw:
		if _, err := lz4.UncompressBlock(b, make([]byte, want)); err != nil {
			return fmt.Errorf("LZ4_RAW page does not decode into its declared %d bytes: %w", want, err)
		}
	case format.Zstd:
		return checkZstd(b, want)
	case format.Gzip, format.Brotli:
		return decodesWithin(codec, b, want)
	}
	return nil
}

// zstdBlockMax is the most one zstd block regenerates (Block_Maximum_Size,
// RFC 8878 section 3.1.1.2.3), less when the window is smaller.
const zstdBlockMax = 128 << 10

// checkZstd checks that the zstd frames of a page's data cannot decode to
// more than the want bytes the page header declares, decoding them only
// when their headers cannot tell.
//
// A frame that declares its content size cannot exceed it: klauspost's
// DecodeAll (v1.19.2, framedec.go runDecoder) fails with
// ErrFrameSizeExceeded as soon as a block takes the frame past that size,
// and with ErrFrameSizeMismatch if the frame ends short of it; it sizes its
// output by the declared sizes too. So the declared sizes must add up to no
// more than want, and those frames need no decoding. A frame without one
// can produce at most what its blocks regenerate; only when that bound
// exceeds want is the page decoded, streaming, to see what it really
// yields.
func checkZstd(b []byte, want int64) error {
	declared, bound, err := zstdBounds(b)
	if err != nil {
		return err
	}
	if declared > uint64(want) {
		return fmt.Errorf("ZSTD frames declare %d bytes, the page header %d", declared, want)
	}
	if bound <= uint64(want) {
		return nil
	}
	return decodesWithin(format.Zstd, b, want)
}

// zstdBounds walks every frame of a zstd stream (RFC 8878) as klauspost's
// decoder reads them, without decoding a block. declared is the sum of the
// content sizes frames declare; bound adds, for each frame that declares
// none, what its blocks can regenerate: a raw or RLE block its size, a
// compressed block up to min(window, 128 KiB). Both saturate at 2^64-1.
func zstdBounds(b []byte) (declared, bound uint64, err error) {
	add := func(a, b uint64) uint64 {
		if s, carry := bits.Add64(a, b, 0); carry == 0 {
			return s
		}
		return math.MaxUint64
	}
	for pos := 0; pos < len(b); {
		if len(b)-pos < 4 {
			return 0, 0, fmt.Errorf("no ZSTD frame at byte %d", pos)
		}
		switch magic := binary.LittleEndian.Uint32(b[pos:]); {
		case magic&^0xF == 0x184D2A50: // skippable frame: magic, size, bytes
			if len(b)-pos < 8 {
				return 0, 0, fmt.Errorf("ZSTD skippable frame at byte %d ends inside its header", pos)
			}
			n := uint64(binary.LittleEndian.Uint32(b[pos+4:]))
			if n > uint64(len(b)-pos-8) {
				return 0, 0, fmt.Errorf("ZSTD skippable frame at byte %d declares %d bytes, %d follow", pos, n, len(b)-pos-8)
			}
			pos += 8 + int(n)
		case magic == 0xFD2FB528:
			n, size, known, err := zstdFrame(b[pos:])
			if err != nil {
				return 0, 0, fmt.Errorf("ZSTD frame at byte %d %w at byte %d", pos, err, pos+n)
			}
			if known {
				declared = add(declared, size)
			}
			bound = add(bound, size)
			pos += n
		default:
			return 0, 0, fmt.Errorf("no ZSTD frame at byte %d", pos)
		}
	}
	return declared, bound, nil
}

// zstdFrame reads the zstd frame at the start of b and returns its length
// and its size: the declared content size when known, otherwise the most
// its blocks can regenerate. On error n is where the frame went wrong.
func zstdFrame(b []byte) (n int, size uint64, known bool, err error) {
	pos := 4
	if pos >= len(b) {
		return pos, 0, false, errors.New("ends inside its header")
	}
	fhd := b[pos]
	pos++
	if fhd&0x08 != 0 {
		return pos - 1, 0, false, errors.New("sets the reserved header bit")
	}
	single := fhd&0x20 != 0
	var window uint64
	if !single {
		if pos >= len(b) {
			return pos, 0, false, errors.New("ends inside its header")
		}
		exp, mantissa := uint64(b[pos]>>3), uint64(b[pos]&7)
		base := uint64(1) << (10 + exp)
		window = base + base/8*mantissa
		pos++
	}
	pos += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	fcs := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && single {
		fcs = 1
	}
	if pos+fcs > len(b) {
		return pos, 0, false, errors.New("ends inside its header")
	}
	if fcs > 0 {
		known = true
		for i := fcs - 1; i >= 0; i-- {
			size = size<<8 | uint64(b[pos+i])
		}
		if fcs == 2 {
			size += 256
		}
		window = max(size, 1<<10) // a single segment's window is its content
	}
	pos += fcs
	blockMax := min(window, zstdBlockMax)
	var blocks uint64
	for last := false; !last; {
		if pos+3 > len(b) {
			return pos, 0, false, errors.New("ends inside its block header")
		}
		h := uint32(b[pos]) | uint32(b[pos+1])<<8 | uint32(b[pos+2])<<16
		last = h&1 != 0
		length := int(h >> 3)
		switch h >> 1 & 3 {
		case 0: // raw: length bytes, copied
			blocks += uint64(length)
		case 1: // RLE: one byte, repeated length times
			blocks += uint64(length)
			length = 1
		case 2: // compressed: length bytes, at most blockMax out
			blocks += blockMax
		default:
			return pos, 0, false, errors.New("has a block of the reserved type")
		}
		pos += 3
		if length > len(b)-pos {
			return pos, 0, false, fmt.Errorf("has a block of %d bytes (%d remain)", length, len(b)-pos)
		}
		pos += length
	}
	if fhd&0x04 != 0 { // content checksum
		if pos+4 > len(b) {
			return pos, 0, false, errors.New("ends inside its checksum")
		}
		pos += 4
	}
	if !known {
		size = blocks
	}
	return pos, size, known, nil
}

// zstdCheckWindow caps the window of a zstd frame that checkZstd decodes,
// so the check holds at most this much history however large a window the
// frame asks for. 8 MiB is the window RFC 8878 asks every decoder to
// support and the largest zstd's non-ultra levels use; frames that declare
// their content size never reach the decoder.
const zstdCheckWindow = 8 << 20

// Decoders for the checks, pooled: building one is costly. The zstd one is
// synchronous (concurrency 1) and low-memory, so a check holds one window.
var (
	zstdCheckDecoders = sync.Pool{New: func() any {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(zstdCheckWindow))
		if err != nil {
			return err
		}
		return d
	}}
	gzipCheckReaders   = sync.Pool{New: func() any { return new(gzip.Reader) }}
	brotliCheckReaders = sync.Pool{New: func() any { return brotli.NewReader(nil) }}
)

// decodesWithin decodes b with codec, streaming, into nothing, and fails
// once it yields more than want bytes: a check that allocates the codec's
// window, not the output. It uses the decoders parquet-go uses (klauspost's
// zstd and gzip, andybalholm's brotli), so it accepts the streams that
// parquet-go then reads. The input is a bytes.Reader, not a bytes.Buffer:
// klauspost's zstd Decoder.Reset decodes a small *bytes.Buffer whole with
// DecodeAll, unbounded.
func decodesWithin(codec format.CompressionCodec, b []byte, want int64) error {
	in := bytes.NewReader(b)
	var r io.Reader
	var err error
	switch codec {
	case format.Zstd:
		v := zstdCheckDecoders.Get()
		d, ok := v.(*zstd.Decoder)
		if !ok {
			return fmt.Errorf("ZSTD decoder: %v", v)
		}
		defer func() {
			_ = d.Reset(nil) // let go of the page
			zstdCheckDecoders.Put(d)
		}()
		r, err = d, d.Reset(in)
	case format.Gzip:
		z := gzipCheckReaders.Get().(*gzip.Reader)
		defer gzipCheckReaders.Put(z)
		r, err = z, z.Reset(in)
	case format.Brotli:
		br := brotliCheckReaders.Get().(*brotli.Reader)
		defer brotliCheckReaders.Put(br)
		r, err = br, br.Reset(in)
	default:
		return fmt.Errorf("codec %s has no streaming check", codec)
	}
	if err == nil {
		var n int64
		n, err = io.CopyN(io.Discard, r, want+1)
		if n > want {
			return fmt.Errorf("%s data of %d bytes decodes to more than the %d bytes the page header declares", codec, len(b), want)
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s data of %d bytes: %w", codec, len(b), err)
	}
	return nil
}
