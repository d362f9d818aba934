package httpio

import (
	"fmt"
	"strconv"
	"strings"
)

// parseContentRange reads a satisfied byte range "bytes first-last/total"
// (RFC 9110, 14.4); total is -1 for "*". Anything looser is an error: the
// value decides which bytes a reader takes for which offsets.
func parseContentRange(s string) (first, last, total int64, err error) {
	bad := func(why string) (int64, int64, int64, error) {
		return 0, 0, 0, fmt.Errorf("Content-Range %q: %s", s, why)
	}
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad("not a byte range")
	}
	span, size, ok := strings.Cut(rest, "/")
	if !ok {
		return bad("no complete length")
	}
	a, b, ok := strings.Cut(span, "-")
	if !ok {
		return bad("no range")
	}
	if first, ok = parseDigits(a); !ok {
		return bad("bad first byte position")
	}
	if last, ok = parseDigits(b); !ok {
		return bad("bad last byte position")
	}
	if last < first {
		return bad("last byte before first")
	}
	total = -1
	if size != "*" {
		if total, ok = parseDigits(size); !ok {
			return bad("bad complete length")
		}
		if last >= total {
			return bad("range past the complete length")
		}
	}
	return first, last, total, nil
}

// parseUnsatisfiedRange reads "bytes */total", what a 416 carries.
func parseUnsatisfiedRange(s string) (total int64, err error) {
	rest, ok := strings.CutPrefix(s, "bytes */")
	if !ok {
		return 0, fmt.Errorf("Content-Range %q: not an unsatisfied byte range", s)
	}
	if total, ok = parseDigits(rest); !ok {
		return 0, fmt.Errorf("Content-Range %q: bad complete length", s)
	}
	return total, nil
}

// parseDigits accepts only ASCII digits: strconv would also take a sign.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
