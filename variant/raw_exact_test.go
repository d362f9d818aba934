package variant

import (
	"slices"
	"testing"
)

// TestKeyRanks: ranks order a dictionary's keys by name, repeated keys of
// an unsorted dictionary share a rank, and a sorted dictionary's ranks are
// its ids.
func TestKeyRanks(t *testing.T) {
	for name, c := range map[string]struct {
		meta []byte
		want []uint32
	}{
		// Version 1, one-byte offsets, keys "b", "a", "b", "c".
		"unsorted, a key repeated": {[]byte{0x01, 4, 0, 1, 2, 3, 4, 'b', 'a', 'b', 'c'}, []uint32{1, 0, 1, 2}},
		// sorted_strings set, keys "a", "b", "c".
		"sorted": {[]byte{0x11, 3, 0, 1, 2, 3, 'a', 'b', 'c'}, []uint32{0, 1, 2}},
		"empty":  {[]byte{0x01, 0, 0}, []uint32{}},
	} {
		m, err := DecodeMetadata(c.meta)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := KeyRanks(m); !slices.Equal(got, c.want) {
			t.Errorf("%s: ranks %v, want %v", name, got, c.want)
		}
	}
}
