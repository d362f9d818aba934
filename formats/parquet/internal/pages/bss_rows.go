package pages

import "fmt"

// DecodeBSSRows decodes values [first, first+count) of BYTE_STREAM_SPLIT
// data into dst: src holds width streams of len(src)/width bytes (a whole
// page's values), dst receives count values of width bytes one after
// another, as DecodeBSS would place them at dst[first*width:]. A scan
// decodes a page this way in row tiles of a few tens of KiB and scores each
// tile at once, while it sits in the core's L1/L2 cache: decoding the page
// whole writes it out to memory (or a cache shared with the other cores)
// and the scorer reads it back, twice the page's traffic on top of the
// encoded bytes. dst and src must not overlap; neither needs any alignment.
func DecodeBSSRows(dst, src []byte, width, first, count int) error {
	if width < 1 {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT value width %d is not positive", width)
	}
	if len(src)%width != 0 {
		return fmt.Errorf("vector: %d BYTE_STREAM_SPLIT bytes is not a multiple of the value width %d", len(src), width)
	}
	n := len(src) / width
	if first < 0 || count < 0 || first > n || count > n-first {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT values [%d, %d+%d) lie outside the %d values of the data", first, first, count, n)
	}
	if len(dst) != count*width {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT destination has %d bytes for %d values of %d bytes", len(dst), count, width)
	}
	if count == 0 {
		return nil
	}
	if first == 0 && count == n {
		return DecodeBSS(dst, src, width)
	}
	if width == 1 {
		copy(dst, src[first:first+count])
		return nil
	}
	if !bssForceGo && bssRowsAsm(dst, src, width, n, first, count) {
		return nil
	}
	bssRowsGo(dst, src, width, n, first, count)
	return nil
}

// bssRowsGo decodes values [first, first+count) of n with the portable
// kernels: 8×8 byte tiles where the values are at least 8 bytes wide and
// there are 8 of them, the last tile of each direction shifted back to end
// at the edge; a byte loop otherwise.
func bssRowsGo(dst, src []byte, width, n, first, count int) {
	if width < 8 || count < 8 {
		for i := range count {
			d := dst[i*width : i*width+width]
			s := src[first+i:]
			for k := range d {
				d[k] = s[k*n]
			}
		}
		return
	}
	for ib := 0; ib < count; ib += 8 {
		i := min(ib, count-8)
		for kb := 0; kb < width; kb += 8 {
			k := min(kb, width-8)
			bssT8x8(dst[i*width+k:], width, src[k*n+first+i:], n)
		}
	}
}

// BSSStripeBytes is how many bytes of each value DecodeBSSStripes hands
// over at a time, and BSSStripeMaxValues how many values at most.
const (
	BSSStripeBytes     = 64
	BSSStripeMaxValues = bssChunk
)

// BSSStripePlane is the stride of the planes of DecodeBSSStripes for count
// values: 8 bytes a value, the values padded to a multiple of 4.
func BSSStripePlane(count int) int { return (count + 3) / 4 * 4 * 8 }

// DecodeBSSStripes decodes values [first, first+count) of BYTE_STREAM_SPLIT
// data BSSStripeBytes of every value at a time, in planes: for k0 = 0, 64,
// …, width−64 it fills buf with 8 planes, plane j (at j×BSSStripePlane(count))
// holding bytes k0+8j to k0+8j+7 of each value (value i's at 8i), and calls
// fn(k0, buf), stopping at fn's first error. The padding after the last
// value of a plane is left as it was. src holds width streams of
// len(src)/width bytes; width must be a multiple of 64, count at most
// BSSStripeMaxValues, buf 8×BSSStripePlane(count) bytes.
//
// Each stripe reads 64 whole streams, a sequential stretch of the page, and
// goes through half of the wide transpose (the 8-stream interleave) and not
// the other (the merge into whole values): a consumer that takes the values
// a stripe at a time in this shape (a scorer accumulating dot products, two
// elements of four rows to a register) never needs the decoded values
// whole, which for FIXED_LEN_BYTE_ARRAY vectors fill a page-sized buffer
// that the scorer reads back from memory.
func DecodeBSSStripes(buf, src []byte, width, first, count int, fn func(k0 int, planes []byte) error) error {
	if width < BSSStripeBytes || width%BSSStripeBytes != 0 {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT value width %d is not a positive multiple of %d", width, BSSStripeBytes)
	}
	if len(src)%width != 0 {
		return fmt.Errorf("vector: %d BYTE_STREAM_SPLIT bytes is not a multiple of the value width %d", len(src), width)
	}
	n := len(src) / width
	if first < 0 || count < 0 || first > n || count > n-first || count > BSSStripeMaxValues {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT values [%d, %d+%d) lie outside the %d values of the data or exceed %d", first, first, count, n, BSSStripeMaxValues)
	}
	ps := BSSStripePlane(count)
	if len(buf) != 8*ps {
		return fmt.Errorf("vector: BYTE_STREAM_SPLIT stripe buffer has %d bytes for 8 planes of %d", len(buf), ps)
	}
	asm := !bssForceGo && bssStripesAsm(count)
	for k0 := 0; k0 < width; k0 += BSSStripeBytes {
		if asm {
			bssStripeAVX2(buf, src, width, n, first, count, k0)
		} else {
			bssStripeGo(buf, src, n, first, count, k0)
		}
		if err := fn(k0, buf); err != nil {
			return err
		}
	}
	return nil
}

// bssStripeGo fills the planes of bytes k0..k0+63 of values [first,
// first+count) of n: 8×8 byte tiles, the last tile of values shifted back
// to end at the edge; a byte loop for fewer than 8 values.
func bssStripeGo(buf, src []byte, n, first, count, k0 int) {
	ps := BSSStripePlane(count)
	for j := range 8 {
		plane := buf[j*ps:]
		s := src[(k0+8*j)*n+first:]
		if count < 8 {
			for i := range count {
				for b := range 8 {
					plane[8*i+b] = s[b*n+i]
				}
			}
			continue
		}
		for ib := 0; ib < count; ib += 8 {
			i := min(ib, count-8)
			bssT8x8(plane[8*i:], 8, s[i:], n)
		}
	}
}
