package file

import "testing"

// "a field is *set* when it is present in the FILE group and its value is
// non-null (and, for string fields, non-empty)."
func TestIsSet(t *testing.T) {
	tests := []struct {
		name  string
		v     *Value
		field Field
		want  bool
	}{
		{"nil value", nil, FieldURI, false},
		{"absent uri", &Value{}, FieldURI, false},
		{"empty uri is not set", &Value{URI: Ptr("")}, FieldURI, false},
		{"uri", &Value{URI: Ptr("a")}, FieldURI, true},
		{"zero offset is set", &Value{Offset: Ptr[int64](0)}, FieldOffset, true},
		{"zero size is set", &Value{Size: Ptr[int64](0)}, FieldSize, true},
		{"empty content_type is not set", &Value{ContentType: Ptr("")}, FieldContentType, false},
		{"empty checksum is not set", &Value{Checksum: Ptr("")}, FieldChecksum, false},
		{"nil inline is not set", &Value{}, FieldInline, false},
		// The non-empty rule covers strings only; inline is binary.
		{"empty inline is set", &Value{Inline: []byte{}}, FieldInline, true},
		{"unknown field", &Value{URI: Ptr("a")}, Field(99), false},
	}
	for _, tc := range tests {
		if got := tc.v.IsSet(tc.field); got != tc.want {
			t.Errorf("%s: IsSet(%s) = %v, want %v", tc.name, tc.field, got, tc.want)
		}
	}
}

// "When not set, the type can be assumed as `application/octet-stream`." (LogicalTypes.md, FILE, content_type)
func TestEffectiveContentType(t *testing.T) {
	tests := []struct {
		v    *Value
		want string
	}{
		{&Value{}, "application/octet-stream"},
		{&Value{ContentType: Ptr("")}, "application/octet-stream"},
		{&Value{ContentType: Ptr("image/png")}, "image/png"},
	}
	for _, tc := range tests {
		if got := tc.v.EffectiveContentType(); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestValueString(t *testing.T) {
	v := &Value{URI: Ptr("s3://b/k"), Offset: Ptr[int64](1), Size: Ptr[int64](2), Inline: []byte("abc")}
	if got := v.String(); got != `{uri: "s3://b/k", offset: 1, size: 2, inline: 3 bytes}` {
		t.Errorf("String() = %s", got)
	}
	if got := (*Value)(nil).String(); got != "null" {
		t.Errorf("nil String() = %s", got)
	}
}
