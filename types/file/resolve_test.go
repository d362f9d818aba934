package file

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
)

const digits = "0123456789abcdefghij" // 20 bytes

func sha(t *testing.T, s string) string {
	t.Helper()
	c, err := ComputeChecksum(AlgSHA256, strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveLocal(t *testing.T) {
	root := realTempDir(t)
	writeFile(t, filepath.Join(root, "obj.bin"), digits)
	writeFile(t, filepath.Join(root, "empty.bin"), "")
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, VerifyChecksums: true, MaxSize: 1 << 20})
	tests := []struct {
		name string
		v    *Value
		want string
	}{
		// Resolution: "the inline bytes (same as any locator)".
		{"inline", &Value{Inline: []byte("hello")}, "hello"},
		{"empty inline", &Value{Inline: []byte{}}, ""},
		// "whole external file at `uri`".
		{"whole file", &Value{URI: Ptr("obj.bin")}, digits},
		{"whole file by file URI", &Value{URI: Ptr("file://" + filepath.Join(root, "obj.bin"))}, digits},
		{"whole empty file", &Value{URI: Ptr("empty.bin")}, ""},
		// "external `uri`, `[0, size)`".
		{"prefix", &Value{URI: Ptr("obj.bin"), Size: Ptr[int64](4)}, "0123"},
		// "external `uri`, `[offset, offset + size)`".
		{"range", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](10), Size: Ptr[int64](5)}, "abcde"},
		{"range to the end", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](15), Size: Ptr[int64](5)}, "fghij"},
		// "a value of 0 indicates empty referenced data".
		{"empty range at the end", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](20), Size: Ptr[int64](0)}, ""},
		{"verified checksum", &Value{URI: Ptr("obj.bin"), Size: Ptr[int64](4), Checksum: Ptr(sha(t, "0123"))}, "0123"},
		{"unknown algorithm ignored", &Value{URI: Ptr("obj.bin"), Size: Ptr[int64](4), Checksum: Ptr("XXH3:zzz")}, "0123"},
		// ETAG cannot be recomputed from a local file, so it is not checked.
		{"etag not checkable locally", &Value{URI: Ptr("obj.bin"), Checksum: Ptr("ETAG:abc")}, digits},
		// The inline bytes are the value's bytes; a matching locator is fine.
		{"inline with matching locator", &Value{Inline: []byte("abcde"), URI: Ptr("obj.bin"), Offset: Ptr[int64](10), Size: Ptr[int64](5)}, "abcde"},
		// A provenance locator that does not exist leaves nothing to compare.
		{"inline with missing locator", &Value{Inline: []byte("x"), URI: Ptr("gone.bin")}, "x"},
		// A provenance locator the policy refuses is never opened.
		{"inline with foreign locator", &Value{Inline: []byte("x"), URI: Ptr("s3://elsewhere/x")}, "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.ReadAll(context.Background(), tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || string(got) != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResolveTarget(t *testing.T) {
	root := realTempDir(t)
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root})
	tests := []struct {
		name                  string
		v                     *Value
		inline                bool
		path                  string
		offset, length        int64
		contentType, checksum string
	}{
		{"inline", &Value{Inline: []byte("a")}, true, "", 0, -1, DefaultContentType, ""},
		{"whole", &Value{URI: Ptr("a"), ContentType: Ptr("image/png")}, false, "a", 0, -1, "image/png", ""},
		{"prefix", &Value{URI: Ptr("a"), Size: Ptr[int64](3)}, false, "a", 0, 3, DefaultContentType, ""},
		{"range", &Value{URI: Ptr("a"), Offset: Ptr[int64](2), Size: Ptr[int64](3), Checksum: Ptr("CRC32:00000000")}, false, "a", 2, 3, DefaultContentType, "CRC32:00000000"},
		{"inline with provenance", &Value{Inline: []byte("abc"), URI: Ptr("a"), Size: Ptr[int64](3)}, true, "a", 0, 3, DefaultContentType, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := r.Target(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			path := ""
			if tg.Location != nil {
				path, _ = filepath.Rel(root, tg.Location.Path)
			}
			ck := ""
			if tg.Checksum != nil {
				ck = tg.Checksum.String()
			}
			if tg.Inline != tc.inline || path != tc.path || tg.Offset != tc.offset || tg.Length != tc.length || tg.ContentType != tc.contentType || ck != tc.checksum {
				t.Fatalf("got %+v (path %q, checksum %q)", tg, path, ck)
			}
		})
	}
	if tg, err := r.Target(nil); tg != nil || err != nil {
		t.Errorf("Target(nil) = %v, %v", tg, err)
	}
}

func TestResolveRefusals(t *testing.T) {
	root := realTempDir(t)
	writeFile(t, filepath.Join(root, "obj.bin"), digits)
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, MaxSize: 16})
	tests := []struct {
		name string
		v    *Value
		rule Rule
	}{
		{"declared size over the limit", &Value{URI: Ptr("obj.bin"), Size: Ptr[int64](17)}, RuleMaxSize},
		{"whole file over the limit", &Value{URI: Ptr("obj.bin")}, RuleMaxSize},
		{"inline over the limit", &Value{Inline: bytes.Repeat([]byte("x"), 17)}, RuleMaxSize},
		{"offset+size overflows", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](1<<63 - 1), Size: Ptr[int64](2)}, RuleRangeOverflow},
		{"range past the end", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](10), Size: Ptr[int64](11)}, RuleRangePastEnd},
		{"offset past the end", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](21), Size: Ptr[int64](0)}, RuleRangePastEnd},
		{"directory", &Value{URI: Ptr("dir")}, RuleNotRegularFile},
		{"inline differs from locator", &Value{Inline: []byte("0124"), URI: Ptr("obj.bin"), Size: Ptr[int64](4)}, RuleInlineLocatorMismatch},
		{"inline matches an explicit [0, 4) locator", &Value{Inline: []byte("0123"), URI: Ptr("obj.bin"), Offset: Ptr[int64](0), Size: Ptr[int64](4), Checksum: Ptr("")}, ""},
		{"inline vs whole file over the limit", &Value{Inline: []byte("0123"), URI: Ptr("obj.bin")}, RuleInlineLocatorMismatch},
		{"invalid value", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](1)}, RuleOffsetWithoutSize},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.ReadAll(context.Background(), tc.v)
			if tc.rule == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !hasRule(err, tc.rule) {
				t.Fatalf("got %v, want rule %s", err, tc.rule)
			}
		})
	}
	_, err := r.ReadAll(context.Background(), &Value{URI: Ptr("missing.bin")})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `"missing.bin"`) {
		t.Errorf("missing file: %v", err)
	}
}

func TestInlineLocatorMismatchStreams(t *testing.T) {
	root := realTempDir(t)
	big := strings.Repeat("a", 100_000)
	writeFile(t, filepath.Join(root, "big.bin"), big+"b")
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root})
	// The whole-file locator is one byte longer than inline.
	rc, err := r.Open(context.Background(), &Value{Inline: []byte(big), URI: Ptr("big.bin")})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if !hasRule(err, RuleInlineLocatorMismatch) || n != int64(len(big)) {
		t.Fatalf("copied %d, err %v", n, err)
	}
	if !strings.Contains(err.Error(), "inline ends at 100000, the locator's bytes go on") {
		t.Errorf("message: %v", err)
	}
}

// The checksum is checked while streaming: early reads succeed, the read
// that reaches the end fails.
func TestChecksumMismatchAtEOF(t *testing.T) {
	root := realTempDir(t)
	content := strings.Repeat("z", 64<<10)
	writeFile(t, filepath.Join(root, "z.bin"), content)
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, VerifyChecksums: true})
	for _, alg := range []string{AlgMD5, AlgCRC32, AlgCRC32C, AlgSHA256} {
		t.Run(alg, func(t *testing.T) {
			right, _ := ComputeChecksum(alg, strings.NewReader(content))
			wrong, _ := ComputeChecksum(alg, strings.NewReader(content+"!"))
			rc, err := r.Open(context.Background(), &Value{URI: Ptr("z.bin"), Checksum: Ptr(wrong)})
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			first := make([]byte, 1024)
			if _, err := io.ReadFull(rc, first); err != nil {
				t.Fatalf("first read failed before the end: %v", err)
			}
			_, err = io.Copy(io.Discard, rc)
			if !hasRule(err, RuleChecksumMismatch) || !strings.Contains(err.Error(), right) {
				t.Fatalf("got %v, want a mismatch naming %s", err, right)
			}
			// Inline bytes are checked the same way.
			if _, err := r.ReadAll(context.Background(), &Value{Inline: []byte(content), Checksum: Ptr(wrong)}); !hasRule(err, RuleChecksumMismatch) {
				t.Fatalf("inline: %v", err)
			}
		})
	}
	// Off by default: the same value reads.
	off := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root})
	if _, err := off.ReadAll(context.Background(), &Value{URI: Ptr("z.bin"), Checksum: Ptr("MD5:00000000000000000000000000000000")}); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidAsNullOrError(t *testing.T) {
	root := realTempDir(t)
	invalid := &Value{Size: Ptr[int64](3)}
	var reported []Rule
	asNull := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, InvalidAsNull: true,
		OnInvalid: func(_ *Value, why *Violation) { reported = append(reported, why.Rule) }})
	asError := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}})

	got, err := asNull.ReadAll(context.Background(), invalid)
	if got != nil || err != nil {
		t.Fatalf("as null: %q, %v", got, err)
	}
	if len(reported) != 1 || reported[0] != RuleMustResolve {
		t.Fatalf("reported %v", reported)
	}
	if _, err := asError.ReadAll(context.Background(), invalid); !hasRule(err, RuleMustResolve) {
		t.Fatalf("as error: %v", err)
	}
	// Policy refusals stay errors under InvalidAsNull: the value is valid,
	// the reader refuses it.
	if _, err := asNull.ReadAll(context.Background(), &Value{URI: Ptr("/etc/passwd")}); !hasRule(err, RuleOutsideRoot) {
		t.Fatalf("policy refusal under InvalidAsNull: %v", err)
	}
	// inline with size and no uri: "fields set alongside `inline` must
	// form a locator valid on its own, so `offset` requires `uri` and
	// `size`" (Resolution, footnote †). The inline bytes are there, but the
	// value is invalid, so it reads as null or fails, as the policy says.
	inlineSize := &Value{Inline: []byte("abc"), Size: Ptr[int64](3)}
	reported = nil
	if got, err := asNull.ReadAll(context.Background(), inlineSize); got != nil || err != nil || len(reported) != 1 || reported[0] != RuleInlineLocatorInvalid {
		t.Fatalf("inline+size as null: %q, %v, reported %v", got, err, reported)
	}
	if _, err := asError.ReadAll(context.Background(), inlineSize); !hasRule(err, RuleInlineLocatorInvalid) {
		t.Fatalf("inline+size as error: %v", err)
	}
	// A null FILE value is null in both modes.
	for _, r := range []*Resolver{asNull, asError} {
		if rc, err := r.Open(context.Background(), nil); rc != nil || err != nil {
			t.Fatalf("null: %v, %v", rc, err)
		}
	}
}

func TestResolveObjectStore(t *testing.T) {
	mem := icebergio.NewMemFS()
	if err := mem.WriteFile("mem://bucket/data/k.bin", []byte(digits)); err != nil {
		t.Fatal(err)
	}
	r := newTestResolver(t, Config{Roots: []string{"mem://bucket/data/"}, Schemes: []string{"mem"},
		SchemeIO: map[string]icebergio.IO{"mem": mem}, BaseLocation: "mem://bucket/data"})
	tests := []struct {
		v    *Value
		want string
		rule Rule
	}{
		{v: &Value{URI: Ptr("mem://bucket/data/k.bin")}, want: digits},
		{v: &Value{URI: Ptr("k.bin"), Offset: Ptr[int64](5), Size: Ptr[int64](3)}, want: "567"},
		{v: &Value{URI: Ptr("k.bin"), Offset: Ptr[int64](18), Size: Ptr[int64](3)}, rule: RuleRangePastEnd},
		{v: &Value{URI: Ptr("mem://bucket/secret/k.bin")}, rule: RuleOutsideRoot},
	}
	for _, tc := range tests {
		got, err := r.ReadAll(context.Background(), tc.v)
		if tc.rule != "" {
			if !hasRule(err, tc.rule) {
				t.Errorf("%v: got %v, want %s", tc.v, err, tc.rule)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%v: got %q, %v; want %q", tc.v, got, err, tc.want)
		}
	}
}
