package parquet

import (
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

func TestSharedCodecIsSharedPerLevel(t *testing.T) {
	get := func(name string, level int) any {
		t.Helper()
		c, err := sharedCodec(name, level)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if get("zstd", -1) != any(&pq.Zstd) || get("gzip", -1) != any(&pq.Gzip) {
		t.Error("the default levels do not share parquet-go's own codecs")
	}
	// zstd levels 3 and 4 are one encoder level, SpeedDefault; 1 is SpeedFastest.
	if get("zstd", 3) != get("zstd", 4) {
		t.Error("zstd levels 3 and 4 did not share a codec")
	}
	if get("zstd", 1) == get("zstd", 3) {
		t.Error("zstd levels 1 and 3 shared a codec")
	}
	if l := get("zstd", 1).(*zstd.Codec).Level; l != zstd.SpeedFastest {
		t.Errorf("zstd level 1 encodes at %v, want SpeedFastest", l)
	}
	if l := get("gzip", -2).(*gzip.Codec).Level; l != gzip.HuffmanOnly {
		t.Errorf("gzip level -2 is %d, want HuffmanOnly", l)
	}
	if l := get("gzip", -1).(*gzip.Codec).Level; l != gzip.DefaultCompression {
		t.Errorf("gzip without a level is %d, want DefaultCompression", l)
	}
	if get("snappy", 5) != get("snappy", -1) {
		t.Error("snappy, which takes no level, got a codec per level")
	}
}

func TestSharedCodecRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level int
		want  string
	}{
		{"gzip", 10, "gzip level 10 is outside -2..9"},
		{"gzip", -3, "gzip level -3 is outside -2..9"},
		{"lzo", -1, `unsupported codec "lzo"`},
	} {
		_, err := sharedCodec(tc.name, tc.level)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s level %d: error %v, want %q", tc.name, tc.level, err, tc.want)
		}
	}
}
