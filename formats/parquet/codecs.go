package parquet

import (
	"fmt"
	"strings"
	"sync"

	kzstd "github.com/klauspost/compress/zstd"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Writers share one codec per (codec, level) for the life of the process.
// parquet-go's codecs pool their encoders per codec value, and a zstd
// encoder allocates and zeroes a 16 MiB history window the first time it
// runs: with a codec per writer every file paid that again, about 40 ms
// per file on the lab's 2-core machine, a quarter of writing a 1M-row
// two-column file. At a codec's default level the shared value is
// parquet-go's own (parquet.Zstd, parquet.Gzip, ...), so this package, the
// VECTOR page writer and any code using parquet-go directly draw on one
// pool of encoders. The codecs are safe for concurrent use.

// codecKey names a shared codec at a level other than the default.
type codecKey struct {
	name  string
	level int
}

var leveledCodecs sync.Map // codecKey -> compress.Codec

// sharedCodec returns the process's codec for name at level (-1 for the
// default), creating it on first use. name is lower case; an unknown name
// or a level the codec cannot take is an error naming the property.
func sharedCodec(name string, level int) (compress.Codec, error) {
	switch name {
	case "zstd":
		if level < 0 {
			return &pq.Zstd, nil
		}
		// Many zstd levels map to one encoder level: share by that.
		l := kzstd.EncoderLevelFromZstd(level)
		if l == zstd.DefaultLevel {
			return &pq.Zstd, nil
		}
		return leveledCodec(codecKey{name, int(l)}, func() compress.Codec { return &zstd.Codec{Level: l} }), nil
	case "gzip":
		if level < -2 || level > 9 {
			return nil, fmt.Errorf("%s: gzip level %d is outside -2..9", PropCompressionLevel, level)
		}
		if level == gzip.DefaultCompression {
			return &pq.Gzip, nil
		}
		// -2 is gzip.HuffmanOnly.
		return leveledCodec(codecKey{name, level}, func() compress.Codec { return &gzip.Codec{Level: level} }), nil
	case "snappy": // snappy, lz4 and brotli take no level
		return &pq.Snappy, nil
	case "lz4":
		return &pq.Lz4Raw, nil
	case "brotli":
		return &pq.Brotli, nil
	case "uncompressed", "none":
		return &pq.Uncompressed, nil
	}
	return nil, fmt.Errorf("%s: unsupported codec %q (want %s)", PropCompressionCodec, name, strings.Join(CompressionCodecs, ", "))
}

// CompressionCodecs are the names write.parquet.compression-codec takes.
var CompressionCodecs = []string{"zstd", "snappy", "gzip", "lz4", "brotli", "uncompressed"}

// leveledCodec is the codec under key, made by newCodec on first use.
func leveledCodec(key codecKey, newCodec func() compress.Codec) compress.Codec {
	if c, ok := leveledCodecs.Load(key); ok {
		return c.(compress.Codec)
	}
	c, _ := leveledCodecs.LoadOrStore(key, newCodec())
	return c.(compress.Codec)
}
