package data

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
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

// The decimal codec. Parquet (DECIMAL on FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY),
// Avro (decimal on bytes or fixed) and shredded Variant decimal16 all store
// the unscaled value as big-endian two's complement, the most significant
// byte first. Every reader and writer in the lab goes through these
// functions, so they agree on what a well-formed value is.
//
// An encoding may be wider than the value needs: the extra leading bytes are
// then sign extension, each 0x00 for a non-negative value and 0xff for a
// negative one, and the first kept byte's top bit must agree with them.
// Bytes that break this hold a value the target width cannot, and reading
// them is an error, never a wrapped-around number: 00 80 00…00 (17 bytes) is
// +2^127, which 128 bits cannot hold, not −2^127.

// DecimalFromBytes reads b, a big-endian two's-complement unscaled value, as
// a 128-bit decimal (the width of Iceberg's decimal, precision 38 at most).
// An empty b, or one whose value needs more than 128 bits, is an error that
// shows the bytes.
func DecimalFromBytes(b []byte) (decimal128.Num, error) {
	if len(b) == 0 {
		return decimal128.Num{}, fmt.Errorf("decimal value has no bytes")
	}
	var ext byte // the sign extension b's first bit asks for
	if b[0]&0x80 != 0 {
		ext = 0xff
	}
	if len(b) > 16 {
		kept := b[len(b)-16:]
		for i, x := range b[:len(b)-16] {
			if x != ext {
				return decimal128.Num{}, fmt.Errorf("decimal value %s does not fit 128 bits: byte %d is %#02x, not sign extension (%#02x)",
					hexPrefix(b), i, x, ext)
			}
		}
		if kept[0]&0x80 != ext&0x80 {
			return decimal128.Num{}, fmt.Errorf("decimal value %s does not fit 128 bits: the %d leading %#02x bytes extend a sign the remaining 16 bytes do not have",
				hexPrefix(b), len(b)-16, ext)
		}
		b = kept
	}
	var be [16]byte
	for i := range 16 - len(b) {
		be[i] = ext
	}
	copy(be[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(be[:8])), binary.BigEndian.Uint64(be[8:])), nil
}

// BigDecimalFromBytes reads b, a big-endian two's-complement unscaled value
// of any width, exactly. It is for places that show values of any
// precision (Parquet allows more than 38 digits); readers of Iceberg
// decimals use DecimalFromBytes.
func BigDecimalFromBytes(b []byte) (*big.Int, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("decimal value has no bytes")
	}
	v := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return v, nil
}

// AppendDecimalBytes appends n as size bytes of big-endian two's complement:
// sign-extended when size is over 16, and an error when n needs more than
// size bytes (the bytes would read back as another number).
func AppendDecimalBytes(dst []byte, n decimal128.Num, size int) ([]byte, error) {
	if size < 1 {
		return dst, fmt.Errorf("decimal encoding of %d bytes", size)
	}
	var be [16]byte
	binary.BigEndian.PutUint64(be[:8], uint64(n.HighBits()))
	binary.BigEndian.PutUint64(be[8:], n.LowBits())
	var ext byte
	if n.Sign() < 0 {
		ext = 0xff
	}
	if size >= 16 {
		for range size - 16 {
			dst = append(dst, ext)
		}
		return append(dst, be[:]...), nil
	}
	for _, x := range be[:16-size] {
		if x != ext {
			return dst, fmt.Errorf("decimal unscaled value %s needs more than %d bytes", n.BigInt(), size)
		}
	}
	if be[16-size]&0x80 != ext&0x80 {
		return dst, fmt.Errorf("decimal unscaled value %s needs more than %d bytes", n.BigInt(), size)
	}
	return append(dst, be[16-size:]...), nil
}

// hexPrefix shows b in hex, cut after 32 bytes, for error messages.
func hexPrefix(b []byte) string {
	const most = 32
	if len(b) > most {
		return fmt.Sprintf("0x%s… (%d bytes)", hex.EncodeToString(b[:most]), len(b))
	}
	return fmt.Sprintf("0x%s (%d bytes)", hex.EncodeToString(b), len(b))
}

// DecimalRequiredBytes is the fewest bytes whose two's complement holds
// every unscaled value of the given precision (1 to 38), as Iceberg's
// TypeUtil.decimalRequiredBytes: the width Parquet FIXED_LEN_BYTE_ARRAY and
// Avro fixed decimals take, and Iceberg's variant shredding for decimal16
// typed_value columns.
func DecimalRequiredBytes(precision int) int {
	if precision < 1 || precision > 38 {
		panic(fmt.Sprintf("data.DecimalRequiredBytes: precision %d is outside 1..38", precision))
	}
	return decimalBytes[precision]
}

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
