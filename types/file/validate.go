package file

// Validate checks v against the validation rules of the FILE spec and
// returns the first violation (a *Violation), or nil. A nil value is a null
// FILE value, which is valid. The order is fixed: whether the value
// resolves at all comes first, then the locator rules. The checksum is not
// checked: the spec's Validation list has no rule for it, and a checksum a
// reader cannot use is unverifiable, not invalid (Resolver.OpenStream).
func (v *Value) Validate() error {
	if vs := v.Violations(); len(vs) > 0 {
		return vs[0]
	}
	return nil
}

// Violations returns every spec rule v breaks, in the order Validate uses.
func (v *Value) Violations() []*Violation {
	if v == nil {
		return nil
	}
	var out []*Violation
	uri := ""
	if v.URI != nil {
		uri = *v.URI
	}
	add := func(rule Rule, field, format string, args ...any) {
		out = append(out, violation(rule, field, uri, format, args...))
	}
	inline, hasURI := v.IsSet(FieldInline), v.IsSet(FieldURI)
	offset, size := v.IsSet(FieldOffset), v.IsSet(FieldSize)

	if !inline && !hasURI {
		add(RuleMustResolve, "", "neither inline nor uri is set%s", alsoSet(v))
	}
	if offset && !hasURI {
		add(RuleOffsetWithoutURI, "offset", "offset %d is set without uri", *v.Offset)
	}
	if offset && !size {
		add(RuleOffsetWithoutSize, "size", "offset %d is set without size", *v.Offset)
	}
	if offset && *v.Offset < 0 {
		add(RuleOffsetNegative, "offset", "offset is %d", *v.Offset)
	}
	if size && *v.Size < 0 {
		add(RuleSizeNegative, "size", "size is %d", *v.Size)
	}
	// Resolution, the footnote to the inline row: "Otherwise, fields set
	// alongside `inline` must form a locator valid on its own, so `offset`
	// requires `uri` and `size`." A size alone resolves to nothing (the
	// table's "size alone" row); offset without uri is reported above.
	if inline && size && !hasURI && !offset {
		add(RuleInlineLocatorInvalid, "size", "size %d is set beside inline without uri; fields set alongside inline must form a locator valid on its own", *v.Size)
	}
	// size is the byte length of the referenced data, which inline supplies,
	// so a different size cannot denote the same bytes.
	if inline && size && *v.Size >= 0 && int64(len(v.Inline)) != *v.Size {
		add(RuleInlineLocatorMismatch, "size", "size is %d but inline holds %d bytes", *v.Size, len(v.Inline))
	}
	return out
}

// alsoSet names the locator children that are set although the value does
// not resolve, so the message shows why they did not help.
func alsoSet(v *Value) string {
	switch {
	case v.IsSet(FieldOffset) && v.IsSet(FieldSize):
		return " (offset and size are set, but they apply only to data referenced by uri)"
	case v.IsSet(FieldOffset):
		return " (offset is set, but it applies only to data referenced by uri)"
	case v.IsSet(FieldSize):
		return " (size is set, but it applies only to data referenced by uri)"
	case v.URI != nil:
		return " (uri is present but empty)"
	}
	return ""
}
