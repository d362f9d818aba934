package file

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
)

func newTestResolver(t *testing.T, cfg Config) *Resolver {
	t.Helper()
	r, err := NewResolver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseReference(t *testing.T) {
	root := realTempDir(t)
	r := newTestResolver(t, Config{
		Roots:        []string{root, "mem://bucket/data"},
		Schemes:      []string{"file", "https", "http", "mem"},
		HTTPHosts:    []string{"example.com", "127.0.0.1:8080"},
		BaseLocation: root,
		SchemeIO:     map[string]icebergio.IO{"mem": icebergio.NewMemFS()},
	})
	in := func(p string) string { return filepath.Join(root, p) }
	tests := []struct {
		uri      string
		wantKind Kind
		wantLoc  string // local path or URL
		wantRule Rule
	}{
		{uri: "img/a.jpg", wantKind: KindLocal, wantLoc: in("img/a.jpg")},
		{uri: in("a.jpg"), wantKind: KindLocal, wantLoc: in("a.jpg")},
		{uri: "file://" + in("a.jpg"), wantKind: KindLocal, wantLoc: in("a.jpg")},
		{uri: "file://localhost" + in("a.jpg"), wantKind: KindLocal, wantLoc: in("a.jpg")},
		{uri: "FILE://" + in("a.jpg"), wantKind: KindLocal, wantLoc: in("a.jpg")},
		{uri: "file://" + in("a%20b.jpg"), wantKind: KindLocal, wantLoc: in("a b.jpg")},
		{uri: "https://example.com/x/y.png", wantKind: KindHTTP, wantLoc: "https://example.com/x/y.png"},
		{uri: "https://EXAMPLE.com/y.png#frag", wantKind: KindHTTP, wantLoc: "https://EXAMPLE.com/y.png"},
		{uri: "http://127.0.0.1:8080/y", wantKind: KindHTTP, wantLoc: "http://127.0.0.1:8080/y"},
		{uri: "mem://bucket/data/k.bin", wantKind: KindObject, wantLoc: "mem://bucket/data/k.bin"},
		// A URI-reference is percent-decoded; Go tolerates a raw space.
		{uri: "a%20b.jpg", wantKind: KindLocal, wantLoc: in("a b.jpg")},
		{uri: "a b.jpg", wantKind: KindLocal, wantLoc: in("a b.jpg")},
		{uri: "100%25.jpg", wantKind: KindLocal, wantLoc: in("100%.jpg")},
		{uri: "100%.jpg", wantRule: RuleURISyntax},

		// Escapes and refusals.
		{uri: "../outside.jpg", wantRule: RuleDotSegment},
		{uri: "img/../../outside.jpg", wantRule: RuleDotSegment},
		{uri: "%2e%2e/outside.jpg", wantRule: RuleDotSegment},
		{uri: "./a.jpg", wantRule: RuleDotSegment},
		{uri: "file://" + root + "/../x", wantRule: RuleDotSegment},
		{uri: "/etc/passwd", wantRule: RuleOutsideRoot},
		{uri: "file:///etc/passwd", wantRule: RuleOutsideRoot},
		{uri: "file://" + root + "-sibling/a.jpg", wantRule: RuleOutsideRoot},
		{uri: "file://evil.example/a.jpg", wantRule: RuleHost},
		{uri: "file://" + in("a.jpg?x=1"), wantRule: RuleURISyntax},
		{uri: "file:a.jpg", wantRule: RuleURISyntax},
		{uri: "file://" + in("a%00.jpg"), wantRule: RuleURISyntax},
		{uri: "ftp://example.com/a.jpg", wantRule: RuleScheme},
		{uri: "javascript:alert(1)", wantRule: RuleScheme},
		{uri: "data:text/plain;base64,aGk=", wantRule: RuleScheme},
		{uri: "gopher://example.com/1", wantRule: RuleScheme},
		{uri: "s3://bucket/a.jpg", wantRule: RuleScheme},
		{uri: "https://evil.example/a.jpg", wantRule: RuleHost},
		{uri: "https://example.com:8443/a.jpg", wantRule: RuleHost},
		{uri: "https://user:pw@example.com/a.jpg", wantRule: RuleUserinfo},
		{uri: "https://user@example.com/a.jpg", wantRule: RuleUserinfo},
		{uri: "//evil.example/a.jpg", wantRule: RuleHost},
		{uri: "https:///a.jpg", wantRule: RuleURISyntax},
		{uri: "mem://bucket/database/k.bin", wantRule: RuleOutsideRoot},
		{uri: "mem://other/data/k.bin", wantRule: RuleOutsideRoot},
		{uri: "http://[::1", wantRule: RuleURISyntax},
		{uri: "a\x7fb", wantRule: RuleURISyntax},
		{uri: "", wantRule: RuleURISyntax},
	}
	for _, tc := range tests {
		t.Run(tc.uri, func(t *testing.T) {
			loc, err := r.ParseReference(tc.uri)
			if tc.wantRule != "" {
				rule, _ := RuleOf(err)
				if rule != tc.wantRule {
					t.Fatalf("ParseReference(%q) = %v, %v; want rule %s", tc.uri, loc, err, tc.wantRule)
				}
				if tc.uri != "" && !strings.Contains(err.Error(), "uri "+strconvQuote(tc.uri)) {
					t.Errorf("error %q does not name the uri", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseReference(%q): %v", tc.uri, err)
			}
			got := loc.URL.String()
			if loc.Kind == KindLocal {
				got = loc.Path
			}
			if loc.Kind != tc.wantKind || got != tc.wantLoc {
				t.Fatalf("ParseReference(%q) = %s %s, want %s %s", tc.uri, loc.Kind, got, tc.wantKind, tc.wantLoc)
			}
		})
	}
}

func strconvQuote(s string) string { return strconv.Quote(s) }

func TestRelativeReferenceNeedsBase(t *testing.T) {
	root := realTempDir(t)
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}})
	if _, err := r.ParseReference("a.jpg"); !hasRule(err, RuleRelativeNoBase) {
		t.Fatalf("relative without base: %v", err)
	}
	// Without a base an absolute path is still a local path.
	loc, err := r.ParseReference(filepath.Join(root, "a.jpg"))
	if err != nil || loc.Kind != KindLocal {
		t.Fatalf("absolute path without base: %v, %v", loc, err)
	}
}

func TestBaseLocationIsADirectory(t *testing.T) {
	// RFC 3986 would resolve "a.jpg" against ".../tbl" to ".../a.jpg"; the
	// lab reads the base as a directory, as Iceberg's table location is.
	r := newTestResolver(t, Config{Schemes: []string{"https"}, HTTPHosts: []string{"h"}, BaseLocation: "https://h/tbl"})
	loc, err := r.ParseReference("img/a.jpg")
	if err != nil || loc.URL.String() != "https://h/tbl/img/a.jpg" {
		t.Fatalf("got %v, %v", loc, err)
	}
	// An absolute-path reference keeps the base's scheme and authority.
	loc, err = r.ParseReference("/other/a.jpg")
	if err != nil || loc.URL.String() != "https://h/other/a.jpg" {
		t.Fatalf("got %v, %v", loc, err)
	}
}

func TestNewResolverRefusesBadConfig(t *testing.T) {
	root := realTempDir(t)
	tests := map[string]Config{
		"relative root":          {Roots: []string{"rel"}, Schemes: []string{"file"}},
		"missing root":           {Roots: []string{filepath.Join(root, "nope")}, Schemes: []string{"file"}},
		"file without root":      {Schemes: []string{"file"}},
		"scheme without io":      {Schemes: []string{"s3"}},
		"object without root":    {Schemes: []string{"mem"}, SchemeIO: map[string]icebergio.IO{"mem": icebergio.NewMemFS()}},
		"root scheme without io": {Roots: []string{"s3://b/"}},
		"negative max":           {MaxSize: -1},
		"relative base":          {BaseLocation: "tbl"},
		"base with dots":         {BaseLocation: "https://h/a/../b"},
	}
	for name, cfg := range tests {
		if _, err := NewResolver(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
