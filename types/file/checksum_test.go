package file

import (
	"strings"
	"testing"
)

// The spec's checksum table: ETAG opaque; MD5 32, CRC32 8, CRC32C 8 and
// SHA-256 64 lowercase hex characters; unknown algorithms ignored.
func TestParseChecksum(t *testing.T) {
	tests := []struct {
		in      string
		want    Checksum
		known   bool
		wantErr string
	}{
		{in: "MD5:d41d8cd98f00b204e9800998ecf8427e", want: Checksum{"MD5", "d41d8cd98f00b204e9800998ecf8427e"}, known: true},
		{in: "CRC32:cbf43926", want: Checksum{"CRC32", "cbf43926"}, known: true},
		{in: "CRC32C:e3069283", want: Checksum{"CRC32C", "e3069283"}, known: true},
		{in: "SHA-256:" + strings.Repeat("0", 64), want: Checksum{"SHA-256", strings.Repeat("0", 64)}, known: true},
		// "opaque: the token supplied verbatim by the object store"
		{in: `ETAG:"9b2cf535f27731c974343645a3985328-2"`, want: Checksum{"ETAG", `"9b2cf535f27731c974343645a3985328-2"`}, known: true},
		{in: "ETAG:a:b", want: Checksum{"ETAG", "a:b"}, known: true},
		// "Readers should ignore unknown algorithms."
		{in: "XXH3:anything at all", want: Checksum{"XXH3", "anything at all"}},
		{in: "md5:d41d8cd98f00b204e9800998ecf8427e", want: Checksum{"md5", "d41d8cd98f00b204e9800998ecf8427e"}},
		{in: "XXH3:", want: Checksum{"XXH3", ""}},
		{in: "d41d8cd98f00b204e9800998ecf8427e", wantErr: "not of the form <algorithm>:<digest>"},
		{in: ":abc", wantErr: "empty algorithm"},
		{in: "ETAG:", wantErr: "empty token"},
		{in: "MD5:d41d8cd98f00b204e9800998ecf8427", wantErr: "has 31 characters, want 32"},
		{in: "CRC32:CBF43926", wantErr: `has 'C' at position 0`},
		{in: "CRC32C:0xe30692", wantErr: `has 'x' at position 1`},
		{in: "SHA-256:" + strings.Repeat("0", 63) + "g", wantErr: "has 'g' at position 63"},
		// base64 of an earlier draft is not the final encoding.
		{in: "MD5:1B2M2Y8AsgTpgAmY7PhCfg==", wantErr: "has 24 characters"},
	}
	for _, tc := range tests {
		got, err := ParseChecksum(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseChecksum(%q) error %v, want %q", tc.in, err, tc.wantErr)
			}
			// A token a reader cannot use breaks no rule of the value
			// (the Validation list has none for checksum).
			if r, ok := RuleOf(err); ok {
				t.Errorf("ParseChecksum(%q) gives rule %s", tc.in, r)
			}
			continue
		}
		if err != nil || got != tc.want || got.Known() != tc.known {
			t.Errorf("ParseChecksum(%q) = %+v known %v, %v; want %+v known %v", tc.in, got, got.Known(), err, tc.want, tc.known)
		}
		if got.String() != tc.in {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}

// Known digests: RFC 1321's empty-string MD5, the CRC check value of
// "123456789" for both polynomials, and SHA-256 of "abc" from FIPS 180-2.
func TestComputeChecksum(t *testing.T) {
	tests := []struct{ alg, in, want string }{
		{AlgMD5, "", "MD5:d41d8cd98f00b204e9800998ecf8427e"},
		{AlgCRC32, "123456789", "CRC32:cbf43926"},
		{AlgCRC32C, "123456789", "CRC32C:e3069283"},
		{AlgCRC32, "", "CRC32:00000000"},
		{AlgSHA256, "abc", "SHA-256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tc := range tests {
		got, err := ComputeChecksum(tc.alg, strings.NewReader(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("ComputeChecksum(%s, %q) = %q, %v; want %q", tc.alg, tc.in, got, err, tc.want)
		}
		if _, err := ParseChecksum(got); err != nil {
			t.Errorf("computed %q does not parse: %v", got, err)
		}
	}
	for _, alg := range []string{AlgETag, "BLAKE3"} {
		if _, err := ComputeChecksum(alg, strings.NewReader("")); err == nil {
			t.Errorf("ComputeChecksum(%s) did not fail", alg)
		}
	}
}
