// Package half decodes IEEE 754 binary16 values. It is the one decoder of
// them in the lab: FLOAT16 is a standard Parquet logical type (statistics in
// lab inspect) as well as a VECTOR element (types/vector), and neither of
// those packages may import the other.
package half

import "math"

// Float32 is the binary16 value with the given bits, exactly: every half is
// a float32. NaNs keep their payload. (arrow-go's float16.Num.Float32 is no
// substitute: it reads subnormals, 0x0001 = 2^-24, as far smaller numbers.)
func Float32(bits uint16) float32 {
	sign := uint32(bits&0x8000) << 16
	exp := uint32(bits>>10) & 0x1f
	mant := uint32(bits & 0x3ff)
	switch exp {
	case 0: // zero or subnormal: mant × 2^-24 is exact in float32
		return math.Float32frombits(math.Float32bits(float32(mant)*0x1p-24) | sign)
	case 0x1f: // infinity, or NaN with its payload
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	// Rebias the exponent from 15 to 127 and widen the mantissa.
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
