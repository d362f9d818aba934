package pages

import (
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"
)

// BYTE_STREAM_SPLIT decoding (parquet encoding 9). For N values of K bytes
// the encoded data is K streams of N bytes, stream k holding byte k of every
// value, so decoding is the transpose of a K×N byte matrix into N×K:
//
//	dst[i*K+k] = src[k*N+i]
//
// The kernels are chosen by width:
//
//   - K = 2, 4, 8 (float16/bfloat16, float32, float64 elements): the 2, 4 or
//     8 streams are read in step and interleaved, 32 values a step in the
//     AVX2 assembly (byte, word, dword unpacks, then VPERM2I128 to put the
//     128-bit lanes in order), 8 with 64-bit shuffles in Go.
//   - 8 < K < 64: 8-stream × 32-column (assembly) or 8×8 (Go) tiles stored
//     straight to the values.
//   - K ≥ 64 (FIXED_LEN_BYTE_ARRAY cells holding a vector): per chunk of up to
//     bssChunk values and per 64 streams, 8 passes each reading 8 streams
//     along the chunk (sequential reads the hardware prefetcher follows) into
//     a contiguous scratch, then each value's 64 bytes written at once, so
//     no destination line is left half written between passes.
//   - Other K < 8: a byte loop reading the K streams in step and writing
//     dst in order.
//
// Tiles do not leave ragged tails: the last tile of each direction is
// shifted back to end at the edge, rewriting bytes its neighbour already
// wrote with the same values. That, and the reads of src after writes to
// dst, is why dst and src must not overlap.

// bssChunk is how many values the wide (width ≥ 64) kernels decode per
// pass over the streams; their scratch holds 64 bytes for each.
const bssChunk = 2048

// bssScratchPool holds the wide kernels' scratch, 64*bssChunk bytes.
var bssScratchPool = sync.Pool{New: func() any {
	b := make([]byte, 64*bssChunk)
	return &b
}}

// bssForceGo makes DecodeBSS use the portable Go kernels even where the
// assembly ones are available. Tests set it to cover both paths.
var bssForceGo = false

// bssPrefetchOn turns on the wide AVX2 kernel's software prefetch
// (bssWideAVX2); benchmarks turn it off to measure what it buys. The Go
// kernels do not prefetch.
var bssPrefetchOn = true

// DecodeBSS decodes BYTE_STREAM_SPLIT data of values width bytes wide: src
// holds width streams of len(src)/width bytes, dst receives the values one
// after another. len(dst) must equal len(src), which must be a multiple of
// width. dst and src must not overlap. Neither needs any alignment.
func DecodeBSS(dst, src []byte, width int) error {
	if width < 1 {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT value width %d is not positive", width)
	}
	if len(src)%width != 0 {
		return fmt.Errorf("vector: %d BYTE_STREAM_SPLIT bytes is not a multiple of the value width %d", len(src), width)
	}
	if len(dst) != len(src) {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT destination has %d bytes for %d encoded bytes", len(dst), len(src))
	}
	n := len(src) / width
	if n == 0 {
		return nil
	}
	if width == 1 {
		copy(dst, src)
		return nil
	}
	if !bssForceGo && bssAsm(dst, src, width, n) {
		return nil
	}
	bssGo(dst, src, width, n)
	return nil
}

// DecodeBSSFloat32 decodes BYTE_STREAM_SPLIT float32 values straight into
// dst, which must have exactly len(src)/4 elements and must not overlap src.
func DecodeBSSFloat32(dst []float32, src []byte) error {
	if len(src)%4 != 0 {
		return fmt.Errorf("vector: %d BYTE_STREAM_SPLIT bytes is not a multiple of the float32 width 4", len(src))
	}
	if len(dst) != len(src)/4 {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT destination has %d float32s for %d encoded bytes (want %d)", len(dst), len(src), len(src)/4)
	}
	if len(dst) == 0 {
		return nil
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)*4)
	if err := DecodeBSS(b, src, 4); err != nil {
		return err
	}
	if !hostLittleEndian {
		// The streams hold the little-endian bytes; put them in host order.
		for i := 0; i+4 <= len(b); i += 4 {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
	}
	return nil
}

// bssGo decodes n ≥ 1 values of width ≥ 2 with the portable kernels.
func bssGo(dst, src []byte, width, n int) {
	switch {
	case width == 2:
		bss2Go(dst, src, n)
	case width == 4:
		bss4Go(dst, src, n)
	case width >= 8 && n >= 8:
		bssTileGo(dst, src, width, n)
	default:
		bssBytes(dst, src, width, n, 0, n)
	}
}

// bssBytes decodes values [i0, i1) one byte at a time, reading the width
// streams in step and writing dst in order.
func bssBytes(dst, src []byte, width, n, i0, i1 int) {
	for i := i0; i < i1; i++ {
		d := dst[i*width : i*width+width]
		s := src[i:]
		for k := range d {
			d[k] = s[k*n]
		}
	}
}

// spread16 moves byte j of the low 32 bits of x to byte 2j.
func spread16(x uint64) uint64 {
	x = (x | x<<16) & 0x0000ffff0000ffff
	return (x | x<<8) & 0x00ff00ff00ff00ff
}

// bss2Go interleaves two streams, 8 values a step.
func bss2Go(dst, src []byte, n int) {
	s0, s1 := src[:n], src[n:2*n]
	dst = dst[:2*n]
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= n; i += 8 {
		a, b := le.Uint64(s0[i:]), le.Uint64(s1[i:])
		d := dst[2*i : 2*i+16]
		le.PutUint64(d[0:], spread16(a&0xffffffff)|spread16(b&0xffffffff)<<8)
		le.PutUint64(d[8:], spread16(a>>32)|spread16(b>>32)<<8)
	}
	for ; i < n; i++ {
		dst[2*i], dst[2*i+1] = s0[i], s1[i]
	}
}

// Masks for the 64-bit transpose steps: swap bytes, then 16-bit pairs, then
// 32-bit halves between pairs of words.
const (
	bssM8  = 0x00ff00ff00ff00ff
	bssM16 = 0x0000ffff0000ffff
	bssM32 = 0x00000000ffffffff
)

// bss4Go interleaves four streams, 8 values a step: a 4×8 byte matrix in four
// words is transposed in 4×4 blocks (two swap steps), and the halves of the
// result are recombined into values 0..7.
func bss4Go(dst, src []byte, n int) {
	s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	dst = dst[:4*n]
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= n; i += 8 {
		a, b, c, d := le.Uint64(s0[i:]), le.Uint64(s1[i:]), le.Uint64(s2[i:]), le.Uint64(s3[i:])
		a, b = a&bssM8|(b<<8)&^bssM8, (a>>8)&bssM8|b&^bssM8
		c, d = c&bssM8|(d<<8)&^bssM8, (c>>8)&bssM8|d&^bssM8
		a, c = a&bssM16|(c<<16)&^bssM16, (a>>16)&bssM16|c&^bssM16
		b, d = b&bssM16|(d<<16)&^bssM16, (b>>16)&bssM16|d&^bssM16
		// a holds values 0 and 4, b 1 and 5, c 2 and 6, d 3 and 7.
		o := dst[4*i : 4*i+32]
		le.PutUint64(o[0:], a&bssM32|b<<32)
		le.PutUint64(o[8:], c&bssM32|d<<32)
		le.PutUint64(o[16:], a>>32|b&^bssM32)
		le.PutUint64(o[24:], c>>32|d&^bssM32)
	}
	for ; i < n; i++ {
		dst[4*i], dst[4*i+1], dst[4*i+2], dst[4*i+3] = s0[i], s1[i], s2[i], s3[i]
	}
}

// bssT8x8 transposes 8 bytes from each of the 8 rows s[j*sstride:] into 8
// bytes of each of the 8 rows d[c*dstride:].
func bssT8x8(d []byte, dstride int, s []byte, sstride int) {
	le := binary.LittleEndian
	x0 := le.Uint64(s)
	x1 := le.Uint64(s[sstride:])
	x2 := le.Uint64(s[2*sstride:])
	x3 := le.Uint64(s[3*sstride:])
	x4 := le.Uint64(s[4*sstride:])
	x5 := le.Uint64(s[5*sstride:])
	x6 := le.Uint64(s[6*sstride:])
	x7 := le.Uint64(s[7*sstride:])
	// Swap bytes, then 16-bit pairs, then 32-bit halves between word pairs:
	// each step transposes 2×2 blocks of the previous step's blocks.
	x0, x1 = x0&bssM8|(x1<<8)&^bssM8, (x0>>8)&bssM8|x1&^bssM8
	x2, x3 = x2&bssM8|(x3<<8)&^bssM8, (x2>>8)&bssM8|x3&^bssM8
	x4, x5 = x4&bssM8|(x5<<8)&^bssM8, (x4>>8)&bssM8|x5&^bssM8
	x6, x7 = x6&bssM8|(x7<<8)&^bssM8, (x6>>8)&bssM8|x7&^bssM8
	x0, x2 = x0&bssM16|(x2<<16)&^bssM16, (x0>>16)&bssM16|x2&^bssM16
	x1, x3 = x1&bssM16|(x3<<16)&^bssM16, (x1>>16)&bssM16|x3&^bssM16
	x4, x6 = x4&bssM16|(x6<<16)&^bssM16, (x4>>16)&bssM16|x6&^bssM16
	x5, x7 = x5&bssM16|(x7<<16)&^bssM16, (x5>>16)&bssM16|x7&^bssM16
	x0, x4 = x0&bssM32|x4<<32, x0>>32|x4&^bssM32
	x1, x5 = x1&bssM32|x5<<32, x1>>32|x5&^bssM32
	x2, x6 = x2&bssM32|x6<<32, x2>>32|x6&^bssM32
	x3, x7 = x3&bssM32|x7<<32, x3>>32|x7&^bssM32
	le.PutUint64(d, x0)
	le.PutUint64(d[dstride:], x1)
	le.PutUint64(d[2*dstride:], x2)
	le.PutUint64(d[3*dstride:], x3)
	le.PutUint64(d[4*dstride:], x4)
	le.PutUint64(d[5*dstride:], x5)
	le.PutUint64(d[6*dstride:], x6)
	le.PutUint64(d[7*dstride:], x7)
}

// bssTileGo decodes width ≥ 8, n ≥ 8 by 8×8 byte tiles, the last tile of
// each direction shifted back to end at the edge (overlapping its
// neighbour), so neither width nor n need be a multiple of 8. Below width 64
// the tiles go straight to dst, 8 values (their whole width) at a time. From
// width 64 on, as in the assembly, each chunk of up to bssChunk values is
// done 64 streams at a time: the tiles of 8 streams along the chunk fill 8
// bytes of each 64-byte scratch row, and the rows are then copied to the
// values whole, so every destination line is written at once.
func bssTileGo(dst, src []byte, width, n int) {
	if width < 64 {
		for ib := 0; ib < n; ib += 8 {
			i := min(ib, n-8)
			for kb := 0; kb < width; kb += 8 {
				k := min(kb, width-8)
				bssT8x8(dst[i*width+k:], width, src[k*n+i:], n)
			}
		}
		return
	}
	bp := bssScratchPool.Get().(*[]byte)
	scratch := *bp
	c := min(n, bssChunk)
	for ib := 0; ib < n; ib += c {
		i := min(ib, n-c)
		for kb := 0; kb < width; kb += 64 {
			k := min(kb, width-64)
			for g := 0; g < 64; g += 8 {
				sg := src[(k+g)*n+i:]
				for cb := 0; cb < c; cb += 8 {
					j := min(cb, c-8)
					bssT8x8(scratch[j*64+g:], 64, sg[j:], n)
				}
			}
			d := dst[i*width+k:]
			for r := 0; r < c; r++ {
				copy(d[r*width:r*width+64], scratch[r*64:r*64+64])
			}
		}
	}
	bssScratchPool.Put(bp)
}

// hostLittleEndian: the decoders write little-endian file bytes straight
// into float32 memory, which only a little-endian host can alias.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// encodeBSS writes src, values width bytes wide, BYTE_STREAM_SPLIT encoded
// to dst (len(src) bytes): stream k holds byte k of every value. float32
// and float64 widths transpose 8 values at a time in registers (parquet-go's
// kernel ran at 1.6 GB/s on float32, a third of a write), float32 32 at a
// time with AVX2 where the CPU has it (bss_encode_amd64.s); wide values (a
// FIXED_LEN_BYTE_ARRAY vector) go through the decoder's tiled transpose,
// since encoding n values of width K is decoding K values of width n.
func EncodeBSS(dst, src []byte, width int) {
	n := len(src) / width
	switch {
	case n == 0:
	case width == 1:
		copy(dst, src)
	case width == 4:
		if !bssEncode4Asm(dst[:4*n], src[:4*n], n) {
			bssEncode4(dst, src, n)
		}
	case width == 8:
		i := 0
		for ; i+8 <= n; i += 8 {
			bssT8x8(dst[i:], n, src[8*i:], 8)
		}
		for ; i < n; i++ {
			for k := range 8 {
				dst[k*n+i] = src[8*i+k]
			}
		}
	case width >= 64 && n >= 2:
		_ = DecodeBSS(dst, src, n)
	default:
		for i := range n {
			v := src[i*width : (i+1)*width]
			for k, b := range v {
				dst[k*n+i] = b
			}
		}
	}
}

// bssEncode4 splits n 4-byte values into 4 streams, 8 values a step: each
// word's two values are zipped byte by byte, then the 16-bit pairs of the
// four words are transposed (about twice parquet-go's kernel here).
func bssEncode4(dst, src []byte, n int) {
	le := binary.LittleEndian
	s0, s1, s2, s3 := dst[:n], dst[n:2*n], dst[2*n:3*n], dst[3*n:4*n]
	src = src[:4*n]
	i := 0
	for ; i+8 <= n; i += 8 {
		p := src[4*i:]
		p = p[:32:32]
		y0, y1, y2, y3 := zip4(le.Uint64(p[0:8])), zip4(le.Uint64(p[8:16])), zip4(le.Uint64(p[16:24])), zip4(le.Uint64(p[24:32]))
		t := ((y0 >> 16) ^ y1) & 0x0000FFFF0000FFFF
		y1 ^= t
		y0 ^= t << 16
		t = ((y2 >> 16) ^ y3) & 0x0000FFFF0000FFFF
		y3 ^= t
		y2 ^= t << 16
		t = ((y0 >> 32) ^ y2) & 0x00000000FFFFFFFF
		y2 ^= t
		y0 ^= t << 32
		t = ((y1 >> 32) ^ y3) & 0x00000000FFFFFFFF
		y3 ^= t
		y1 ^= t << 32
		le.PutUint64(s0[i:i+8], y0)
		le.PutUint64(s1[i:i+8], y1)
		le.PutUint64(s2[i:i+8], y2)
		le.PutUint64(s3[i:i+8], y3)
	}
	for ; i < n; i++ {
		s0[i], s1[i], s2[i], s3[i] = src[4*i], src[4*i+1], src[4*i+2], src[4*i+3]
	}
}

// zip4 interleaves the bytes of a word's two 4-byte values:
// a0 a1 a2 a3 b0 b1 b2 b3 → a0 b0 a1 b1 a2 b2 a3 b3.
func zip4(x uint64) uint64 {
	t := ((x >> 16) ^ x) & 0x00000000FFFF0000
	x ^= t ^ (t << 16)
	t = ((x >> 8) ^ x) & 0x0000FF000000FF00
	return x ^ t ^ (t << 8)
}
