package pages

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/parquet-go/parquet-go/format"
)

// checkPlainByteArrays walks the values of a PLAIN BYTE_ARRAY page, a data
// page or a dictionary: each value's 4-byte length must leave it inside
// the page's values. parquet-go v0.32's PLAIN decoder bounds a length by
// the size of the whole values section, not by the bytes left after it,
// and slices its buffer up to its capacity: a forged length past the end
// hands out whatever the buffer held before (another page's bytes) as a
// value, with no error. The walk is the decoder's own, with the bound it
// lacks; it refuses nothing else the decoder accepts (fewer than 4 bytes
// left at the end is the decoder's own error too). A v1 page whose levels
// are BIT_PACKED, which carry no length, is not walked.
func checkPlainByteArrays(src io.ReaderAt, codec format.CompressionCodec, h *format.PageHeader, bodyAt int64, maxRep, maxDef int) error {
	var r io.Reader
	var left int64 // bytes of values
	switch {
	case h.DataPageHeaderV2.Valid:
		v2 := &h.DataPageHeaderV2.V
		if v2.Encoding != format.Plain {
			return nil
		}
		levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		left = int64(h.UncompressedPageSize) - levels
		if v2.IsCompressed.Valid && !v2.IsCompressed.V {
			codec = format.Uncompressed
		}
		in, done, err := inflate(src, codec, bodyAt+levels, int64(h.CompressedPageSize)-levels, left)
		if err != nil {
			return err
		}
		defer done()
		r = in
	case h.DataPageHeader.Valid:
		v1 := &h.DataPageHeader.V
		if v1.Encoding != format.Plain ||
			maxRep > 0 && v1.RepetitionLevelEncoding != format.RLE || maxDef > 0 && v1.DefinitionLevelEncoding != format.RLE {
			return nil
		}
		in, done, err := pageData(src, codec, h, bodyAt)
		if err != nil {
			return err
		}
		defer done()
		r = in
		left = int64(h.UncompressedPageSize)
		for _, max := range []int{maxRep, maxDef} {
			if max == 0 {
				continue
			}
			n, err := readLength(r)
			if err != nil {
				return nil // checkLevels has said what is wrong with the levels
			}
			if _, err := io.CopyN(io.Discard, r, n); err != nil {
				return nil
			}
			left -= 4 + n
		}
	case h.DictionaryPageHeader.Valid:
		// A dictionary's values go through the same decoder.
		if e := h.DictionaryPageHeader.V.Encoding; e != format.Plain && e != format.PlainDictionary {
			return nil
		}
		in, done, err := pageData(src, codec, h, bodyAt)
		if err != nil {
			return err
		}
		defer done()
		r, left = in, int64(h.UncompressedPageSize)
	default:
		return nil
	}
	return walkByteArrays(r, left)
}

// walkScratch holds walkByteArrays' read buffers.
var walkScratch = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// walkByteArrays reads the left bytes of a PLAIN BYTE_ARRAY section from
// r, a chunk at a time, and refuses a value whose length runs past them.
func walkByteArrays(r io.Reader, left int64) error {
	bp := walkScratch.Get().(*[]byte)
	defer walkScratch.Put(bp)
	chunk := *bp
	var prefix [4]byte
	have := 0        // bytes of the length prefix being read
	skip := int64(0) // bytes of the current value still to pass
	for read := int64(0); read < left; {
		n := min(int64(len(chunk)), left-read)
		if _, err := io.ReadFull(r, chunk[:n]); err != nil {
			return fmt.Errorf("values: %w", err)
		}
		read += n
		b := chunk[:n]
		for len(b) > 0 {
			if skip > 0 {
				k := min(skip, int64(len(b)))
				b, skip = b[k:], skip-k
				continue
			}
			k := copy(prefix[have:], b)
			b, have = b[k:], have+k
			if have < 4 {
				continue
			}
			have = 0
			at := read - int64(len(b)) // where the value starts
			v := int64(binary.LittleEndian.Uint32(prefix[:]))
			if v > left-at {
				return fmt.Errorf("byte-array value at byte %d of the page's values declares %d bytes, %d are left", at-4, v, left-at)
			}
			skip = v
		}
	}
	// A partial length prefix at the end is the decoder's own error.
	return nil
}

func readLength(r io.Reader) (int64, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint32(b[:])), nil
}
