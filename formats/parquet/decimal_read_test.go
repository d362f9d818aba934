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
	max := append([]byte{0x00, 0x7f}, bytes.Repeat([]byte{0xff}, 15)...)
	minusOne := bytes.Repeat([]byte{0xff}, 17)
	tooBig := append([]byte{0x00, 0x80}, make([]byte, 15)...)
	tests := []struct {
		name    string
		cell    []byte
		want    string // the decimal as read; "" when an error is wanted
		wantErr string
	}{
		{"sign-extended maximum", max, "170141183460469231731687303715884105727", ""},
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
