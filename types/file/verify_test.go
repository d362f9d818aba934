package file

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A checksum the lab cannot use leaves the reference resolvable: the
// Validation list has no checksum rule and "Readers should ignore unknown
// algorithms" (LogicalTypes.md, FILE, "checksum"). With VerifyChecksums,
// OpenStream says it is unverifiable and why; the bytes still stream.
func TestUnverifiableChecksum(t *testing.T) {
	root := realTempDir(t)
	writeFile(t, filepath.Join(root, "obj.bin"), digits)
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, VerifyChecksums: true})
	uri := Ptr("obj.bin")
	tests := []struct {
		name     string
		checksum string
		want     string // substring of the reason; "" when the checksum is checked
	}{
		{"recomputable", sha(t, digits), ""},
		{"no colon", "d41d8cd98f00b204e9800998ecf8427e", "not of the form <algorithm>:<digest>"},
		{"empty algorithm", ":abc", "empty algorithm"},
		{"uppercase hex", "MD5:" + strings.ToUpper(strings.TrimPrefix(mustCompute(t, AlgMD5, digits), "MD5:")), "lowercase hex"},
		{"base64 of an earlier draft", "MD5:1B2M2Y8AsgTpgAmY7PhCfg==", "has 24 characters"},
		{"unknown algorithm", "XXH3:zzz", `unknown algorithm "XXH3"`},
		{"algorithm names are case-sensitive", "md5:" + strings.TrimPrefix(mustCompute(t, AlgMD5, digits), "MD5:"), `unknown algorithm "md5"`},
		{"empty ETAG", "ETAG:", "empty token"},
		// "ETAG ... the object-store eTag for the whole file referenced by
		// uri": a local file has none to compare with.
		{"ETAG on a local file", "ETAG:abc", "local file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &Value{URI: uri, Checksum: Ptr(tc.checksum)}
			if err := v.Validate(); err != nil {
				t.Fatalf("Validate: %v; an unusable checksum must not make the value invalid", err)
			}
			s, err := r.OpenStream(context.Background(), v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(s)
			s.Close()
			if err != nil || string(got) != digits {
				t.Fatalf("read %q, %v; want the whole object", got, err)
			}
			if tc.want == "" {
				if !s.Checked || s.Unverifiable != "" {
					t.Fatalf("checked %v, unverifiable %q; want checked", s.Checked, s.Unverifiable)
				}
				return
			}
			if s.Checked || !strings.Contains(s.Unverifiable, tc.want) {
				t.Fatalf("checked %v, unverifiable %q; want unverifiable with %q", s.Checked, s.Unverifiable, tc.want)
			}
		})
	}

	t.Run("inline value with an ETAG", func(t *testing.T) {
		s, err := r.OpenStream(context.Background(), &Value{Inline: []byte("x"), Checksum: Ptr("ETAG:abc")})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if s.Checked || !strings.Contains(s.Unverifiable, "no uri") {
			t.Fatalf("checked %v, unverifiable %q", s.Checked, s.Unverifiable)
		}
	})
	t.Run("not asked to verify", func(t *testing.T) {
		off := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root})
		s, err := off.OpenStream(context.Background(), &Value{URI: uri, Checksum: Ptr("XXH3:zzz")})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if s.Checked || s.Unverifiable != "" {
			t.Fatalf("checked %v, unverifiable %q; without VerifyChecksums nothing is said", s.Checked, s.Unverifiable)
		}
	})
	t.Run("null value", func(t *testing.T) {
		if s, err := r.OpenStream(context.Background(), nil); s != nil || err != nil {
			t.Fatalf("OpenStream(nil) = %v, %v", s, err)
		}
	})
}

// An ETAG is compared with the response's ETag; a server that sends none
// leaves it unverifiable.
func TestETagVerification(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/tagged", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Write([]byte(digits))
	})
	mux.HandleFunc("/untagged", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(digits)) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	r := newTestResolver(t, Config{Schemes: []string{"http"}, HTTPHosts: []string{host}, VerifyChecksums: true})
	tests := []struct {
		path, etag   string
		checked      bool
		unverified   string
		wantMismatch bool
	}{
		{"/tagged", "ETAG:v1", true, "", false},
		{"/tagged", "ETAG:v2", false, "", true},
		{"/untagged", "ETAG:v1", false, "sent no ETag", false},
	}
	for _, tc := range tests {
		s, err := r.OpenStream(context.Background(), &Value{URI: Ptr(srv.URL + tc.path), Checksum: Ptr(tc.etag)})
		if tc.wantMismatch {
			if !hasRule(err, RuleChecksumMismatch) {
				t.Errorf("%s %s: err %v, want %s", tc.path, tc.etag, err, RuleChecksumMismatch)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", tc.path, tc.etag, err)
		}
		s.Close()
		if s.Checked != tc.checked || !strings.Contains(s.Unverifiable, tc.unverified) || (tc.unverified == "") != (s.Unverifiable == "") {
			t.Errorf("%s %s: checked %v, unverifiable %q; want %v, %q", tc.path, tc.etag, s.Checked, s.Unverifiable, tc.checked, tc.unverified)
		}
	}
}

func mustCompute(t *testing.T, alg, s string) string {
	t.Helper()
	c, err := ComputeChecksum(alg, strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
