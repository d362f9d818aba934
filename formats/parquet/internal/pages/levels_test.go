package pages

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
)

func encodeLevels(t testing.TB, levels []byte, width int) []byte {
	t.Helper()
	e := rle.Encoding{BitWidth: width}
	b, err := e.EncodeLevels(nil, levels)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rleRuns encodes levels as RLE runs only, as some writers do.
func rleRuns(levels []byte) []byte {
	var out []byte
	for i := 0; i < len(levels); {
		j := i
		for j < len(levels) && levels[j] == levels[i] {
			j++
		}
		out = binary.AppendUvarint(out, uint64(j-i)<<1)
		out = append(out, levels[i])
		i = j
	}
	return out
}

// bitPackedOnly encodes width-1 levels as one bit-packed run.
func bitPackedOnly(levels []byte) []byte {
	groups := (len(levels) + 7) / 8
	out := binary.AppendUvarint(nil, uint64(groups)<<1|1)
	packed := make([]byte, groups)
	for i, l := range levels {
		packed[i/8] |= l << (i % 8)
	}
	return append(out, packed...)
}

func repLevels(rows, dim int) []byte {
	out := make([]byte, rows*dim)
	for i := range out {
		if i%dim != 0 {
			out[i] = 1
		}
	}
	return out
}

// The fast check agrees with decoding: the row pattern in every encoding a
// writer may choose is accepted, and any one changed level is not.
func TestFixedRepetitionLevels(t *testing.T) {
	for _, dim := range []int{1, 2, 7, 8, 9, 63, 64, 65, 768} {
		for _, rows := range []int{1, 3, 50} {
			levels := repLevels(rows, dim)
			n := len(levels)
			encodings := map[string]func([]byte) []byte{
				"parquet-go": func(l []byte) []byte { return encodeLevels(t, l, 1) },
				"rle":        rleRuns,
				"bit-packed": bitPackedOnly,
			}
			for name, enc := range encodings {
				t.Run(fmt.Sprintf("%s/dim=%d/rows=%d", name, dim, rows), func(t *testing.T) {
					if !FixedRepetitionLevels(enc(levels), n, dim) {
						t.Fatal("the row pattern was not recognised")
					}
					if dim > 1 && FixedRepetitionLevels(enc(levels), n, dim-1) {
						t.Fatal("accepted for another dimension")
					}
					for _, at := range []int{0, 1, n / 2, n - 1} {
						if at >= n {
							continue
						}
						bad := append([]byte(nil), levels...)
						bad[at] ^= 1
						if FixedRepetitionLevels(enc(bad), n, dim) {
							t.Fatalf("level %d flipped, still accepted", at)
						}
					}
				})
			}
		}
	}
	if FixedRepetitionLevels([]byte{0x80}, 4, 2) || FixedRepetitionLevels(nil, 4, 2) {
		t.Fatal("malformed runs accepted")
	}
}

func TestConstantLevels(t *testing.T) {
	for _, maxDef := range []int{1, 2, 3, 5} {
		width := LevelWidth(maxDef)
		for _, n := range []int{1, 7, 8, 9, 100, 1000} {
			levels := make([]byte, n)
			for i := range levels {
				levels[i] = byte(maxDef)
			}
			for name, enc := range map[string][]byte{"parquet-go": encodeLevels(t, levels, width), "rle": rleRuns(levels), "packed": packedLevels(levels, width)} {
				if !ConstantLevels(enc, n, width, uint64(maxDef)) {
					t.Fatalf("%s maxDef=%d n=%d: constant levels not recognised", name, maxDef, n)
				}
			}
			for _, at := range []int{0, n / 2, n - 1} {
				bad := append([]byte(nil), levels...)
				bad[at] = byte(maxDef - 1)
				for name, enc := range map[string][]byte{"parquet-go": encodeLevels(t, bad, width), "rle": rleRuns(bad), "packed": packedLevels(bad, width)} {
					if ConstantLevels(enc, n, width, uint64(maxDef)) {
						t.Fatalf("%s maxDef=%d n=%d: level %d lowered, still accepted", name, maxDef, n, at)
					}
				}
			}
		}
	}
}

// packedLevels bit-packs levels of any width as one run.
func packedLevels(levels []byte, width int) []byte {
	groups := (len(levels) + 7) / 8
	out := binary.AppendUvarint(nil, uint64(groups)<<1|1)
	packed := make([]byte, groups*width)
	for i, l := range levels {
		for b := range width {
			if l>>b&1 != 0 {
				bit := i*width + b
				packed[bit/8] |= 1 << (bit % 8)
			}
		}
	}
	return append(out, packed...)
}

func BenchmarkFixedRepetitionLevels(b *testing.B) {
	const rows, dim = 1000, 768
	enc := encodeLevels(b, repLevels(rows, dim), 1)
	b.SetBytes(rows * dim * 4) // the values the levels describe
	for b.Loop() {
		if !FixedRepetitionLevels(enc, rows*dim, dim) {
			b.Fatal("not recognised")
		}
	}
}

// firstLevels decodes the first n width-1 levels of RLE/bit-packed hybrid
// runs, entry by entry, as a page reader does (what follows them is not its
// concern): the check's reference, written apart from nextRun.
func firstLevels(src []byte, n int) ([]byte, bool) {
	out := make([]byte, 0, n)
	for len(out) < n {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			return nil, false
		}
		src = src[k:]
		if h&1 == 0 { // RLE: a count, then the value in one byte
			if len(src) < 1 || src[0] > 1 {
				return nil, false
			}
			for c := h >> 1; c > 0 && len(out) < n; c-- {
				out = append(out, src[0])
			}
			src = src[1:]
			continue
		}
		groups := int(h >> 1)
		if groups > len(src) {
			return nil, false
		}
		for i := 0; i < 8*groups && len(out) < n; i++ {
			out = append(out, src[i/8]>>(i%8)&1)
		}
		src = src[groups:]
	}
	return out, true
}

// FuzzRowPatternLevels holds RowPatternLevels to decoding: whatever the
// bytes (the pattern in any of the three encodings with levels flipped, or
// the fuzzer's own bytes), an accepted page's first n levels decode to
// exactly the row pattern at its phase; and the unflipped
// pattern is accepted in every encoding, from any phase and cut anywhere.
func FuzzRowPatternLevels(f *testing.F) {
	f.Add(uint16(768), uint16(0), uint16(3*768), uint8(0), []byte{})
	f.Add(uint16(8), uint16(3), uint16(100), uint8(1), []byte{7, 30})
	f.Add(uint16(9), uint16(8), uint16(95), uint8(2), []byte{0, 1, 2})
	f.Add(uint16(5), uint16(0), uint16(40), uint8(3), []byte{0x03, 0x01, 0x05, 0x00})
	f.Fuzz(func(t *testing.T, dim16, phase16, n16 uint16, mode uint8, extra []byte) {
		dim := int(dim16%1000) + 1
		phase := int(phase16) % dim
		n := int(n16 % 5000)
		want := make([]byte, n)
		for i := range want {
			if (i+phase)%dim != 0 {
				want[i] = 1
			}
		}
		var src []byte
		levels := append([]byte(nil), want...)
		switch mode % 4 {
		case 3: // the fuzzer's bytes as the page's levels
			src = extra
		default:
			for _, b := range extra {
				if n > 0 {
					levels[int(b)*31%n] ^= 1
				}
			}
			src = [](func([]byte) []byte){func(l []byte) []byte { return encodeLevels(t, l, 1) }, rleRuns, bitPackedOnly}[mode%4](levels)
		}
		got := RowPatternLevels(src, n, dim, phase)
		if mode%4 != 3 && len(extra) == 0 && !got {
			t.Fatalf("dim %d phase %d n %d, encoding %d: the row pattern was not recognised", dim, phase, n, mode%4)
		}
		if !got || n == 0 {
			return
		}
		dec, ok := firstLevels(src, n)
		if !ok {
			t.Fatalf("accepted, but the bytes do not hold %d levels", n)
		}
		for i := range n {
			if dec[i] != want[i] {
				t.Fatalf("accepted, but level %d decodes to %d (dim %d phase %d n %d)", i, dec[i], dim, phase, n)
			}
		}
	})
}
