package variant

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/variant"
)

// DecodeMetadata parses untrusted metadata bytes. Beyond arrow-go's checks
// it enforces the sorted_strings promise (VariantEncoding.md "Metadata
// encoding": sorted and unique when the bit is set), because arrow-go's
// key lookup binary-searches on that bit and would otherwise silently miss
// keys of a lying header.
func DecodeMetadata(meta []byte) (m variant.Metadata, err error) {
	defer recoverAs(&err, "variant metadata")
	m, err = variant.NewMetadata(meta)
	if err != nil {
		return m, err
	}
	if m.SizeBytes() != len(meta) {
		return m, fmt.Errorf("invalid variant metadata: %d trailing bytes", len(meta)-m.SizeBytes())
	}
	if m.SortedAndUnique() {
		var prev string
		for id := range m.DictionarySize() {
			k, kerr := m.KeyAt(id)
			if kerr != nil {
				return m, kerr
			}
			if id > 0 && k <= prev {
				return m, fmt.Errorf("invalid variant metadata: sorted_strings set but key %d %q does not sort after %q", id, k, prev)
			}
			prev = k
		}
	}
	return m, nil
}

// Decode parses an untrusted metadata and value pair. arrow-go validates
// the whole value iteratively and bounds nesting at 1024 levels before
// anything recurses, so the recursive walks in this package (shredding,
// reconstruction, Equal) run on values of bounded depth. A panic inside the
// decoder is still turned into an error: bad input must never crash.
func Decode(meta, value []byte) (variant.Value, error) {
	m, err := DecodeMetadata(meta)
	if err != nil {
		return variant.Value{}, err
	}
	return decodeValue(m, value)
}

// DecodeValue parses an untrusted value under a metadata that
// DecodeMetadata has checked: a writer or reader that meets the same
// metadata on many rows checks it once.
func DecodeValue(m variant.Metadata, value []byte) (variant.Value, error) {
	return decodeValue(m, value)
}

func decodeValue(m variant.Metadata, value []byte) (v variant.Value, err error) {
	defer recoverAs(&err, "variant value")
	return variant.NewWithMetadata(m, value)
}

// DecodeConcatenated splits metadata immediately followed by a value, the
// layout of parquet-testing's *.variant.bin files.
func DecodeConcatenated(data []byte) (v variant.Value, err error) {
	defer recoverAs(&err, "variant")
	// NewMetadata ignores bytes past the dictionary, so it can size the prefix.
	m0, err := variant.NewMetadata(data)
	if err != nil {
		return variant.Value{}, err
	}
	n := m0.SizeBytes()
	if n <= 0 || n > len(data) {
		return variant.Value{}, fmt.Errorf("invalid variant: metadata size %d out of range", n)
	}
	m, err := DecodeMetadata(data[:n])
	if err != nil {
		return variant.Value{}, err
	}
	return decodeValue(m, data[n:])
}

func recoverAs(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("invalid %s: decoder panicked: %v", what, r)
	}
}

// Equal reports the first difference between two values (nil when equal).
// Types must match exactly (int8 is not int32), except that short and long
// strings are one type; objects compare by key, independent of metadata.
func Equal(a, b variant.Value) (err error) {
	defer recoverAs(&err, "variant value")
	return equalAt(a, b, "$")
}

// stringValue reads a string variant. arrow-go v18.8.0's Value.Value()
// panics (index out of range) on a long-string primitive of length zero,
// a valid encoding that fuzzing found (testdata/fuzz/FuzzDecodeVariant).
func stringValue(v variant.Value) string {
	if b := v.Bytes(); v.BasicType() == variant.BasicPrimitive && len(b) == 5 {
		return ""
	}
	return v.Value().(string)
}

func equalAt(a, b variant.Value, path string) error {
	ta, tb := a.Type(), b.Type()
	if ta != tb {
		return fmt.Errorf("%s: type %s != %s", path, typeName(ta), typeName(tb))
	}
	switch ta {
	case variant.Object:
		oa, ob := a.Value().(variant.ObjectValue), b.Value().(variant.ObjectValue)
		if oa.NumElements() != ob.NumElements() {
			return fmt.Errorf("%s: %d fields != %d fields (%s vs %s)", path, oa.NumElements(), ob.NumElements(), a, b)
		}
		for k, va := range oa.Values() {
			fb, err := ob.ValueByKey(k)
			if err != nil {
				return fmt.Errorf("%s: field %q missing on the right", path, k)
			}
			if err := equalAt(va, fb.Value, path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case variant.Array:
		aa, ab := a.Value().(variant.ArrayValue), b.Value().(variant.ArrayValue)
		if aa.Len() != ab.Len() {
			return fmt.Errorf("%s: %d elements != %d elements", path, aa.Len(), ab.Len())
		}
		for i := range aa.Len() {
			ea, _ := aa.Value(i)
			eb, _ := ab.Value(i)
			if err := equalAt(ea, eb, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case variant.String:
		if sa, sb := stringValue(a), stringValue(b); sa != sb {
			return fmt.Errorf("%s: %q != %q", path, sa, sb)
		}
		return nil
	}
	// Other primitives have one encoding per type: compare the bytes, which
	// also makes NaN equal to itself.
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		return fmt.Errorf("%s: %s %v != %v", path, typeName(ta), a, b)
	}
	return nil
}

// encodeExactInt encodes an integer primitive with exactly the given width.
// arrow-go's Builder.AppendInt always picks the narrowest width, which would
// turn a shredded INT32 column value 1 into an int8 and break the type the
// file states; this is the only encoding the package does by hand (a
// VariantEncoding.md primitive: header byte then little-endian bytes).
func encodeExactInt(t variant.Type, v int64) []byte {
	var id byte
	var n int
	switch t {
	case variant.Int8:
		id, n = 3, 1
	case variant.Int16:
		id, n = 4, 2
	case variant.Int32:
		id, n = 5, 4
	default:
		id, n = 6, 8
	}
	out := make([]byte, 1+8)
	out[0] = id << 2 // basic_type 0 (primitive), type id in the upper 6 bits
	binary.LittleEndian.PutUint64(out[1:], uint64(v))
	return out[:1+n]
}

// decimalParts returns the unscaled value and scale of a decimal variant.
func decimalParts(v variant.Value) (*big.Int, int, bool) {
	if !isDecimal(v.Type()) {
		return nil, 0, false // Value() is only called where it cannot panic
	}
	switch d := v.Value().(type) {
	case variant.DecimalValue[decimal.Decimal32]:
		return big.NewInt(int64(d.Value.(decimal.Decimal32))), int(d.Scale), true
	case variant.DecimalValue[decimal.Decimal64]:
		return big.NewInt(int64(d.Value.(decimal.Decimal64))), int(d.Scale), true
	case variant.DecimalValue[decimal.Decimal128]:
		return d.Value.(decimal128.Num).BigInt(), int(d.Scale), true
	}
	return nil, 0, false
}

// decimalDigits is the number of decimal digits of |u| (1 for zero), which
// is Java's BigDecimal.precision() that Iceberg's analyzer uses.
func decimalDigits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}
