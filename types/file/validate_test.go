package file

import (
	"errors"
	"testing"
)

// Each case names the LogicalTypes.md sentence (FILE, 2.14.0: "Validation"
// or "Resolution") it implements; spec/FILE.md quotes them in full.
func TestValidate(t *testing.T) {
	in := []byte("abc")
	tests := []struct {
		name      string
		v         *Value
		wantRule  Rule // "" when valid
		wantField string
	}{
		// Resolution table, row by row.
		{"table: inline only resolves to the inline bytes", &Value{Inline: in}, "", ""},
		{"table: uri only resolves to the whole external file", &Value{URI: Ptr("a.bin")}, "", ""},
		{"table: uri+offset without size is invalid", &Value{URI: Ptr("a.bin"), Offset: Ptr[int64](1)}, RuleOffsetWithoutSize, "size"},
		{"table: uri+size resolves to [0, size)", &Value{URI: Ptr("a.bin"), Size: Ptr[int64](2)}, "", ""},
		{"table: uri+offset+size resolves to [offset, offset+size)", &Value{URI: Ptr("a.bin"), Offset: Ptr[int64](1), Size: Ptr[int64](2)}, "", ""},
		{"table: offset alone is invalid", &Value{Offset: Ptr[int64](1)}, RuleMustResolve, ""},
		{"table: size alone is invalid", &Value{Size: Ptr[int64](1)}, RuleMustResolve, ""},
		{"table: offset+size without uri is invalid (\"there is no form that addresses a byte range in the current file\")", &Value{Offset: Ptr[int64](0), Size: Ptr[int64](1)}, RuleMustResolve, ""},
		{"table: nothing set is invalid", &Value{}, RuleMustResolve, ""},

		// The table's first row is "set | † | † | †": "† The locator fields
		// may all be unset. Otherwise, fields set alongside `inline` must
		// form a locator valid on its own, so `offset` requires `uri` and
		// `size`."
		{"table †: inline, locator unset", &Value{Inline: in}, "", ""},
		{"table †: inline beside uri", &Value{Inline: in, URI: Ptr("a.bin")}, "", ""},
		{"table †: inline beside uri+size", &Value{Inline: in, URI: Ptr("a.bin"), Size: Ptr[int64](3)}, "", ""},
		{"table †: inline beside uri+offset+size", &Value{Inline: in, URI: Ptr("a.bin"), Offset: Ptr[int64](1), Size: Ptr[int64](3)}, "", ""},
		{"table †: size alone beside inline is no locator valid on its own", &Value{Inline: in, Size: Ptr[int64](3)}, RuleInlineLocatorInvalid, "size"},
		{"table †: size alone beside inline, empty uri", &Value{Inline: in, URI: Ptr(""), Size: Ptr[int64](3)}, RuleInlineLocatorInvalid, "size"},
		{"table †: offset requires uri beside inline", &Value{Inline: in, Offset: Ptr[int64](0), Size: Ptr[int64](3)}, RuleOffsetWithoutURI, "offset"},
		{"table †: offset requires size beside inline", &Value{Inline: in, URI: Ptr("a.bin"), Offset: Ptr[int64](0)}, RuleOffsetWithoutSize, "size"},

		// "It resolves only if inline or uri is set; if neither is set, the
		// value does not resolve and is invalid, even if offset or size is set."
		{"must resolve: empty uri is not set", &Value{URI: Ptr("")}, RuleMustResolve, ""},
		{"must resolve: metadata alone", &Value{ContentType: Ptr("image/png"), Checksum: Ptr("MD5:d41d8cd98f00b204e9800998ecf8427e")}, RuleMustResolve, ""},

		// "offset may only be set together with uri."
		{"offset needs uri even beside inline", &Value{Inline: in, Offset: Ptr[int64](0), Size: Ptr[int64](3)}, RuleOffsetWithoutURI, "offset"},
		{"offset with empty uri", &Value{Inline: in, URI: Ptr(""), Offset: Ptr[int64](0), Size: Ptr[int64](3)}, RuleOffsetWithoutURI, "offset"},

		// "size must be set whenever offset is set."
		{"offset needs size", &Value{URI: Ptr("a"), Offset: Ptr[int64](0)}, RuleOffsetWithoutSize, "size"},
		{"offset needs size beside inline", &Value{Inline: in, URI: Ptr("a"), Offset: Ptr[int64](0)}, RuleOffsetWithoutSize, "size"},

		// offset: "Must not be negative."
		{"offset negative", &Value{URI: Ptr("a"), Offset: Ptr[int64](-1), Size: Ptr[int64](1)}, RuleOffsetNegative, "offset"},
		{"offset zero", &Value{URI: Ptr("a"), Offset: Ptr[int64](0), Size: Ptr[int64](1)}, "", ""},

		// size: "Must be zero or a positive integer if set; 0 indicates empty referenced data."
		{"size negative", &Value{URI: Ptr("a"), Size: Ptr[int64](-5)}, RuleSizeNegative, "size"},
		{"size zero", &Value{URI: Ptr("a"), Size: Ptr[int64](0)}, "", ""},

		// "If inline and a locator are both set, they must denote the same
		// bytes": size is the byte length of the referenced data.
		{"inline with matching size", &Value{Inline: in, URI: Ptr("a"), Size: Ptr[int64](3)}, "", ""},
		{"inline with other size", &Value{Inline: in, URI: Ptr("a"), Size: Ptr[int64](4)}, RuleInlineLocatorMismatch, "size"},
		{"inline with other size, no uri", &Value{Inline: in, Size: Ptr[int64](2)}, RuleInlineLocatorInvalid, "size"},
		{"inline with uri only", &Value{Inline: in, URI: Ptr("s3://b/a")}, "", ""},
		{"empty inline resolves to zero bytes", &Value{Inline: []byte{}}, "", ""},

		// The Validation list has no checksum rule, and "Readers should
		// ignore unknown algorithms": a checksum a reader cannot use makes
		// the checksum unverifiable (Resolver.OpenStream), not the value
		// invalid.
		{"checksum ok", &Value{Inline: in, Checksum: Ptr("SHA-256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")}, "", ""},
		{"checksum without colon is unverifiable, not invalid", &Value{Inline: in, Checksum: Ptr("d41d8cd98f00b204e9800998ecf8427e")}, "", ""},
		{"checksum uppercase hex is unverifiable, not invalid", &Value{Inline: in, Checksum: Ptr("MD5:D41D8CD98F00B204E9800998ECF8427E")}, "", ""},
		{"checksum in base64 is unverifiable, not invalid", &Value{URI: Ptr("a.bin"), Checksum: Ptr("MD5:1B2M2Y8AsgTpgAmY7PhCfg==")}, "", ""},
		{"checksum unknown algorithm ignored", &Value{Inline: in, Checksum: Ptr("BLAKE3:whatever")}, "", ""},
		{"checksum empty is not set", &Value{Inline: in, Checksum: Ptr("")}, "", ""},

		// Nothing in the spec constrains content_type's syntax.
		{"content_type free text", &Value{Inline: in, ContentType: Ptr("not a mime type")}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.Validate()
			if tc.wantRule == "" {
				if err != nil {
					t.Fatalf("Validate(%v) = %v, want valid", tc.v, err)
				}
				return
			}
			var v *Violation
			if !errors.As(err, &v) {
				t.Fatalf("Validate(%v) = %v, want a *Violation with rule %s", tc.v, err, tc.wantRule)
			}
			if v.Rule != tc.wantRule || v.Field != tc.wantField {
				t.Fatalf("Validate(%v) = rule %s field %q, want rule %s field %q (%v)", tc.v, v.Rule, v.Field, tc.wantRule, tc.wantField, err)
			}
			if !v.Rule.Spec() {
				t.Errorf("rule %s is not marked as a spec rule", v.Rule)
			}
		})
	}
}

func TestViolationsListsEveryRule(t *testing.T) {
	v := &Value{Offset: Ptr[int64](-1), Size: Ptr[int64](-2), Checksum: Ptr("MD5")}
	var got []Rule
	for _, x := range v.Violations() {
		got = append(got, x.Rule)
	}
	// The malformed checksum is no rule at all.
	want := []Rule{RuleMustResolve, RuleOffsetWithoutURI, RuleOffsetNegative, RuleSizeNegative}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if (*Value)(nil).Validate() != nil {
		t.Error("a null value is invalid")
	}
}

func TestViolationMessageNamesURIFieldAndRule(t *testing.T) {
	err := (&Value{URI: Ptr("s3://b/k.jpg"), Offset: Ptr[int64](8)}).Validate()
	want := `FILE uri "s3://b/k.jpg" field size: offset-without-size: offset 8 is set without size`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if r, ok := RuleOf(err); !ok || r != RuleOffsetWithoutSize {
		t.Errorf("RuleOf = %s, %v", r, ok)
	}
}
