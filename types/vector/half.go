package vector

import (
	"math"

	"github.com/coltype-lab/lab/internal/half"
)

// Float16Bits is an IEEE 754 binary16 value held as its bit pattern.
type Float16Bits uint16

// BFloat16Bits is a bfloat16 value (the upper 16 bits of a float32) held as its
// bit pattern.
type BFloat16Bits uint16

// Float16FromFloat32 rounds f to the nearest binary16, ties to even, as IEEE
// 754 requires for the default rounding mode. Values beyond the largest
// finite binary16 (65504) after rounding become ±Inf; values below half the
// smallest subnormal (2^-24) become ±0. NaN stays NaN (quiet) and keeps the
// top bits of its payload.
func Float16FromFloat32(f float32) Float16Bits {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff

	if exp == 0xff {
		if mant == 0 {
			return Float16Bits(sign | 0x7c00)
		}
		// Setting the quiet bit keeps a NaN a NaN even when the payload bits
		// that survive the shift are all zero.
		return Float16Bits(sign | 0x7e00 | uint16(mant>>13))
	}

	e := exp - 127 + 15 // binary16 biased exponent
	if e >= 0x1f {
		return Float16Bits(sign | 0x7c00)
	}
	if e >= 1 {
		// Normal: drop 13 mantissa bits with round-half-even. A carry out of
		// the mantissa correctly bumps the exponent, up to Inf at 65520.
		h := uint32(e)<<10 | mant>>13
		rem := mant & 0x1fff
		if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
			h++
		}
		return Float16Bits(sign | uint16(h))
	}

	// Subnormal binary16: value = m × 2^-24, m = M × 2^(exp-126) where M is
	// the mantissa with its implicit bit.
	shift := uint32(126 - exp)
	if shift > 24 {
		// The value is below 2^-25, half the smallest subnormal: rounds to
		// zero. (Exactly 2^-25 has shift 24 and ties to even, also zero.)
		return Float16Bits(sign)
	}
	m := mant | 0x800000
	h := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || (rem == half && h&1 == 1) {
		h++ // may carry into the smallest normal, which is the right value
	}
	return Float16Bits(sign | uint16(h))
}

// Float32 converts h to float32 exactly (every binary16 is a float32).
func (h Float16Bits) Float32() float32 { return half.Float32(uint16(h)) }

// IsNaN reports whether h is a NaN.
func (h Float16Bits) IsNaN() bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

// BFloat16FromFloat32 rounds f to the nearest bfloat16, ties to even.
// Finite values that round past the largest bfloat16 become ±Inf. NaN stays
// NaN: truncating could otherwise turn a NaN whose payload sits only in the
// low 16 bits into Inf, so the quiet bit is set.
func BFloat16FromFloat32(f float32) BFloat16Bits {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return BFloat16Bits(uint16(b>>16) | 0x0040)
	}
	b += 0x7fff + (b>>16)&1
	return BFloat16Bits(b >> 16)
}

// Float32 converts h to float32 exactly.
func (h BFloat16Bits) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }

// IsNaN reports whether h is a NaN.
func (h BFloat16Bits) IsNaN() bool { return h&0x7f80 == 0x7f80 && h&0x7f != 0 }
