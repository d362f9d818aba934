package arrow

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/internal/sample"
)

// TestArrowBoundedCodecs checks that arrow-go's snappy and zstd codecs, as
// this package re-registers them, decode valid pages as before and refuse a
// block that declares more bytes than the page holds without allocating them.
func TestArrowBoundedCodecs(t *testing.T) {
	const declared = 16 << 20
	big := bytes.Repeat([]byte{0}, declared)
	small := []byte(strings.Repeat("coltype lab ", 100))
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()

	tests := []struct {
		name        string
		codec       compress.Compression
		encode      func([]byte) []byte
		wantRefusal string
	}{
		{"snappy", compress.Codecs.Snappy, func(b []byte) []byte { return snappy.Encode(nil, b) }, "snappy: block decodes to 16777216 bytes, the page holds 1200"},
		{"zstd", compress.Codecs.Zstd, func(b []byte) []byte { return enc.EncodeAll(b, nil) }, "the page holds 1200 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := compress.GetCodec(tc.codec)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := c.(arrowBoundedCodec); !ok {
				t.Fatalf("codec %s is %T, not the bounded one", tc.codec, c)
			}
			if _, ok := c.(compress.StreamingCodec); !ok {
				t.Fatalf("bounded codec %s lost the streaming API", tc.codec)
			}

			// A valid page decodes as before.
			dst := make([]byte, len(small))
			got, err := compress.Decode(c, dst, tc.encode(small))
			if err != nil || !bytes.Equal(got, small) {
				t.Fatalf("valid page: %v, equal %t", err, bytes.Equal(got, small))
			}
			// So does encoding, which is delegated.
			if back, err := compress.Decode(c, make([]byte, len(small)), c.Encode(nil, small)); err != nil || !bytes.Equal(back, small) {
				t.Fatalf("encode round trip: %v", err)
			}

			// A block that claims 16 MiB for a 1200-byte page is refused cheaply.
			block := tc.encode(big)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = compress.Decode(c, make([]byte, len(small)), block)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.wantRefusal) {
				t.Fatalf("oversized block: error %v, want %q", err, tc.wantRefusal)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > declared/4 {
				t.Errorf("refusing the block allocated %d bytes", alloc)
			}
		})
	}
}

// TestArrowFooterHostileLengths checks that the footer codec the arrow path
// opens through refuses containers and strings the bytes cannot hold, before
// thrift sizes anything by them.
func TestArrowFooterHostileLengths(t *testing.T) {
	sc := sample.Schema()
	batch := arrowBatchOf(t, sc, sample.Records(sc, 0, 3)...)
	defer batch.Release()
	path := arrowTempPath(t, "ok.parquet")
	arrowWriteFile(t, path, sc, nil, batch)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(raw[len(raw)-8:]))
	valid := raw[len(raw)-8-n : len(raw)-8]

	deep := bytes.Repeat([]byte{0x1c}, 100) // struct field in struct field ...
	tests := []struct {
		name    string
		footer  []byte
		wantErr string
	}{
		{"valid footer", valid, ""},
		{"100M row groups declared", []byte{0x49, 0xfc, 0x80, 0xc2, 0xd7, 0x2f}, "container of 100000000 entries declared, 0 bytes left"},
		{"huge binary", []byte{0x18, 0xff, 0xff, 0xff, 0xff, 0x07}, "2147483647 bytes declared"},
		{"map of huge size", []byte{0x1b, 0xff, 0xff, 0xff, 0x0f, 0x88}, "container of 33554431 entries declared"},
		{"nesting", deep, "nesting deeper than 64"},
		{"truncated", valid[:len(valid)/2], ""},
		{"unknown type", []byte{0x1e}, "unknown compact type 14"},
		{"overlong varint", []byte{0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "varint longer than 10 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := footer.Decode(tc.footer)
			switch {
			case tc.name == "valid footer":
				if err != nil {
					t.Fatal(err)
				}
			case tc.name == "truncated":
				if err == nil {
					t.Fatal("a truncated footer passed")
				}
			case err == nil:
				t.Fatalf("hostile footer decoded; want an error like %q", tc.wantErr)
			}
		})
	}
}
