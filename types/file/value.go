package file

import (
	"bytes"
	"fmt"
	"strings"
)

// DefaultContentType is the media type of a value whose content_type is not set.
const DefaultContentType = "application/octet-stream"

// Value is one non-null FILE value. Every child is optional: a nil pointer (or
// a nil Inline slice) is a child that is absent or null. Values keep what the
// file holds (an empty string stays an empty string) so a value round-trips
// byte for byte; whether a child counts as set is the job of IsSet.
type Value struct {
	URI         *string
	Offset      *int64
	Size        *int64
	ContentType *string
	Checksum    *string
	// Inline is nil when absent or null. A non-nil empty slice is set: the
	// set-means-non-empty rule covers string children only, and an empty
	// inline value resolves to zero bytes.
	Inline []byte
}

// Ptr returns a pointer to v, for filling the optional children of a Value.
func Ptr[T any](v T) *T { return &v }

// IsSet reports whether child f is set in the spec's sense: present,
// non-null and, for the string children, non-empty.
func (v *Value) IsSet(f Field) bool {
	if v == nil {
		return false
	}
	switch f {
	case FieldURI:
		return v.URI != nil && *v.URI != ""
	case FieldOffset:
		return v.Offset != nil
	case FieldSize:
		return v.Size != nil
	case FieldContentType:
		return v.ContentType != nil && *v.ContentType != ""
	case FieldChecksum:
		return v.Checksum != nil && *v.Checksum != ""
	case FieldInline:
		return v.Inline != nil
	}
	return false
}

// present reports whether child f holds any non-null value, set or not.
func (v *Value) present(f Field) bool {
	switch f {
	case FieldURI:
		return v.URI != nil
	case FieldOffset:
		return v.Offset != nil
	case FieldSize:
		return v.Size != nil
	case FieldContentType:
		return v.ContentType != nil
	case FieldChecksum:
		return v.Checksum != nil
	case FieldInline:
		return v.Inline != nil
	}
	return false
}

// EffectiveContentType is content_type when set, else application/octet-stream.
func (v *Value) EffectiveContentType() string {
	if v.IsSet(FieldContentType) {
		return *v.ContentType
	}
	return DefaultContentType
}

// Equal reports whether two values hold the same children, null and empty
// kept apart.
func (v *Value) Equal(o *Value) bool {
	if v == nil || o == nil {
		return v == o
	}
	return eqPtr(v.URI, o.URI) && eqPtr(v.Offset, o.Offset) && eqPtr(v.Size, o.Size) &&
		eqPtr(v.ContentType, o.ContentType) && eqPtr(v.Checksum, o.Checksum) &&
		(v.Inline == nil) == (o.Inline == nil) && bytes.Equal(v.Inline, o.Inline)
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Fields lists the children v holds (set or merely present), in spec order.
func (v *Value) Fields() []Field {
	var out []Field
	for _, f := range AllFields {
		if v.present(f) {
			out = append(out, f)
		}
	}
	return out
}

// String renders the value for messages; inline bytes are summarised.
func (v *Value) String() string {
	if v == nil {
		return "null"
	}
	var parts []string
	add := func(name, s string) { parts = append(parts, name+": "+s) }
	if v.URI != nil {
		add("uri", fmt.Sprintf("%q", *v.URI))
	}
	if v.Offset != nil {
		add("offset", fmt.Sprint(*v.Offset))
	}
	if v.Size != nil {
		add("size", fmt.Sprint(*v.Size))
	}
	if v.ContentType != nil {
		add("content_type", fmt.Sprintf("%q", *v.ContentType))
	}
	if v.Checksum != nil {
		add("checksum", fmt.Sprintf("%q", *v.Checksum))
	}
	if v.Inline != nil {
		add("inline", fmt.Sprintf("%d bytes", len(v.Inline)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
