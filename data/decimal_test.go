package data

import (
	"math/big"
	"testing"
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
