package httpio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	iceio "github.com/apache/iceberg-go/io"
)

// File is one remote object opened by an FS. ReadAt is safe for concurrent
// use; Read and Seek share one cursor and serialize on it.
type File struct {
	ctx    context.Context
	client *http.Client
	header func(*http.Request) error
	url    string // what requests go to
	shown  string // what errors say: the URL without its password
	base   string
	limits limits

	// Set by stat at open, read-only afterwards.
	size         int64
	modTime      time.Time
	etag         string
	lastModified string

	closed atomic.Bool
	mu     sync.Mutex // guards pos
	pos    int64
}

var _ iceio.File = (*File)(nil)

// Size is the object's size as Open learned it.
func (f *File) Size() int64 { return f.size }

// ETag is the entity tag the object was pinned with, "" when none.
func (f *File) ETag() string { return f.etag }

// Stat reports the size and Last-Modified time learned at open.
func (f *File) Stat() (fs.FileInfo, error) {
	if f.closed.Load() {
		return nil, &fs.PathError{Op: "stat", Path: f.shown, Err: fs.ErrClosed}
	}
	return fileInfo{name: f.base, size: f.size, modTime: f.modTime}, nil
}

// Close ends use of the file. It holds no connection between requests, so
// Close only makes further calls fail.
func (f *File) Close() error {
	if f.closed.Swap(true) {
		return &fs.PathError{Op: "close", Path: f.shown, Err: fs.ErrClosed}
	}
	return nil
}

// Read reads from the cursor, one request per call.
func (f *File) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil // the next Read reports the end
	}
	return n, err
}

// Seek moves the cursor; a position past the end is allowed and reads EOF.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = f.pos
	case io.SeekEnd:
		base = f.size
	default:
		return f.pos, &fs.PathError{Op: "seek", Path: f.shown, Err: fmt.Errorf("invalid whence %d", whence)}
	}
	abs := base + offset
	if (offset > 0 && abs < base) || abs < 0 {
		return f.pos, &fs.PathError{Op: "seek", Path: f.shown, Err: fmt.Errorf("offset %d from %d is out of range", offset, base)}
	}
	f.pos = abs
	return abs, nil
}

// ReadAt reads len(p) bytes at off with one Range request, clipped to the
// object's size: at the end it returns fewer bytes and io.EOF, as
// io.ReaderAt requires.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.closed.Load() {
		return 0, &fs.PathError{Op: "read", Path: f.shown, Err: fs.ErrClosed}
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.shown, Err: fmt.Errorf("negative offset %d", off)}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), f.size-off)
	got, err := f.readRange(p[:n], off)
	if err != nil {
		return got, &fs.PathError{Op: "read", Path: f.shown, Err: fmt.Errorf("bytes=%d-%d: %w", off, off+n-1, err)}
	}
	if n < int64(len(p)) {
		return got, io.EOF
	}
	return got, nil
}

// readRange fills p with the bytes at off, which lie within the size.
func (f *File) readRange(p []byte, off int64) (int, error) {
	n := int64(len(p))
	first, last := off, off+n-1
	resp, w, err := f.send(http.MethodGet, n, func(h http.Header) {
		h.Set("Range", fmt.Sprintf("bytes=%d-%d", first, last))
		if v := f.ifRange(); v != "" {
			h.Set("If-Range", v)
		}
	})
	if err != nil {
		return 0, err
	}
	defer w.stop()
	defer resp.Body.Close()
	if err := identityEncoding(resp); err != nil {
		return 0, err
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		// The body is never read: it may be the whole multi-GB object.
		if why := f.changed(resp.Header); why != "" {
			return 0, fmt.Errorf("%w: %s (the server answered If-Range with the whole object)", ErrObjectChanged, why)
		}
		return 0, fmt.Errorf("%w: the server ignored Range and answered %s with the whole object (Content-Length %d); not read",
			ErrRangeNotHonored, resp.Status, resp.ContentLength)
	case http.StatusRequestedRangeNotSatisfiable:
		if total, err := parseUnsatisfiedRange(resp.Header.Get("Content-Range")); err == nil && total != f.size {
			return 0, fmt.Errorf("%w: the object is now %d bytes, it was %d at open", ErrObjectChanged, total, f.size)
		}
		return 0, fmt.Errorf("%w: HTTP %s (Content-Range %q) for a range inside the %d bytes seen at open",
			ErrRangeNotHonored, resp.Status, resp.Header.Get("Content-Range"), f.size)
	case http.StatusNotFound, http.StatusGone:
		return 0, fmt.Errorf("HTTP %s since open: %w", resp.Status, fs.ErrNotExist)
	default:
		return 0, fmt.Errorf("HTTP %s", resp.Status)
	}
	cr := resp.Header.Get("Content-Range")
	gotFirst, gotLast, total, err := parseContentRange(cr)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrRangeNotHonored, err)
	}
	if gotFirst != first || gotLast != last {
		return 0, fmt.Errorf("%w: asked for bytes %d-%d, the server sent Content-Range %q", ErrRangeNotHonored, first, last, cr)
	}
	if total >= 0 && total != f.size {
		return 0, fmt.Errorf("%w: Content-Range %q says %d bytes, it was %d at open", ErrObjectChanged, cr, total, f.size)
	}
	if why := f.changed(resp.Header); why != "" {
		return 0, fmt.Errorf("%w: %s", ErrObjectChanged, why)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != n {
		return 0, fmt.Errorf("%w: Content-Length %d for a %d-byte range", ErrRangeNotHonored, resp.ContentLength, n)
	}
	// ReadFull stops at len(p): a body longer than the range (possible
	// without Content-Length) is never read past it.
	got, err := io.ReadFull(w.body(resp.Body), p)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return got, fmt.Errorf("the response ended after %d of %d bytes: %w", got, n, io.ErrUnexpectedEOF)
		}
		return got, fmt.Errorf("after %d of %d bytes: %w", got, n, err)
	}
	if resp.ContentLength == n {
		// Seeing the end of a body of known length costs nothing and lets
		// the transport reuse the connection.
		var one [1]byte
		resp.Body.Read(one[:])
	}
	return got, nil
}

// stat learns the size with HEAD, or with a ranged GET where HEAD is
// refused or says no length, and pins the object.
func (f *File) stat() error {
	resp, w, err := f.send(http.MethodHead, 0, func(http.Header) {})
	if err != nil {
		return fmt.Errorf("HEAD: %w", err)
	}
	resp.Body.Close()
	w.stop()
	switch resp.StatusCode {
	case http.StatusOK:
		if err := identityEncoding(resp); err != nil {
			return fmt.Errorf("HEAD: %w", err)
		}
		if resp.ContentLength >= 0 {
			f.size = resp.ContentLength
			f.pin(resp.Header)
			return nil
		}
	case http.StatusNotFound, http.StatusGone:
		return fmt.Errorf("HEAD: HTTP %s: %w", resp.Status, fs.ErrNotExist)
	case http.StatusForbidden, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		// Servers that do not do HEAD, and presigned URLs signed for GET.
	default:
		return fmt.Errorf("HEAD: HTTP %s", resp.Status)
	}
	return f.probe()
}

// probe learns the size from the Content-Range of a GET for bytes=0-0.
func (f *File) probe() error {
	resp, w, err := f.send(http.MethodGet, 0, func(h http.Header) { h.Set("Range", "bytes=0-0") })
	if err != nil {
		return fmt.Errorf("GET bytes=0-0: %w", err)
	}
	// The body is at most one byte when the range is honoured, and is not
	// read when it is not.
	defer w.stop()
	defer resp.Body.Close()
	if err := identityEncoding(resp); err != nil {
		return fmt.Errorf("GET bytes=0-0: %w", err)
	}
	cr := resp.Header.Get("Content-Range")
	switch resp.StatusCode {
	case http.StatusPartialContent:
		first, last, total, err := parseContentRange(cr)
		if err != nil {
			return fmt.Errorf("GET bytes=0-0: %w: %v", ErrRangeNotHonored, err)
		}
		if first != 0 || last != 0 || total < 0 {
			return fmt.Errorf("GET bytes=0-0: %w: Content-Range %q does not give the size", ErrRangeNotHonored, cr)
		}
		f.size = total
	case http.StatusRequestedRangeNotSatisfiable:
		// bytes=0-0 is unsatisfiable only for an empty object.
		total, err := parseUnsatisfiedRange(cr)
		if err != nil || total != 0 {
			return fmt.Errorf("GET bytes=0-0: %w: HTTP %s with Content-Range %q", ErrRangeNotHonored, resp.Status, cr)
		}
		f.size = 0
	case http.StatusOK:
		if resp.ContentLength != 0 {
			return fmt.Errorf("GET bytes=0-0: %w: the server ignored Range and answered %s with the whole object (Content-Length %d); not read",
				ErrRangeNotHonored, resp.Status, resp.ContentLength)
		}
		f.size = 0
	case http.StatusNotFound, http.StatusGone:
		return fmt.Errorf("GET bytes=0-0: HTTP %s: %w", resp.Status, fs.ErrNotExist)
	default:
		return fmt.Errorf("GET bytes=0-0: HTTP %s", resp.Status)
	}
	f.pin(resp.Header)
	return nil
}

// send issues one request under the time rules, for a body of want bytes.
// The caller closes the body, then stops the watch.
func (f *File) send(method string, want int64, set func(http.Header)) (*http.Response, *watch, error) {
	w := newWatch(f.ctx, f.limits, want)
	req, err := http.NewRequestWithContext(w.ctx, method, f.url, nil)
	if err != nil {
		w.stop()
		return nil, nil, err
	}
	// The object's own bytes: a content-coded body has other offsets.
	req.Header.Set("Accept-Encoding", "identity")
	set(req.Header)
	if f.header != nil {
		if err := f.header(req); err != nil {
			w.stop()
			return nil, nil, fmt.Errorf("header provider: %w", err)
		}
	}
	resp, err := f.client.Do(req)
	w.gotHeaders()
	if err != nil {
		w.stop()
		if te := w.cause(); te != nil {
			return nil, nil, te
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is named by the caller's error already
		}
		return nil, nil, err
	}
	return resp, w, nil
}

// pin keeps what identifies this version of the object.
func (f *File) pin(h http.Header) {
	f.etag = h.Get("ETag")
	f.lastModified = h.Get("Last-Modified")
	if t, err := http.ParseTime(f.lastModified); err == nil {
		f.modTime = t
	}
}

// ifRange is the validator that makes a changed object answer 200 instead
// of a range of its new bytes. RFC 9110 allows only a strong ETag there.
func (f *File) ifRange() string {
	if f.etag != "" && !strings.HasPrefix(f.etag, "W/") {
		return f.etag
	}
	return f.lastModified
}

// changed says how a response's validators differ from the pinned ones, or
// "" when they agree or are absent.
func (f *File) changed(h http.Header) string {
	if e := h.Get("ETag"); f.etag != "" && e != "" && opaqueTag(e) != opaqueTag(f.etag) {
		return fmt.Sprintf("ETag is %s, it was %s at open", e, f.etag)
	}
	if lm := h.Get("Last-Modified"); f.lastModified != "" && lm != "" && lm != f.lastModified {
		a, errA := http.ParseTime(lm)
		b, errB := http.ParseTime(f.lastModified)
		if errA != nil || errB != nil || !a.Equal(b) {
			return fmt.Sprintf("Last-Modified is %q, it was %q at open", lm, f.lastModified)
		}
	}
	return ""
}

// opaqueTag drops the weak marker: servers may weaken a tag on one path
// (a compressing proxy) and not another, and the tag itself is the version.
func opaqueTag(s string) string { return strings.TrimPrefix(s, "W/") }

func identityEncoding(resp *http.Response) error {
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return fmt.Errorf("%w: Content-Encoding %q despite Accept-Encoding: identity", ErrRangeNotHonored, ce)
	}
	return nil
}

func baseName(u *url.URL) string {
	if b := path.Base(u.Path); b != "." && b != "/" {
		return b
	}
	return u.Host
}

type fileInfo struct {
	name    string
	size    int64
	modTime time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 } // a regular file, read-only
func (i fileInfo) ModTime() time.Time { return i.modTime }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
