package pages

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// zstdBlockTypes walks the blocks of one frame written by
// AppendZstdLiterals and counts them by Block_Type.
func zstdBlockTypes(t *testing.T, frame []byte) (raw, rle, compressed int) {
	t.Helper()
	if len(frame) < 10 || binary.LittleEndian.Uint32(frame) != zstdMagic {
		t.Fatalf("no zstd frame header: % x", frame[:min(len(frame), 10)])
	}
	off := 4 + 2 + 4 // magic, descriptor and window, 4-byte content size
	if frame[4]>>6 == 3 {
		off += 4
	}
	for {
		h := uint32(frame[off]) | uint32(frame[off+1])<<8 | uint32(frame[off+2])<<16
		last, typ, size := h&1 == 1, int(h>>1&3), int(h>>3)
		off += 3
		switch typ {
		case blockRaw:
			raw++
			off += size
		case blockRLE:
			rle++
			off++
		case blockCompressed:
			compressed++
			off += size
		default:
			t.Fatalf("reserved block type at offset %d", off-3)
		}
		if last {
			if off != len(frame) {
				t.Fatalf("last block ends at %d of %d bytes", off, len(frame))
			}
			return
		}
	}
}

// splitFloats is BYTE_STREAM_SPLIT of n float32 values with a per-column
// scale, like embeddings: skewed exponent bytes, near-uniform low mantissa.
func splitFloats(n, dim int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	vals := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := float32(r.NormFloat64() * math.Exp(-2*float64(i%dim)/float64(dim)))
		binary.LittleEndian.PutUint32(vals[4*i:], math.Float32bits(v))
	}
	out := make([]byte, len(vals))
	EncodeBSS(out, vals, 4)
	return out
}

func TestAppendZstdLiterals(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	skewed := make([]byte, 300<<10)
	for i := range skewed {
		skewed[i] = byte(r.ExpFloat64() * 3)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, tc := range []struct {
		name                 string
		src                  []byte
		cuts                 []int
		raw, rle, compressed int
	}{
		{"empty", nil, nil, 1, 0, 0},
		{"small", []byte("too small to entropy-code"), nil, 1, 0, 0},
		{"one byte value", bytes.Repeat([]byte{0x3f}, 200<<10), nil, 0, 2, 0},
		// Uniform bytes save nothing: stored raw, as PLAIN floats' would be.
		{"uniform", random, nil, 3, 0, 0},
		{"skewed", skewed, nil, 0, 0, 3},
		{"exactly one block", skewed[:zstdBlockMax], nil, 0, 0, 1},
		{"one block and a byte", skewed[:zstdBlockMax+1], nil, 1, 0, 1},
		// Blocks end at the cuts, past ones and ones beyond src ignored.
		{"cuts", skewed[:100<<10], []int{0, 2000, 2000, 50 << 10, 200 << 10}, 0, 0, 3},
		{"split floats", splitFloats(100_000, 96, 1), []int{100_000, 200_000, 300_000}, -1, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("kept")
			frame, err := AppendZstdLiterals(bytes.Clone(prefix), tc.src, tc.cuts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(frame, prefix) {
				t.Fatal("dst's bytes were not kept")
			}
			frame = frame[len(prefix):]
			got, err := dec.DecodeAll(frame, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.src) {
				t.Fatalf("decoded %d bytes, not the %d written", len(got), len(tc.src))
			}
			if err := checkZstd(frame, int64(len(tc.src))); err != nil {
				t.Fatalf("the page stack's pre-read check refuses the frame: %v", err)
			}
			raw, rle, comp := zstdBlockTypes(t, frame)
			if tc.raw >= 0 && (raw != tc.raw || rle != tc.rle || comp != tc.compressed) {
				t.Fatalf("blocks raw %d, RLE %d, compressed %d; want %d, %d, %d", raw, rle, comp, tc.raw, tc.rle, tc.compressed)
			}
			if tc.name == "split floats" {
				// The exponent and high mantissa streams are coded, the low
				// mantissa stream stays raw, and the whole is smaller than
				// klauspost's zstd at its default level.
				enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
				general := len(enc.EncodeAll(tc.src, nil))
				if raw == 0 || comp == 0 || len(frame) >= general {
					t.Fatalf("split floats: raw %d, compressed %d blocks, %d bytes against zstd's %d", raw, comp, len(frame), general)
				}
				t.Logf("split floats: %.4f of raw (zstd default level %.4f); %d raw and %d coded blocks",
					float64(len(frame))/float64(len(tc.src)), float64(general)/float64(len(tc.src)), raw, comp)
			}
		})
	}
}

// libzstd, the reference decoder (DuckDB's and arrow-rs's), reads the
// frames too. The zstd program is part of the machine, not of the
// repository's peers, so the test skips without it.
func TestAppendZstdLiteralsLibzstd(t *testing.T) {
	path, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("no zstd program to decode with libzstd")
	}
	src := splitFloats(60_000, 768, 2)
	frame, err := AppendZstdLiterals(nil, src, []int{len(src) / 4, len(src) / 2, len(src) / 4 * 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(frame)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd -d: %v", err)
	}
	if !bytes.Equal(got, src) {
		t.Fatalf("libzstd decodes %d bytes, not the %d written", len(got), len(src))
	}
}

func FuzzZstdLiterals(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{1, 2, 3, 1, 1, 1, 0}, 400))
	f.Add(splitFloats(1000, 16, 3))
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		q := len(src) / 4
		frame, err := AppendZstdLiterals(nil, src, []int{q, 2 * q, 3 * q}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.DecodeAll(frame, nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("round trip of %d bytes: %v", len(src), err)
		}
	})
}
