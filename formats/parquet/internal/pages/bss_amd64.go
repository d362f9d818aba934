//go:build !purego

package pages

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveBSSAVX2 gates the BYTE_STREAM_SPLIT assembly: AVX2 with the OS saving
// the YMM registers (x/sys/cpu's HasAVX and HasAVX2 check XCR0).
var haveBSSAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2

// The kernels in bss_amd64.s go 32 values (columns) a block, blocks ≥ 1,
// with unaligned loads and stores.

// bss2AVX2 interleaves the 2 streams src, src+n into 2-byte values at dst.
//
//go:noescape
func bss2AVX2(dst, src unsafe.Pointer, n, blocks int)

// bss4AVX2 interleaves the 4 streams src + j*n into 4-byte values at dst.
//
//go:noescape
func bss4AVX2(dst, src unsafe.Pointer, n, blocks int)

// bss8AVX2 interleaves the 8 streams src + j*n into 8-byte values at dst.
//
//go:noescape
func bss8AVX2(dst, src unsafe.Pointer, n, blocks int)

// bssT8AVX2 transposes groups consecutive 8-stream × 32-column tiles: tile g
// reads 32 bytes at src + (8g+j)*srcStride, j < 8, and writes 8 bytes at
// dst + c*dstStride + 8g for each column c < 32.
//
//go:noescape
func bssT8AVX2(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, groups int)

// bssMerge8AVX2 interleaves 8 arrays of 8-byte values (at parts +
// j*partStride) into 64-byte rows dst + r*dstStride, 4 rows per quad.
//
//go:noescape
func bssMerge8AVX2(dst unsafe.Pointer, dstStride int, parts unsafe.Pointer, partStride, quads int)

// bssAsm decodes with the assembly kernels and reports whether it did. They
// need n ≥ 32; the last block of each direction is shifted back to end at
// the edge, rewriting values already decoded, so no Go tail remains.
func bssAsm(dst, src []byte, width, n int) bool {
	if !haveBSSAVX2 || n < 32 || (width != 2 && width != 4 && width < 8) {
		return false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	s := unsafe.Pointer(unsafe.SliceData(src))
	blocks, last := n/32, n-32
	switch {
	case width == 2:
		bss2AVX2(d, s, n, blocks)
		if n%32 != 0 {
			bss2AVX2(unsafe.Add(d, 2*last), unsafe.Add(s, last), n, 1)
		}
	case width == 4:
		bss4AVX2(d, s, n, blocks)
		if n%32 != 0 {
			bss4AVX2(unsafe.Add(d, 4*last), unsafe.Add(s, last), n, 1)
		}
	case width == 8:
		bss8AVX2(d, s, n, blocks)
		if n%32 != 0 {
			bss8AVX2(unsafe.Add(d, 8*last), unsafe.Add(s, last), n, 1)
		}
	case width >= 64:
		bssWideAVX2(d, s, width, n)
	default:
		bssNarrowAVX2(d, s, width, n)
	}
	return true
}

// bssNarrowAVX2 decodes 8 < width < 64 by 8-stream × 32-column tiles stored
// straight to the values, 32 values (their whole width) at a time.
func bssNarrowAVX2(d, s unsafe.Pointer, width, n int) {
	groups, lastK := width/8, width-8
	for ib := 0; ib < n; ib += 32 {
		i := min(ib, n-32)
		di := unsafe.Add(d, i*width)
		si := unsafe.Add(s, i)
		bssT8AVX2(di, width, si, n, groups)
		if width%8 != 0 {
			bssT8AVX2(unsafe.Add(di, lastK), width, unsafe.Add(si, lastK*n), n, 1)
		}
	}
}

// bssWideAVX2 decodes width ≥ 64 in two levels, for each chunk of up to
// bssChunk values and each 64 streams (the last chunk and the last 64
// streams shifted back to end at the edge): 8 passes of the 8-stream
// interleave, each reading 8 streams along the chunk, a pattern the hardware
// prefetcher follows, into 8 contiguous arrays of 8-byte pieces in scratch;
// then a merge that writes each value's 64 bytes (a whole cache line when
// the rows are aligned) at once.
//
// The hardware prefetcher does not keep up with 8 streams of a few hundred
// bytes each (a 1 MiB page of 768-dim float32 vectors holds 341 values, so
// each stream is 341 bytes): from memory the kernel ran at under half its
// in-cache speed. Each pass therefore prefetches the streams of the same
// pass over the next 64 streams, one group ahead, which made a scan's
// decode about 1.5× faster (BenchmarkDecodeBSSScan, prefetch against
// no-prefetch).
func bssWideAVX2(d, s unsafe.Pointer, width, n int) {
	bp := bssScratchPool.Get().(*[]byte)
	scratch := unsafe.Pointer(unsafe.SliceData(*bp))
	c := min(n, bssChunk)
	ps := c * 8 // bytes per array
	for ib := 0; ib < n; ib += c {
		i := min(ib, n-c)
		for kb := 0; kb < width; kb += 64 {
			k := min(kb, width-64)
			si := unsafe.Add(s, k*n+i)
			next := min(kb+64, width-64) // the next 64 streams (k itself after the last)
			for g := 0; g < 8; g++ {
				sg := unsafe.Add(si, 8*g*n)
				pg := unsafe.Add(scratch, g*ps)
				if bssPrefetchOn && next > k {
					bssPrefetch(unsafe.Add(s, (next+8*g)*n+i), n, 8, c)
				}
				bss8AVX2(pg, sg, n, c/32)
				if c%32 != 0 {
					bss8AVX2(unsafe.Add(pg, (c-32)*8), unsafe.Add(sg, c-32), n, 1)
				}
			}
			di := unsafe.Add(d, i*width+k)
			bssMerge8AVX2(di, width, scratch, ps, c/4)
			if c%4 != 0 {
				bssMerge8AVX2(unsafe.Add(di, (c-4)*width), width, unsafe.Add(scratch, (c-4)*8), ps, 1)
			}
		}
	}
	bssScratchPool.Put(bp)
}
