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
