package variant

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/parquet-go/parquet-go"
)

// TestPrimitiveFromParquetDecimal16 reads decimal16 typed_value cells through
// the one decimal codec (package data): a cell wider than 16 bytes reads when
// its extra leading bytes are sign extension that agrees with the kept sign,
// as for Parquet and Avro, and fails otherwise (00 80 00…00 is +2^127).
func TestPrimitiveFromParquetDecimal16(t *testing.T) {
	l := &Layout{Kind: Primitive, Type: variant.Decimal16, Precision: 38, Scale: 2}
	tests := []struct {
		name    string
		cell    []byte
		want    string // the variant value's JSON; "" when an error is wanted
		wantErr string
	}{
		{"16 bytes", append(bytes.Repeat([]byte{0xff}, 15), 0x85), "-1.23", ""},
		{"17 bytes, sign extension", append(bytes.Repeat([]byte{0xff}, 16), 0x85), "-1.23", ""},
		{"17 bytes 00 80 00…", append([]byte{0x00, 0x80}, make([]byte, 15)...), "", "does not fit 128 bits"},
		{"empty", []byte{}, "", "no bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := PrimitiveFromParquet(l, parquet.FixedLenByteArrayValue(tc.cell))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("PrimitiveFromParquet(%x): err %v; want error %q", tc.cell, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tc.want {
				t.Fatalf("PrimitiveFromParquet(%x) = %s, want %s", tc.cell, got, tc.want)
			}
		})
	}
}
