package file

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
)

// FuzzValidate feeds untrusted FILE values through validation, checksum
// parsing, target planning and inline resolution: none may panic, and a value
// Validate accepts must plan to a sane range.
func FuzzValidate(f *testing.F) {
	f.Add("a.jpg", int64(0), int64(3), "image/png", "MD5:d41d8cd98f00b204e9800998ecf8427e", []byte("abc"), uint8(0xff))
	f.Add("", int64(-1), int64(-1), "", "", []byte(nil), uint8(0))
	f.Add("s3://b/k", int64(1<<62), int64(1<<62), "x", "ETAG:", []byte{}, uint8(0b000111))
	f.Add("../x", int64(9223372036854775807), int64(1), "", "SHA-256:zz", []byte("x"), uint8(0b100111))
	f.Add("file:///etc/passwd", int64(0), int64(0), "", "CRC32:cbf43926", []byte("123456789"), uint8(0b110001))
	f.Add("javascript:alert(1)", int64(0), int64(9), "", "XXH3:", []byte("x"), uint8(0b100001))
	f.Fuzz(func(t *testing.T, uri string, offset, size int64, ct, checksum string, inline []byte, mask uint8) {
		v := &Value{}
		if mask&1 != 0 {
			v.URI = &uri
		}
		if mask&2 != 0 {
			v.Offset = &offset
		}
		if mask&4 != 0 {
			v.Size = &size
		}
		if mask&8 != 0 {
			v.ContentType = &ct
		}
		if mask&16 != 0 {
			v.Checksum = &checksum
		}
		if mask&32 != 0 {
			if inline == nil {
				inline = []byte{}
			}
			v.Inline = inline
		}
		err := v.Validate()
		_ = v.Violations()
		_, _ = ParseChecksum(checksum)
		_ = v.String()
		if err != nil {
			var viol *Violation
			if !errors.As(err, &viol) || !viol.Rule.Spec() {
				t.Fatalf("Validate(%v) returned %v, not a spec *Violation", v, err)
			}
			return
		}
		if !v.IsSet(FieldInline) && !v.IsSet(FieldURI) {
			t.Fatalf("Validate accepted %v, which sets neither inline nor uri", v)
		}
		tg, err := fuzzResolver.Target(v)
		if err != nil {
			return
		}
		if tg.Offset < 0 || tg.Length < -1 || (tg.Length > 0 && tg.Offset+tg.Length < tg.Offset) {
			t.Fatalf("Target(%v) = offset %d length %d", v, tg.Offset, tg.Length)
		}
		if tg.Inline {
			got, err := fuzzResolver.ReadAll(context.Background(), &Value{Inline: v.Inline, Checksum: v.Checksum})
			if err == nil && string(got) != string(v.Inline) {
				t.Fatalf("inline resolved to %q, want %q", got, v.Inline)
			}
		}
	})
}

// FuzzParseReference feeds untrusted URIs to the reference parser: it must
// not panic, and whatever it accepts must lie inside the policy.
func FuzzParseReference(f *testing.F) {
	for _, s := range []string{
		"a.jpg", "img/a%20b.jpg", "../x", "%2e%2e/x", "/etc/passwd", "file:///etc/passwd",
		"file://localhost/tmp/x", "file:a", "http://127.0.0.1:1/x", "http://u:p@127.0.0.1:1/x",
		"https://example.com/x#f", "//evil/x", "javascript:alert(1)", "data:,x", "gopher://h/1",
		"ftp://h/x", "mem://bucket/data/k", "mem://bucket/datax/k", "http://[::1", "a\x00b",
		"file://" + fuzzRoot + "/a", "file://" + fuzzRoot + "/../x", "\\..\\x", "?q", "#f", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		loc, err := fuzzResolver.ParseReference(uri)
		if err != nil {
			var v *Violation
			if !errors.As(err, &v) {
				t.Fatalf("ParseReference(%q) returned %v, not a *Violation", uri, err)
			}
			return
		}
		switch loc.Kind {
		case KindLocal:
			if !within(fuzzRoot, loc.Path, filepath.Separator) {
				t.Fatalf("ParseReference(%q) accepted %s outside %s", uri, loc.Path, fuzzRoot)
			}
		case KindHTTP:
			if loc.URL.User != nil || !fuzzResolver.hosts[lower(loc.URL.Host)] {
				t.Fatalf("ParseReference(%q) accepted %s", uri, loc.URL)
			}
		case KindObject:
			if !fuzzResolver.inObjectRoots("mem", objectName(loc.URL)) {
				t.Fatalf("ParseReference(%q) accepted %s", uri, loc.URL)
			}
		default:
			t.Fatalf("ParseReference(%q) gave kind %v", uri, loc.Kind)
		}
	})
}

// The fuzz resolver's root need not exist on disk for parsing; it is built
// without NewResolver's directory check so the targets stay pure.
const fuzzRoot = "/fuzz-root"

var fuzzResolver = func() *Resolver {
	r := &Resolver{
		localRoots:  []localRoot{{clean: fuzzRoot, real: fuzzRoot}},
		objectRoots: map[string][]string{"mem": {"mem://bucket/data/"}},
		schemes:     map[string]bool{"file": true, "http": true, "https": true, "mem": true},
		hosts:       map[string]bool{"127.0.0.1:1": true, "example.com": true},
		maxSize:     1 << 20,
		fileIO:      nopIO{},
		cfg:         Config{SchemeIO: map[string]icebergio.IO{"mem": nopIO{}}, VerifyChecksums: true},
	}
	b, err := parseBase(fuzzRoot)
	if err != nil {
		panic(err)
	}
	r.base = b
	return r
}()

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// nopIO fails every open, so a fuzz input can never reach a real file.
type nopIO struct{}

func (nopIO) Open(name string) (icebergio.File, error) {
	return nil, errors.New("fuzz: no file may be opened: " + name)
}
func (nopIO) Remove(string) error { return errors.New("fuzz: no remove") }
