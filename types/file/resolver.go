package file

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/coltype-lab/lab/internal/safeopen"
)

// DefaultMaxSize is the most bytes one value may resolve to when
// Config.MaxSize is 0.
const DefaultMaxSize int64 = 256 << 20

// The http(s) timeouts a zero Config field means.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultHeaderTimeout  = 30 * time.Second
	DefaultIdleTimeout    = 30 * time.Second
)

// Config is a resolver's policy. The zero value allows nothing: every
// scheme, root and host has to be listed.
type Config struct {
	// Roots confine resolution. A local root is an absolute directory; a
	// root for an object-store scheme is a URI prefix such as
	// "s3://bucket/images/". A reference outside every root is refused.
	Roots []string
	// Schemes lists the allowed schemes: "file" (local paths), "http",
	// "https", or a scheme with a FileIO in SchemeIO.
	Schemes []string
	// HTTPHosts lists the hosts http and https may reach, as host or
	// host:port, matched exactly and without regard to case.
	HTTPHosts []string
	// BaseLocation resolves relative references (RFC 3986, section 5). It
	// is taken as a directory: "s3://b/tbl" and "s3://b/tbl/" are the same
	// base. An absolute path without a scheme is a local directory.
	BaseLocation string
	// MaxSize is the most bytes one value may resolve to; 0 means
	// DefaultMaxSize.
	MaxSize int64
	// VerifyChecksums hashes the bytes while they stream and fails at the
	// end on a mismatch; an ETAG is compared with the HTTP ETag header.
	VerifyChecksums bool
	// InvalidAsNull reads a value that breaks a spec rule as null instead of
	// failing. OnInvalid, when set, receives each such value and its first
	// violation, so the reason can still be reported per row.
	InvalidAsNull bool
	OnInvalid     func(v *Value, why *Violation)
	// SkipInlineLocatorCheck turns off comparing inline bytes with the
	// bytes their uri denotes. The check costs a read of the external
	// object, and runs only when the locator passes the policy and exists.
	SkipInlineLocatorCheck bool
	// FileIO opens local files; nil means iceberg-go's LocalFS with an open
	// that cannot block on a FIFO (internal/safeopen).
	FileIO icebergio.IO
	// SchemeIO opens object-store URIs by scheme, for example an IO from
	// iceberg-go's io.LoadFS for "s3".
	SchemeIO map[string]icebergio.IO
	// HTTPClient sends http and https requests; nil means a plain client.
	// Its redirects are re-checked against the policy.
	HTTPClient *http.Client
	// ConnectTimeout bounds getting a connection to an http(s) host (dial
	// and TLS handshake), HeaderTimeout the wait for response headers once
	// the request is sent, IdleTimeout each wait for more body bytes: a
	// server that accepts and stalls fails the value instead of hanging it.
	// 0 means the Default*Timeout. Connect and header timeouts need a
	// transport that reports net/http/httptrace events, as net/http's does.
	ConnectTimeout, HeaderTimeout, IdleTimeout time.Duration
}

type localRoot struct{ clean, real string }

// Resolver turns FILE values into their bytes under a Config's policy. It
// is safe for concurrent use.
type Resolver struct {
	cfg         Config
	base        *url.URL
	localRoots  []localRoot
	objectRoots map[string][]string
	schemes     map[string]bool
	hosts       map[string]bool
	maxSize     int64
	fileIO      icebergio.IO
	client      *http.Client
	timeouts    httpLimits
}

// NewResolver checks cfg and returns a resolver for it. Local roots must
// exist and be directories; their symlinks are resolved once, here.
func NewResolver(cfg Config) (*Resolver, error) {
	r := &Resolver{
		cfg:         cfg,
		objectRoots: map[string][]string{},
		schemes:     map[string]bool{},
		hosts:       map[string]bool{},
		maxSize:     cfg.MaxSize,
		fileIO:      cfg.FileIO,
	}
	if r.maxSize == 0 {
		r.maxSize = DefaultMaxSize
	}
	if r.maxSize < 0 {
		return nil, fmt.Errorf("FILE resolver: MaxSize %d is negative", cfg.MaxSize)
	}
	if r.fileIO == nil {
		r.fileIO = safeopen.LocalFS{}
	}
	for _, t := range []struct {
		name string
		set  time.Duration
		def  time.Duration
		dst  *time.Duration
	}{
		{"ConnectTimeout", cfg.ConnectTimeout, DefaultConnectTimeout, &r.timeouts.connect},
		{"HeaderTimeout", cfg.HeaderTimeout, DefaultHeaderTimeout, &r.timeouts.header},
		{"IdleTimeout", cfg.IdleTimeout, DefaultIdleTimeout, &r.timeouts.idle},
	} {
		if t.set < 0 {
			return nil, fmt.Errorf("FILE resolver: %s %s is negative", t.name, t.set)
		}
		*t.dst = cmp.Or(t.set, t.def)
	}
	for _, s := range cfg.Schemes {
		s = strings.ToLower(s)
		switch s {
		case "file", "http", "https":
		default:
			if cfg.SchemeIO[s] == nil {
				return nil, fmt.Errorf("FILE resolver: scheme %q has no FileIO in SchemeIO", s)
			}
		}
		r.schemes[s] = true
	}
	for _, h := range cfg.HTTPHosts {
		r.hosts[strings.ToLower(h)] = true
	}
	for _, root := range cfg.Roots {
		u, err := url.Parse(root)
		if err == nil && u.Scheme != "" && u.Scheme != "file" {
			s := strings.ToLower(u.Scheme)
			if cfg.SchemeIO[s] == nil {
				return nil, fmt.Errorf("FILE resolver: root %q: scheme %q has no FileIO in SchemeIO", root, s)
			}
			if checkPath(u) != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
				return nil, fmt.Errorf("FILE resolver: root %q must be a plain prefix without dot segments, query, fragment or userinfo", root)
			}
			r.objectRoots[s] = append(r.objectRoots[s], strings.TrimSuffix(objectName(u), "/")+"/")
			continue
		}
		p := root
		if err == nil && u.Scheme == "file" {
			p = filepath.FromSlash(u.Path)
		}
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("FILE resolver: root %q is not an absolute directory", root)
		}
		clean := filepath.Clean(p)
		real, err := filepath.EvalSymlinks(clean)
		if err != nil {
			return nil, fmt.Errorf("FILE resolver: root %q: %w", root, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("FILE resolver: root %q is not a directory", root)
		}
		r.localRoots = append(r.localRoots, localRoot{clean: clean, real: real})
	}
	if r.schemes["file"] && len(r.localRoots) == 0 {
		return nil, fmt.Errorf("FILE resolver: scheme file is allowed but no local root is configured")
	}
	for s := range r.schemes {
		if s != "file" && s != "http" && s != "https" && len(r.objectRoots[s]) == 0 {
			return nil, fmt.Errorf("FILE resolver: scheme %q is allowed but no %s:// root is configured", s, s)
		}
	}
	if cfg.BaseLocation != "" {
		b, err := parseBase(cfg.BaseLocation)
		if err != nil {
			return nil, err
		}
		r.base = b
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("FILE uri %q: stopped after 10 redirects", via[0].URL)
		}
		// A redirect must pass the same policy, or it would bypass the
		// host list.
		if _, err := r.ParseReference(req.URL.String()); err != nil {
			return err
		}
		if base.CheckRedirect != nil {
			return base.CheckRedirect(req, via)
		}
		return nil
	}
	r.client = &c
	return r, nil
}

func parseBase(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("FILE resolver: base location %q: %w", s, err)
	}
	if u.Scheme == "" {
		if !filepath.IsAbs(s) {
			return nil, fmt.Errorf("FILE resolver: base location %q is neither an absolute URI nor an absolute path", s)
		}
		u = &url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Clean(s))}
	}
	if checkPath(u) != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("FILE resolver: base location %q must be a plain directory without dot segments, userinfo, query or fragment", s)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/" // a base is a directory: resolve "a.jpg" inside it, not beside it
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

// Target is what a valid value resolves to, before anything is read.
type Target struct {
	// Inline is true when the inline bytes are the value's bytes.
	Inline bool
	// Location is where the bytes are read from; for an inline value it is
	// the provenance locator, nil when uri is not set.
	Location *Location
	// Offset and Length give the range of the object; Length -1 runs to
	// the object's end.
	Offset, Length int64
	// ContentType is content_type, or application/octet-stream.
	ContentType string
	// Checksum is the parsed checksum, nil when not set or not of the
	// spec's form.
	Checksum *Checksum
	// Unverifiable says why a set checksum cannot be checked against the
	// bytes, as far as that is known before anything is read: a token not
	// of the form <algorithm>:<digest> in the algorithm's encoding, an
	// unknown algorithm, or an ETAG where there is no ETag to compare with.
	// It does not make the value invalid; "" when there is nothing to say.
	Unverifiable string
}

// Target applies the byte-resolution table to v and the policy to its uri.
// A nil value (null) gives (nil, nil). For an inline value, a uri the policy
// refuses only means there is no locator to compare with, so Target.Location
// is nil and there is no error.
func (r *Resolver) Target(v *Value) (*Target, error) {
	if v == nil {
		return nil, nil
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	uri := ""
	if v.URI != nil {
		uri = *v.URI
	}
	t := &Target{Inline: v.IsSet(FieldInline), Length: -1, ContentType: v.EffectiveContentType()}
	if v.IsSet(FieldChecksum) {
		c, err := ParseChecksum(*v.Checksum)
		switch {
		case err != nil:
			t.Unverifiable = fmt.Sprintf("checksum %q: %v", *v.Checksum, err)
		case !c.Known():
			// "Readers should ignore unknown algorithms."
			t.Checksum, t.Unverifiable = &c, fmt.Sprintf("checksum %q: unknown algorithm %q; readers ignore unknown algorithms", c, c.Algorithm)
		default:
			t.Checksum = &c
		}
	}
	if v.IsSet(FieldSize) {
		t.Length = *v.Size
	}
	if v.IsSet(FieldOffset) {
		t.Offset = *v.Offset
	}
	if t.Length > r.maxSize {
		return nil, violation(RuleMaxSize, "size", uri, "declared size %d exceeds the limit of %d bytes", t.Length, r.maxSize)
	}
	if t.Length > 0 && t.Offset > math.MaxInt64-t.Length {
		return nil, violation(RuleRangeOverflow, "offset", uri, "offset %d + size %d overflows int64", t.Offset, t.Length)
	}
	if t.Inline {
		if int64(len(v.Inline)) > r.maxSize {
			return nil, violation(RuleMaxSize, "inline", uri, "inline holds %d bytes, over the limit of %d", len(v.Inline), r.maxSize)
		}
		if v.IsSet(FieldURI) {
			if loc, err := r.ParseReference(uri); err == nil {
				t.Location = loc
			}
		}
		t.etagScope(v)
		return t, nil
	}
	loc, err := r.ParseReference(uri)
	if err != nil {
		return nil, err
	}
	t.Location = loc
	t.etagScope(v)
	return t, nil
}

// etagScope notes an ETAG that nothing can be compared with: "ETAG, which
// is the object-store eTag for the whole file referenced by `uri`", and only
// an http(s) response carries one (iceberg-go FileIOs and local files expose
// none).
func (t *Target) etagScope(v *Value) {
	if t.Checksum == nil || t.Checksum.Algorithm != AlgETag || t.Unverifiable != "" {
		return
	}
	switch {
	case !v.IsSet(FieldURI):
		t.Unverifiable = "ETAG is the eTag of the file at uri, and the value has no uri"
	case t.Location == nil:
		t.Unverifiable = "ETAG is the eTag of the file at uri, which the policy does not let the resolver open"
	case t.Location.Kind == KindLocal:
		t.Unverifiable = "ETAG is an object store's eTag, and a local file has none"
	case t.Location.Kind == KindObject:
		t.Unverifiable = "ETAG is the object store's eTag, which an iceberg-go FileIO does not expose"
	}
}

// Open returns a stream of v's bytes. A null value, and an invalid one when
// InvalidAsNull is set, gives (nil, nil). With VerifyChecksums, a checksum
// mismatch is the error of the read that reaches the end, so a caller must
// treat an error at the end as fatal for the bytes it already got. A
// checksum that cannot be checked is not an error; OpenStream says why.
func (r *Resolver) Open(ctx context.Context, v *Value) (io.ReadCloser, error) {
	s, err := r.OpenStream(ctx, v)
	if s == nil || err != nil {
		return nil, err
	}
	return s, nil
}

// Stream is an open value: its bytes and what the resolver does with its
// checksum.
type Stream struct {
	io.ReadCloser
	// Checked is true when VerifyChecksums is set and the checksum is
	// checked: recomputed while the bytes stream (a mismatch fails the read
	// that reaches the end), or an ETAG equal to the response's ETag.
	Checked bool
	// Unverifiable says why a set checksum is not checked although
	// VerifyChecksums asks for it (see Target.Unverifiable; also an http
	// response without an ETag). The value is still valid and its bytes
	// still stream: the spec has no checksum rule, and "Readers should
	// ignore unknown algorithms".
	Unverifiable string
}

// OpenStream is Open with the checksum's fate: a null value, and an invalid
// one when InvalidAsNull is set, gives (nil, nil).
func (r *Resolver) OpenStream(ctx context.Context, v *Value) (*Stream, error) {
	if v == nil {
		return nil, nil
	}
	if vs := v.Violations(); len(vs) > 0 {
		if r.cfg.InvalidAsNull {
			if r.cfg.OnInvalid != nil {
				r.cfg.OnInvalid(v, vs[0])
			}
			return nil, nil
		}
		return nil, vs[0]
	}
	t, err := r.Target(v)
	if err != nil {
		return nil, err
	}
	uri := ""
	if v.URI != nil {
		uri = *v.URI
	}
	var rc io.ReadCloser
	var etag string
	if t.Inline {
		rc = io.NopCloser(bytes.NewReader(v.Inline))
		if t.Location != nil && !r.cfg.SkipInlineLocatorCheck {
			ext, err := r.openTarget(ctx, t)
			switch {
			case err == nil:
				rc, etag = &compareReader{inline: rc, ext: ext.rc, uri: uri}, ext.etag
			case errors.Is(err, fs.ErrNotExist) || isPolicyRefusal(err):
				// The locator is provenance: a missing object, or one the
				// policy will not open, leaves nothing to compare with.
			default:
				if rule, ok := RuleOf(err); ok && (rule == RuleRangePastEnd || rule == RuleMaxSize) {
					return nil, violation(RuleInlineLocatorMismatch, "uri", uri, "inline holds %d bytes but the locator does not: %v", len(v.Inline), err)
				}
				return nil, err
			}
		}
	} else {
		o, err := r.openTarget(ctx, t)
		if err != nil {
			return nil, err
		}
		rc, etag = o.rc, o.etag
	}
	s := &Stream{ReadCloser: rc}
	if !r.cfg.VerifyChecksums || !v.IsSet(FieldChecksum) {
		return s, nil
	}
	c := t.Checksum
	switch {
	case t.Unverifiable != "":
		s.Unverifiable = t.Unverifiable
	case c.Recomputable():
		h, _ := NewHash(c.Algorithm)
		s.ReadCloser, s.Checked = &verifyReader{rc: rc, h: h, want: *c, uri: uri}, true
	case etag == "":
		s.Unverifiable = "ETAG: the response carries no ETag to compare with (the server sent no ETag, or no request was needed)"
	case normalizeETag(etag) != normalizeETag(c.Digest):
		rc.Close()
		return nil, violation(RuleChecksumMismatch, "checksum", uri, "ETAG %q, the server sent ETag %s", c.Digest, etag)
	default:
		s.Checked = true
	}
	return s, nil
}

// isPolicyRefusal reports whether err is the policy refusing a location,
// as opposed to the location's bytes being wrong.
func isPolicyRefusal(err error) bool {
	rule, ok := RuleOf(err)
	if !ok {
		return false
	}
	switch rule {
	case RuleURISyntax, RuleRelativeNoBase, RuleDotSegment, RuleScheme, RuleHost, RuleUserinfo,
		RuleOutsideRoot, RuleSymlinkEscape, RuleNotRegularFile:
		return true
	}
	return false
}

// ReadAll reads v's bytes into memory. A null value gives nil; an empty one
// a non-nil empty slice.
func (r *Resolver) ReadAll(ctx context.Context, v *Value) ([]byte, error) {
	rc, err := r.Open(ctx, v)
	if err != nil || rc == nil {
		return nil, err
	}
	b, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

type opened struct {
	rc   io.ReadCloser
	etag string
}

func (r *Resolver) openTarget(ctx context.Context, t *Target) (opened, error) {
	switch t.Location.Kind {
	case KindLocal:
		return r.openLocal(t.Location, t.Offset, t.Length)
	case KindHTTP:
		return r.openHTTP(ctx, t.Location, t.Offset, t.Length)
	default:
		return r.openObject(t.Location, t.Offset, t.Length)
	}
}

// sizeRange checks a range against an object of known length and returns
// the number of bytes to read.
func (r *Resolver) sizeRange(loc *Location, objLen, off, n int64) (int64, error) {
	if n < 0 {
		if objLen > r.maxSize {
			return 0, violation(RuleMaxSize, "uri", loc.Written, "object is %d bytes, over the limit of %d", objLen, r.maxSize)
		}
		return objLen, nil
	}
	if off > objLen || n > objLen-off {
		return 0, violation(RuleRangePastEnd, "size", loc.Written, "range [%d, %d) runs past the object's end at %d", off, off+n, objLen)
	}
	return n, nil
}

// openObject reads an object-store URI through the scheme's FileIO.
func (r *Resolver) openObject(loc *Location, off, n int64) (opened, error) {
	name := objectName(loc.URL)
	f, err := r.cfg.SchemeIO[strings.ToLower(loc.URL.Scheme)].Open(name)
	if err != nil {
		return opened{}, fmt.Errorf("FILE uri %q: open %s: %w", loc.Written, name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return opened{}, fmt.Errorf("FILE uri %q: stat %s: %w", loc.Written, name, err)
	}
	length, err := r.sizeRange(loc, fi.Size(), off, n)
	if err != nil {
		f.Close()
		return opened{}, err
	}
	return opened{rc: section(f, off, length, loc.Written)}, nil
}

// section streams [off, off+n) of f and closes f. A file that shrinks
// under the reader ends with range-past-end instead of a short value.
func section(f icebergio.File, off, n int64, uri string) io.ReadCloser {
	return &exactReader{r: io.NewSectionReader(f, off, n), want: n, left: n, uri: uri, closer: f}
}

// exactReader insists on exactly want bytes.
type exactReader struct {
	r          io.Reader
	want, left int64
	uri        string
	closer     io.Closer
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, violation(RuleRangePastEnd, "size", e.uri, "object ended after %d of %d bytes", e.want-e.left, e.want)
	}
	if err == io.EOF || (err == nil && e.left == 0) {
		return n, io.EOF
	}
	return n, err
}

func (e *exactReader) Close() error {
	if e.closer == nil {
		return nil
	}
	return e.closer.Close()
}

// capReader streams an object of unknown length and fails once it passes max.
type capReader struct {
	rc   io.ReadCloser
	max  int64
	read int64
	uri  string
}

func (c *capReader) Read(p []byte) (int, error) {
	if room := c.max + 1 - c.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.rc.Read(p)
	c.read += int64(n)
	if c.read > c.max {
		return n - int(c.read-c.max), violation(RuleMaxSize, "uri", c.uri, "object is over the limit of %d bytes", c.max)
	}
	return n, err
}

func (c *capReader) Close() error { return c.rc.Close() }

// verifyReader hashes what passes through and checks the digest at the end.
type verifyReader struct {
	rc   io.ReadCloser
	h    hash.Hash
	want Checksum
	uri  string
}

func (v *verifyReader) Read(p []byte) (int, error) {
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	if err == io.EOF {
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want.Digest {
			return n, violation(RuleChecksumMismatch, "checksum", v.uri, "bytes hash to %s:%s, the value says %s", v.want.Algorithm, got, v.want)
		}
	}
	return n, err
}

func (v *verifyReader) Close() error { return v.rc.Close() }

// compareReader yields the inline bytes while reading the locator's bytes
// in step, so a mismatch shows without buffering either side.
type compareReader struct {
	inline io.ReadCloser
	ext    io.ReadCloser
	buf    []byte
	pos    int64
	uri    string
}

func (c *compareReader) Read(p []byte) (int, error) {
	n, err := c.inline.Read(p)
	if n > 0 {
		if len(c.buf) < n {
			c.buf = make([]byte, n)
		}
		m, xerr := io.ReadFull(c.ext, c.buf[:n])
		if m < n {
			return 0, c.mismatch("the locator's bytes end at %d, inline goes on (%v)", c.pos+int64(m), xerr)
		}
		if i := firstDiff(p[:n], c.buf[:n]); i >= 0 {
			return 0, c.mismatch("bytes differ at %d", c.pos+int64(i))
		}
		c.pos += int64(n)
	}
	if err == io.EOF {
		var one [1]byte
		if k, _ := io.ReadFull(c.ext, one[:]); k > 0 {
			return n, c.mismatch("inline ends at %d, the locator's bytes go on", c.pos)
		}
	}
	return n, err
}

func (c *compareReader) mismatch(format string, args ...any) error {
	return violation(RuleInlineLocatorMismatch, "inline", c.uri, format, args...)
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func (c *compareReader) Close() error {
	err := c.inline.Close()
	if e := c.ext.Close(); err == nil {
		err = e
	}
	return err
}

// normalizeETag drops the weak prefix and the quotes HTTP puts around an
// entity tag, since the spec's opaque token may be stored either way.
func normalizeETag(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	return strings.Trim(s, `"`)
}
