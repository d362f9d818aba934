package httpio

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// pattern is n bytes that differ at nearby offsets, so a read from the
// wrong place shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = patternByte(int64(i))
	}
	return b
}

func patternByte(i int64) byte { return byte(i*7 + i>>8 + i>>16) }

// object is a mutable remote object served with http.ServeContent, which
// implements HEAD, ranges and If-Range the way net/http does.
type object struct {
	mu      sync.Mutex
	data    []byte
	etag    string
	modTime time.Time
}

func (o *object) set(data []byte, etag string, modTime time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.data, o.etag, o.modTime = data, etag, modTime
}

func (o *object) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	data, etag, mod := o.data, o.etag, o.modTime
	o.mu.Unlock()
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(w, r, "", mod, bytes.NewReader(data))
}

// request is what a test server saw of one request.
type request struct {
	Method, Range, IfRange, Auth string
}

func (r request) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Method, r.Range, r.IfRange))
}

type requestLog struct {
	mu   sync.Mutex
	reqs []request
}

func (l *requestLog) all() []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]request(nil), l.reqs...)
}

// serve starts h on a test server that logs each request. Handlers that
// block must also return on r.Context().Done(): Close waits for them.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *requestLog) {
	t.Helper()
	log := &requestLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.mu.Lock()
		log.reqs = append(log.reqs, request{r.Method, r.Header.Get("Range"), r.Header.Get("If-Range"), r.Header.Get("Authorization")})
		log.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, log
}

// wantErr checks that err wraps target (when set) and its text has every
// one of parts.
func wantErr(t *testing.T, err error, target error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one wrapping %v with %q", target, parts)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func mustOpen(t *testing.T, fsys *FS, url string) *File {
	t.Helper()
	f, err := fsys.OpenContext(t.Context(), url)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
