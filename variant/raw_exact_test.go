package variant

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"
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

// noKeys is the metadata emptyMeta encodes: primitives need no keys.
func noKeys(t testing.TB) variant.Metadata {
	t.Helper()
	m, err := DecodeMetadata(emptyMeta)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkExactSize fails t unless ExactSize and arrow-go's validation give b
// the same verdict (b a primitive or short string).
func checkExactSize(t *testing.T, meta variant.Metadata, b []byte) {
	t.Helper()
	_, arrowErr := DecodeValue(meta, b)
	if exactErr := ExactSize(b); (exactErr == nil) != (arrowErr == nil) {
		t.Fatalf("%x: arrow-go says %v, ExactSize %v", b, arrowErr, exactErr)
	}
}

// TestExactSizeMatchesArrow: for every primitive and short-string header
// byte, at every size up to 24 bytes and, for binary and string, every
// declared length up to that, ExactSize accepts exactly what arrow-go's
// validation accepts.
func TestExactSizeMatchesArrow(t *testing.T) {
	meta := noKeys(t)
	for h := range 256 {
		if h&3 == basicObject || h&3 == basicArray {
			continue
		}
		for size := 1; size <= 24; size++ {
			b := make([]byte, size)
			b[0] = byte(h)
			checkExactSize(t, meta, b)
			if h&3 == basicPrimitive && (h>>2 == primBinary || h>>2 == primString) && size >= 5 {
				for n := range size + 2 {
					b[1], b[2], b[3], b[4] = byte(n), 0, 0, 0
					checkExactSize(t, meta, b)
				}
				b[4] = 0x80 // a length past any buffer
				checkExactSize(t, meta, b)
			}
		}
	}
}

// FuzzExactSizeMatchesArrow: ExactSize and arrow-go agree on any bytes
// that start as a primitive or short string.
func FuzzExactSizeMatchesArrow(f *testing.F) {
	for _, seed := range [][]byte{{0}, {3 << 2, 7}, {16 << 2, 1, 0, 0, 0, 'x'}, {5, 'a'}, {63 << 2}, {20 << 2}} {
		f.Add(seed)
	}
	meta := noKeys(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0]&3 == basicObject || b[0]&3 == basicArray {
			return
		}
		checkExactSize(t, meta, b)
	})
}

// checkChecker fails t unless ExactChecker and arrow-go's validation give
// value the same verdict under meta.
func checkChecker(t *testing.T, c *ExactChecker, metaBytes, value []byte) {
	t.Helper()
	meta, err := DecodeMetadata(metaBytes)
	if err != nil {
		return
	}
	_, arrowErr := DecodeValue(meta, value)
	exactErr := c.Check(meta, KeyRanks(meta), value)
	if (exactErr == nil) != (arrowErr == nil) {
		t.Fatalf("meta %x value %x: arrow-go says %v, ExactChecker %v", metaBytes, value, arrowErr, exactErr)
	}
}

// TestCheckerMatchesArrow: the checker accepts the values arrow-go builds,
// and refuses what arrow-go refuses among hand-made breakages of them and
// the fuzz seeds, one checker reused across all of them (its scratch must
// not carry a verdict over).
func TestCheckerMatchesArrow(t *testing.T) {
	var c ExactChecker
	for _, text := range []string{
		`{"a": 1, "b": [1, "x", {"c": null}], "d": {"e": {"f": [[], {}]}}}`,
		`[{"z": 1, "y": 2}, {"y": 3}, 4.5, "a long string that is not a short string at all, more than sixty-three bytes"]`,
		`{"k": "v"}`, `[]`, `{}`, `7`,
	} {
		v, err := variant.ParseJSON(text, false)
		if err != nil {
			t.Fatal(err)
		}
		meta, value := v.Metadata().Bytes(), v.Bytes()
		m, err := DecodeMetadata(meta)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Check(m, KeyRanks(m), value); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		// Every single-byte change and every truncation.
		b := make([]byte, len(value))
		for i := range value {
			for _, x := range []byte{0, 1, 2, 3, 0x80, 0xFF, value[i] + 1, value[i] - 1} {
				copy(b, value)
				b[i] = x
				checkChecker(t, &c, meta, b)
			}
			checkChecker(t, &c, meta, value[:i])
		}
	}
	// Deeper than arrow-go allows: the checker hands it to arrow-go.
	deep := nestedArrays(1100)
	if len(deep) <= DepthFreeBytes {
		t.Fatalf("nestedArrays(1100) is %d bytes", len(deep))
	}
	checkChecker(t, &c, emptyMeta, deep)
}

// FuzzCheckerMatchesArrow: the checker and arrow-go agree on any metadata
// and value bytes.
func FuzzCheckerMatchesArrow(f *testing.F) {
	seedVariants(f)
	var c ExactChecker
	f.Fuzz(func(t *testing.T, meta, value []byte) {
		checkChecker(t, &c, meta, value)
	})
}
