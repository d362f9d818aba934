package vector

import (
	"math"
	"testing"
)

func TestFloat16FromFloat32(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want Float16Bits
	}{
		{"one", 1.0, 0x3c00},
		{"minus two", -2.0, 0xc000},
		{"zero", 0, 0x0000},
		{"negative zero", float32(math.Copysign(0, -1)), 0x8000},
		{"max finite 65504", 65504, 0x7bff},
		{"65519 rounds down to max", 65519, 0x7bff},
		{"65520 ties to even: overflow to +Inf", 65520, 0x7c00},
		{"overflow to -Inf", -1e6, 0xfc00},
		{"+Inf", float32(math.Inf(1)), 0x7c00},
		{"-Inf", float32(math.Inf(-1)), 0xfc00},
		{"smallest normal 2^-14", 1.0 / (1 << 14), 0x0400},
		{"largest subnormal", 1023.0 / (1 << 24), 0x03ff},
		{"smallest subnormal 2^-24", 1.0 / (1 << 24), 0x0001},
		{"negative smallest subnormal", -1.0 / (1 << 24), 0x8001},
		{"2^-25 ties to even zero", 1.0 / (1 << 25), 0x0000},
		{"just above 2^-25 rounds up", math.Nextafter32(1.0/(1<<25), 1), 0x0001},
		{"1.5 × 2^-24 ties to even 2", 1.5 / (1 << 24), 0x0002},
		{"2.5 × 2^-24 ties to even 2", 2.5 / (1 << 24), 0x0002},
		{"2^-26 underflows", 1.0 / (1 << 26), 0x0000},
		{"float32 subnormal underflows", math.Float32frombits(1), 0x0000},
		{"1 + 2^-11 ties to even 1", 1 + 1.0/(1<<11), 0x3c00},
		{"1 + 3×2^-11 ties to even up", 1 + 3.0/(1<<11), 0x3c02},
		{"1 + 2^-11 + tiny rounds up", math.Nextafter32(1+1.0/(1<<11), 2), 0x3c01},
		{"subnormal carries into smallest normal", 1023.5 / (1 << 24), 0x0400},
		{"0.1", 0.1, 0x2e66},
		{"pi", math.Pi, 0x4248},
		{"quiet NaN", float32(math.NaN()), 0x7e00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Float16FromFloat32(tt.in)
			if math.IsNaN(float64(tt.in)) {
				if !got.IsNaN() {
					t.Fatalf("Float16FromFloat32(NaN) = %#04x, not a NaN", uint16(got))
				}
				return
			}
			if got != tt.want {
				t.Fatalf("Float16FromFloat32(%g) = %#04x, want %#04x", tt.in, uint16(got), uint16(tt.want))
			}
		})
	}
}

func TestFloat16NaNPayloads(t *testing.T) {
	// A signalling NaN whose payload sits only in the low 13 bits must not
	// truncate to Inf.
	for _, bits := range []uint32{0x7f800001, 0xff800001, 0x7fc00000, 0x7fffffff} {
		h := Float16FromFloat32(math.Float32frombits(bits))
		if !h.IsNaN() {
			t.Errorf("Float16FromFloat32(%#08x) = %#04x, not a NaN", bits, uint16(h))
		}
		if f := h.Float32(); f == f {
			t.Errorf("Float16(%#04x).Float32() = %g, not a NaN", uint16(h), f)
		}
		if (bits>>31 == 1) != (h>>15 == 1) {
			t.Errorf("sign of NaN %#08x lost: %#04x", bits, uint16(h))
		}
	}
}

func TestFloat16ToFloat32(t *testing.T) {
	tests := []struct {
		in   Float16Bits
		want float32
	}{
		{0x3c00, 1},
		{0xc000, -2},
		{0x7bff, 65504},
		{0x0001, 1.0 / (1 << 24)},
		{0x03ff, 1023.0 / (1 << 24)},
		{0x0400, 1.0 / (1 << 14)},
		{0x7c00, float32(math.Inf(1))},
		{0xfc00, float32(math.Inf(-1))},
		{0x3555, 0.33325195},
	}
	for _, tt := range tests {
		if got := tt.in.Float32(); got != tt.want {
			t.Errorf("Float16(%#04x).Float32() = %g, want %g", uint16(tt.in), got, tt.want)
		}
	}
	if got := Float16Bits(0x8000).Float32(); math.Float32bits(got) != 0x80000000 {
		t.Errorf("Float16(0x8000).Float32() = %g, want -0", got)
	}
}

// Every binary16 value converts to float32 and back unchanged: the widening
// is exact, and rounding an exact value must return it.
func TestFloat16RoundTripAll(t *testing.T) {
	for i := range 1 << 16 {
		h := Float16Bits(i)
		back := Float16FromFloat32(h.Float32())
		if h.IsNaN() {
			if !back.IsNaN() {
				t.Fatalf("NaN %#04x came back as %#04x", i, uint16(back))
			}
			continue
		}
		if back != h {
			t.Fatalf("%#04x → %g → %#04x", i, h.Float32(), uint16(back))
		}
	}
}

// Rounding agrees with a float64 reference: the nearest of the two
// neighbouring binary16 values, ties to the even one.
func TestFloat16RoundingMatchesReference(t *testing.T) {
	for i := range 0x7bff { // every positive finite pair of neighbours
		lo, hi := Float16Bits(i).Float32(), Float16Bits(i+1).Float32()
		mid := float32((float64(lo) + float64(hi)) / 2) // exact in float32
		want := Float16Bits(i)
		if i%2 == 1 {
			want = Float16Bits(i + 1)
		}
		if got := Float16FromFloat32(mid); got != want {
			t.Fatalf("midpoint of %#04x and %#04x (%g) → %#04x, want %#04x", i, i+1, mid, uint16(got), uint16(want))
		}
		if got := Float16FromFloat32(math.Nextafter32(mid, 0)); got != Float16Bits(i) {
			t.Fatalf("just below midpoint %g → %#04x, want %#04x", mid, uint16(got), i)
		}
		if got := Float16FromFloat32(math.Nextafter32(mid, 1e9)); got != Float16Bits(i+1) {
			t.Fatalf("just above midpoint %g → %#04x, want %#04x", mid, uint16(got), i+1)
		}
	}
}

func TestBFloat16(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want BFloat16Bits
	}{
		{"one", 1, 0x3f80},
		{"minus two", -2, 0xc000},
		{"zero", 0, 0x0000},
		{"max finite", math.Float32frombits(0x7f7f0000), 0x7f7f},
		{"float32 max overflows to +Inf", math.MaxFloat32, 0x7f80},
		{"-float32 max overflows to -Inf", -math.MaxFloat32, 0xff80},
		{"+Inf", float32(math.Inf(1)), 0x7f80},
		{"smallest subnormal", math.Float32frombits(0x00010000), 0x0001},
		{"half the smallest subnormal ties to even zero", math.Float32frombits(0x00008000), 0x0000},
		{"1 + 2^-8 ties to even 1", math.Float32frombits(0x3f808000), 0x3f80},
		{"odd + half ties up", math.Float32frombits(0x3f818000), 0x3f82},
		{"just above half rounds up", math.Float32frombits(0x3f808001), 0x3f81},
		{"just below half rounds down", math.Float32frombits(0x3f807fff), 0x3f80},
		{"pi", math.Pi, 0x4049},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BFloat16FromFloat32(tt.in); got != tt.want {
				t.Fatalf("BFloat16FromFloat32(%g) = %#04x, want %#04x", tt.in, uint16(got), uint16(tt.want))
			}
			if tt.want&0x7f80 != 0x7f80 { // finite: widening is exact
				if got, want := tt.want.Float32(), math.Float32frombits(uint32(tt.want)<<16); got != want {
					t.Fatalf("BFloat16(%#04x).Float32() = %g, want %g", uint16(tt.want), got, want)
				}
			}
		})
	}
	for _, bits := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7f80ffff} {
		h := BFloat16FromFloat32(math.Float32frombits(bits))
		if !h.IsNaN() || h.Float32() == h.Float32() {
			t.Errorf("BFloat16FromFloat32(NaN %#08x) = %#04x, not a NaN", bits, uint16(h))
		}
	}
}
