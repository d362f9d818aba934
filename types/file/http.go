package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
)

// openHTTP reads an http(s) reference: a Range request for a sized range,
// a plain GET for a whole object.
func (r *Resolver) openHTTP(ctx context.Context, loc *Location, off, n int64) (opened, error) {
	uri := loc.Written
	if n == 0 {
		// Zero bytes need no request; the range's position is not checked.
		return opened{rc: io.NopCloser(bytes.NewReader(nil))}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.URL.String(), nil)
	if err != nil {
		return opened{}, fmt.Errorf("FILE uri %q: %w", uri, err)
	}
	// The object's bytes, not a content-coded form of them.
	req.Header.Set("Accept-Encoding", "identity")
	if n > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	resp, err := r.client.Do(req)
	if err != nil {
		var v *Violation
		if errors.As(err, &v) { // a redirect the policy refuses
			return opened{}, violation(v.Rule, "uri", uri, "redirect to %q refused: %s", v.URI, v.Detail)
		}
		return opened{}, fmt.Errorf("FILE uri %q: %w", uri, err)
	}
	fail := func(e error) (opened, error) {
		resp.Body.Close()
		return opened{}, e
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return fail(fmt.Errorf("FILE uri %q: server sent Content-Encoding %q despite Accept-Encoding: identity", uri, ce))
	}
	etag := resp.Header.Get("ETag")
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if n < 0 {
			return fail(violation(RuleRangeNotHonored, "uri", uri, "server sent 206 to a request without Range"))
		}
		first, last, total, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err == nil && first == off && last < off+n-1 && total >= 0 && total < off+n {
			// Servers clamp a range that runs past the end.
			return fail(violation(RuleRangePastEnd, "size", uri, "range [%d, %d) runs past the object's end at %d", off, off+n, total))
		}
		if err != nil || first != off || last != off+n-1 {
			return fail(violation(RuleRangeNotHonored, "uri", uri, "asked for bytes %d-%d, server sent Content-Range %q", off, off+n-1, resp.Header.Get("Content-Range")))
		}
		return opened{rc: &exactReader{r: resp.Body, want: n, left: n, uri: uri, closer: resp.Body}, etag: etag}, nil
	case http.StatusOK:
		if n < 0 {
			if resp.ContentLength > r.maxSize {
				return fail(violation(RuleMaxSize, "uri", uri, "object is %d bytes, over the limit of %d", resp.ContentLength, r.maxSize))
			}
			return opened{rc: &capReader{rc: resp.Body, max: r.maxSize, uri: uri}, etag: etag}, nil
		}
		if off > 0 {
			// Skipping off bytes of a full download could cost anything.
			return fail(violation(RuleRangeNotHonored, "uri", uri, "server ignored Range bytes=%d-%d and sent the whole object", off, off+n-1))
		}
		if resp.ContentLength >= 0 && resp.ContentLength < n {
			return fail(violation(RuleRangePastEnd, "size", uri, "range [0, %d) runs past the object's end at %d", n, resp.ContentLength))
		}
		return opened{rc: &exactReader{r: resp.Body, want: n, left: n, uri: uri, closer: resp.Body}, etag: etag}, nil
	case http.StatusRequestedRangeNotSatisfiable:
		return fail(violation(RuleRangePastEnd, "size", uri, "server answered 416 to bytes=%d-%d (Content-Range %q)", off, off+n-1, resp.Header.Get("Content-Range")))
	case http.StatusNotFound, http.StatusGone:
		return fail(fmt.Errorf("FILE uri %q: HTTP %s: %w", uri, resp.Status, fs.ErrNotExist))
	default:
		return fail(fmt.Errorf("FILE uri %q: HTTP %s", uri, resp.Status))
	}
}

// parseContentRange reads "bytes first-last/total"; total is -1 for "*".
func parseContentRange(s string) (first, last, total int64, err error) {
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, 0, fmt.Errorf("Content-Range %q is not a byte range", s)
	}
	span, size, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, fmt.Errorf("Content-Range %q has no length", s)
	}
	a, b, ok := strings.Cut(span, "-")
	if !ok {
		return 0, 0, 0, fmt.Errorf("Content-Range %q has no span", s)
	}
	if first, err = strconv.ParseInt(a, 10, 64); err != nil {
		return 0, 0, 0, err
	}
	if last, err = strconv.ParseInt(b, 10, 64); err != nil {
		return 0, 0, 0, err
	}
	total = -1
	if size != "*" {
		if total, err = strconv.ParseInt(size, 10, 64); err != nil {
			return 0, 0, 0, err
		}
	}
	return first, last, total, nil
}
