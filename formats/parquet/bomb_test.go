package parquet_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/apache/iceberg-go"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	lab "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// bombPage is a file of one required long column whose values sit in a
// single data page, ready to have that page's body replaced.
type bombPage struct {
	values []int64
	md     format.FileMetaData
	header format.PageHeader
	body   []byte // the page as written
}

// bombSchema is the one column of bombPage files; optionalBombSchema is the
// same column optional, so that its pages have definition levels.
var (
	bombSchema         = iceberg.NewSchema(0, req(1, "x", iceberg.PrimitiveTypes.Int64))
	optionalBombSchema = iceberg.NewSchema(0, opt(1, "x", iceberg.PrimitiveTypes.Int64))
)

// newBombPage writes 60,000 small values (480,000 bytes, compressible, not
// a multiple of zstd's 128 KiB block) into one page compressed with codec.
func newBombPage(t *testing.T, codec string) *bombPage {
	return newBombPageOf(t, codec, bombSchema)
}

// newBombPageOf is newBombPage with the column of schema (bombSchema or
// optionalBombSchema).
func newBombPageOf(t *testing.T, codec string, schema *iceberg.Schema) *bombPage {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	st := schema.AsStruct()
	p := &bombPage{}
	recs := make([]*data.Record, 60000)
	for i := range recs {
		v := int64(r.IntN(256))
		p.values = append(p.values, v)
		recs[i] = rec(&st, v)
	}
	path := tempFile(t, "page.parquet")
	writeRecords(t, path, schema, map[string]string{
		lab.PropCompressionCodec: codec,
		lab.PropDictEnabled:      "false",
		lab.PropPageBytes:        "4194304",
	}, recs...)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(raw[len(raw)-8:]))
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw[len(raw)-8-n:len(raw)-8], &p.md); err != nil {
		t.Fatal(err)
	}
	cm := &p.md.RowGroups[0].Columns[0].MetaData
	at := int(cm.DataPageOffset)
	hl, err := footer.ScanStruct(raw[at:])
	if err != nil {
		t.Fatal(err)
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw[at:at+hl], &p.header); err != nil {
		t.Fatal(err)
	}
	if int64(hl)+int64(p.header.CompressedPageSize) != cm.TotalCompressedSize || !p.header.DataPageHeader.Valid {
		t.Fatalf("the chunk is not one v1 data page: header %d bytes, page %d, chunk %d", hl, p.header.CompressedPageSize, cm.TotalCompressedSize)
	}
	p.body = raw[at+hl : at+hl+int(p.header.CompressedPageSize)]
	return p
}

// with returns the file with body in place of the page's, its header's
// compressed size and checksum and the footer's offsets fixed to match (the page
// indexes are dropped rather than rewritten).
func (p *bombPage) with(t *testing.T, body []byte) []byte {
	t.Helper()
	h := p.header
	h.CompressedPageSize = int32(len(body))
	h.CRC = int32(crc32.ChecksumIEEE(body)) // a forger can compute it too
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	md := p.md
	md.RowGroups = []format.RowGroup{p.md.RowGroups[0]}
	rg := &md.RowGroups[0]
	rg.Columns = []format.ColumnChunk{rg.Columns[0]}
	cc := &rg.Columns[0]
	cc.FileOffset, cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 4, 0, 0, 0, 0
	cc.MetaData.DataPageOffset, cc.MetaData.DictionaryPageOffset, cc.MetaData.BloomFilterOffset, cc.MetaData.BloomFilterLength = 4, 0, 0, 0
	cc.MetaData.TotalCompressedSize = int64(len(hb) + len(body))
	rg.FileOffset, rg.TotalCompressedSize = 4, cc.MetaData.TotalCompressedSize
	fb, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte("PAR1"), hb...)
	out = append(out, body...)
	out = append(out, fb...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fb)))
	return append(out, "PAR1"...)
}

// read reads the file through the registry and returns its values and
// the bytes allocated meanwhile.
func (p *bombPage) read(t *testing.T, file []byte) ([]int64, uint64, error) {
	t.Helper()
	path := tempFile(t, "forged.parquet")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	recs, err := tryReadRecords(path, nil)
	runtime.ReadMemStats(&after)
	if err != nil && !strings.Contains(err.Error(), path) {
		t.Errorf("error %v does not name the file", err)
	}
	var got []int64
	for _, r := range recs {
		got = append(got, r.Get(0).(int64))
	}
	return got, after.TotalAlloc - before.TotalAlloc, err
}

// zstd frames, built by hand (RFC 8878).
const (
	zstdMagic = "\x28\xb5\x2f\xfd"
	zstdBlock = 128 << 10
)

// zstdRLE is a frame of n RLE blocks of 128 KiB zeros; with declare it
// states its content size, otherwise only a 128 KiB window.
func zstdRLE(n int, declare bool) []byte {
	b := []byte(zstdMagic)
	if declare {
		b = append(b, 0xa0) // single segment, 4-byte content size
		b = binary.LittleEndian.AppendUint32(b, uint32(n*zstdBlock))
	} else {
		b = append(b, 0x00, 7<<3) // no content size; window 2^(10+7)
	}
	for i := range n {
		h := zstdBlock<<3 | 1<<1 // RLE
		if i == n-1 {
			h |= 1 // last
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// zstdRaw is a frame holding data in one raw block, declaring its size.
func zstdRaw(data []byte) []byte {
	b := append([]byte(zstdMagic), 0x20, byte(len(data))) // single segment, 1-byte size
	h := len(data)<<3 | 1
	b = append(b, byte(h), byte(h>>8), byte(h>>16))
	return append(b, data...)
}

// zstdSkip is a skippable frame of n bytes.
func zstdSkip(n int) []byte {
	b := binary.LittleEndian.AppendUint32([]byte("\x5a\x2a\x4d\x18"), uint32(n))
	return append(b, make([]byte, n)...)
}

// zstdStream encodes data with a streaming encoder, whose frames do not
// state their content size.
func zstdStream(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, known := zstdFrameSize(buf.Bytes()); known {
		t.Fatal("the streaming encoder declared the content size")
	}
	return buf.Bytes()
}

func zstdFrameSize(b []byte) (uint64, bool) {
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return 0, false
	}
	return h.FrameContentSize, h.HasFCS
}

// gzipZeros is n gzip members of 1 MiB of zeros each (about 1 KiB).
func gzipZeros(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(buf.Bytes(), n)
}

// brotliZeros is n bytes of zeros compressed with brotli.
func brotliZeros(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, brotli.BestSpeed)
	chunk := make([]byte, 1<<20)
	for range n >> 20 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombAllocLimit bounds what reading a forged 480,000-byte page may
// allocate: a few times the page, never the bomb's gigabyte.
const bombAllocLimit = 64 << 20

// TestReadRefusesDecompressionBombs replaces a page's body with data that
// decompresses far beyond the page header's uncompressed size: the reader
// must refuse it before parquet-go decompresses it (parquet-go's codecs
// grow their output without a limit), allocating a bounded amount.
func TestReadRefusesDecompressionBombs(t *testing.T) {
	bombs := []struct {
		codec, name string
		body        func(t *testing.T) []byte
		want        string
	}{
		// 8192 RLE blocks of 128 KiB: 32 KiB that decode to 1 GiB.
		{"zstd", "frame without content size", func(*testing.T) []byte { return zstdRLE(8192, false) }, "decodes to more than the 480000 bytes"},
		// The first frame's size is honest, the next frame's is absent.
		{"zstd", "bomb after a small frame", func(*testing.T) []byte {
			return append(zstdRaw([]byte("sixteen bytes...")), zstdRLE(8192, false)...)
		}, "decodes to more than the 480000 bytes"},
		{"zstd", "bomb after a skippable frame", func(*testing.T) []byte {
			return append(zstdSkip(4), zstdRLE(8192, false)...)
		}, "decodes to more than the 480000 bytes"},
		// Each frame declares 128 KiB, within the page; 8192 of them 1 GiB.
		{"zstd", "frames declaring 1 GiB in all", func(*testing.T) []byte {
			return bytes.Repeat(zstdRLE(1, true), 8192)
		}, "ZSTD frames declare 1073741824 bytes, the page header 480000"},
		// Compressed blocks, as a streaming encoder writes them.
		{"zstd", "streamed frame of compressed blocks", func(t *testing.T) []byte { return zstdStream(t, make([]byte, 64<<20)) }, "decodes to more than the 480000 bytes"},
		// The window is the history a streaming decoder holds.
		{"zstd", "frame asking for a 1 GiB window", func(*testing.T) []byte {
			b := zstdRLE(8192, false)
			b[5] = 20 << 3 // 2^(10+20)
			return b
		}, "ZSTD data of 32774 bytes: window size exceeded"},
		// Malformed frames, after 72 bytes of skippable frame that keep the
		// page large enough for its declared size.
		{"zstd", "truncated frame", func(*testing.T) []byte { return append(zstdSkip(64), zstdRLE(4, false)[:12]...) }, "ZSTD frame at byte 72 ends inside its block header at byte 82"},
		{"zstd", "reserved block type", func(*testing.T) []byte {
			return append(zstdSkip(64), append(zstdRLE(1, false)[:6], 0x07, 0, 0)...)
		}, "ZSTD frame at byte 72 has a block of the reserved type at byte 78"},
		{"zstd", "block past the data", func(*testing.T) []byte {
			h := 100<<3 | 1 // a last raw block of 100 bytes
			return append(zstdSkip(64), append([]byte(zstdMagic+"\x00\x38"), byte(h), byte(h>>8), 0, 'a', 'b', 'c')...)
		}, "ZSTD frame at byte 72 has a block of 100 bytes (3 remain) at byte 81"},
		{"zstd", "stray bytes", func(*testing.T) []byte { return append(zstdSkip(64), "not a zstd frame"...) }, "no ZSTD frame at byte 72"},
		// 128 members of 1 MiB: 128 KiB that decode to 128 MiB.
		{"gzip", "members of zeros", func(t *testing.T) []byte { return gzipZeros(t, 128) }, "GZIP data of 134656 bytes decodes to more than the 480000 bytes"},
		{"brotli", "zeros", func(t *testing.T) []byte { return brotliZeros(t, 256<<20) }, "BROTLI data of 167444 bytes decodes to more than the 480000 bytes"},
	}
	pages := map[string]*bombPage{}
	for _, b := range bombs {
		t.Run(b.codec+"/"+b.name, func(t *testing.T) {
			p := pages[b.codec]
			if p == nil {
				p = newBombPage(t, b.codec)
				pages[b.codec] = p
			}
			body := b.body(t)
			_, alloc, err := p.read(t, p.with(t, body))
			t.Logf("%d-byte body: %d bytes allocated, %v", len(body), alloc, err)
			if err == nil || !strings.Contains(err.Error(), b.want) {
				t.Errorf("error %v, want one containing %q", err, b.want)
			}
			if alloc > bombAllocLimit {
				t.Errorf("reading allocated %d bytes, over %d", alloc, bombAllocLimit)
			}
		})
	}
}

// TestReadAcceptsUndeclaredSizes rewrites a page in forms a writer may
// legitimately produce, which the bomb check must let through.
func TestReadAcceptsUndeclaredSizes(t *testing.T) {
	p := newBombPage(t, "zstd")
	// parquet-go's zstd frames declare their size: the check decodes none.
	if size, known := zstdFrameSize(p.body); !known || size != uint64(p.header.UncompressedPageSize) {
		t.Fatalf("the written frame declares %d bytes (known: %v), the page %d", size, known, p.header.UncompressedPageSize)
	}
	plain, err := zstdDecodeAll(p.body)
	if err != nil {
		t.Fatal(err)
	}
	half := len(plain) / 2
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"as written", p.body},
		// Frames without a content size, whose blocks could hold more than
		// the page: the check decodes them to see they do not.
		{"streamed", zstdStream(t, plain)},
		{"streamed in two frames", append(zstdStream(t, plain[:half]), zstdStream(t, plain[half:])...)},
		{"skippable frames around", append(append(zstdSkip(0), zstdStream(t, plain)...), zstdSkip(3)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, alloc, err := p.read(t, p.with(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, p.values) {
				t.Errorf("read %d values, not the %d written", len(got), len(p.values))
			}
			t.Logf("%d bytes allocated", alloc)
		})
	}
}

// TestReadCompressedPages reads multi-page files of each codec that
// parquet-go reads without a bound of its own, so every page goes through
// the bomb check.
func TestReadCompressedPages(t *testing.T) {
	st := bombSchema.AsStruct()
	var recs []*data.Record
	for i := range 50000 {
		recs = append(recs, rec(&st, int64(i*i%1000)))
	}
	for _, codec := range []string{"zstd", "gzip", "brotli", "snappy", "lz4"} {
		t.Run(codec, func(t *testing.T) {
			path := tempFile(t, "pages.parquet")
			writeRecords(t, path, bombSchema, map[string]string{lab.PropCompressionCodec: codec, lab.PropPageBytes: "65536"}, recs...)
			got := readRecords(t, path, nil)
			assertRecords(t, got, recs)
		})
	}
}

func zstdDecodeAll(b []byte) ([]byte, error) {
	d, err := zstd.NewReader(nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.DecodeAll(b, nil)
}

// A page's levels are runs whose headers declare counts: six bytes can
// declare 2^30 levels, which parquet-go's level decoder would allocate
// (1 GiB) before anything compares them with the page's value count. The
// read refuses the page, allocating little more than the page, whether
// the levels sit in plain or compressed page data.
func TestReadRefusesLevelBombs(t *testing.T) {
	for _, codec := range []string{"uncompressed", "zstd", "snappy", "gzip"} {
		p := newBombPageOf(t, "uncompressed", optionalBombSchema)
		if !p.header.DataPageHeader.Valid {
			t.Fatal("not a v1 data page")
		}
		defs := binary.LittleEndian.Uint32(p.body)
		values := p.body[4+defs:]
		for _, tc := range []struct {
			name string
			runs []byte
			want string // "" when the runs are refused by parquet-go itself
		}{
			{"RLE run of 2^30", append(binary.AppendUvarint(nil, (1<<30)<<1), 1), "definition levels declare 1073741824 levels, the page has 60000 values"},
			{"RLE runs of 2^20 each", bytes.Repeat(append(binary.AppendUvarint(nil, (1<<20)<<1), 1), 1000), "definition levels declare 1048576000 levels"},
			{"bit-packed run of 2^27 groups", append(binary.AppendUvarint(nil, (1<<27)<<1|1), 0xff), ""},
		} {
			t.Run(codec+"/"+tc.name, func(t *testing.T) {
				plain := binary.LittleEndian.AppendUint32(nil, uint32(len(tc.runs)))
				plain = append(append(plain, tc.runs...), values...)
				body := compressPage(t, codec, plain)
				forged := *p
				forged.header.UncompressedPageSize = int32(len(plain))
				forged.md.RowGroups = append([]format.RowGroup(nil), p.md.RowGroups...)
				forged.md.RowGroups[0].Columns = append([]format.ColumnChunk(nil), p.md.RowGroups[0].Columns...)
				forged.md.RowGroups[0].Columns[0].MetaData.Codec = map[string]format.CompressionCodec{
					"uncompressed": format.Uncompressed, "zstd": format.Zstd, "snappy": format.Snappy, "gzip": format.Gzip}[codec]
				_, alloc, err := forged.read(t, forged.with(t, body))
				if alloc > 64<<20 {
					t.Errorf("reading the page allocated %d MiB", alloc>>20)
				}
				if err == nil {
					t.Fatal("forged levels read without an error")
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want one containing %q", err, tc.want)
				}
			})
		}
	}
}

// compressPage compresses a page's data with codec as a writer would.
func compressPage(t *testing.T, codec string, plain []byte) []byte {
	t.Helper()
	switch codec {
	case "uncompressed":
		return plain
	case "snappy":
		return snappy.Encode(nil, plain)
	case "zstd":
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		return enc.EncodeAll(plain, nil)
	case "gzip":
		var buf bytes.Buffer
		z := gzip.NewWriter(&buf)
		if _, err := z.Write(plain); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	t.Fatalf("codec %s", codec)
	return nil
}
