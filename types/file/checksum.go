package file

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
)

// The checksum algorithms the spec recognizes, spelled as the spec spells
// them; names match exactly, so "md5" is an unknown algorithm.
const (
	AlgETag   = "ETAG"
	AlgMD5    = "MD5"
	AlgCRC32  = "CRC32"
	AlgCRC32C = "CRC32C"
	AlgSHA256 = "SHA-256"
)

// hexLen is the digest length, in lowercase hex characters, of each
// recomputable algorithm.
var hexLen = map[string]int{AlgMD5: 32, AlgCRC32: 8, AlgCRC32C: 8, AlgSHA256: 64}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is a parsed checksum token <algorithm>:<digest>.
type Checksum struct {
	Algorithm string
	Digest    string
}

func (c Checksum) String() string { return c.Algorithm + ":" + c.Digest }

// Known reports whether the spec defines the algorithm; readers ignore the rest.
func (c Checksum) Known() bool {
	_, ok := hexLen[c.Algorithm]
	return ok || c.Algorithm == AlgETag
}

// Recomputable reports whether a reader can check the digest by hashing the
// resolved bytes (every known algorithm but ETAG).
func (c Checksum) Recomputable() bool {
	_, ok := hexLen[c.Algorithm]
	return ok
}

// ParseChecksum parses a checksum token. The algorithm is everything before
// the first colon, so an opaque ETAG token may itself contain colons. A
// known algorithm's digest must be in its encoding: lowercase hex of the
// exact length, or a non-empty opaque token for ETAG. An unknown algorithm's
// digest is not checked, because readers ignore unknown algorithms.
//
// An error says why a reader cannot use the token. It is not a *Violation:
// the spec's Validation list has no checksum rule, so such a checksum is
// unverifiable and the value stays valid (Resolver.OpenStream reports it).
func ParseChecksum(s string) (Checksum, error) {
	alg, digest, ok := strings.Cut(s, ":")
	if !ok {
		return Checksum{}, fmt.Errorf("%q is not of the form <algorithm>:<digest>", s)
	}
	if alg == "" {
		return Checksum{}, fmt.Errorf("%q has an empty algorithm", s)
	}
	c := Checksum{Algorithm: alg, Digest: digest}
	if alg == AlgETag {
		if digest == "" {
			return Checksum{}, fmt.Errorf("ETAG checksum has an empty token")
		}
		return c, nil
	}
	n, known := hexLen[alg]
	if !known {
		return c, nil
	}
	if len(digest) != n {
		return Checksum{}, fmt.Errorf("%s digest %q has %d characters, want %d lowercase hex characters", alg, digest, len(digest), n)
	}
	for i := 0; i < len(digest); i++ {
		if b := digest[i]; !(b >= '0' && b <= '9' || b >= 'a' && b <= 'f') {
			return Checksum{}, fmt.Errorf("%s digest %q has %q at position %d; the encoding is lowercase hex", alg, digest, b, i)
		}
	}
	return c, nil
}

// NewHash returns a hash for a recomputable algorithm; ok is false for ETAG
// and for unknown algorithms.
func NewHash(alg string) (h hash.Hash, ok bool) {
	switch alg {
	case AlgMD5:
		return md5.New(), true
	case AlgCRC32:
		return crc32.NewIEEE(), true // RFC 2083's CRC is the IEEE polynomial
	case AlgCRC32C:
		return crc32.New(castagnoli), true
	case AlgSHA256:
		return sha256.New(), true
	}
	return nil, false
}

// ComputeChecksum hashes r and returns the checksum token a writer stores,
// for example "SHA-256:e3b0…". CRC digests are the 4 bytes big-endian.
func ComputeChecksum(alg string, r io.Reader) (string, error) {
	h, ok := NewHash(alg)
	if !ok {
		return "", fmt.Errorf("FILE checksum: algorithm %q cannot be computed (recomputable: %s, %s, %s, %s)", alg, AlgMD5, AlgCRC32, AlgCRC32C, AlgSHA256)
	}
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return alg + ":" + hex.EncodeToString(h.Sum(nil)), nil
}
