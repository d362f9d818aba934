package vectorcol

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdZeros is a hand-built zstd frame of n RLE blocks of 128 KiB zeros
// (4 bytes each); with declare the frame states its content size.
func zstdZeros(n int, declare bool) []byte {
	b := []byte("\x28\xb5\x2f\xfd")
	if declare {
		b = append(b, 0xa0) // single segment, 4-byte content size
		b = binary.LittleEndian.AppendUint32(b, uint32(n<<17))
	} else {
		b = append(b, 0x00, 7<<3) // no content size; a 128 KiB window
	}
	for i := range n {
		h := 1<<20 | 1<<1 // 128 KiB, RLE
		if i == n-1 {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// TestDecompressBoundedByPage checks that a zstd page decompresses to its
// header's size or fails, allocating in proportion to that size, whatever
// the frames hold: 32 KiB of RLE blocks expand to 1 GiB.
func TestDecompressBoundedByPage(t *testing.T) {
	const size = 64 << 10
	plain := bytes.Repeat([]byte("vector page "), size/12+1)[:size]
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer // a streaming encoder leaves the size out
	sw, err := zstd.NewWriter(&streamed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		src  []byte
		want string // "": decodes to plain
	}{
		{"declared size", enc.EncodeAll(plain, nil), ""},
		{"streamed", streamed.Bytes(), ""},
		{"1 GiB without a content size", zstdZeros(8192, false), "data exceeds the 65536 bytes the header says"},
		{"1 GiB declared", zstdZeros(8192, true), "data exceeds the 65536 bytes the header says"},
		{"one block too many", zstdZeros(size>>17+1, false), "data exceeds the 65536 bytes the header says"},
		{"truncated", zstdZeros(2, false)[:12], "ZSTD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bufs := range []*pageBuffers{nil, newPageBuffers(1)} {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				out, err := pages.Decompress(format.Zstd, tc.src, size, bufs.get)
				runtime.ReadMemStats(&after)
				alloc := after.TotalAlloc - before.TotalAlloc
				switch {
				case tc.want == "" && err != nil:
					t.Fatal(err)
				case tc.want == "" && !bytes.Equal(out, plain):
					t.Fatalf("decoded %d bytes, not the page", len(out))
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				t.Logf("%d bytes allocated", alloc)
				// The page buffer, a block past it, and the decoder's state.
				if limit := uint64(4*size + 1<<20); alloc > limit {
					t.Errorf("allocated %d bytes for a %d-byte page, over %d", alloc, size, limit)
				}
			}
		})
	}
}
