package file

import (
	"errors"
	"fmt"
	"strings"
)

// Rule identifies the rule a FILE value or reference breaks. Callers report
// it per row; tests match on it.
type Rule string

// Rules from parquet-format's LogicalTypes.md (FILE, 2.14.0). A value
// breaking one of these is invalid; a Resolver reads it as null or fails, as
// configured. There is no checksum rule: the Validation list has none, and a
// checksum a reader cannot use is unverifiable (Resolver.OpenStream), not
// invalid.
const (
	// RuleMustResolve: neither inline nor uri is set.
	RuleMustResolve Rule = "must-resolve"
	// RuleOffsetWithoutURI: offset is set without uri.
	RuleOffsetWithoutURI Rule = "offset-without-uri"
	// RuleOffsetWithoutSize: offset is set without size.
	RuleOffsetWithoutSize Rule = "offset-without-size"
	// RuleOffsetNegative: offset is negative.
	RuleOffsetNegative Rule = "offset-negative"
	// RuleSizeNegative: size is negative.
	RuleSizeNegative Rule = "size-negative"
	// RuleInlineLocatorInvalid: the locator fields set beside inline do not
	// form a locator valid on its own (size without uri).
	RuleInlineLocatorInvalid Rule = "inline-locator-invalid"
	// RuleInlineLocatorMismatch: inline and the locator do not denote the
	// same bytes (a size that differs from len(inline) is caught by
	// Validate; differing bytes at uri are caught while resolving).
	RuleInlineLocatorMismatch Rule = "inline-locator-mismatch"
)

// Rules of the lab's resolution policy and of reading the bytes. They are
// always errors, never nulls: they say the reader refused or the bytes are
// wrong, not that the value is malformed.
const (
	RuleURISyntax        Rule = "uri-syntax"
	RuleRelativeNoBase   Rule = "relative-without-base"
	RuleDotSegment       Rule = "dot-segment"
	RuleScheme           Rule = "scheme-not-allowed"
	RuleHost             Rule = "host-not-allowed"
	RuleUserinfo         Rule = "userinfo"
	RuleOutsideRoot      Rule = "outside-root"
	RuleSymlinkEscape    Rule = "symlink-escape"
	RuleNotRegularFile   Rule = "not-regular-file"
	RuleMaxSize          Rule = "max-size"
	RuleRangeOverflow    Rule = "range-overflow"
	RuleRangePastEnd     Rule = "range-past-end"
	RuleRangeNotHonored  Rule = "range-not-honored"
	RuleChecksumMismatch Rule = "checksum-mismatch"
)

// Spec reports whether the rule is one of LogicalTypes.md's validation rules.
func (r Rule) Spec() bool {
	switch r {
	case RuleMustResolve, RuleOffsetWithoutURI, RuleOffsetWithoutSize, RuleOffsetNegative,
		RuleSizeNegative, RuleInlineLocatorInvalid, RuleInlineLocatorMismatch:
		return true
	}
	return false
}

// Violation is one broken rule: which rule, which child, which reference.
type Violation struct {
	Rule Rule
	// Field is the child at fault ("uri", "offset", ...), or "" when the
	// value as a whole is at fault.
	Field string
	// URI is the reference as written in the value, when there is one.
	URI string
	// Detail says what was found.
	Detail string
}

func (v *Violation) Error() string {
	var sb strings.Builder
	sb.WriteString("FILE")
	if v.URI != "" {
		fmt.Fprintf(&sb, " uri %q", v.URI)
	}
	if v.Field != "" {
		fmt.Fprintf(&sb, " field %s", v.Field)
	}
	fmt.Fprintf(&sb, ": %s", v.Rule)
	if v.Detail != "" {
		sb.WriteString(": ")
		sb.WriteString(v.Detail)
	}
	return sb.String()
}

// RuleOf returns the rule of the first Violation in err's chain.
func RuleOf(err error) (Rule, bool) {
	var v *Violation
	if errors.As(err, &v) {
		return v.Rule, true
	}
	return "", false
}

func violation(rule Rule, field, uri, format string, args ...any) *Violation {
	return &Violation{Rule: rule, Field: field, URI: uri, Detail: fmt.Sprintf(format, args...)}
}
