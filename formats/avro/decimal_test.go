package avro_test

import (
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/hamba/avro/v2/ocf"

	"github.com/coltype-lab/lab/data"
)

// TestReadWideDecimal reads bytes decimals of 17 bytes, one more than 128
// bits, as other writers may store them. A leading byte that only extends
// the sign reads (the one decimal codec, package data); 2^127 and -2^127-1,
// whose fewest bytes are 17, fit no Iceberg decimal and fail naming the
// field.
func TestReadWideDecimal(t *testing.T) {
	const schema = `{"type":"record","name":"r","fields":[
	{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":38,"scale":0},"field-id":1}]}`
	type row struct {
		D []byte `avro:"d"`
	}
	pow127 := new(big.Int).Lsh(big.NewInt(1), 127)
	max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
	tests := []struct {
		name    string
		value   *big.Int
		wantErr string
	}{
		{"10^38-1", max38, ""},
		{"-(10^38-1)", new(big.Int).Neg(max38), ""},
		{"-1", big.NewInt(-1), ""},
		{"2^127", pow127, "field d (id 1)"},
		{"-2^127-1", new(big.Int).Sub(new(big.Int).Neg(pow127), big.NewInt(1)), "field d (id 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tempPath(t, "wide.avro")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := ocf.NewEncoder(schema, f, ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler))
			if err != nil {
				t.Fatal(err)
			}
			if err := enc.Encode(row{D: twos17(tc.value)}); err != nil {
				t.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			got, err := readRecords(t, path, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "does not fit 128 bits") {
					t.Fatalf("read %v, err %v; want an error naming %q that the value does not fit 128 bits", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []*data.Record{data.Of(iceberg.NewSchema(0, field(1, "d", iceberg.DecimalTypeOf(38, 0), true)),
				iceberg.Decimal{Val: decimal128.FromBigInt(tc.value), Scale: 0})}
			assertRows(t, got, want)
		})
	}
}

// twos17 is v as 17 bytes of big-endian two's complement.
func twos17(v *big.Int) []byte {
	m := new(big.Int).Set(v)
	if v.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), 8*17))
	}
	return m.FillBytes(make([]byte, 17))
}
