//go:build !purego

package pages

import "unsafe"

// bssRowsAsm decodes values [first, first+count) of n with the assembly
// kernels and reports whether it did. They need count ≥ 32: the last block
// is shifted back to end at the edge of the range, rewriting values already
// decoded, and never reads outside it.
func bssRowsAsm(dst, src []byte, width, n, first, count int) bool {
	if !haveBSSAVX2 || count < 32 || (width != 2 && width != 4 && width < 8) {
		return false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	s := unsafe.Add(unsafe.Pointer(unsafe.SliceData(src)), first)
	blocks, last := count/32, count-32
	switch {
	case width == 2:
		bss2AVX2(d, s, n, blocks)
		if count%32 != 0 {
			bss2AVX2(unsafe.Add(d, 2*last), unsafe.Add(s, last), n, 1)
		}
	case width == 4:
		bss4AVX2(d, s, n, blocks)
		if count%32 != 0 {
			bss4AVX2(unsafe.Add(d, 4*last), unsafe.Add(s, last), n, 1)
		}
	case width == 8:
		bss8AVX2(d, s, n, blocks)
		if count%32 != 0 {
			bss8AVX2(unsafe.Add(d, 8*last), unsafe.Add(s, last), n, 1)
		}
	case width >= 64:
		bssWideRowsAVX2(d, s, width, n, count, n-first-count)
	default:
		groups, lastK := width/8, width-8
		for ib := 0; ib < count; ib += 32 {
			i := min(ib, count-32)
			di := unsafe.Add(d, i*width)
			si := unsafe.Add(s, i)
			bssT8AVX2(di, width, si, n, groups)
			if width%8 != 0 {
				bssT8AVX2(unsafe.Add(di, lastK), width, unsafe.Add(si, lastK*n), n, 1)
			}
		}
	}
	return true
}

// bssWideRowsAVX2 is bssWideAVX2 over count ≥ 32 values of the n whose
// streams start at s (stride n): chunks of up to bssChunk values, each 64
// streams at a time, the 8-stream interleave into scratch and the merge into
// whole 64-byte pieces of the values. Each pass prefetches the same values
// of the next 64 streams; the passes over the last 64 streams prefetch the
// first streams of the values that follow the range (up to after of them),
// the next row tile a scan asks for, so its loads do not start cold.
func bssWideRowsAVX2(d, s unsafe.Pointer, width, n, count, after int) {
	bp := bssScratchPool.Get().(*[]byte)
	scratch := unsafe.Pointer(unsafe.SliceData(*bp))
	c := min(count, bssChunk)
	ps := c * 8 // bytes per array
	for ib := 0; ib < count; ib += c {
		i := min(ib, count-c)
		for kb := 0; kb < width; kb += 64 {
			k := min(kb, width-64)
			si := unsafe.Add(s, k*n+i)
			next := min(kb+64, width-64)
			for g := 0; g < 8; g++ {
				sg := unsafe.Add(si, 8*g*n)
				pg := unsafe.Add(scratch, g*ps)
				var pf unsafe.Pointer
				switch {
				case !bssPrefetchOn:
				case next > k:
					pf = unsafe.Add(s, (next+8*g)*n+i)
				case ib+c >= count && after > 0:
					pf = unsafe.Add(s, 8*g*n+count+i)
				}
				if pf != nil {
					bssPrefetch(pf, n, 8, c)
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

// bssStripesAsm reports whether bssStripeAVX2 takes count values: AVX2
// and at least 32 of them.
func bssStripesAsm(count int) bool { return haveBSSAVX2 && count >= 32 }

// bssStripeAVX2 fills the 8 planes of bytes k0..k0+63 of values [first,
// first+count) of n, count ≥ 32: the 8-stream interleave of bssWideAVX2,
// straight into the planes, prefetching the same values of the next 64
// streams as it goes.
func bssStripeAVX2(buf, src []byte, width, n, first, count, k0 int) {
	s := unsafe.Add(unsafe.Pointer(unsafe.SliceData(src)), first)
	d := unsafe.Pointer(unsafe.SliceData(buf))
	c := count
	ps := BSSStripePlane(count)
	si := unsafe.Add(s, k0*n)
	next := k0 + BSSStripeBytes
	for g := 0; g < 8; g++ {
		sg := unsafe.Add(si, 8*g*n)
		pg := unsafe.Add(d, g*ps)
		if bssPrefetchOn && next < width {
			bssPrefetch(unsafe.Add(s, (next+8*g)*n), n, 8, c)
		}
		bss8AVX2(pg, sg, n, c/32)
		if c%32 != 0 {
			bss8AVX2(unsafe.Add(pg, (c-32)*8), unsafe.Add(sg, c-32), n, 1)
		}
	}
}
