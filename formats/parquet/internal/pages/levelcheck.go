package pages

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/andybalholm/brotli"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// checkLevels bounds what decoding a data page's levels will allocate.
// parquet-go decodes a level section whole, growing its output to every
// run's declared count: an RLE run header of five bytes can declare 2^31
// levels. Here the runs' counts must add up to no more than about twice
// the page's values (levelSlack). v2 pages keep their
// levels uncompressed before the data; v1 pages start their data with them,
// so a compressed v1 page is inflated as far as its levels reach (zstd,
// gzip and brotli streaming; snappy and LZ4 blocks whole, bounded by the
// header's size, which checkCompressed has bounded).
func checkLevels(src io.ReaderAt, codec format.CompressionCodec, h *format.PageHeader, bodyAt int64, maxRep, maxDef int) error {
	if maxRep == 0 && maxDef == 0 {
		return nil
	}
	var n int64
	var sections [2][]byte
	switch {
	case h.DataPageHeaderV2.Valid:
		v2 := &h.DataPageHeaderV2.V
		n = int64(v2.NumValues)
		b := make([]byte, int64(v2.RepetitionLevelsByteLength)+int64(v2.DefinitionLevelsByteLength))
		if err := footer.ReadFull(src, b, bodyAt); err != nil {
			return fmt.Errorf("levels: %w", err)
		}
		sections = [2][]byte{b[:v2.RepetitionLevelsByteLength], b[v2.RepetitionLevelsByteLength:]}
	case h.DataPageHeader.Valid:
		v1 := &h.DataPageHeader.V
		n = int64(v1.NumValues)
		// BIT_PACKED (deprecated) levels have no run headers to inflate.
		if maxRep > 0 && v1.RepetitionLevelEncoding != format.RLE || maxDef > 0 && v1.DefinitionLevelEncoding != format.RLE {
			return nil
		}
		r, done, err := pageData(src, codec, h, bodyAt)
		if err != nil {
			return err
		}
		defer done()
		for i, max := range []int{maxRep, maxDef} {
			if max == 0 {
				continue
			}
			var size [4]byte
			if _, err := io.ReadFull(r, size[:]); err != nil {
				return fmt.Errorf("%s levels: no length prefix: %w", levelKind[i], err)
			}
			l := binary.LittleEndian.Uint32(size[:])
			if int64(l) > int64(h.UncompressedPageSize) {
				return fmt.Errorf("%s levels of %d bytes in a page of %d", levelKind[i], l, h.UncompressedPageSize)
			}
			sections[i] = make([]byte, l)
			if _, err := io.ReadFull(r, sections[i]); err != nil {
				return fmt.Errorf("%s levels of %d bytes: %w", levelKind[i], l, err)
			}
		}
	default:
		return nil
	}
	for i, max := range []int{maxRep, maxDef} {
		if max == 0 {
			continue
		}
		if declared := hybridCount(sections[i], bits.Len(uint(max))); declared > levelSlack(n) {
			return fmt.Errorf("%s levels declare %d levels, the page has %d values", levelKind[i], declared, n)
		}
	}
	return nil
}

var levelKind = [2]string{"repetition", "definition"}

// levelSlack is how many levels a page of n values may declare. Readers
// stop at n, and writers do declare more: DuckDB 1.5's pages declare up to
// 4% more (5180 definition levels for 5000 values, 48128 repetition levels
// for 48000), beyond the padding of a last bit-packed group. What matters is
// the amplification: a page may make parquet-go allocate no more than about
// twice its values, never what a few header bytes declare.
func levelSlack(n int64) uint64 { return 2*uint64(max(n, 0)) + 1<<16 }

// hybridCount adds up the counts the runs of a hybrid-encoded section
// declare, saturating. It stops at the first run that is not whole: the
// decoder reports those.
func hybridCount(src []byte, width int) uint64 {
	var total uint64
	for len(src) > 0 {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			break
		}
		src = src[k:]
		var count, size uint64
		if h&1 == 1 {
			count, size = (h>>1)*8, (h>>1)*uint64(width)
		} else {
			count, size = h>>1, uint64(width+7)/8
		}
		if size > uint64(len(src)) {
			break
		}
		src = src[size:]
		if total += count; total < count {
			return ^uint64(0)
		}
	}
	return total
}

// pageData reads a v1 page's data from its start, inflating it: streaming
// for the codecs that stream, whole for the block codecs.
func pageData(src io.ReaderAt, codec format.CompressionCodec, h *format.PageHeader, bodyAt int64) (io.Reader, func(), error) {
	return inflate(src, codec, bodyAt, int64(h.CompressedPageSize), int64(h.UncompressedPageSize))
}

// inflate reads the size compressed bytes at at, which inflate to
// inflated bytes.
func inflate(src io.ReaderAt, codec format.CompressionCodec, at, size, inflated int64) (io.Reader, func(), error) {
	body := io.NewSectionReader(src, at, size)
	none := func() {}
	switch codec {
	case format.Uncompressed:
		return body, none, nil
	case format.Zstd:
		v := zstdCheckDecoders.Get()
		d, ok := v.(*zstd.Decoder)
		if !ok {
			return nil, none, fmt.Errorf("ZSTD decoder: %v", v)
		}
		if err := d.Reset(body); err != nil {
			zstdCheckDecoders.Put(d)
			return nil, none, fmt.Errorf("ZSTD data: %w", err)
		}
		return d, func() { _ = d.Reset(nil); zstdCheckDecoders.Put(d) }, nil
	case format.Gzip:
		z := gzipCheckReaders.Get().(*gzip.Reader)
		if err := z.Reset(body); err != nil {
			gzipCheckReaders.Put(z)
			return nil, none, fmt.Errorf("GZIP data: %w", err)
		}
		return z, func() { gzipCheckReaders.Put(z) }, nil
	case format.Brotli:
		br := brotliCheckReaders.Get().(*brotli.Reader)
		if err := br.Reset(body); err != nil {
			brotliCheckReaders.Put(br)
			return nil, none, fmt.Errorf("BROTLI data: %w", err)
		}
		return br, func() { brotliCheckReaders.Put(br) }, nil
	case format.Snappy, format.Lz4Raw:
		b := make([]byte, size)
		if err := footer.ReadFull(src, b, at); err != nil {
			return nil, none, err
		}
		out, err := Decompress(codec, b, int(inflated), func(n int) []byte { return make([]byte, n) })
		if err != nil {
			return nil, none, err
		}
		return bytes.NewReader(out), none, nil
	}
	// LZO and Hadoop LZ4: parquet-go reads neither; nothing to bound.
	return bytes.NewReader(nil), none, nil
}
