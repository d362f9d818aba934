package vector

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzDecode feeds arbitrary bytes, as a corrupt Parquet page would, to the
// decoders: they must fail with an error or decode, never panic, and whatever
// decodes must re-encode to the same bytes where the type is exact (every
// type but float64, whose float32 conversion rounds; NaNs may be quietened).
func FuzzDecode(f *testing.F) {
	f.Add(uint8(Float32), uint8(2), []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0})
	f.Add(uint8(Float16), uint8(3), []byte{0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00})
	f.Add(uint8(BFloat16), uint8(1), []byte{0x80, 0x3f})
	f.Add(uint8(Int8), uint8(4), []byte{1, 0xff, 0x80, 0x7f})
	f.Add(uint8(Float64), uint8(1), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Add(uint8(0), uint8(0), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, et, dim uint8, data []byte) {
		typ := ElementType(et)
		got, err := typ.DecodeVectors(nil, int(dim), data)
		if err != nil {
			return
		}
		if typ == Float64 {
			return
		}
		enc, err := typ.EncodeAppend(nil, got)
		if err != nil {
			t.Fatalf("%v: re-encoding decoded values %v: %v", typ, got, err)
		}
		if len(enc) != len(data) {
			t.Fatalf("%v: %d bytes re-encoded to %d", typ, len(data), len(enc))
		}
		w := typ.Width()
		for i := 0; i < len(data); i += w {
			a, b := data[i:i+w], enc[i:i+w]
			if bytes.Equal(a, b) {
				continue
			}
			switch typ {
			case Float16:
				if Float16Bits(binary.LittleEndian.Uint16(a)).IsNaN() && Float16Bits(binary.LittleEndian.Uint16(b)).IsNaN() {
					continue
				}
			case BFloat16:
				if BFloat16Bits(binary.LittleEndian.Uint16(a)).IsNaN() && BFloat16Bits(binary.LittleEndian.Uint16(b)).IsNaN() {
					continue
				}
			}
			t.Fatalf("%v element %d: % x re-encoded as % x", typ, i/w, a, b)
		}
		if typ == Float32 {
			if v, err := Float32s(data); err != nil || len(v) != len(got) {
				t.Fatalf("Float32s: %d values, %v; DecodeVectors gave %d", len(v), err, len(got))
			}
		}
	})
}
