package vector

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestParseElementType(t *testing.T) {
	tests := []struct {
		in    string
		want  ElementType
		width int
	}{
		{"float32", Float32, 4},
		{"FLOAT", Float32, 4},
		{"float64", Float64, 8},
		{"double", Float64, 8},
		{"float16", Float16, 2},
		{"fp16", Float16, 2},
		{"int8", Int8, 1},
		{"bfloat16", BFloat16, 2},
		{" bf16 ", BFloat16, 2},
	}
	for _, tt := range tests {
		got, err := ParseElementType(tt.in)
		if err != nil || got != tt.want || got.Width() != tt.width {
			t.Errorf("ParseElementType(%q) = %v (width %d), %v; want %v (width %d)", tt.in, got, got.Width(), err, tt.want, tt.width)
		}
	}
	for _, et := range ElementTypes() {
		got, err := ParseElementType(et.String())
		if err != nil || got != et {
			t.Errorf("ParseElementType(%q) = %v, %v", et.String(), got, err)
		}
	}
	if _, err := ParseElementType("uint4"); err == nil || !strings.Contains(err.Error(), `"uint4"`) {
		t.Errorf("ParseElementType(uint4) error = %v, want one naming it", err)
	}
	if ElementType(0).Valid() || ElementType(0).Width() != 0 {
		t.Error("the zero ElementType must be invalid")
	}
}

func TestEncodeKnownBytes(t *testing.T) {
	in := []float32{1, -2, 0.5}
	tests := []struct {
		et   ElementType
		want []byte
	}{
		{Float32, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0x3f}},
		{Float64, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f}},
		{Float16, []byte{0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38}},
		{BFloat16, []byte{0x80, 0x3f, 0x00, 0xc0, 0x00, 0x3f}},
		{Int8, []byte{1, 0xfe, 0}}, // 0.5 rounds half to even: 0
	}
	for _, tt := range tests {
		t.Run(tt.et.String(), func(t *testing.T) {
			got, err := tt.et.EncodeAppend([]byte{0xaa}, in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[1:], tt.want) || got[0] != 0xaa {
				t.Fatalf("EncodeAppend = % x, want aa % x", got, tt.want)
			}
			dec, err := tt.et.DecodeVector(nil, 3, got[1:])
			if err != nil {
				t.Fatal(err)
			}
			want := []float32{1, -2, 0.5}
			if tt.et == Int8 {
				want[2] = 0
			}
			for i := range want {
				if dec[i] != want[i] {
					t.Fatalf("DecodeVector = %v, want %v", dec, want)
				}
			}
		})
	}
}

func TestEncodeInt8Errors(t *testing.T) {
	tests := []struct {
		in      float32
		wantErr bool
		want    int8
	}{
		{127, false, 127},
		{127.4, false, 127},
		{127.5, true, 0}, // rounds to 128
		{-128, false, -128},
		{-128.5, false, -128}, // ties to even: -128
		{-129, true, 0},
		{2.5, false, 2},
		{-3.5, false, -4},
		{float32(math.NaN()), true, 0},
		{float32(math.Inf(1)), true, 0},
	}
	for _, tt := range tests {
		got, err := Int8FromFloat32(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("Int8FromFloat32(%g) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	_, err := Int8.EncodeAppend(nil, []float32{1, 2, 300})
	if err == nil || !strings.Contains(err.Error(), "element 2") || !strings.Contains(err.Error(), "300") {
		t.Errorf("EncodeAppend(int8, 300) error = %v, want one naming element 2 and 300", err)
	}
}

func TestDecodeLengthErrors(t *testing.T) {
	tests := []struct {
		name    string
		decode  func() error
		wantErr string
	}{
		{"not a multiple of the width", func() error { _, err := Float32.DecodeAppend(nil, make([]byte, 7)); return err }, "7 bytes is not a multiple of the float32 width 4"},
		{"vector too short", func() error { _, err := Float16.DecodeVector(nil, 4, make([]byte, 6)); return err }, "6 bytes, want dim 4 × float16 width 2 = 8"},
		{"vector too long", func() error { _, err := Float32.DecodeVector(nil, 2, make([]byte, 12)); return err }, "12 bytes, want dim 2 × float32 width 4 = 8"},
		{"vectors not whole", func() error { _, err := Float64.DecodeVectors(nil, 3, make([]byte, 40)); return err }, "40 bytes is not a multiple of dim 3 × float64 width 8 = 24"},
		{"dimension zero", func() error { _, err := Int8.DecodeVector(nil, 0, nil); return err }, "dimension 0, want ≥ 1"},
		{"invalid type", func() error { _, err := ElementType(9).DecodeAppend(nil, nil); return err }, "invalid element type"},
		{"float32s odd length", func() error { _, err := Float32s(make([]byte, 5)); return err }, "5 bytes is not a multiple"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	// Several whole vectors decode.
	got, err := Int8.DecodeVectors(nil, 2, []byte{1, 2, 3, 0xff})
	if err != nil || len(got) != 4 || got[3] != -1 {
		t.Fatalf("DecodeVectors = %v, %v", got, err)
	}
}

func TestFloat32ViewZeroCopy(t *testing.T) {
	want := []float32{1.5, -2, 3e-3, float32(math.Inf(-1))}
	enc, err := Float32.EncodeAppend(make([]byte, 0, 64), want)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := Float32View(enc)
	if !ok {
		t.Fatal("Float32View refused an aligned buffer")
	}
	for i := range want {
		if v[i] != want[i] {
			t.Fatalf("view = %v, want %v", v, want)
		}
	}
	v[0] = 7 // the view aliases the bytes
	if enc[3] != 0x40 || enc[2] != 0xe0 {
		t.Fatalf("write through the view not visible in the bytes: % x", enc[:4])
	}

	// An odd offset cannot be aligned: the view is refused and Float32s copies.
	buf := make([]byte, 4*len(want)+1)
	copy(buf[1:], enc)
	if _, ok := Float32View(buf[1:]); ok {
		t.Fatal("Float32View accepted an unaligned buffer")
	}
	cp, err := Float32s(buf[1:])
	if err != nil || len(cp) != len(want) || cp[0] != 7 || cp[1] != -2 {
		t.Fatalf("Float32s(unaligned) = %v, %v", cp, err)
	}
	cp[0] = 9
	if buf[4] != 0x40 {
		t.Fatal("Float32s of unaligned bytes must copy, not alias")
	}
	if v, ok := Float32View(nil); !ok || len(v) != 0 {
		t.Fatal("an empty buffer is trivially viewable")
	}
}

func TestSliceConversions(t *testing.T) {
	src := []float32{1, -2, 65504, 1e6}
	h := make([]Float16Bits, len(src))
	Float16sFromFloat32(h, src)
	if h[0] != 0x3c00 || h[2] != 0x7bff || h[3] != 0x7c00 {
		t.Fatalf("Float16sFromFloat32 = %#v", h)
	}
	back := make([]float32, len(src))
	Float16sToFloat32(back, h)
	if back[1] != -2 || !math.IsInf(float64(back[3]), 1) {
		t.Fatalf("Float16sToFloat32 = %v", back)
	}
	bf := make([]BFloat16Bits, len(src))
	BFloat16sFromFloat32(bf, src)
	BFloat16sToFloat32(back, bf)
	if back[0] != 1 || back[3] != 999424 { // 1e6 rounds to 0x4974 = 999424
		t.Fatalf("BFloat16 round trip = %v", back)
	}
	q := make([]int8, 2)
	if err := Int8sFromFloat32(q, []float32{-7.6, 3.2}); err != nil || q[0] != -8 || q[1] != 3 {
		t.Fatalf("Int8sFromFloat32 = %v, %v", q, err)
	}
	Int8sToFloat32(back, q)
	if back[0] != -8 || back[1] != 3 {
		t.Fatalf("Int8sToFloat32 = %v", back)
	}
	if err := Int8sFromFloat32(q, []float32{1, 200}); err == nil || !strings.Contains(err.Error(), "element 1") {
		t.Fatalf("Int8sFromFloat32 error = %v", err)
	}
	d := make([]float64, 2)
	Float32sToFloat64(d, []float32{0.1, 2})
	Float64sToFloat32(back, d)
	if back[0] != 0.1 || d[0] != float64(float32(0.1)) {
		t.Fatalf("float64 round trip = %v, %v", back, d)
	}
}
