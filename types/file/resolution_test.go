package file

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolverResolve(t *testing.T) {
	root := realTempDir(t)
	writeFile(t, filepath.Join(root, "obj.bin"), digits)
	outside := filepath.Join(realTempDir(t), "out.bin")
	writeFile(t, outside, digits)
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, VerifyChecksums: true})
	shaHex := func(s string) string { return strings.TrimPrefix(sha(t, s), "SHA-256:") }
	tests := []struct {
		name string
		v    *Value
		want Resolution
		// part is a part of Reason (of ChecksumReason for an ok value),
		// which the comparison leaves out: the messages are the resolver's.
		part string
	}{
		{"null", nil, Resolution{Status: StatusNull}, ""},
		{"inline", &Value{Inline: []byte("hello"), ContentType: Ptr("text/plain")},
			Resolution{Status: StatusOK, Bytes: 5, ContentType: "text/plain", SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}, ""},
		{"range", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](10), Size: Ptr[int64](5)},
			Resolution{Status: StatusOK, Bytes: 5, ContentType: "application/octet-stream", SHA256: shaHex("abcde")}, ""},
		{"checksum verified", &Value{URI: Ptr("obj.bin"), Checksum: Ptr(sha(t, digits))},
			Resolution{Status: StatusOK, Bytes: 20, ContentType: "application/octet-stream", SHA256: shaHex(digits), Checksum: ChecksumVerified}, ""},
		{"checksum unverifiable", &Value{URI: Ptr("obj.bin"), Checksum: Ptr("MD5:" + strings.Repeat("AB", 16))},
			Resolution{Status: StatusOK, Bytes: 20, ContentType: "application/octet-stream", SHA256: shaHex(digits), Checksum: ChecksumUnverifiable}, "MD5"},
		{"checksum mismatch", &Value{URI: Ptr("obj.bin"), Checksum: Ptr(sha(t, "other"))},
			Resolution{Status: StatusError, Rule: RuleChecksumMismatch}, "checksum"},
		{"missing", &Value{URI: Ptr("none.bin")}, Resolution{Status: StatusError}, "none.bin"},
		{"outside the root", &Value{URI: Ptr(outside)}, Resolution{Status: StatusError, Rule: RuleOutsideRoot}, outside},
		{"past the end", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](15), Size: Ptr[int64](10)}, Resolution{Status: StatusError, Rule: RuleRangePastEnd}, ""},
		{"invalid", &Value{URI: Ptr("obj.bin"), Offset: Ptr[int64](1)}, Resolution{Status: StatusInvalid, Rule: RuleOffsetWithoutSize}, "offset"},
		{"inline differs from its locator", &Value{URI: Ptr("obj.bin"), Size: Ptr[int64](3), Inline: []byte("xyz")},
			Resolution{Status: StatusInvalid, Rule: RuleInlineLocatorMismatch}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Resolve(context.Background(), tt.v)
			reason := &got.Reason
			if got.Status == StatusOK {
				reason = &got.ChecksumReason
			}
			if !strings.Contains(*reason, tt.part) || (tt.part != "" || got.Status == StatusError || got.Status == StatusInvalid) && *reason == "" {
				t.Errorf("%+v: reason %q lacks %q", got, *reason, tt.part)
			}
			*reason = ""
			if got != tt.want {
				t.Errorf("Resolve =\n%+v, want\n%+v", got, tt.want)
			}
		})
	}
}

func TestFailed(t *testing.T) {
	plain := errors.New("connection reset")
	for _, tt := range []struct {
		err  error
		want Resolution
	}{
		{plain, Resolution{Status: StatusError, Reason: "connection reset"}},
		{violation(RuleOutsideRoot, "uri", "/x", "outside"), Resolution{Status: StatusError, Rule: RuleOutsideRoot}},
		{violation(RuleInlineLocatorMismatch, "uri", "/x", "differs"), Resolution{Status: StatusInvalid, Rule: RuleInlineLocatorMismatch}},
	} {
		got := Failed(tt.err)
		if got.Reason != tt.err.Error() {
			t.Errorf("Failed(%v).Reason = %q", tt.err, got.Reason)
		}
		tt.want.Reason = got.Reason
		if got != tt.want {
			t.Errorf("Failed(%v) = %+v, want %+v", tt.err, got, tt.want)
		}
	}
}
