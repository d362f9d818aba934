package pages

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// plainValues is a PLAIN BYTE_ARRAY values section: each value with a
// length prefix, the last one's declared as last when last >= 0.
func plainValues(values []string, last int) []byte {
	var b []byte
	for i, v := range values {
		n := uint32(len(v))
		if i == len(values)-1 && last >= 0 {
			n = uint32(last)
		}
		b = binary.LittleEndian.AppendUint32(b, n)
		b = append(b, v...)
	}
	return b
}

// byteArrayChunk is a column chunk of one data page holding values, with
// definition levels (all defined) when maxDef is 1, as a v1 or a v2 page,
// zstd-compressed or not.
func byteArrayChunk(t *testing.T, values []byte, n, maxDef int, v2, compress bool) ([]byte, *format.ColumnMetaData) {
	t.Helper()
	var levels []byte
	if maxDef > 0 {
		defs := bytes.Repeat([]byte{1}, n)
		levels = encodeLevels(t, defs, 1)
	}
	codec := format.Uncompressed
	squeeze := func(b []byte) []byte { return b }
	if compress {
		codec = format.Zstd
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		squeeze = func(b []byte) []byte { return enc.EncodeAll(b, nil) }
	}
	h := format.PageHeader{Type: format.DataPage}
	var body []byte
	if v2 {
		h.Type = format.DataPageV2
		body = append(append([]byte{}, levels...), squeeze(values)...)
		h.UncompressedPageSize = int32(len(levels) + len(values))
		h.DataPageHeaderV2 = thrift.New(format.DataPageHeaderV2{
			NumValues: int32(n), NumRows: int32(n), Encoding: format.Plain,
			DefinitionLevelsByteLength: int32(len(levels)),
		})
	} else {
		var data []byte
		if maxDef > 0 {
			data = binary.LittleEndian.AppendUint32(data, uint32(len(levels)))
			data = append(data, levels...)
		}
		data = append(data, values...)
		body = squeeze(data)
		h.UncompressedPageSize = int32(len(data))
		h.DataPageHeader = thrift.New(format.DataPageHeader{
			NumValues: int32(n), Encoding: format.Plain,
			DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE,
		})
	}
	h.CompressedPageSize = int32(len(body))
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	chunk := append(hb, body...)
	return chunk, &format.ColumnMetaData{
		Type: format.ByteArray, Codec: codec, NumValues: int64(n),
		TotalCompressedSize: int64(len(chunk)), TotalUncompressedSize: int64(len(hb)) + int64(h.UncompressedPageSize),
	}
}

// TestCheckChunkRefusesByteArraysPastTheirPage: a PLAIN BYTE_ARRAY value
// whose declared length runs past the page's values is refused, in v1 and
// v2 pages, required and optional, compressed or not; one that ends at the
// values' end, and empty values, pass. parquet-go's decoder would hand the
// bytes past the page out as the value.
func TestCheckChunkRefusesByteArraysPastTheirPage(t *testing.T) {
	values := []string{"abc", "", "a longer value", "xy"}
	for _, v2 := range []bool{false, true} {
		for _, maxDef := range []int{0, 1} {
			for _, compress := range []bool{false, true} {
				for _, tc := range []struct {
					last int
					bad  bool
				}{{-1, false}, {2, false}, {3, true}, {1 << 20, true}, {-1 + 1<<31, true}} {
					chunk, md := byteArrayChunk(t, plainValues(values, tc.last), len(values), maxDef, v2, compress)
					err := CheckChunk(bytes.NewReader(chunk), md, 0, maxDef)
					name := func() string {
						return strings.Join([]string{map[bool]string{false: "v1", true: "v2"}[v2], map[int]string{0: "required", 1: "optional"}[maxDef], map[bool]string{false: "plain", true: "zstd"}[compress]}, " ")
					}
					switch {
					case tc.bad && err == nil:
						t.Errorf("%s, last value declaring %d of 2 bytes: accepted", name(), tc.last)
					case !tc.bad && err != nil:
						t.Errorf("%s, last value declaring %d: %v", name(), tc.last, err)
					case tc.bad && !strings.Contains(err.Error(), "byte-array value at byte"):
						t.Errorf("%s: refused for another reason: %v", name(), err)
					}
				}
			}
		}
	}
	// A dictionary's values go through the same decoder.
	for _, tc := range []struct {
		last int
		bad  bool
	}{{-1, false}, {3, true}} {
		section := plainValues(values, tc.last)
		h := format.PageHeader{Type: format.DictionaryPage, UncompressedPageSize: int32(len(section)), CompressedPageSize: int32(len(section)),
			DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(len(values)), Encoding: format.Plain})}
		hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			t.Fatal(err)
		}
		chunk := append(hb, section...)
		md := &format.ColumnMetaData{Type: format.ByteArray, Codec: format.Uncompressed, NumValues: int64(len(values)), TotalCompressedSize: int64(len(chunk))}
		if err := CheckChunk(bytes.NewReader(chunk), md, 0, 1); (err != nil) != tc.bad {
			t.Errorf("dictionary, last value declaring %d: %v", tc.last, err)
		}
	}
}
