package half

import (
	"math"
	"testing"
)

func TestFloat32(t *testing.T) {
	for _, c := range []struct {
		bits uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0400, 0x1p-14}, // normals
		{0x0001, 0x1p-24}, {0x03ff, 1023 * 0x1p-24}, {0x8001, -0x1p-24}, // subnormals
		{0x0000, 0}, {0x8000, float32(math.Copysign(0, -1))},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
		{0x7e01, math.Float32frombits(0x7fc02000)}, // a NaN keeps its payload
	} {
		if got := Float32(c.bits); math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("Float32(%#04x) = %g (%#08x), want %g (%#08x)", c.bits, got, math.Float32bits(got), c.want, math.Float32bits(c.want))
		}
	}
}
