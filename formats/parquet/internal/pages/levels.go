package pages

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Level runs a reader can verify without expanding them. A page of
// fixed-length vectors stored as a LIST (or with vector-repetition) has
// repetition levels 0, 1, …, 1 per row and, without nulls, one definition
// level throughout. Decoding those levels entry by entry costs more than
// scoring the vectors; checking the RLE/bit-packed hybrid runs
// (Encodings.md, "Run Length Encoding / Bit-Packing Hybrid") against the
// pattern reads only the encoded bytes, 64 levels at a time when the writer
// bit-packed them. A false answer only means "not this pattern, or not
// encoded in a way the check follows": the caller then decodes the levels
// entry by entry, which also reports any corruption.

// hybridRun is one run of the hybrid encoding: count levels, all value
// (rle), or packed bit-packed levels of the given width (bitPacked).
type hybridRun struct {
	rle    bool
	count  int // levels in the run (bit-packed: 8 × groups)
	value  uint64
	packed []byte
}

// nextRun splits the next run off src; ok is false for bytes that do not
// form one.
func nextRun(src []byte, width int) (r hybridRun, rest []byte, ok bool) {
	h, k := binary.Uvarint(src)
	if k <= 0 || h == 0 || h>>1 > 1<<31 {
		return r, nil, false
	}
	src = src[k:]
	if h&1 == 0 {
		vb := (width + 7) / 8
		if len(src) < vb {
			return r, nil, false
		}
		var v uint64
		for i := range vb {
			v |= uint64(src[i]) << (8 * i)
		}
		return hybridRun{rle: true, count: int(h >> 1), value: v}, src[vb:], true
	}
	groups := int(h >> 1)
	nb := groups * width
	if nb > len(src) {
		return r, nil, false
	}
	return hybridRun{count: groups * 8, packed: src[:nb]}, src[nb:], true
}

// FixedRepetitionLevels reports whether the repetition levels in src (bit
// width 1) are n levels forming whole rows of dim: 0 then dim−1 ones.
func FixedRepetitionLevels(src []byte, n, dim int) bool {
	return dim > 0 && n%dim == 0 && RowPatternLevels(src, n, dim, 0)
}

// LeadingRepetitions counts the repetition levels of value 1 (bit width 1)
// at the start of src's n levels, up to limit: the entries that continue
// the previous page's last row. ok is false when they reach limit or n,
// or src does not parse.
func LeadingRepetitions(src []byte, n, limit int) (h int, ok bool) {
	for h < n && h < limit {
		r, rest, ok := nextRun(src, 1)
		if !ok {
			return 0, false
		}
		src = rest
		m := min(r.count, n-h)
		if r.rle {
			if r.value == 0 {
				return h, true
			}
			h += m
			continue
		}
		for j := range m {
			if r.packed[j/8]>>(j%8)&1 == 0 {
				return h + j, h+j < limit
			}
		}
		h += m
	}
	return 0, false
}

// RowPatternLevels reports whether the n repetition levels in src (bit
// width 1) follow rows of dim with the first level at element phase of a
// row: a level is 0 exactly where pos+phase is a multiple of dim. A page
// whose first row starts after h continuing entries has phase (dim−h)%dim,
// and may end inside a row.
//
// Writers encode every whole row alike when rows start on run boundaries
// (parquet-go: a bit-packed group with the 0, then an RLE run of ones), so
// once the runs from one row start to a later one have been checked, the
// bytes that repeat them exactly are the same levels and are compared as
// bytes (a page of 341 rows of 768 then costs a few hundred nanoseconds,
// not one run decode after another).
func RowPatternLevels(src []byte, n, dim, phase int) bool {
	if dim <= 0 || phase < 0 || phase >= dim {
		return false
	}
	// at is (pos+phase) mod dim, kept without a division per run: an RLE
	// run that passes the check ends at or before its row's end.
	pos, at := 0, phase
	// from and fromPos are where the runs stood at the last row start met
	// on a run boundary; period, once set, is the bytes of the checked runs
	// from one such row start to the next, which hold periodLevels levels.
	var from, period []byte
	fromPos, periodLevels := -1, 0
	for pos < n {
		if at == 0 {
			for period != nil && n-pos >= periodLevels && bytes.HasPrefix(src, period) {
				src, pos = src[len(period):], pos+periodLevels
			}
			if pos >= n {
				break
			}
			from, fromPos = src, pos
		}
		r, rest, ok := nextRun(src, 1)
		if !ok {
			return false
		}
		src = rest
		m := min(r.count, n-pos)
		if r.rle {
			switch r.value {
			case 0: // only row starts: a run of them needs dim 1
				if at != 0 || (dim != 1 && m != 1) {
					return false
				}
			case 1:
				if at == 0 || at+m > dim {
					return false
				}
			default:
				return false
			}
		} else if !packedRepetitionPattern(r.packed, at, m, dim) {
			return false
		}
		pos += m
		if at += m; at >= dim {
			at %= dim
		}
		if at == 0 && period == nil && fromPos >= 0 && m == r.count {
			period, periodLevels = from[:len(from)-len(src)], pos-fromPos
		}
	}
	return true
}

// packedRepetitionPattern checks m bit-packed levels (width 1, LSB first)
// whose first is at element at (< dim) of a row against the row pattern:
// bit j is 0 exactly where at+j is a multiple of dim.
func packedRepetitionPattern(packed []byte, at, m, dim int) bool {
	// next is the bit of the next row start, counted from word j.
	next := (dim - at) % dim
	for j := 0; j < m; j += 64 {
		w := min(64, m-j)
		var got uint64
		if len(packed) >= j/8+8 {
			got = binary.LittleEndian.Uint64(packed[j/8:])
		} else {
			for b := 0; b < (w+7)/8; b++ {
				got |= uint64(packed[j/8+b]) << (8 * b)
			}
		}
		want := ^uint64(0)
		for ; next < w; next += dim {
			want &^= 1 << next
		}
		next -= 64
		mask := ^uint64(0)
		if w < 64 {
			mask = 1<<w - 1
		}
		if (got^want)&mask != 0 {
			return false
		}
	}
	return true
}

// ConstantLevels reports whether the definition levels in src (bit width
// width) are n levels all equal to v.
func ConstantLevels(src []byte, n, width int, v uint64) bool {
	if width == 0 {
		return v == 0
	}
	// The bytes of eight levels of v, bit-packed LSB first: width bytes.
	var group [8]byte
	for i := range 8 {
		for b := range width {
			if v>>b&1 != 0 {
				bit := i*width + b
				group[bit/8] |= 1 << (bit % 8)
			}
		}
	}
	pos := 0
	for pos < n {
		r, rest, ok := nextRun(src, width)
		if !ok {
			return false
		}
		src = rest
		m := min(r.count, n-pos)
		if r.rle {
			if r.value != v {
				return false
			}
		} else {
			full := m / 8
			for g := range full {
				for b := range width {
					if r.packed[g*width+b] != group[b] {
						return false
					}
				}
			}
			for i := full * 8; i < m; i++ { // the levels of a last, partial group
				var lv uint64
				for b := range width {
					bit := i*width + b
					lv |= uint64(r.packed[bit/8]>>(bit%8)&1) << b
				}
				if lv != v {
					return false
				}
			}
		}
		pos += m
	}
	return true
}

func LevelWidth(maxLevel int) int {
	w := 0
	for maxLevel > 0 {
		w++
		maxLevel >>= 1
	}
	return w
}

func LengthPrefixed(b []byte, what string) (section, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("%s levels: %d bytes left, no room for their length", what, len(b))
	}
	n := int64(binary.LittleEndian.Uint32(b))
	if n > int64(len(b)-4) {
		return nil, nil, fmt.Errorf("%s levels of %d bytes overrun the page (%d left)", what, n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}

// DecodeLevels decodes the n repetition or definition levels (what names
// which) of a page from their hybrid-encoded bytes, each at most maxLevel.
func DecodeLevels(src []byte, maxLevel, n int, what string) ([]byte, error) {
	if maxLevel > 255 {
		return nil, fmt.Errorf("%s levels: maximum level %d does not fit a byte", what, maxLevel)
	}
	out, err := AppendHybrid(make([]byte, 0, n), src, LevelWidth(maxLevel), n, maxLevel)
	if err != nil {
		return nil, fmt.Errorf("%s levels: %w", what, err)
	}
	return out, nil
}
