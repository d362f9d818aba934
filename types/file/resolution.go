package file

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// Status is what resolving one value came to. The strings are stable: lab
// file resolve prints them and its JSON carries them.
type Status string

const (
	StatusOK      Status = "ok"      // the value resolved to its bytes
	StatusNull    Status = "null"    // the value is null
	StatusInvalid Status = "invalid" // the value breaks a FILE spec rule
	StatusError   Status = "error"   // refused by the policy, missing, out of range, a checksum mismatch
)

// ChecksumCheck is what VerifyChecksums did with an ok value's checksum.
type ChecksumCheck string

const (
	ChecksumVerified     ChecksumCheck = "verified"     // checked; a mismatch would have been StatusError
	ChecksumUnverifiable ChecksumCheck = "unverifiable" // set but unusable: see Resolution.ChecksumReason
)

// Resolution is the outcome of resolving one value to its bytes.
type Resolution struct {
	Status      Status
	Bytes       int64  // the bytes resolved (StatusOK)
	ContentType string // the value's effective content type (StatusOK)
	SHA256      string // hex SHA-256 of the bytes (StatusOK)
	Rule        Rule   // the rule at fault, when the failure has one
	Reason      string // why the value is not ok
	// Checksum is set on ok values with a checksum when VerifyChecksums
	// is: verified, or unverifiable with ChecksumReason saying why.
	Checksum       ChecksumCheck
	ChecksumReason string
}

// Failed is the resolution of a value that failed with err, while decoding
// or resolving it: StatusError with the reason, and the rule when err has
// one. A spec rule found only while reading (inline bytes that differ from
// the locator's) makes the value StatusInvalid.
func Failed(err error) Resolution {
	out := Resolution{Status: StatusError, Reason: err.Error()}
	if rule, ok := RuleOf(err); ok {
		out.Rule = rule
		if rule.Spec() {
			out.Status = StatusInvalid
		}
	}
	return out
}

// Resolve resolves v to its bytes under r's policy, streaming them through
// SHA-256 and keeping nothing, so a column of large objects needs no
// memory for them. A nil v is StatusNull; a value that breaks a spec rule
// is StatusInvalid with its first violation, before anything is opened.
func (r *Resolver) Resolve(ctx context.Context, v *Value) Resolution {
	if v == nil {
		return Resolution{Status: StatusNull}
	}
	if vs := v.Violations(); len(vs) > 0 {
		return Resolution{Status: StatusInvalid, Rule: vs[0].Rule, Reason: vs[0].Error()}
	}
	s, err := r.OpenStream(ctx, v)
	if err != nil {
		return Failed(err)
	}
	if s == nil { // InvalidAsNull cannot apply: the value has no violation
		return Resolution{Status: StatusNull}
	}
	h := sha256.New()
	n, err := io.Copy(h, s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Failed(err)
	}
	out := Resolution{Status: StatusOK, Bytes: n, ContentType: v.EffectiveContentType(), SHA256: hex.EncodeToString(h.Sum(nil))}
	// A checksum that cannot be used does not make the reference invalid
	// (the spec's Validation list has no checksum rule); it is reported.
	switch {
	case s.Checked:
		out.Checksum = ChecksumVerified
	case s.Unverifiable != "":
		out.Checksum, out.ChecksumReason = ChecksumUnverifiable, s.Unverifiable
	}
	return out
}

// FieldNames lists every FILE child's name in spec order, comma-separated,
// for messages that say what a FILE group may hold.
func FieldNames() string { return allNames() }
