package file

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testServer serves digits on 127.0.0.1 with Range support and an ETag,
// plus a few misbehaving paths, and counts requests.
type testServer struct {
	*httptest.Server
	hits atomic.Int64
	host string
}

func newTestServer(t *testing.T, redirectTo string) *testServer {
	t.Helper()
	s := &testServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/obj.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1-digits"`)
		http.ServeContent(w, r, "obj.bin", time.Time{}, strings.NewReader(digits))
	})
	mux.HandleFunc("/no-range.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(digits)) // ignores Range
	})
	mux.HandleFunc("/chunked.bin", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 4; i++ { // no Content-Length
			w.Write([]byte(digits))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/gzip.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write([]byte("not really gzip"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, redirectTo, http.StatusFound)
	})
	mux.HandleFunc("/redirect-local", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/obj.bin", http.StatusFound)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	s.host = strings.TrimPrefix(s.URL, "http://")
	if !strings.HasPrefix(s.host, "127.0.0.1:") {
		t.Fatalf("test server is not on 127.0.0.1: %s", s.URL)
	}
	return s
}

func TestResolveHTTP(t *testing.T) {
	other := newTestServer(t, "")
	srv := newTestServer(t, other.URL+"/obj.bin")
	r := newTestResolver(t, Config{Schemes: []string{"http"}, HTTPHosts: []string{srv.host}, BaseLocation: srv.URL, VerifyChecksums: true, MaxSize: 64})
	u := func(p string) *string { return Ptr(srv.URL + p) }
	tests := []struct {
		name string
		v    *Value
		want string
		rule Rule
	}{
		{name: "whole object", v: &Value{URI: u("/obj.bin")}, want: digits},
		{name: "relative to the base", v: &Value{URI: Ptr("obj.bin"), Size: Ptr[int64](3)}, want: "012"},
		{name: "prefix with Range", v: &Value{URI: u("/obj.bin"), Size: Ptr[int64](4)}, want: "0123"},
		{name: "range with Range", v: &Value{URI: u("/obj.bin"), Offset: Ptr[int64](10), Size: Ptr[int64](5)}, want: "abcde"},
		{name: "zero bytes, no request", v: &Value{URI: u("/obj.bin"), Offset: Ptr[int64](3), Size: Ptr[int64](0)}, want: ""},
		{name: "etag matches", v: &Value{URI: u("/obj.bin"), Checksum: Ptr("ETAG:v1-digits")}, want: digits},
		{name: "quoted etag matches", v: &Value{URI: u("/obj.bin"), Checksum: Ptr(`ETAG:"v1-digits"`)}, want: digits},
		{name: "checksum over the range", v: &Value{URI: u("/obj.bin"), Offset: Ptr[int64](10), Size: Ptr[int64](5), Checksum: Ptr(sha(t, "abcde"))}, want: "abcde"},
		{name: "server ignoring Range at offset 0", v: &Value{URI: u("/no-range.bin"), Size: Ptr[int64](4)}, want: "0123"},
		{name: "redirect inside the policy", v: &Value{URI: u("/redirect-local"), Size: Ptr[int64](2)}, want: "01"},
		{name: "inline matches the http locator", v: &Value{Inline: []byte("cde"), URI: u("/obj.bin"), Offset: Ptr[int64](12), Size: Ptr[int64](3)}, want: "cde"},
		{name: "inline with a missing http locator", v: &Value{Inline: []byte("x"), URI: u("/missing")}, want: "x"},

		{name: "inline differs from the http locator", v: &Value{Inline: []byte("cdX"), URI: u("/obj.bin"), Offset: Ptr[int64](12), Size: Ptr[int64](3)}, rule: RuleInlineLocatorMismatch},
		{name: "etag differs", v: &Value{URI: u("/obj.bin"), Checksum: Ptr("ETAG:v2")}, rule: RuleChecksumMismatch},
		{name: "checksum differs", v: &Value{URI: u("/obj.bin"), Size: Ptr[int64](4), Checksum: Ptr(sha(t, "0124"))}, rule: RuleChecksumMismatch},
		{name: "range past the end", v: &Value{URI: u("/obj.bin"), Offset: Ptr[int64](15), Size: Ptr[int64](10)}, rule: RuleRangePastEnd},
		{name: "offset past the end", v: &Value{URI: u("/obj.bin"), Offset: Ptr[int64](25), Size: Ptr[int64](1)}, rule: RuleRangePastEnd},
		{name: "prefix past the end without Range", v: &Value{URI: u("/no-range.bin"), Size: Ptr[int64](30)}, rule: RuleRangePastEnd},
		{name: "server ignoring Range at an offset", v: &Value{URI: u("/no-range.bin"), Offset: Ptr[int64](1), Size: Ptr[int64](4)}, rule: RuleRangeNotHonored},
		{name: "declared size over the limit", v: &Value{URI: u("/obj.bin"), Size: Ptr[int64](65)}, rule: RuleMaxSize},
		{name: "stream over the limit", v: &Value{URI: u("/chunked.bin")}, rule: RuleMaxSize},
		{name: "redirect to an unlisted host", v: &Value{URI: u("/redirect")}, rule: RuleHost},
		{name: "content-coded body", v: &Value{URI: u("/gzip.bin")}, rule: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.ReadAll(context.Background(), tc.v)
			switch {
			case tc.name == "content-coded body":
				if err == nil || !strings.Contains(err.Error(), `Content-Encoding "gzip"`) {
					t.Fatalf("got %q, %v", got, err)
				}
			case tc.rule != "":
				if !hasRule(err, tc.rule) {
					t.Fatalf("got %q, %v; want rule %s", got, err, tc.rule)
				}
			case err != nil || string(got) != tc.want:
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if other.hits.Load() != 0 {
		t.Errorf("the unlisted host got %d requests", other.hits.Load())
	}
	_, err := r.ReadAll(context.Background(), &Value{URI: u("/missing")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("404: %v", err)
	}
}

func TestHTTPRefusedBeforeAnyRequest(t *testing.T) {
	srv := newTestServer(t, "")
	r := newTestResolver(t, Config{Schemes: []string{"http"}, HTTPHosts: []string{srv.host}})
	port := strings.TrimPrefix(srv.host, "127.0.0.1:")
	tests := []struct {
		uri  string
		rule Rule
	}{
		{"http://user:pw@" + srv.host + "/obj.bin", RuleUserinfo},
		{"http://localhost:" + port + "/obj.bin", RuleHost},
		{"https://" + srv.host + "/obj.bin", RuleScheme},
		{"http://" + srv.host + "/a/../obj.bin", RuleDotSegment},
	}
	for _, tc := range tests {
		_, err := r.ReadAll(context.Background(), &Value{URI: Ptr(tc.uri)})
		if !hasRule(err, tc.rule) || !strings.Contains(err.Error(), strconv.Quote(tc.uri)) {
			t.Errorf("%s: got %v, want rule %s naming the uri", tc.uri, err, tc.rule)
		}
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("server got %d requests", n)
	}
}

// The HTTP stream is not buffered: the first bytes arrive before the body ends.
func TestHTTPStreams(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("head"))
		w.(http.Flusher).Flush()
		<-release
		w.Write([]byte("tail"))
	}))
	defer srv.Close()
	defer close(release)
	r := newTestResolver(t, Config{Schemes: []string{"http"}, HTTPHosts: []string{strings.TrimPrefix(srv.URL, "http://")}})
	rc, err := r.Open(context.Background(), &Value{URI: Ptr(srv.URL + "/x")})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	buf := make([]byte, 4)
	if _, err := io.ReadFull(rc, buf); err != nil || !bytes.Equal(buf, []byte("head")) {
		t.Fatalf("first bytes: %q, %v", buf, err)
	}
}
