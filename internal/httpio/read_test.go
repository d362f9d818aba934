package httpio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReadAt(t *testing.T) {
	const size = 10000
	data := pattern(size)
	srv, log := serve(t, &object{data: data, etag: `"v1"`})
	f := mustOpen(t, &FS{}, srv.URL+"/obj")
	tests := []struct {
		name      string
		off       int64
		n         int
		wantN     int
		wantErr   error
		wantRange string // what the server was asked; "" for no request
	}{
		{"start", 0, 16, 16, nil, "bytes=0-15"},
		{"middle", 4321, 500, 500, nil, "bytes=4321-4820"},
		{"end exactly", size - 10, 10, 10, nil, "bytes=9990-9999"},
		{"last byte", size - 1, 1, 1, nil, "bytes=9999-9999"},
		{"clipped at the end", size - 5, 10, 5, io.EOF, "bytes=9995-9999"},
		{"whole object", 0, size, size, nil, "bytes=0-9999"},
		{"past the whole object", 0, size + 100, size, io.EOF, "bytes=0-9999"},
		{"at the end", size, 10, 0, io.EOF, ""},
		{"beyond the end", size + 50, 10, 0, io.EOF, ""},
		{"empty buffer", 100, 0, 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(log.all())
			p := make([]byte, tt.n)
			n, err := f.ReadAt(p, tt.off)
			if n != tt.wantN || err != tt.wantErr {
				t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d, %v", tt.n, tt.off, n, err, tt.wantN, tt.wantErr)
			}
			if want := data[min(tt.off, size) : min(tt.off, size)+int64(n)]; !bytes.Equal(p[:n], want) {
				t.Errorf("bytes at %d differ from the object's", tt.off)
			}
			reqs := log.all()[before:]
			switch {
			case tt.wantRange == "" && len(reqs) != 0:
				t.Errorf("requests %v; want none", reqs)
			case tt.wantRange != "" && (len(reqs) != 1 || reqs[0].Range != tt.wantRange || reqs[0].IfRange != `"v1"`):
				t.Errorf("requests %v; want one GET %s If-Range \"v1\"", reqs, tt.wantRange)
			}
		})
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("ReadAt at -1: no error")
	}
}

func TestStat(t *testing.T) {
	mod := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name     string
		path     string
		modTime  time.Time
		wantName string
	}{
		{"with Last-Modified", "/dir/data.parquet", mod, "data.parquet"},
		{"without Last-Modified", "/dir/data.parquet", time.Time{}, "data.parquet"},
		{"no path", "", mod, ""}, // the host, checked below
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, &object{data: pattern(1234), modTime: tt.modTime})
			f := mustOpen(t, &FS{}, srv.URL+tt.path)
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			wantName := tt.wantName
			if wantName == "" {
				wantName = srv.Listener.Addr().String()
			}
			if fi.Name() != wantName || fi.Size() != 1234 || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o444 || fi.IsDir() {
				t.Errorf("Stat = %q %d %v dir=%v; want %q 1234 -r--r--r-- dir=false", fi.Name(), fi.Size(), fi.Mode(), fi.IsDir(), wantName)
			}
			if !fi.ModTime().Equal(tt.modTime) {
				t.Errorf("ModTime = %v; want %v", fi.ModTime(), tt.modTime)
			}
		})
	}
}

// headRefused answers HEAD with status and leaves GET to next.
func headRefused(status int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(status)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestOpenFallback(t *testing.T) {
	tests := []struct {
		name string
		head int // 0: HEAD allowed
		size int
	}{
		{"HEAD 405", http.StatusMethodNotAllowed, 5000},
		{"HEAD 501", http.StatusNotImplemented, 5000},
		{"HEAD 403", http.StatusForbidden, 5000},
		{"HEAD 200 without a length", http.StatusOK, 5000},
		{"HEAD 405, empty object", http.StatusMethodNotAllowed, 0},
		{"HEAD allowed, empty object", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := pattern(tt.size)
			var h http.Handler = &object{data: data, etag: `"e1"`}
			if tt.head != 0 {
				h = headRefused(tt.head, h)
			}
			srv, log := serve(t, h)
			f := mustOpen(t, &FS{}, srv.URL+"/obj")
			wantReqs := "[HEAD GET bytes=0-0]"
			const wantETag = `"e1"`
			if tt.head == 0 {
				wantReqs = "[HEAD]"
			}
			if got := fmt.Sprint(log.all()); f.Size() != int64(tt.size) || got != wantReqs || f.ETag() != wantETag {
				t.Fatalf("size %d, ETag %q, requests %s; want %d, %q, %s", f.Size(), f.ETag(), got, tt.size, wantETag, wantReqs)
			}
			p := make([]byte, 100)
			n, err := f.ReadAt(p, 0)
			wantN := min(100, tt.size)
			var wantErr error
			if wantN < 100 {
				wantErr = io.EOF
			}
			if n != wantN || err != wantErr || !bytes.Equal(p[:n], data[:wantN]) {
				t.Errorf("ReadAt(100, 0) = %d, %v; want %d, %v and the object's bytes", n, err, wantN, wantErr)
			}
			all, err := io.ReadAll(f)
			if err != nil || !bytes.Equal(all, data) {
				t.Errorf("ReadAll = %d bytes, %v; want %d bytes", len(all), err, tt.size)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.Handler
		target  error
		parts   []string
	}{
		{"HEAD 404", http.NotFoundHandler(), fs.ErrNotExist, []string{"HEAD: HTTP 404"}},
		{"HEAD 410", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) }), fs.ErrNotExist, []string{"HTTP 410"}},
		{"HEAD 405 then GET 404", headRefused(http.StatusMethodNotAllowed, http.NotFoundHandler()), fs.ErrNotExist, []string{"GET bytes=0-0: HTTP 404"}},
		{"HEAD 500", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }), nil, []string{"HEAD: HTTP 500"}},
		{"HEAD 405 then GET ignoring Range", headRefused(http.StatusMethodNotAllowed, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Write(pattern(100))
		})), ErrRangeNotHonored, []string{"GET bytes=0-0", "ignored Range", "Content-Length 100"}},
		{"HEAD 405 then GET with open-ended length", headRefused(http.StatusMethodNotAllowed, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-0/*")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte{1})
		})), ErrRangeNotHonored, []string{`"bytes 0-0/*" does not give the size`}},
		{"HEAD gzip", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", "10")
		}), ErrRangeNotHonored, []string{`Content-Encoding "gzip"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.handler)
			url := srv.URL + "/missing.parquet"
			f, err := (&FS{}).Open(url)
			if f != nil {
				t.Errorf("Open returned a file with its error")
			}
			wantErr(t, err, tt.target, append(tt.parts, "open "+url)...)
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != url {
				t.Errorf("error %#v is not a *fs.PathError{Op: open, Path: %s}", err, url)
			}
		})
	}
}

func TestOpenTooLarge(t *testing.T) {
	const size = 1 << 42 // 4 TiB: served virtually, never held
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"big"`)
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
			return
		}
		var first, last int64
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &first, &last); err != nil || last >= size {
			http.Error(w, "bad range", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, int64(size)))
		w.Header().Set("Content-Length", strconv.FormatInt(last-first+1, 10))
		w.WriteHeader(http.StatusPartialContent)
		for i := first; i <= last; i++ {
			w.Write([]byte{patternByte(i)})
		}
	})
	srv, _ := serve(t, h)
	url := srv.URL + "/huge"
	_, err := (&FS{}).Open(url)
	wantErr(t, err, ErrTooLarge, url, "4398046511104 bytes, over the limit of 1099511627776")

	f := mustOpen(t, &FS{MaxSize: size}, url)
	p := make([]byte, 32)
	n, err := f.ReadAt(p, size-16)
	if n != 16 || err != io.EOF {
		t.Fatalf("ReadAt(32, size-16) = %d, %v; want 16, EOF", n, err)
	}
	for i := range 16 {
		if want := patternByte(size - 16 + int64(i)); p[i] != want {
			t.Fatalf("byte %d = %d; want %d", size-16+int64(i), p[i], want)
		}
	}
}

func TestSchemes(t *testing.T) {
	// No request may leave for a name the FS refuses.
	calls := 0
	client := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		calls++
		return nil, errors.New("no network in this test")
	})}
	tests := []struct {
		name   string
		hosts  []string
		target error
	}{
		{"file:///etc/passwd", nil, ErrScheme},
		{"/etc/passwd", nil, ErrScheme},
		{"data/part-0.parquet", nil, ErrScheme},
		{"s3://bucket/key.parquet", nil, ErrScheme},
		{"ftp://example.com/x", nil, ErrScheme},
		{"http:///no-host", nil, ErrScheme},
		{"https://", nil, ErrScheme},
		{"http://%zz", nil, ErrScheme},
		{"http://other.example/x", []string{"allowed.example"}, ErrHost},
		{"http://allowed.example:8080/x", []string{"allowed.example"}, ErrHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := (&FS{Client: client, Hosts: tt.hosts}).Open(tt.name)
			wantErr(t, err, tt.target, "open "+tt.name)
		})
	}
	if calls != 0 {
		t.Errorf("%d requests sent for refused names", calls)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRemove(t *testing.T) {
	err := (&FS{}).Remove("http://example.com/x")
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "remove" || pe.Path != "http://example.com/x" ||
		!errors.Is(err, ErrReadOnly) || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Remove = %v; want a remove *fs.PathError wrapping ErrReadOnly", err)
	}
}

func TestClosed(t *testing.T) {
	srv, _ := serve(t, &object{data: pattern(10)})
	f := mustOpen(t, &FS{}, srv.URL)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, errRead := f.ReadAt(make([]byte, 1), 0)
	_, errStat := f.Stat()
	errClose := f.Close()
	for _, err := range []error{errRead, errStat, errClose} {
		if !errors.Is(err, fs.ErrClosed) {
			t.Errorf("after Close: %v; want fs.ErrClosed", err)
		}
	}
}

func TestReadSeek(t *testing.T) {
	const size = 3000
	data := pattern(size)
	srv, _ := serve(t, &object{data: data})
	tests := []struct {
		name    string
		offset  int64
		whence  int
		wantPos int64
		seekErr bool
		read    int
		wantN   int
		wantErr error
	}{
		{"start", 100, io.SeekStart, 100, false, 50, 50, nil},
		{"current", 200, io.SeekCurrent, 1100, false, 10, 10, nil}, // after seeking to 900 below
		{"end", -10, io.SeekEnd, size - 10, false, 50, 10, nil},
		{"at the end", 0, io.SeekEnd, size, false, 10, 0, io.EOF},
		{"past the end", 10, io.SeekEnd, size + 10, false, 10, 0, io.EOF},
		{"negative", -1, io.SeekStart, 900, true, 10, 10, nil},
		{"bad whence", 0, 7, 900, true, 10, 10, nil},
		{"overflow", 1<<63 - 1, io.SeekCurrent, 900, true, 10, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustOpen(t, &FS{}, srv.URL)
			if _, err := f.Seek(900, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			pos, err := f.Seek(tt.offset, tt.whence)
			if (err != nil) != tt.seekErr || pos != tt.wantPos {
				t.Fatalf("Seek(%d, %d) = %d, %v; want %d, error %v", tt.offset, tt.whence, pos, err, tt.wantPos, tt.seekErr)
			}
			p := make([]byte, tt.read)
			n, err := f.Read(p)
			if n != tt.wantN || err != tt.wantErr || !bytes.Equal(p[:n], data[min(pos, size):min(pos, size)+int64(n)]) {
				t.Fatalf("Read(%d) at %d = %d, %v; want %d, %v and the object's bytes", tt.read, pos, n, err, tt.wantN, tt.wantErr)
			}
			if n > 0 {
				if now, _ := f.Seek(0, io.SeekCurrent); now != pos+int64(n) {
					t.Errorf("cursor at %d after reading %d at %d", now, n, pos)
				}
			}
		})
	}
	t.Run("ReadAll", func(t *testing.T) {
		f := mustOpen(t, &FS{}, srv.URL)
		all, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(all, data) {
			t.Errorf("ReadAll = %d bytes, %v; want the %d-byte object", len(all), err, size)
		}
	})
}

func TestConcurrentReadAt(t *testing.T) {
	const size = 1 << 20
	data := pattern(size)
	srv, _ := serve(t, &object{data: data, etag: `"c"`})
	f := mustOpen(t, &FS{}, srv.URL)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 40 {
				off := rng.Int64N(size)
				p := make([]byte, 1+rng.IntN(64<<10))
				n, err := f.ReadAt(p, off)
				want := data[off:min(off+int64(len(p)), size)]
				if (err != nil && err != io.EOF) || n != len(want) || !bytes.Equal(p[:n], want) {
					errs <- fmt.Errorf("ReadAt(%d, %d) = %d, %v; want %d bytes", len(p), off, n, err, len(want))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHeaderProvider(t *testing.T) {
	data := pattern(100)
	obj := &object{data: data}
	srv, log := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		obj.ServeHTTP(w, r)
	}))
	tests := []struct {
		name   string
		header func(*http.Request) error
		parts  []string // of the open error; none when it opens
	}{
		{"sets credentials", func(r *http.Request) error { r.Header.Set("Authorization", "Bearer tok"); return nil }, nil},
		{"none", nil, []string{"HEAD: HTTP 401"}},
		{"fails", func(*http.Request) error { return errors.New("token expired") }, []string{"header provider: token expired"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(log.all())
			f, err := (&FS{Header: tt.header}).Open(srv.URL)
			if tt.parts != nil {
				wantErr(t, err, nil, append(tt.parts, srv.URL)...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 10)
			if n, err := f.ReadAt(p, 5); n != 10 || err != nil || !bytes.Equal(p, data[5:15]) {
				t.Fatalf("ReadAt = %d, %v", n, err)
			}
			for _, r := range log.all()[before:] {
				if r.Auth != "Bearer tok" {
					t.Errorf("request %v went without the provider's header", r)
				}
			}
		})
	}
}

func TestErrorsHidePassword(t *testing.T) {
	srv, _ := serve(t, http.NotFoundHandler())
	url := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/x"
	_, err := (&FS{}).Open(url)
	wantErr(t, err, fs.ErrNotExist, "http://user:xxxxx@")
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q shows the URL's password", err)
	}
}
