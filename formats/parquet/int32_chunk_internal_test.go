package parquet

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// encodeDelta64 encodes int32 values as DELTA_BINARY_PACKED the way DuckDB
// does: deltas in 64-bit arithmetic, so miniblocks reach 33 bits.
func encodeDelta64(vals []int32, blockSize, miniBlocks int) []byte {
	var out []byte
	out = binary.AppendUvarint(out, uint64(blockSize))
	out = binary.AppendUvarint(out, uint64(miniBlocks))
	out = binary.AppendUvarint(out, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendVarint(out, 0)
	}
	out = binary.AppendVarint(out, int64(vals[0]))
	per := blockSize / miniBlocks
	for start := 1; start < len(vals); start += blockSize {
		end := min(start+blockSize, len(vals))
		deltas := make([]int64, end-start)
		minDelta := int64(math.MaxInt64)
		for i := start; i < end; i++ {
			deltas[i-start] = int64(vals[i]) - int64(vals[i-1])
			minDelta = min(minDelta, deltas[i-start])
		}
		out = binary.AppendVarint(out, minDelta)
		widths := make([]byte, miniBlocks)
		for m := range miniBlocks {
			for i := m * per; i < min((m+1)*per, len(deltas)); i++ {
				widths[m] = max(widths[m], byte(bits.Len64(uint64(deltas[i]-minDelta))))
			}
		}
		out = append(out, widths...)
		for m := range miniBlocks {
			if m*per >= len(deltas) {
				break
			}
			w := int(widths[m])
			packed := make([]byte, per*w/8)
			for i := range per {
				var v uint64
				if m*per+i < len(deltas) {
					v = uint64(deltas[m*per+i] - minDelta)
				}
				for b := range w {
					if v>>b&1 == 1 {
						packed[(i*w+b)/8] |= 1 << ((i*w + b) % 8)
					}
				}
			}
			out = append(out, packed...)
		}
	}
	return out
}

func TestDeltaInt32WideMiniblocks(t *testing.T) {
	full := make([]int32, 300)
	for i := range full {
		full[i] = int32(uint32(i) * 2654435761) // spans the whole int32 range
	}
	alternate := make([]int32, 129)
	for i := range alternate {
		alternate[i] = math.MaxInt32
		if i%2 == 1 {
			alternate[i] = math.MinInt32
		}
	}
	seq := make([]int32, 1000)
	for i := range seq {
		seq[i] = int32(3000 + i)
	}
	for _, tc := range []struct {
		name       string
		vals       []int32
		block, mbs int
		wantWidth  int // the widest miniblock, to show the case is the one meant
	}{
		{"full range", full, 128, 4, 33},
		{"alternating extremes", alternate, 128, 4, 33},
		{"sequence", seq, 128, 4, 0},
		{"one value", []int32{-7}, 128, 4, -1},
		{"big block", full, 256, 8, 33},
		{"empty", nil, 128, 4, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc := encodeDelta64(tc.vals, tc.block, tc.mbs)
			if tc.wantWidth >= 0 {
				if w := widestMiniblock(t, enc, tc.mbs); w != tc.wantWidth {
					t.Fatalf("encoded widest miniblock %d, want %d", w, tc.wantWidth)
				}
			}
			got, err := deltaInt32(enc, len(tc.vals))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.vals) && (len(got) > 0 || len(tc.vals) > 0) {
				for i := range tc.vals {
					if got[i] != tc.vals[i] {
						t.Fatalf("value %d: got %d, want %d", i, got[i], tc.vals[i])
					}
				}
			}
		})
	}
}

// widestMiniblock reads the first block's bit widths of an encoding.
func widestMiniblock(t *testing.T, enc []byte, mbs int) int {
	t.Helper()
	for range 3 {
		_, n := binary.Uvarint(enc)
		enc = enc[n:]
	}
	_, n := binary.Varint(enc)
	enc = enc[n:]
	_, n = binary.Varint(enc)
	enc = enc[n:]
	return int(slices.Max(enc[:mbs]))
}

func TestDeltaInt32Refuses(t *testing.T) {
	good := encodeDelta64([]int32{1, 2, 3, 1 << 30, -5}, 128, 4)
	for _, tc := range []struct {
		name string
		src  []byte
		n    int
		want string
	}{
		{"count differs from levels", good, 4, "header counts 5 values"},
		{"truncated", good[:len(good)-20], 5, "left"},
		{"no header", nil, 1, "no block size"},
		{"block not multiple of 128", append(binary.AppendUvarint(nil, 100), 4, 1, 2), 1, "multiple of 128"},
		{"miniblock not multiple of 32", append(binary.AppendUvarint(nil, 128), 3, 1, 2), 1, "multiples of 32"},
		{"width 65", append(encodeDelta64([]int32{1, 2}, 128, 4)[:6], 65, 0, 0, 0), 2, "bit width 65"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := deltaInt32(tc.src, tc.n)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// FuzzInt32Decoders: the lab's INT32 page decoders on any bytes: no panic,
// no more values than asked, and what the 64-bit encoder writes decodes.
func FuzzInt32Decoders(f *testing.F) {
	f.Add(encodeDelta64([]int32{1, 2, math.MaxInt32, math.MinInt32, 7}, 128, 4), uint16(5), uint8(2))
	f.Add([]byte{5 << 1, 1, 1<<1 | 1, 0b11100100, 0b00011011}, uint16(13), uint8(2))
	f.Add([]byte{0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 0x41, 0, 0, 0}, uint16(2), uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, n uint16, _ uint8) {
		count := int(n)
		if vals, err := deltaInt32(src, count); err == nil && len(vals) != count {
			t.Fatalf("deltaInt32: %d values, asked %d", len(vals), count)
		}
		if vals, err := plainInt32(src, count); err == nil && len(vals) != count {
			t.Fatalf("plainInt32: %d values, asked %d", len(vals), count)
		}
		// Round trip: the values the bytes spell as plain int32s.
		if len(src) >= 4 {
			vals, _ := plainInt32(src[:len(src)/4*4], len(src)/4)
			got, err := deltaInt32(encodeDelta64(vals, 128, 4), len(vals))
			if err != nil || !slices.Equal(got, vals) {
				t.Fatalf("round trip of %v: %v, %v", vals, got, err)
			}
		}
	})
}
