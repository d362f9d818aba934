package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// int32Chunk decodes an INT32 column chunk that uses DELTA_BINARY_PACKED.
//
// parquet-go unpacks a miniblock into 32-bit lanes, so a miniblock wider
// than 32 bits comes out as wrong numbers with no error. Such miniblocks
// are valid: Encodings.md computes deltas "with wrapping" only as an
// allowance, and DuckDB computes them in 64 bits, so a page whose values
// span the int32 range has miniblocks of width 33. The values are exact in
// 32-bit arithmetic modulo 2^32, which is what this decoder uses. It reads
// every page of the chunk (v1 and v2, dictionary or not, PLAIN, the two
// dictionary encodings and DELTA_BINARY_PACKED) and refuses anything else
// naming the page's offset; pages.CheckChunk has already bounded the pages.
type int32Chunk struct {
	src            io.ReaderAt
	md             *format.ColumnMetaData
	pos, end       int64
	col            int
	maxRep, maxDef int
	dict           []int32
	page           []pq.Value // the current page's values, as levels and values
	next           int
}

func newInt32Chunk(src io.ReaderAt, md *format.ColumnMetaData, col, maxRep, maxDef int) *int32Chunk {
	start := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		start = md.DictionaryPageOffset
	}
	return &int32Chunk{src: src, md: md, pos: start, end: start + md.TotalCompressedSize, col: col, maxRep: maxRep, maxDef: maxDef}
}

// usesOwnInt32Decoder reports whether the chunk is one int32Chunk reads.
func usesOwnInt32Decoder(md *format.ColumnMetaData) bool {
	return md.Type == format.Int32 && slices.Contains(md.Encoding, format.DeltaBinaryPacked)
}

// ReadValues copies the next values of the chunk into dst.
func (c *int32Chunk) ReadValues(dst []pq.Value) (int, error) {
	for c.next >= len(c.page) {
		if c.pos >= c.end {
			return 0, io.EOF
		}
		at := c.pos
		if err := c.readPage(); err != nil {
			return 0, fmt.Errorf("page at offset %d: %w", at, err)
		}
	}
	n := copy(dst, c.page[c.next:])
	c.next += n
	return n, nil
}

func (c *int32Chunk) readPage() error {
	h, n, err := pages.ReadHeader(c.src, c.pos, c.end)
	if err != nil {
		return err
	}
	body := make([]byte, h.CompressedPageSize)
	if _, err := c.src.ReadAt(body, c.pos+n); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	c.pos += n + int64(h.CompressedPageSize)
	c.page, c.next = c.page[:0], 0
	if _, err := pages.CheckCRC(h, body); err != nil {
		return err
	}
	switch h.Type {
	case format.DictionaryPage:
		if c.dict != nil {
			return errors.New("a second dictionary page")
		}
		data, err := c.decompress(body, int(h.UncompressedPageSize))
		if err != nil {
			return err
		}
		d := h.DictionaryPageHeader.V
		if h.DictionaryPageHeader.Valid && d.Encoding != format.Plain && d.Encoding != format.PlainDictionary {
			return fmt.Errorf("dictionary page encoding %s is not PLAIN", d.Encoding)
		}
		if c.dict, err = plainInt32(data, int(d.NumValues)); err != nil {
			return fmt.Errorf("dictionary page: %w", err)
		}
		return nil
	case format.DataPage:
		if !h.DataPageHeader.Valid {
			return errors.New("data page without its header")
		}
		d := h.DataPageHeader.V
		data, err := c.decompress(body, int(h.UncompressedPageSize))
		if err != nil {
			return err
		}
		count := int(d.NumValues)
		var reps, defs []int32
		if c.maxRep > 0 {
			if reps, data, err = levelsV1(data, d.RepetitionLevelEncoding, c.maxRep, count); err != nil {
				return fmt.Errorf("repetition levels: %w", err)
			}
		}
		if c.maxDef > 0 {
			if defs, data, err = levelsV1(data, d.DefinitionLevelEncoding, c.maxDef, count); err != nil {
				return fmt.Errorf("definition levels: %w", err)
			}
		}
		return c.values(d.Encoding, data, count, reps, defs)
	case format.DataPageV2:
		if !h.DataPageHeaderV2.Valid {
			return errors.New("data page v2 without its header")
		}
		d := h.DataPageHeaderV2.V
		rl, dl := int(d.RepetitionLevelsByteLength), int(d.DefinitionLevelsByteLength)
		if rl < 0 || dl < 0 || rl+dl > len(body) {
			return fmt.Errorf("levels of %d and %d bytes in a %d-byte page", rl, dl, len(body))
		}
		count := int(d.NumValues)
		var reps, defs []int32
		var err error
		if c.maxRep > 0 {
			if reps, err = pages.AppendHybrid([]int32(nil), body[:rl], bits.Len(uint(c.maxRep)), count, c.maxRep); err != nil {
				return fmt.Errorf("repetition levels: %w", err)
			}
		}
		if c.maxDef > 0 {
			if defs, err = pages.AppendHybrid([]int32(nil), body[rl:rl+dl], bits.Len(uint(c.maxDef)), count, c.maxDef); err != nil {
				return fmt.Errorf("definition levels: %w", err)
			}
		}
		data := body[rl+dl:]
		if !d.IsCompressed.Valid || d.IsCompressed.V {
			if data, err = c.decompress(data, int(h.UncompressedPageSize)-rl-dl); err != nil {
				return err
			}
		}
		return c.values(d.Encoding, data, count, reps, defs)
	case format.IndexPage:
		return nil
	}
	return fmt.Errorf("page type %s", h.Type)
}

func (c *int32Chunk) decompress(data []byte, size int) ([]byte, error) {
	if c.md.Codec == format.Uncompressed {
		return data, nil
	}
	return pages.Decompress(c.md.Codec, data, size, func(n int) []byte { return make([]byte, n) })
}

// values decodes a data page's values and pairs them with its levels.
func (c *int32Chunk) values(enc format.Encoding, data []byte, count int, reps, defs []int32) error {
	present := count
	if defs != nil {
		present = 0
		for _, d := range defs {
			if int(d) == c.maxDef {
				present++
			}
		}
	}
	var vals []int32
	var err error
	switch enc {
	case format.Plain:
		vals, err = plainInt32(data, present)
	case format.DeltaBinaryPacked:
		vals, err = deltaInt32(data, present)
	case format.RLEDictionary, format.PlainDictionary:
		vals, err = c.dictionaryValues(data, present)
	default:
		err = fmt.Errorf("encoding %s of an INT32 column is not one the lab reads", enc)
	}
	if err != nil {
		return fmt.Errorf("%s values: %w", enc, err)
	}
	c.page = slices.Grow(c.page[:0], count)
	k := 0
	for i := range count {
		rep, def := 0, c.maxDef
		if reps != nil {
			rep = int(reps[i])
		}
		if defs != nil {
			def = int(defs[i])
		}
		if def == c.maxDef {
			c.page = append(c.page, pq.Int32Value(vals[k]).Level(rep, def, c.col))
			k++
		} else {
			c.page = append(c.page, pq.Value{}.Level(rep, def, c.col))
		}
	}
	return nil
}

func (c *int32Chunk) dictionaryValues(data []byte, n int) ([]int32, error) {
	if c.dict == nil {
		return nil, errors.New("dictionary-encoded page before any dictionary page")
	}
	if n == 0 {
		return nil, nil
	}
	if len(data) < 1 {
		return nil, errors.New("no index bit width")
	}
	width := int(data[0])
	if width > 32 {
		return nil, fmt.Errorf("index bit width %d", width)
	}
	idx, err := pages.AppendHybrid([]int32(nil), data[1:], width, n, len(c.dict)-1)
	if err != nil {
		return nil, err
	}
	out := make([]int32, n)
	for i, j := range idx {
		out[i] = c.dict[j]
	}
	return out, nil
}

// levelsV1 reads a v1 page's RLE levels: a 4-byte length, then the runs.
func levelsV1(data []byte, enc format.Encoding, maxLevel, n int) ([]int32, []byte, error) {
	if enc != format.RLE {
		return nil, nil, fmt.Errorf("level encoding %s is not RLE", enc)
	}
	if len(data) < 4 {
		return nil, nil, errors.New("no length prefix")
	}
	size := binary.LittleEndian.Uint32(data)
	if uint64(size) > uint64(len(data)-4) {
		return nil, nil, fmt.Errorf("%d bytes declared, %d left in the page", size, len(data)-4)
	}
	levels, err := pages.AppendHybrid([]int32(nil), data[4:4+size], bits.Len(uint(maxLevel)), n, maxLevel)
	return levels, data[4+size:], err
}

func plainInt32(data []byte, n int) ([]int32, error) {
	if n < 0 || len(data) < 4*n {
		return nil, fmt.Errorf("%d values need %d bytes, the page has %d", n, 4*n, len(data))
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return out, nil
}

// maxDeltaBlock bounds a DELTA_BINARY_PACKED block: the spec sets no limit,
// and a block's size decides nothing but how many values a header covers.
const maxDeltaBlock = 1 << 16

// deltaInt32 decodes n values of DELTA_BINARY_PACKED (Encodings.md) as
// INT32: miniblocks of any width up to 64, values wrapping modulo 2^32.
func deltaInt32(src []byte, n int) ([]int32, error) {
	blockSize, k1 := binary.Uvarint(src)
	if k1 <= 0 {
		return nil, errors.New("no block size")
	}
	src = src[k1:]
	miniBlocks, k2 := binary.Uvarint(src)
	if k2 <= 0 {
		return nil, errors.New("no miniblock count")
	}
	src = src[k2:]
	total, k3 := binary.Uvarint(src)
	if k3 <= 0 {
		return nil, errors.New("no value count")
	}
	src = src[k3:]
	first, k4 := binary.Varint(src)
	if k4 <= 0 {
		return nil, errors.New("no first value")
	}
	src = src[k4:]
	switch {
	case blockSize == 0 || blockSize%128 != 0 || blockSize > maxDeltaBlock:
		return nil, fmt.Errorf("block size %d is not a positive multiple of 128 up to %d", blockSize, maxDeltaBlock)
	case miniBlocks == 0 || blockSize%miniBlocks != 0 || (blockSize/miniBlocks)%32 != 0:
		return nil, fmt.Errorf("%d miniblocks do not split a block of %d into multiples of 32", miniBlocks, blockSize)
	case total != uint64(n):
		return nil, fmt.Errorf("the header counts %d values, the page's levels %d", total, n)
	}
	out := make([]int32, 0, n)
	if n == 0 {
		return out, nil
	}
	last := uint32(first)
	out = append(out, int32(last))
	per := int(blockSize / miniBlocks)
	for len(out) < n {
		minDelta, k := binary.Varint(src)
		if k <= 0 {
			return nil, fmt.Errorf("%d of %d values, then no block header", len(out), n)
		}
		src = src[k:]
		if uint64(len(src)) < miniBlocks {
			return nil, fmt.Errorf("block header needs %d bit widths, %d bytes left", miniBlocks, len(src))
		}
		widths := src[:miniBlocks]
		src = src[miniBlocks:]
		for _, w := range widths {
			if len(out) == n {
				break // the widths of unneeded miniblocks may hold anything
			}
			width := int(w)
			if width > 64 {
				return nil, fmt.Errorf("miniblock bit width %d", width)
			}
			size := per * width / 8
			if size > len(src) {
				return nil, fmt.Errorf("miniblock of %d bytes, %d left", size, len(src))
			}
			for i := 0; i < per && len(out) < n; i++ {
				last += uint32(minDelta) + uint32(pages.UnpackBits(src, i, width))
				out = append(out, int32(last))
			}
			src = src[size:]
		}
	}
	return out, nil
}
