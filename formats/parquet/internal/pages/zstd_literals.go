package pages

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/huff0"
)

// Literal-only zstd for split floating-point values.
//
// BYTE_STREAM_SPLIT turns a page of floats into byte streams: the streams
// of the exponent and the high mantissa bytes are skewed (a few values
// dominate), the low mantissa bytes are close to uniform, and none of them
// holds repeats a match finder can use. A general zstd encoder spends bytes
// on the short spurious matches it finds in near-random streams, and at its
// fast levels skips entropy coding of blocks without matches: on clustered
// 768-dimension float32 embeddings klauspost's fastest level gives 0.857 of
// the raw size, its default 0.858, against an order-0 entropy of 0.840 per
// 128 KiB block. Each block here is therefore literals only (RFC 8878
// section 3.1.1.3.1 with Number_of_Sequences 0): Huffman-coded in four
// streams when that saves at least 1/16 of the block, raw
// otherwise, so near-uniform streams stay raw and decode at memory speed.
// The output is one ordinary zstd frame that any zstd decoder reads.

const (
	zstdMagic = 0xFD2FB528
	// zstdWindowDescriptor declares a 128 KiB window (Exponent 7,
	// Mantissa 0: 2^(10+7)), the smallest that admits full-size blocks;
	// literal-only blocks reference no earlier data.
	zstdWindowDescriptor = 7 << 3
	// minCompressedLiterals: smaller blocks are stored raw, as a four-stream
	// literals section needs a jump table and a tree.
	minCompressedLiterals = 1024
	// literalGainLog: a block is Huffman-coded only when that saves at
	// least 1/2^literalGainLog of its size (huff0's WantLogLess). A split
	// page's exponent and high mantissa streams save 20-80%, its low
	// mantissa streams under 1%: those stay raw and copy at memory speed,
	// and so does PLAIN data, whose interleaved bytes save about 7%.
	literalGainLog = 4
)

// AppendZstdLiterals appends to dst one zstd frame holding src in
// literal-only blocks that never cross an offset in cuts (ascending): the
// starts of src's byte streams, so that each Huffman table codes one
// stream's distribution, not a mixture. s is the Huffman coder's scratch
// space (nil: a new one); it is not safe for concurrent use.
func AppendZstdLiterals(dst, src []byte, cuts []int, s *huff0.Scratch) ([]byte, error) {
	if s == nil {
		s = new(huff0.Scratch)
	}
	dst = binary.LittleEndian.AppendUint32(dst, zstdMagic)
	// Frame_Header_Descriptor: Frame_Content_Size_flag 3 (8 bytes) or 2 (4
	// bytes), Single_Segment_flag 0, no checksum, no dictionary.
	if uint64(len(src)) > 0xFFFFFFFF {
		dst = append(dst, 3<<6, zstdWindowDescriptor)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(len(src)))
	} else {
		dst = append(dst, 2<<6, zstdWindowDescriptor)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
	}
	if len(src) == 0 {
		return appendBlockHeader(dst, true, 0, 0), nil
	}
	s.Reuse = huff0.ReusePolicyNone
	s.WantLogLess = literalGainLog
	for off := 0; off < len(src); {
		end := min(off+zstdBlockMax, len(src))
		for len(cuts) > 0 && cuts[0] <= off {
			cuts = cuts[1:]
		}
		if len(cuts) > 0 && cuts[0] < end {
			end = cuts[0]
		}
		block := src[off:end]
		last := end == len(src)
		var err error
		if dst, err = appendLiteralsBlock(dst, block, last, s); err != nil {
			return nil, fmt.Errorf("zstd literals block at offset %d: %w", off, err)
		}
		off = end
	}
	return dst, nil
}

const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
)

// appendBlockHeader writes Block_Header: Last_Block, Block_Type, Block_Size.
func appendBlockHeader(dst []byte, last bool, typ, size int) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

func appendLiteralsBlock(dst, block []byte, last bool, s *huff0.Scratch) ([]byte, error) {
	if len(block) < minCompressedLiterals {
		return append(appendBlockHeader(dst, last, blockRaw, len(block)), block...), nil
	}
	out, _, err := huff0.Compress4X(block, s)
	switch {
	case errors.Is(err, huff0.ErrIncompressible):
		return append(appendBlockHeader(dst, last, blockRaw, len(block)), block...), nil
	case errors.Is(err, huff0.ErrUseRLE):
		return append(appendBlockHeader(dst, last, blockRLE, len(block)), block[0]), nil
	case err != nil:
		return nil, err
	}
	// Literals_Section_Header, Size_Format 3: four streams, 18-bit
	// Regenerated_Size and Compressed_Size (the tree description included),
	// five bytes; then Number_of_Sequences 0, one byte.
	const headerLen, sequencesLen = 5, 1
	if size := headerLen + len(out) + sequencesLen; size >= len(block) {
		return append(appendBlockHeader(dst, last, blockRaw, len(block)), block...), nil
	}
	dst = appendBlockHeader(dst, last, blockCompressed, headerLen+len(out)+sequencesLen)
	h := uint64(2) | 3<<2 | uint64(len(block))<<4 | uint64(len(out))<<22
	dst = append(dst, byte(h), byte(h>>8), byte(h>>16), byte(h>>24), byte(h>>32))
	dst = append(dst, out...)
	return append(dst, 0), nil
}
