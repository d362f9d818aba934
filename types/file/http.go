package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// openHTTP reads an http(s) reference: a Range request for a sized range,
// a plain GET for a whole object.
func (r *Resolver) openHTTP(ctx context.Context, loc *Location, off, n int64) (opened, error) {
	uri := loc.Written
	if n == 0 {
		// Zero bytes need no request; the range's position is not checked.
		return opened{rc: io.NopCloser(bytes.NewReader(nil))}, nil
	}
	// The request lives until its body is closed; a timeout that fires
	// cancels it with a cause that says which one it was.
	ctx, cancel := context.WithCancelCause(ctx)
	d := newHTTPDeadlines(r.timeouts, cancel)
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, d.trace()), http.MethodGet, loc.URL.String(), nil)
	if err != nil {
		cancel(nil)
		return opened{}, fmt.Errorf("FILE uri %q: %w", uri, err)
	}
	// The object's bytes, not a content-coded form of them.
	req.Header.Set("Accept-Encoding", "identity")
	if n > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	resp, err := r.client.Do(req)
	d.stop()
	if err != nil {
		cancel(nil)
		if te := timeoutOf(ctx); te != nil {
			return opened{}, fmt.Errorf("FILE uri %q: %w", uri, te)
		}
		var v *Violation
		if errors.As(err, &v) { // a redirect the policy refuses
			return opened{}, violation(v.Rule, "uri", uri, "redirect to %q refused: %s", v.URI, v.Detail)
		}
		return opened{}, fmt.Errorf("FILE uri %q: %w", uri, err)
	}
	resp.Body = &httpBody{body: resp.Body, uri: uri, want: resp.ContentLength, ctx: ctx, cancel: cancel, d: d}
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

// httpLimits are a resolver's http(s) timeouts.
type httpLimits struct{ connect, header, idle time.Duration }

// httpTimeout is the cause a request is cancelled with when one of the
// resolver's timeouts fires, so the error can say which one did.
type httpTimeout struct {
	name   string // connect, header or idle
	limit  time.Duration
	detail string
}

func (e *httpTimeout) Error() string {
	return fmt.Sprintf("%s timeout of %s: %s", e.name, e.limit, e.detail)
}

// Timeout marks the error as a timeout, as net.Error does.
func (e *httpTimeout) Timeout() bool { return true }

func timeoutOf(ctx context.Context) *httpTimeout {
	var te *httpTimeout
	if errors.As(context.Cause(ctx), &te) {
		return te
	}
	return nil
}

// httpDeadlines arms the timeouts around one request. The transport's
// trace hooks start the connect timer when it looks for a connection and the
// header timer once the request is written; the body arms the idle timer
// around each read. The hooks run on the transport's goroutines, so the
// timers are made once and only reset and stopped.
type httpDeadlines struct {
	limits                httpLimits
	connect, header, idle *time.Timer
	host                  atomic.Pointer[string]
	read                  atomic.Int64
}

func newHTTPDeadlines(limits httpLimits, cancel context.CancelCauseFunc) *httpDeadlines {
	d := &httpDeadlines{limits: limits}
	timer := func(name string, limit time.Duration, detail func() string) *time.Timer {
		t := time.AfterFunc(limit, func() { cancel(&httpTimeout{name: name, limit: limit, detail: detail()}) })
		t.Stop()
		return t
	}
	d.connect = timer("connect", limits.connect, func() string {
		if h := d.host.Load(); h != nil {
			return "no connection to " + *h
		}
		return "no connection"
	})
	d.header = timer("header", limits.header, func() string { return "no response headers after the request was sent" })
	d.idle = timer("idle", limits.idle, func() string { return fmt.Sprintf("no body bytes after %d", d.read.Load()) })
	return d
}

func (d *httpDeadlines) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn: func(hostPort string) {
			d.host.Store(&hostPort)
			d.header.Stop() // a redirect's next hop
			d.connect.Reset(d.limits.connect)
		},
		GotConn:      func(httptrace.GotConnInfo) { d.connect.Stop() },
		WroteRequest: func(httptrace.WroteRequestInfo) { d.header.Reset(d.limits.header) },
	}
}

func (d *httpDeadlines) stop() {
	d.connect.Stop()
	d.header.Stop()
	d.idle.Stop()
}

// httpBody reads a response body under the idle timeout, and names the uri
// in its errors: a body the server cuts short says how far it got instead
// of a bare unexpected EOF.
type httpBody struct {
	body   io.ReadCloser
	uri    string
	want   int64 // Content-Length, -1 when not sent
	ctx    context.Context
	cancel context.CancelCauseFunc
	d      *httpDeadlines
}

func (b *httpBody) Read(p []byte) (int, error) {
	b.d.idle.Reset(b.d.limits.idle)
	n, err := b.body.Read(p)
	b.d.idle.Stop()
	read := b.d.read.Add(int64(n))
	switch {
	case err == nil || err == io.EOF:
		return n, err
	case timeoutOf(b.ctx) != nil:
		return n, fmt.Errorf("FILE uri %q: %w", b.uri, timeoutOf(b.ctx))
	case errors.Is(err, io.ErrUnexpectedEOF) && b.want >= 0:
		return n, fmt.Errorf("FILE uri %q: the connection closed after %d of the %d bytes the server announced: %w", b.uri, read, b.want, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return n, fmt.Errorf("FILE uri %q: the connection closed after %d bytes: %w", b.uri, read, err)
	}
	return n, fmt.Errorf("FILE uri %q: reading the body after %d bytes: %w", b.uri, read, err)
}

func (b *httpBody) Close() error {
	b.d.stop()
	err := b.body.Close()
	b.cancel(nil)
	return err
}
