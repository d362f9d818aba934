package parquet

import (
	"errors"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
)

// TestValueBatch: values validated a batch at a time come back one per
// slot, byte for byte, slots without a value stay zero, and a value arrow-go
// refuses is named by its slot.
func TestValueBatch(t *testing.T) {
	int32Value := func(x int32) []byte {
		return []byte{5 << 2, byte(x), byte(x >> 8), byte(x >> 16), byte(x >> 24)} // primitive int32
	}
	shortString := func(s string) []byte { return append([]byte{byte(len(s))<<2 | 1}, s...) }
	cases := []struct {
		name   string
		values map[int][]byte // slot -> encoded value
		slots  int
		bad    int // slot of the refused value, -1: none
	}{
		{"ints", map[int][]byte{0: int32Value(7), 1: int32Value(-1), 2: int32Value(1 << 30)}, 3, -1},
		{"gaps and strings", map[int][]byte{1: shortString("a"), 4: shortString(""), 5: int32Value(3)}, 7, -1},
		{"one", map[int][]byte{0: {0}}, 1, -1}, // Variant null
		{"truncated int32", map[int][]byte{0: int32Value(1), 3: int32Value(2)[:3], 4: int32Value(5)}, 5, 3},
		{"unknown primitive", map[int][]byte{2: {31 << 2}}, 3, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b valueBatch
			for slot := range tc.slots {
				if v, ok := tc.values[slot]; ok {
					start := len(b.data)
					b.data = append(b.data, v...)
					b.add(start, slot)
				}
			}
			out := make([]pvariant.Value, tc.slots)
			err := b.flush(emptyMetadata, out)
			if tc.bad >= 0 {
				var bad *batchValueError
				if !errors.As(err, &bad) || bad.slot != tc.bad {
					t.Fatalf("flush: %v, want the value of slot %d refused", err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for slot := range tc.slots {
				want, ok := tc.values[slot]
				got := out[slot].Bytes()
				if !ok {
					if got != nil {
						t.Errorf("slot %d: % x, want no value", slot, got)
					}
					continue
				}
				if string(got) != string(want) {
					t.Errorf("slot %d: % x, want % x", slot, got, want)
				}
			}
			if len(b.offs) != 0 || len(b.slots) != 0 || len(b.data) != 0 {
				t.Errorf("flush left %d offsets, %d slots, %d bytes", len(b.offs), len(b.slots), len(b.data))
			}
		})
	}
}

// TestValueBatchLarge: a batch whose data needs wide offsets.
func TestValueBatchLarge(t *testing.T) {
	var b valueBatch
	const n = 3000
	long := make([]byte, 200)
	for i := range long {
		long[i] = 'a' + byte(i%26)
	}
	for i := range n {
		start := len(b.data)
		// A long string (basic type primitive, type 16) of 200 bytes.
		b.data = append(b.data, 16<<2, 200, 0, 0, 0)
		b.data = append(b.data, long...)
		b.data[len(b.data)-1] = byte(i)
		b.add(start, i)
	}
	out := make([]pvariant.Value, n)
	if err := b.flush(emptyMetadata, out); err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		s, ok := v.Value().(string)
		if !ok || len(s) != 200 || s[199] != byte(i) || s[:199] != string(long[:199]) {
			t.Fatalf("value %d: %q", i, v.Bytes())
		}
	}
}
