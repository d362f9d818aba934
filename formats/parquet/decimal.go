package parquet

import (
	"encoding/binary"
	"fmt"

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

// decimalToBytes writes n as size-byte big-endian two's complement. The
// caller has checked that n fits its precision, so the dropped high bytes
// are sign extension only.
func decimalToBytes(n decimal128.Num, size int) []byte {
	var full [16]byte
	binary.BigEndian.PutUint64(full[:8], uint64(n.HighBits()))
	binary.BigEndian.PutUint64(full[8:], n.LowBits())
	out := make([]byte, size)
	copy(out, full[16-size:])
	return out
}

// decimalFromBytes reads big-endian two's complement of up to 16 bytes.
func decimalFromBytes(b []byte) (decimal128.Num, error) {
	if len(b) == 0 {
		return decimal128.Num{}, fmt.Errorf("empty decimal value")
	}
	if len(b) > 16 {
		// Wider encodings are legal when the extra bytes are sign extension.
		ext := byte(0)
		if b[0]&0x80 != 0 {
			ext = 0xff
		}
		for _, c := range b[:len(b)-16] {
			if c != ext {
				return decimal128.Num{}, fmt.Errorf("decimal value of %d bytes does not fit 128 bits", len(b))
			}
		}
		b = b[len(b)-16:]
	}
	var full [16]byte
	if b[0]&0x80 != 0 {
		for i := range full {
			full[i] = 0xff
		}
	}
	copy(full[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(full[:8])), binary.BigEndian.Uint64(full[8:])), nil
}
