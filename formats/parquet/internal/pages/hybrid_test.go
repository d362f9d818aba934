package pages

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
)

func TestAppendHybrid(t *testing.T) {
	// A run of 5 ones, then a bit-packed group of 8 two-bit values.
	src := []byte{5 << 1, 1, 1<<1 | 1, 0b11100100, 0b00011011}
	got, err := AppendHybrid([]int32(nil), src, 2, 13, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{1, 1, 1, 1, 1, 0, 1, 2, 3, 3, 2, 1, 0}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := AppendHybrid([]int32(nil), src, 2, 13, 2); err == nil || !strings.Contains(err.Error(), "above the largest") {
		t.Fatalf("level above the maximum: err = %v", err)
	}
	if _, err := AppendHybrid([]int32(nil), src[:3], 2, 13, 3); err == nil {
		t.Fatal("truncated run accepted")
	}
	if got, err := AppendHybrid([]byte{9}, src, 2, 13, 3); err != nil || got[0] != 9 || len(got) != 14 || got[13] != 0 {
		t.Fatalf("append after a prefix: %v, %v", got, err)
	}
	// A run without its value is an error; a run longer than needed stops
	// at n without allocating the run.
	if got, err := AppendHybrid([]int32(nil), binary.AppendUvarint(nil, 1<<40), 1, 3, 1); err == nil || len(got) != 0 {
		t.Fatalf("run without its value: %v, %v", got, err)
	}
	huge := append(binary.AppendUvarint(nil, (1<<30)<<1), 1)
	dst := make([]byte, 0, 3)
	allocs := testing.AllocsPerRun(5, func() {
		got, err := AppendHybrid(dst, huge, 1, 3, 1)
		if err != nil || !slices.Equal(got, []byte{1, 1, 1}) {
			t.Fatalf("long run: %v, %v", got, err)
		}
	})
	if allocs > 0 {
		t.Errorf("a run declaring 2^30 levels: %v allocations", allocs)
	}
	if _, err := AppendHybrid([]byte(nil), src, 33, 1, 1); err == nil {
		t.Error("bit width 33 accepted")
	}
	if _, err := DecodeLevels(huge, 300, 3, "definition"); err == nil {
		t.Error("a maximum level of 300 accepted for byte levels")
	}
}

// The decoder agrees with parquet-go's encoder on the levels a writer
// produces: random runs and noise at every level width.
func TestAppendHybridMatchesParquetGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for width := 1; width <= 8; width++ {
		maxLevel := 1<<width - 1
		for trial := range 20 {
			n := 1 + r.IntN(5000)
			levels := make([]byte, n)
			for i := 0; i < n; {
				run := 1 + r.IntN(40)
				v := byte(r.IntN(maxLevel + 1))
				noisy := r.IntN(2) == 0
				for j := 0; j < run && i < n; j, i = j+1, i+1 {
					if noisy {
						v = byte(r.IntN(maxLevel + 1))
					}
					levels[i] = v
				}
			}
			enc, err := (&rle.Encoding{BitWidth: width}).EncodeLevels(nil, levels)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendHybrid([]byte(nil), enc, width, n, maxLevel)
			if err != nil {
				t.Fatalf("width %d trial %d: %v", width, trial, err)
			}
			if !slices.Equal(got, levels) {
				t.Fatalf("width %d trial %d: levels differ", width, trial)
			}
			wide, err := AppendHybrid([]int32(nil), enc, width, n, maxLevel)
			if err != nil || len(wide) != n {
				t.Fatalf("width %d trial %d as int32: %d values, %v", width, trial, len(wide), err)
			}
			for i := range wide {
				if wide[i] != int32(levels[i]) {
					t.Fatalf("width %d trial %d as int32: value %d is %d, want %d", width, trial, i, wide[i], levels[i])
				}
			}
		}
	}
}

// FuzzAppendHybrid: any bytes decode to exactly n values or fail, never
// panic, and the byte and int32 decoders agree.
func FuzzAppendHybrid(f *testing.F) {
	f.Add([]byte{5 << 1, 1, 1<<1 | 1, 0b11100100, 0b00011011}, uint16(13), uint8(2))
	f.Add(append(binary.AppendUvarint(nil, (1<<30)<<1), 1), uint16(100), uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, n uint16, width uint8) {
		w := int(width % 9)
		a, errA := AppendHybrid([]byte(nil), src, w, int(n), 1<<w-1)
		b, errB := AppendHybrid([]int32(nil), src, w, int(n), 1<<w-1)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("byte decoder: %v, int32 decoder: %v", errA, errB)
		}
		if errA != nil {
			return
		}
		if len(a) != int(n) || len(b) != int(n) {
			t.Fatalf("%d and %d values, asked %d", len(a), len(b), n)
		}
		for i := range a {
			if int32(a[i]) != b[i] {
				t.Fatalf("value %d: %d vs %d", i, a[i], b[i])
			}
		}
	})
}
