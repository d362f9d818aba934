package data

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestDecimalString(t *testing.T) {
	for _, tt := range []struct {
		unscaled string
		scale    int
		want     string
	}{
		{"0", 0, "0"},
		{"1420", 2, "14.20"},
		{"-5", 3, "-0.005"},
		{"5", 1, "0.5"},
		{"99999999999999999999999999999999999999", 38, "0.99999999999999999999999999999999999999"},
		{"-12345678901234567890123456789012345678", 0, "-12345678901234567890123456789012345678"},
		{"7", -2, "7e2"},
	} {
		u, _ := new(big.Int).SetString(tt.unscaled, 10)
		if got := DecimalString(u, tt.scale); got != tt.want {
			t.Errorf("DecimalString(%s, %d) = %q, want %q", tt.unscaled, tt.scale, got, tt.want)
		}
	}
}

// twosComplementRef is the value of big-endian two's-complement bytes by
// the definition: the bytes as an unsigned number, less 2^(8·len) when the
// top bit is set.
func twosComplementRef(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

var (
	min128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))                // -2^127
	max128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1)) // 2^127-1
)

func fits128(v *big.Int) bool { return v.Cmp(min128) >= 0 && v.Cmp(max128) <= 0 }

func repeat(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestDecimalFromBytes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      []byte
		want    string // the unscaled value in decimal; "" when an error is wanted
		wantErr string
	}{
		{"one byte zero", []byte{0x00}, "0", ""},
		{"one byte -1", []byte{0xff}, "-1", ""},
		{"one byte -128", []byte{0x80}, "-128", ""},
		{"two bytes 1.23 scaled", []byte{0x00, 0x7b}, "123", ""},
		{"two bytes -123", []byte{0xff, 0x85}, "-123", ""},
		{"16 bytes max", cat([]byte{0x7f}, repeat(0xff, 15)), max128.String(), ""},
		{"16 bytes min", cat([]byte{0x80}, repeat(0x00, 15)), min128.String(), ""},
		{"17 bytes, 0x00 extends a positive value", cat([]byte{0x00, 0x7f}, repeat(0xff, 15)), max128.String(), ""},
		{"17 bytes, 0xff extends a negative value", cat([]byte{0xff, 0x80}, repeat(0x00, 15)), min128.String(), ""},
		{"32 bytes of sign extension of -1", repeat(0xff, 32), "-1", ""},
		// The kept bytes' top bit disagrees with the discarded ones: the
		// value is +2^127 (or -2^127-1), which 128 bits cannot hold.
		{"17 bytes 00 80 00… is +2^127", cat([]byte{0x00, 0x80}, repeat(0x00, 15)), "", "does not fit 128 bits: the 1 leading 0x00 bytes extend a sign"},
		{"17 bytes ff 7f ff… is -2^127-1", cat([]byte{0xff, 0x7f}, repeat(0xff, 15)), "", "does not fit 128 bits: the 1 leading 0xff bytes"},
		{"17 bytes 01 00…", cat([]byte{0x01}, repeat(0x00, 16)), "", "byte 0 is 0x01, not sign extension (0x00)"},
		{"18 bytes ff 00 80…", cat([]byte{0xff, 0x00, 0x80}, repeat(0x00, 15)), "", "byte 1 is 0x00, not sign extension (0xff)"},
		{"empty", nil, "", "no bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecimalFromBytes(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DecimalFromBytes(%x) = %s, %v; want error %q", tt.in, got.BigInt(), err, tt.wantErr)
				}
				if len(tt.in) > 0 && !strings.Contains(err.Error(), fmt.Sprintf("%x", tt.in[:min(len(tt.in), 32)])) {
					t.Errorf("error %q does not show the bytes", err)
				}
				return
			}
			if err != nil || got.BigInt().String() != tt.want {
				t.Fatalf("DecimalFromBytes(%x) = %s, %v; want %s", tt.in, got.BigInt(), err, tt.want)
			}
			big, err := BigDecimalFromBytes(tt.in)
			if err != nil || big.String() != tt.want {
				t.Fatalf("BigDecimalFromBytes(%x) = %s, %v; want %s", tt.in, big, err, tt.want)
			}
		})
	}
}

func TestBigDecimalFromBytes(t *testing.T) {
	// Wider than 128 bits: Parquet allows precisions past 38.
	in := cat([]byte{0x00, 0x80}, repeat(0x00, 15))
	got, err := BigDecimalFromBytes(in)
	if want := new(big.Int).Lsh(big.NewInt(1), 127); err != nil || got.Cmp(want) != 0 {
		t.Fatalf("BigDecimalFromBytes(%x) = %s, %v; want %s", in, got, err, want)
	}
	if _, err := BigDecimalFromBytes(nil); err == nil {
		t.Fatal("BigDecimalFromBytes(nil): no error")
	}
}

func TestAppendDecimalBytes(t *testing.T) {
	num := func(s string) decimal128.Num {
		n, err := decimal128.FromString(s, 38, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tt := range []struct {
		value   string
		size    int
		want    string // hex; "" when an error is wanted
		wantErr string
	}{
		{"0", 1, "00", ""},
		{"-1", 1, "ff", ""},
		{"127", 1, "7f", ""},
		{"128", 1, "", "needs more than 1 bytes"},
		{"-128", 1, "80", ""},
		{"-129", 1, "", "needs more than 1 bytes"},
		{"123", 2, "007b", ""},
		{"-123", 2, "ff85", ""},
		{"-1", 17, "ffffffffffffffffffffffffffffffffff", ""},
		{"1", 17, "0000000000000000000000000000000001", ""},
		{"1", 0, "", "of 0 bytes"},
	} {
		got, err := AppendDecimalBytes([]byte("x"), num(tt.value), tt.size)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("AppendDecimalBytes(%s, %d) = %x, %v; want error %q", tt.value, tt.size, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got[:1]) != "x" || fmt.Sprintf("%x", got[1:]) != tt.want {
			t.Errorf("AppendDecimalBytes(%s, %d) = %x, %v; want x then %s", tt.value, tt.size, got, err, tt.want)
		}
	}
}

// FuzzDecimalFromBytes checks the codec against math/big: bytes whose value
// fits 128 bits decode to it, every other input is an error, and what decodes
// encodes back to the same bytes at the same width.
func FuzzDecimalFromBytes(f *testing.F) {
	for _, seed := range [][]byte{
		{0x00}, {0xff}, {0x80}, {0x7f, 0xff},
		cat([]byte{0x7f}, repeat(0xff, 15)),
		cat([]byte{0x00, 0x80}, repeat(0x00, 15)),
		cat([]byte{0xff, 0x7f}, repeat(0xff, 15)),
		cat([]byte{0xff, 0x80}, repeat(0x00, 15)),
		repeat(0xff, 40), repeat(0x00, 20),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecimalFromBytes(b)
		if len(b) == 0 {
			if err == nil {
				t.Fatal("empty input decoded")
			}
			return
		}
		want := twosComplementRef(b)
		if !fits128(want) {
			if err == nil {
				t.Fatalf("%x is %s, beyond 128 bits, but decoded to %s", b, want, got.BigInt())
			}
			return
		}
		if err != nil {
			t.Fatalf("%x is %s, within 128 bits, but failed: %v", b, want, err)
		}
		if got.BigInt().Cmp(want) != 0 {
			t.Fatalf("%x decoded to %s, want %s", b, got.BigInt(), want)
		}
		if big, err := BigDecimalFromBytes(b); err != nil || big.Cmp(want) != 0 {
			t.Fatalf("BigDecimalFromBytes(%x) = %s, %v; want %s", b, big, err, want)
		}
		back, err := AppendDecimalBytes(nil, got, len(b))
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("%x decoded to %s and encoded back to %x, %v", b, got.BigInt(), back, err)
		}
	})
}

func TestDecimalRequiredBytes(t *testing.T) {
	// Iceberg's TypeUtil.decimalRequiredBytes.
	want := map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 9: 4, 10: 5, 18: 8, 19: 9, 20: 9, 38: 16}
	for p, n := range want {
		if got := DecimalRequiredBytes(p); got != n {
			t.Errorf("precision %d: %d bytes, want %d", p, got, n)
		}
	}
}
