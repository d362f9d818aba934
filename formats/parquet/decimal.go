package parquet

import (
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// decimalBytes[p] is the fewest bytes whose two's complement holds every
// unscaled value of precision p, as Iceberg's TypeUtil.decimalRequiredBytes.
var decimalBytes = func() [39]int {
	var out [39]int
	for p := 1; p <= 38; p++ {
		// The largest unscaled value 10^p - 1 needs 8n-1 value bits.
		max := decimal128.GetScaleMultiplier(p).Sub(decimal128.FromU64(1))
		n := 1
		for ; n < 16; n++ {
			limit := decimal128.FromU64(1)
			for range 8*n - 1 {
				limit = limit.Add(limit)
			}
			if max.Less(limit) {
				break
			}
		}
		out[p] = n
	}
	return out
}()

// decimalPhysical tells how Iceberg stores decimal(p, s) in Parquet.
func decimalPhysical(precision int) (kind string, size int) {
	switch {
	case precision <= 9:
		return "int32", 4
	case precision <= 18:
		return "int64", 8
	default:
		return "fixed", decimalBytes[precision]
	}
}
