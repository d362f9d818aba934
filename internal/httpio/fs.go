package httpio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	iceio "github.com/apache/iceberg-go/io"
)

// Defaults for the FS fields whose zero value means "default".
const (
	// DefaultMaxSize bounds the object size Open accepts. Reads are ranged,
	// so the bound is not about memory; it keeps an absurd size a server
	// declares from reaching callers that plan with Stat.
	DefaultMaxSize int64 = 1 << 40 // 1 TiB
	// DefaultHeaderTimeout bounds the wait for response headers of each
	// request, connection and redirects included.
	DefaultHeaderTimeout = 30 * time.Second
	// DefaultRequestTimeout bounds one request from start to its last byte.
	DefaultRequestTimeout = 10 * time.Minute
	// DefaultProgressWindow and DefaultMinRate are the minimum progress
	// rule: each window of a body read must bring MinRate×window bytes (or
	// the rest of the range, when less is left).
	DefaultProgressWindow       = 10 * time.Second
	DefaultMinRate        int64 = 16 << 10 // bytes per second
	// DefaultMaxRedirects is how many redirects one request follows.
	DefaultMaxRedirects = 3
)

var (
	// ErrScheme: the name is not an absolute http or https URL.
	ErrScheme = errors.New("not an http or https URL")
	// ErrHost: the URL's host is not in FS.Hosts.
	ErrHost = errors.New("host not allowed")
	// ErrRedirect: a redirect was refused (count, scheme, downgrade, host).
	ErrRedirect = errors.New("redirect refused")
	// ErrRangeNotHonored: the server answered a range request with
	// something other than exactly that range.
	ErrRangeNotHonored = errors.New("range not honoured")
	// ErrObjectChanged: the object's ETag, Last-Modified or size differs
	// from what Open saw.
	ErrObjectChanged = errors.New("object changed since open")
	// ErrTooLarge: the object is larger than FS.MaxSize.
	ErrTooLarge = errors.New("object too large")
	// ErrTimeout: a request broke one of the time rules; the error's text
	// says which one.
	ErrTimeout = errors.New("timeout")
	// ErrReadOnly: the FS cannot remove or write.
	ErrReadOnly = fmt.Errorf("read-only http FileIO: %w", errors.ErrUnsupported)
)

// FS reads http and https URLs with Range requests. The zero value is ready
// to use with the defaults above. An FS must not be changed while files
// opened from it are in use; an open File keeps the settings it was opened
// with.
type FS struct {
	// Client sends the requests; nil means a client with net/http's default
	// transport. Its CheckRedirect, when set, runs after this package's
	// redirect checks; its Timeout, when set, applies as well.
	Client *http.Client
	// Header, when set, is called for every request before it is sent, for
	// credentials or tracing headers. Go's client carries the headers over
	// redirects to the same host and drops credentials on others.
	Header func(req *http.Request) error
	// Hosts, when non-empty, lists the hosts (host or host:port, matched
	// without regard to case) that URLs and their redirects may reach.
	Hosts []string
	// MaxSize is the largest object Open accepts; 0 means DefaultMaxSize.
	MaxSize int64
	// HeaderTimeout, RequestTimeout, ProgressWindow and MinRate bound each
	// request; 0 means the Default* value.
	HeaderTimeout  time.Duration
	RequestTimeout time.Duration
	ProgressWindow time.Duration
	MinRate        int64
	// MaxRedirects is how many redirects a request follows; 0 means
	// DefaultMaxRedirects, a negative value follows none.
	MaxRedirects int
}

var _ iceio.IO = (*FS)(nil)

// Open opens an http or https URL; see OpenContext.
func (fsys *FS) Open(name string) (iceio.File, error) {
	f, err := fsys.OpenContext(context.Background(), name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// OpenContext opens an http or https URL and learns its size. ctx bounds
// every request of the returned File, including its later reads.
func (fsys *FS) OpenContext(ctx context.Context, name string) (*File, error) {
	u, err := fsys.checkURL(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := &File{
		ctx:    ctx,
		client: fsys.client(),
		header: fsys.Header,
		url:    u.String(),
		shown:  u.Redacted(),
		base:   baseName(u),
		limits: fsys.limits(),
	}
	if err := f.stat(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: f.shown, Err: err}
	}
	if max := orDefault(fsys.MaxSize, DefaultMaxSize); f.size > max {
		return nil, &fs.PathError{Op: "open", Path: f.shown, Err: fmt.Errorf("%w: %d bytes, over the limit of %d", ErrTooLarge, f.size, max)}
	}
	return f, nil
}

// Remove always fails: the FS is read-only.
func (fsys *FS) Remove(name string) error {
	return &fs.PathError{Op: "remove", Path: name, Err: ErrReadOnly}
}

func (fsys *FS) checkURL(name string) (*url.URL, error) {
	u, err := url.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScheme, err)
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, fmt.Errorf("%w: scheme %q", ErrScheme, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: no host", ErrScheme)
	}
	if !fsys.hostAllowed(u.Host) {
		return nil, fmt.Errorf("%w: %q is not in the FS's host list", ErrHost, u.Host)
	}
	return u, nil
}

func (fsys *FS) hostAllowed(host string) bool {
	if len(fsys.Hosts) == 0 {
		return true
	}
	for _, h := range fsys.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// client is a shallow copy of the configured client (sharing its transport
// and so its connection pool) whose redirects pass this FS's checks first.
func (fsys *FS) client() *http.Client {
	base := fsys.Client
	if base == nil {
		base = &http.Client{}
	}
	max := fsys.MaxRedirects
	switch {
	case max == 0:
		max = DefaultMaxRedirects
	case max < 0:
		max = 0
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > max {
			return fmt.Errorf("%w: more than %d redirects (next: %s)", ErrRedirect, max, req.URL.Redacted())
		}
		s := strings.ToLower(req.URL.Scheme)
		if s != "http" && s != "https" {
			return fmt.Errorf("%w: to %s: scheme %q", ErrRedirect, req.URL.Redacted(), req.URL.Scheme)
		}
		// Leaving TLS would expose the request (and its headers) in clear.
		if strings.EqualFold(via[len(via)-1].URL.Scheme, "https") && s == "http" {
			return fmt.Errorf("%w: to %s: https to http downgrade", ErrRedirect, req.URL.Redacted())
		}
		if !fsys.hostAllowed(req.URL.Host) {
			return fmt.Errorf("%w: to %s: host %q is not in the FS's host list", ErrRedirect, req.URL.Redacted(), req.URL.Host)
		}
		if base.CheckRedirect != nil {
			return base.CheckRedirect(req, via)
		}
		return nil
	}
	return &c
}

func (fsys *FS) limits() limits {
	return limits{
		header:  orDefault(fsys.HeaderTimeout, DefaultHeaderTimeout),
		request: orDefault(fsys.RequestTimeout, DefaultRequestTimeout),
		window:  orDefault(fsys.ProgressWindow, DefaultProgressWindow),
		minRate: orDefault(fsys.MinRate, DefaultMinRate),
	}
}

// orDefault treats zero and negative settings alike: a negative timeout or
// limit has no meaning other than "not set".
func orDefault[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
