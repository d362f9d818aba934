package parquet

import (
	"fmt"
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

// codecKey names one shared codec; level is -1 for the codec's default.
type codecKey struct {
	name  string
	level int
}

var sharedCodecs sync.Map // codecKey -> compress.Codec

// sharedCodec returns the process's codec for name at level, creating it on
// first use. name is lower case; an unknown name or a level the codec
// cannot take is an error naming the property.
func sharedCodec(name string, level int) (compress.Codec, error) {
	key := codecKey{name, level}
	switch name {
	case "zstd":
		if level >= 0 {
			// Many zstd levels map to one encoder level: share by that.
			key.level = int(kzstd.EncoderLevelFromZstd(level))
		}
	case "gzip":
		if level < -2 || level > 9 {
			return nil, fmt.Errorf("%s: gzip level %d is outside -2..9", PropCompressionLevel, level)
		}
	case "snappy", "lz4", "brotli", "uncompressed", "none":
		key.level = -1 // these take no level
	default:
		return nil, fmt.Errorf("%s: unsupported codec %q (want zstd, snappy, gzip, lz4, brotli or uncompressed)", PropCompressionCodec, name)
	}
	if c, ok := sharedCodecs.Load(key); ok {
		return c.(compress.Codec), nil
	}
	c, _ := sharedCodecs.LoadOrStore(key, newCodec(key))
	return c.(compress.Codec), nil
}

// newCodec builds the codec key names; sharedCodec has checked the key.
func newCodec(key codecKey) compress.Codec {
	if key.level == -1 {
		switch key.name {
		case "zstd":
			return &pq.Zstd
		case "gzip":
			return &pq.Gzip
		case "snappy":
			return &pq.Snappy
		case "lz4":
			return &pq.Lz4Raw
		case "brotli":
			return &pq.Brotli
		}
		return &pq.Uncompressed
	}
	switch key.name {
	case "zstd":
		return &zstd.Codec{Level: kzstd.EncoderLevel(key.level)}
	case "gzip":
		// -2 is gzip.HuffmanOnly.
		return &gzip.Codec{Level: key.level}
	}
	panic("newCodec: " + key.name + " takes no level") // sharedCodec keys these at -1
}
