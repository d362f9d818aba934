package parquet_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// TestReadWideDecimal reads DECIMAL(38, 0) on FIXED_LEN_BYTE_ARRAY(17), one
// byte wider than 128 bits, as another writer may store it. The extra byte
// is sign extension and must agree with the sign of the 16 bytes kept:
// 00 80 00…00 is +2^127, which no Iceberg decimal holds, so reading it fails
// naming the column instead of returning -2^127.
func TestReadWideDecimal(t *testing.T) {
	// 10^38 - 1, the largest DECIMAL(38, 0), in 17 bytes.
	max := []byte{0x00, 0x4b, 0x3b, 0x4c, 0xa8, 0x5a, 0x86, 0xc4, 0x7a, 0x09, 0x8a, 0x22, 0x3f, 0xff, 0xff, 0xff, 0xff}
	// 2^127 - 1 fits 128 bits but has 39 digits.
	int128Max := append([]byte{0x00, 0x7f}, bytes.Repeat([]byte{0xff}, 15)...)
	minusOne := bytes.Repeat([]byte{0xff}, 17)
	tooBig := append([]byte{0x00, 0x80}, make([]byte, 15)...)
	tests := []struct {
		name    string
		cell    []byte
		want    string // the decimal as read; "" when an error is wanted
		wantErr string
	}{
		{"sign-extended maximum", max, "99999999999999999999999999999999999999", ""},
		{"2^127-1, beyond the precision", int128Max, "", "more than the 38 digits of its precision"},
		{"sign-extended -1", minusOne, "-1", ""},
		{"+2^127", tooBig, "", "does not fit 128 bits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tempFile(t, "wide.parquet")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			schema := pq.NewSchema("m", pq.Group{"d": pq.FieldID(pq.Optional(pq.Decimal(0, 38, pq.FixedLenByteArrayType(17))), 1)})
			w := pq.NewWriter(f, schema)
			if _, err := w.WriteRows([]pq.Row{{pq.FixedLenByteArrayValue(tc.cell).Level(0, 1, 0)}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			recs, err := tryReadRecords(path, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), `column "d"`) {
					t.Fatalf("read %v, err %v; want an error naming column \"d\" with %q", recs, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || recs[0].Get(0) == nil {
				t.Fatalf("records %v", recs)
			}
			if got := recs[0].Get(0).(interface{ String() string }).String(); got != tc.want {
				t.Fatalf("read %s, want %s", got, tc.want)
			}
		})
	}
}

// TestReadDecimalBeyondItsPrecision refuses a stored value with more digits
// than its DECIMAL's precision (LogicalTypes.md), naming the column, rather
// than returning a number the type cannot hold.
func TestReadDecimalBeyondItsPrecision(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v       int32
		wantErr string
	}{{"fits", -99999, ""}, {"six digits in DECIMAL(5,2)", 123456, "decimal value 1234.56 has more than the 5 digits of its precision"},
		{"negative", -100000, "more than the 5 digits"}} {
		t.Run(tc.name, func(t *testing.T) {
			path := tempFile(t, "prec.parquet")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			schema := pq.NewSchema("m", pq.Group{"d": pq.FieldID(pq.Optional(pq.Decimal(2, 5, pq.Int32Type)), 1)})
			w := pq.NewWriter(f, schema)
			if _, err := w.WriteRows([]pq.Row{{pq.Int32Value(tc.v).Level(0, 1, 0)}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			recs, err := tryReadRecords(path, nil)
			if tc.wantErr == "" {
				if err != nil || len(recs) != 1 {
					t.Fatalf("read %v, %v", recs, err)
				}
				if got := recs[0].Get(0).(interface{ String() string }).String(); got != "-999.99" {
					t.Fatalf("read %s", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), `column "d"`) {
				t.Fatalf("read %v, err %v; want an error naming column \"d\" with %q", recs, err, tc.wantErr)
			}
		})
	}
}
