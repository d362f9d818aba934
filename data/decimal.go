package data

import (
	"fmt"
	"math/big"
	"strings"
)

// DecimalString renders unscaled × 10^-scale exactly, with scale digits
// after the point, as Iceberg's JSON single-value serialization writes a
// decimal (spec.md, Appendix D). A negative or absurd scale, which no valid
// decimal has, is shown in exponent form rather than padded.
func DecimalString(unscaled *big.Int, scale int) string {
	switch {
	case scale == 0:
		return unscaled.String()
	case scale < 0 || scale > 1000:
		return fmt.Sprintf("%se%d", unscaled, -scale)
	}
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	s := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}
