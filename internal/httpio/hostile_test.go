package httpio

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// honestHead answers HEAD for data with its size and an ETag, and hands GET
// to get, which plays the hostile part.
func honestHead(data []byte, get func(w http.ResponseWriter, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			return
		}
		get(w, r)
	})
}

// partial answers 206 with Content-Range cr and body, and Content-Length
// length when it is not negative.
func partial(cr string, length int, body []byte) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if cr != "" {
			w.Header().Set("Content-Range", cr)
		}
		if length >= 0 {
			w.Header().Set("Content-Length", strconv.Itoa(length))
		}
		w.WriteHeader(http.StatusPartialContent)
		w.Write(body)
	}
}

// endless writes chunks until the client goes away.
func endless(w http.ResponseWriter, r *http.Request, chunk []byte) {
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

func TestRangeResponses(t *testing.T) {
	const size = 1000
	data := pattern(size)
	want := data[10:20] // every row reads bytes=10-19
	tests := []struct {
		name   string
		get    func(http.ResponseWriter, *http.Request)
		target error // nil: the read succeeds with want
		parts  []string
	}{
		{"exact range", partial("bytes 10-19/1000", 10, want), nil, nil},
		{"exact range, unknown total", partial("bytes 10-19/*", 10, want), nil, nil},
		{"longer chunked body is not read past the range", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 10-19/1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(want)
			w.(http.Flusher).Flush() // chunked: no Content-Length bounds the body
			endless(w, r, bytes.Repeat([]byte{0xEE}, 32<<10))
		}, nil, nil},
		{"200 with the whole object", func(w http.ResponseWriter, r *http.Request) {
			// A declared 1 TiB body: refused on its headers, never read.
			w.Header().Set("Content-Length", strconv.FormatInt(1<<40, 10))
			endless(w, r, data)
		}, ErrRangeNotHonored, []string{"ignored Range", "200 OK", "Content-Length 1099511627776", "not read"}},
		{"other start", partial("bytes 11-20/1000", 10, data[11:21]), ErrRangeNotHonored, []string{`asked for bytes 10-19, the server sent Content-Range "bytes 11-20/1000"`}},
		{"shorter range", partial("bytes 10-15/1000", 6, data[10:16]), ErrRangeNotHonored, []string{`Content-Range "bytes 10-15/1000"`}},
		{"longer range", partial("bytes 10-29/1000", 20, data[10:30]), ErrRangeNotHonored, []string{`Content-Range "bytes 10-29/1000"`}},
		{"no Content-Range", partial("", 10, want), ErrRangeNotHonored, []string{`Content-Range "": not a byte range`}},
		{"garbled Content-Range", partial("bytes 10-+19/1000", 10, want), ErrRangeNotHonored, []string{"bad last byte position"}},
		{"Content-Length longer than the range", partial("bytes 10-19/1000", 20, data[10:30]), ErrRangeNotHonored, []string{"Content-Length 20 for a 10-byte range"}},
		{"body cut short", partial("bytes 10-19/1000", 10, want[:4]), io.ErrUnexpectedEOF, []string{"ended after 4 of 10 bytes"}},
		{"other total", partial("bytes 10-19/2000", 10, want), ErrObjectChanged, []string{"says 2000 bytes, it was 1000 at open"}},
		{"content-coded", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			partial("bytes 10-19/1000", 10, want)(w, r)
		}, ErrRangeNotHonored, []string{`Content-Encoding "gzip"`}},
		{"416", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes */1000")
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		}, ErrRangeNotHonored, []string{"416", "inside the 1000 bytes"}},
		{"416, shrunk", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes */5")
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		}, ErrObjectChanged, []string{"now 5 bytes, it was 1000"}},
		{"404 after open", http.NotFound, fs.ErrNotExist, []string{"404"}},
		{"500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }, nil, []string{"HTTP 502"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, honestHead(data, tt.get))
			url := srv.URL + "/obj.parquet"
			f := mustOpen(t, &FS{}, url)
			p := make([]byte, 10)
			n, err := f.ReadAt(p, 10)
			if tt.target == nil && tt.parts == nil {
				if n != 10 || err != nil || !bytes.Equal(p, want) {
					t.Fatalf("ReadAt = %d, %v, %v; want 10, nil, %v", n, err, p, want)
				}
				return
			}
			wantErr(t, err, tt.target, append(tt.parts, "read "+url, "bytes=10-19")...)
		})
	}
}

func TestObjectChanged(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	lastMod := mod.Format(http.TimeFormat)
	v1, v2 := pattern(1000), bytes.Repeat([]byte{9}, 1000)
	tests := []struct {
		name        string
		etag        string
		modTime     time.Time
		change      func(o *object)
		ignoreIfRng bool // the server answers the range despite If-Range
		wantIfRange string
		parts       []string // nil: no change, the read succeeds
	}{
		{"same ETag", `"v1"`, mod, nil, false, `"v1"`, nil},
		{"ETag changes, If-Range honoured", `"v1"`, mod, func(o *object) { o.set(v2, `"v2"`, mod) }, false, `"v1"`,
			[]string{`ETag is "v2", it was "v1" at open`, "If-Range"}},
		{"ETag changes, If-Range ignored", `"v1"`, mod, func(o *object) { o.set(v2, `"v2"`, mod) }, true, `"v1"`,
			[]string{`ETag is "v2", it was "v1" at open`}},
		{"Last-Modified changes, no ETag", "", mod, func(o *object) { o.set(v2, "", mod.Add(time.Hour)) }, false, lastMod,
			[]string{"Last-Modified is", "at open"}},
		{"Last-Modified changes, If-Range ignored", "", mod, func(o *object) { o.set(v2, "", mod.Add(time.Hour)) }, true, lastMod,
			[]string{"Last-Modified is"}},
		{"weak ETag pins with Last-Modified", `W/"v1"`, mod, func(o *object) { o.set(v2, `W/"v2"`, mod.Add(time.Hour)) }, false, lastMod,
			[]string{`ETag is W/"v2", it was W/"v1" at open`}},
		{"size changes, no validators", "", time.Time{}, func(o *object) { o.set(pattern(2000), "", time.Time{}) }, false, "",
			[]string{"says 2000 bytes, it was 1000 at open"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &object{}
			obj.set(v1, tt.etag, tt.modTime)
			var h http.Handler = obj
			if tt.ignoreIfRng {
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					r.Header.Del("If-Range")
					obj.ServeHTTP(w, r)
				})
			}
			srv, log := serve(t, h)
			url := srv.URL + "/t/data.parquet"
			f := mustOpen(t, &FS{}, url)
			if tt.change != nil {
				tt.change(obj)
			}
			p := make([]byte, 100)
			n, err := f.ReadAt(p, 100)
			reqs := log.all()
			if last := reqs[len(reqs)-1]; last.IfRange != tt.wantIfRange {
				t.Errorf("If-Range %q; want %q", last.IfRange, tt.wantIfRange)
			}
			if tt.parts == nil {
				if n != 100 || err != nil || !bytes.Equal(p, v1[100:200]) {
					t.Fatalf("ReadAt = %d, %v; want 100 bytes of the first version", n, err)
				}
				return
			}
			if n != 0 {
				t.Errorf("ReadAt returned %d bytes of a changed object", n)
			}
			wantErr(t, err, ErrObjectChanged, append(tt.parts, "read "+url, "bytes=100-199")...)
		})
	}
}

// TestStalls checks that each time rule ends a request that does not
// progress, within the rule's limit plus scheduling slack.
func TestStalls(t *testing.T) {
	data := pattern(100000)
	const slack = 3 * time.Second
	stall := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	headersThenStall := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 0-9999/100000")
		w.Header().Set("Content-Length", "10000")
		w.WriteHeader(http.StatusPartialContent)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	trickle := func(every time.Duration) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-9999/100000")
			w.Header().Set("Content-Length", "10000")
			w.WriteHeader(http.StatusPartialContent)
			tick := time.NewTicker(every)
			defer tick.Stop()
			for i := 0; i < 10000; i++ {
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
				}
				w.Write(data[i : i+1])
				w.(http.Flusher).Flush()
			}
		}
	}
	tests := []struct {
		name    string
		fsys    FS
		handler http.Handler
		atOpen  bool
		limit   time.Duration
		parts   []string
	}{
		{"HEAD accepted, never answered", FS{HeaderTimeout: 300 * time.Millisecond}, http.HandlerFunc(stall), true,
			300 * time.Millisecond, []string{"HEAD: header timeout (300ms): no response headers"}},
		{"GET accepted, never answered", FS{HeaderTimeout: 300 * time.Millisecond}, honestHead(data, stall), false,
			300 * time.Millisecond, []string{"header timeout (300ms)"}},
		{"GET headers, then nothing", FS{ProgressWindow: 300 * time.Millisecond, MinRate: 1000}, honestHead(data, headersThenStall), false,
			300 * time.Millisecond, []string{"progress timeout (300ms): 0 bytes in the last 300ms", "0 of 10000 bytes read"}},
		{"GET trickles under the minimum rate", FS{ProgressWindow: 300 * time.Millisecond, MinRate: 1000}, honestHead(data, trickle(50*time.Millisecond)), false,
			300 * time.Millisecond, []string{"progress timeout (300ms)", "under the minimum rate of 1000 bytes/s"}},
		{"GET trickles above the minimum rate, past the request timeout", FS{RequestTimeout: 700 * time.Millisecond, ProgressWindow: 200 * time.Millisecond, MinRate: 1},
			honestHead(data, trickle(20*time.Millisecond)), false,
			700 * time.Millisecond, []string{"request timeout (700ms)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.handler)
			url := srv.URL + "/slow"
			start := time.Now()
			f, err := tt.fsys.OpenContext(t.Context(), url)
			if !tt.atOpen {
				if err != nil {
					t.Fatal(err)
				}
				start = time.Now()
				_, err = f.ReadAt(make([]byte, 10000), 0)
				tt.parts = append(tt.parts, "bytes=0-9999")
			}
			elapsed := time.Since(start)
			wantErr(t, err, ErrTimeout, append(tt.parts, url)...)
			if elapsed < tt.limit || elapsed > tt.limit+slack {
				t.Errorf("failed after %v; want between %v and %v", elapsed, tt.limit, tt.limit+slack)
			}
		})
	}
}

func TestRedirects(t *testing.T) {
	data := pattern(500)
	obj := &object{data: data, etag: `"r"`}
	target, _ := serve(t, obj)
	// hop/N redirects N more times, then to the object.
	hops := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
			return
		}
		switch r.URL.Path {
		case "/to-ftp":
			http.Redirect(w, r, "ftp://example.com/x", http.StatusFound)
		case "/to-other-host":
			http.Redirect(w, r, target.URL+"/obj", http.StatusFound)
		default:
			obj.ServeHTTP(w, r)
		}
	})
	srv, _ := serve(t, hops)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+"/hop/0", http.StatusFound)
	}))
	t.Cleanup(tlsSrv.Close)
	srvHost := srv.Listener.Addr().String()
	tests := []struct {
		name  string
		fsys  FS
		url   string
		parts []string // of the open error; nil: opens and reads
	}{
		{"no redirect", FS{}, srv.URL + "/hop/0", nil},
		{"three redirects", FS{}, srv.URL + "/hop/3", nil},
		{"four redirects", FS{}, srv.URL + "/hop/4", []string{"more than 3 redirects"}},
		{"one redirect, allowed one", FS{MaxRedirects: 1}, srv.URL + "/hop/1", nil},
		{"one redirect, none allowed", FS{MaxRedirects: -1}, srv.URL + "/hop/1", []string{"more than 0 redirects"}},
		{"to ftp", FS{}, srv.URL + "/to-ftp", []string{`ftp://example.com/x: scheme "ftp"`}},
		{"to a host outside the list", FS{Hosts: []string{srvHost}}, srv.URL + "/to-other-host", []string{"is not in the FS's host list"}},
		{"to a host, no list", FS{}, srv.URL + "/to-other-host", nil},
		{"https to http", FS{Client: tlsSrv.Client()}, tlsSrv.URL + "/x", []string{"https to http downgrade"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.fsys.OpenContext(t.Context(), tt.url)
			if tt.parts != nil {
				wantErr(t, err, ErrRedirect, append(tt.parts, "open "+tt.url)...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 50)
			if n, err := f.ReadAt(p, 400); n != 50 || err != nil || !bytes.Equal(p, data[400:450]) {
				t.Errorf("ReadAt through the redirects = %d, %v", n, err)
			}
		})
	}
}
