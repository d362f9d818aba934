package colmetrics

import (
	"unicode/utf8"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/registry"
)

// truncateBounds applies a truncate(N) mode to serialized bounds. As in
// Iceberg Java's ParquetMetrics, only string and binary bounds are truncated;
// every other type, fixed included, keeps its full value. hasUpper is false
// when no upper bound of at most N units exists.
func truncateBounds(t iceberg.PrimitiveType, mode registry.MetricsMode, lower, upper []byte) (lo, hi []byte, hasUpper bool) {
	if mode.Kind != registry.MetricsTruncate {
		return lower, upper, true
	}
	switch t.(type) {
	case iceberg.StringType:
		hi, hasUpper = truncateStringUpper(upper, mode.Length)
		return truncateStringLower(lower, mode.Length), hi, hasUpper
	case iceberg.BinaryType:
		hi, hasUpper = truncateBinaryUpper(upper, mode.Length)
		return truncateBinaryLower(lower, mode.Length), hi, hasUpper
	}
	return lower, upper, true
}

// prefixLen is the byte length of the first n code points of s.
func prefixLen(s []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRune(s[i:])
		i += size
	}
	return i
}

// truncateStringLower keeps the first n code points: a prefix sorts first.
func truncateStringLower(s []byte, n int) []byte {
	return s[:prefixLen(s, n)]
}

// truncateStringUpper keeps the first n code points and increments the last
// one that can be, dropping those after it (UnicodeUtil.truncateStringMax).
// Incrementing skips the surrogates, which are not scalar values and have no
// UTF-8 encoding; U+10FFFF cannot be incremented. ok is false when no code
// point can be.
func truncateStringUpper(s []byte, n int) (upper []byte, ok bool) {
	end := prefixLen(s, n)
	if end == len(s) {
		return s, true
	}
	prefix := s[:end]
	for len(prefix) > 0 {
		r, size := utf8.DecodeLastRune(prefix)
		prefix = prefix[:len(prefix)-size]
		next := r + 1
		if next == 0xD800 {
			next = 0xE000
		}
		if next <= utf8.MaxRune {
			return utf8.AppendRune(append([]byte{}, prefix...), next), true
		}
	}
	return nil, false
}

// truncateBinaryLower keeps the first n bytes.
func truncateBinaryLower(b []byte, n int) []byte {
	return b[:min(n, len(b))]
}

// truncateBinaryUpper keeps the first n bytes and increments the last byte
// that is not 0xFF, dropping those after it (BinaryUtil.truncateBinaryMax).
// ok is false when all n bytes are 0xFF.
func truncateBinaryUpper(b []byte, n int) (upper []byte, ok bool) {
	if len(b) <= n {
		return b, true
	}
	for i := n - 1; i >= 0; i-- {
		if b[i] != 0xFF {
			out := append([]byte{}, b[:i+1]...)
			out[i]++
			return out, true
		}
	}
	return nil, false
}
