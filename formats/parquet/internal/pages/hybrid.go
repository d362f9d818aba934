package pages

import (
	"encoding/binary"
	"fmt"
)

// Level is what the hybrid decoder produces: one byte per level for the
// vector scans, int32 for the record reader's chunk cursor.
type Level interface{ ~byte | ~int32 }

// AppendHybrid decodes n values of the RLE/bit-packed hybrid encoding
// (Encodings.md, "Run Length Encoding / Bit-Packing Hybrid") of the given bit
// width from src and appends them to dst; every value must be at most
// maxValue. It produces exactly n values whatever the run headers declare:
// a run that declares more only supplies what is still wanted, so a header
// of a few bytes cannot make it allocate (parquet-go's decoder grows its
// output to every run's declared count: six bytes declaring 2^30 levels
// cost it 1 GiB). Values after the n-th are ignored, as the padding of the
// last bit-packed group is.
func AppendHybrid[T Level](dst []T, src []byte, width, n, maxValue int) ([]T, error) {
	if width < 0 || width > 32 {
		return dst, fmt.Errorf("bit width %d is outside [0, 32]", width)
	}
	start := len(dst)
	if cap(dst)-start < n {
		grown := make([]T, start, start+n)
		copy(grown, dst)
		dst = grown
	}
	got := 0
	for got < n {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			return dst, fmt.Errorf("%d of %d values, then no run header", got, n)
		}
		src = src[k:]
		if h&1 == 1 { // bit-packed: h>>1 groups of 8 values
			groups := h >> 1
			size := groups * uint64(width)
			if groups == 0 || size > uint64(len(src)) {
				return dst, fmt.Errorf("bit-packed run of %d groups of width %d, %d bytes left", groups, width, len(src))
			}
			m := int(min(groups*8, uint64(n-got)))
			out := dst[start+got : start+got+m]
			if bad := unpack(out, src, width, maxValue); bad >= 0 {
				return dst, fmt.Errorf("value %d at %d above the largest allowed, %d", out[bad], got+bad, maxValue)
			}
			got += m
			src = src[size:]
			continue
		}
		run := h >> 1
		size := (width + 7) / 8
		if run == 0 || size > len(src) {
			return dst, fmt.Errorf("run of %d values of %d bytes, %d bytes left", run, size, len(src))
		}
		var v uint64
		for i := range size {
			v |= uint64(src[i]) << (8 * i)
		}
		if v > uint64(maxValue) {
			return dst, fmt.Errorf("value %d at %d above the largest allowed, %d", v, got, maxValue)
		}
		src = src[size:]
		m := int(min(run, uint64(n-got)))
		fill(dst[start+got:start+got+m], T(v))
		got += m
	}
	return dst[:start+n], nil
}

// fill sets every element of s to v, doubling the copied prefix so that a
// long run costs a few memmoves.
func fill[T Level](s []T, v T) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for i := 1; i < len(s); i *= 2 {
		copy(s[i:], s[:i])
	}
}

// unpack decodes len(out) bit-packed values of the given width from src
// (LSB first, as Encodings.md packs them) and returns the index of the
// first value above maxValue, or -1. Widths up to 8 take whole groups of 8
// values from one 64-bit load.
func unpack[T Level](out []T, src []byte, width, maxValue int) int {
	if width == 0 {
		fill(out, 0)
		return -1
	}
	bad := -1
	i := 0
	if width <= 8 {
		mask := uint64(1)<<width - 1
		var buf [8]byte
		for ; i+8 <= len(out); i += 8 {
			g := src[i/8*width:]
			var x uint64
			if len(g) >= 8 {
				x = binary.LittleEndian.Uint64(g)
			} else {
				copy(buf[:], g[:width])
				x = binary.LittleEndian.Uint64(buf[:])
			}
			for j := range 8 {
				v := x >> (j * width) & mask
				out[i+j] = T(v)
				if v > uint64(maxValue) && bad < 0 {
					bad = i + j
				}
			}
		}
	}
	for ; i < len(out); i++ {
		v := UnpackBits(src, i, width)
		out[i] = T(v)
		if v > uint64(maxValue) && bad < 0 {
			bad = i
		}
	}
	return bad
}

// UnpackBits is the i-th value of width bits (up to 64) packed LSB first
// in b, as the hybrid and DELTA_BINARY_PACKED encodings pack them.
func UnpackBits(b []byte, i, width int) uint64 {
	var v uint64
	bit := i * width
	for got := 0; got < width; {
		at, off := (bit+got)/8, (bit+got)%8
		take := min(8-off, width-got)
		v |= uint64(b[at]>>off&(1<<take-1)) << got
		got += take
	}
	return v
}
