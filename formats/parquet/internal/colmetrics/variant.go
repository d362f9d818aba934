package colmetrics

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/registry"
)

// Variant bounds, as Iceberg's spec.md "Bounds for Variant" defines them:
// "lower and upper bound values store Variant objects that contain lower
// or upper bounds, respectively, for fields within the variant. The object
// keys for the bound-variants are normalized JSON path expressions ... The
// object values are primitive Variant representations of the lower or
// upper bound for that field", serialized "by concatenating the Variant
// encoding of the metadata ... and the bounds object"; "Bounds must not be
// written to describe values with mixed Variant types (other than null)";
// "The special path `$` represents bounds for the variant root".
//
// Which fields get bounds, and from what, follows Iceberg Java's
// ParquetMetrics.MetricsVisitor.variant and its MetricsVariantVisitor
// (parquet/src/main/java/org/apache/iceberg/parquet/ParquetMetrics.java):
//
//   - Only a shredded primitive typed_value has bounds, taken from the
//     footer statistics of its column chunks: the writer put into that
//     column exactly the values of the field's shredded type.
//   - Its bounds stand only when the field's own value column, where
//     values of other types go, holds nothing but nulls: Parquet nulls or
//     Variant nulls (counts(): a chunk whose min and max are both the
//     Variant null counts as all null). Otherwise the field has mixed
//     types and no bounds. The value column of an enclosing object does
//     not matter: shredded fields may not appear in it.
//   - Nothing inside a shredded array has bounds (array() returns none).
//   - Object fields are named by their path of object keys
//     (PathUtil.toNormalizedPath); a shredded root primitive is "$".
//   - Counts mode keeps no bounds; truncate(N) truncates string and binary
//     bounds as for columns (VariantMetrics.truncateLowerBound/UpperBound);
//     an upper bound that cannot be truncated is left out of the upper
//     object only.
//   - A NaN bound drops the field (NaNUtil.isNaN).
//
// Two differences come from parquet-go's statistics, which the lab's writer
// produces, where Java reads parquet-java's:
//
//   - parquet-go orders FIXED_LEN_BYTE_ARRAY decimals (decimal16 typed
//     values) as unsigned bytes, not as the signed numbers Parquet's DECIMAL
//     order wants. Within one chunk the unsigned order agrees with the
//     signed one when every value has the same sign; a chunk whose unsigned
//     minimum is non-negative and maximum negative mixed signs, and the
//     field gets no bounds.
//   - parquet-go's float bounds skip NaN but do not tell -0.0 from +0.0, so
//     a zero minimum is taken as -0.0 and a zero maximum as +0.0, as
//     parquet-format's rules for reading float statistics say; the spec's
//     bounds order -0.0 before +0.0.
//
// UUID bounds are merged across chunks in unsigned byte order, Iceberg's
// UUID order; Java merges them with java.util.UUID.compareTo, which
// compares signed halves.

// fnode is one element of a footer's schema tree.
type fnode struct {
	e        *format.SchemaElement
	path     []string
	children []*fnode
}

func (n *fnode) group() bool { return len(n.children) > 0 }

func (n *fnode) child(name string) *fnode {
	for _, c := range n.children {
		if c.e.Name == name {
			return c
		}
	}
	return nil
}

// footerTree is the schema tree as fnodes, their children in schema order;
// nil when the footer has no schema.
func (s *footerSchema) footerTree() *fnode {
	if s.tree == nil {
		return nil
	}
	// Depth-first order puts every parent before its children.
	nodes := make([]*fnode, len(s.elems))
	nodes[0] = &fnode{e: &s.elems[0]}
	for i := 1; i < len(s.elems); i++ {
		parent := nodes[s.tree.Parent(i)]
		n := &fnode{e: &s.elems[i], path: append(slices.Clip(parent.path), s.elems[i].Name)}
		parent.children = append(parent.children, n)
		nodes[i] = n
	}
	return nodes[0]
}

// groupsByID indexes the groups of the tree that carry a field id; an id
// on more than one group is left out, as in fieldIDs.
func groupsByID(root *fnode) map[int]*fnode {
	out := map[int]*fnode{}
	seen := map[int]int{}
	var walk func(n *fnode)
	walk = func(n *fnode) {
		for _, c := range n.children {
			if c.group() {
				if c.e.FieldID != 0 {
					seen[int(c.e.FieldID)]++
					out[int(c.e.FieldID)] = c
				}
				walk(c)
			}
		}
	}
	walk(root)
	for id, k := range seen {
		if k > 1 {
			delete(out, id)
		}
	}
	return out
}

// variantBounds adds the bounds of every variant column whose mode keeps
// bounds.
func (c *Collector) variantBounds(footer *format.FileMetaData, schema *footerSchema, m *registry.Metrics) {
	var ids []int
	for id, mode := range c.variants {
		if mode.Kind == registry.MetricsTruncate || mode.Kind == registry.MetricsFull {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	root := schema.footerTree()
	if root == nil {
		return
	}
	groups := groupsByID(root)
	chunks := map[string][]*format.ColumnMetaData{}
	for i := range footer.RowGroups {
		rg := &footer.RowGroups[i]
		for j := range rg.Columns {
			md := &rg.Columns[j].MetaData
			k := pathKey(md.PathInSchema)
			chunks[k] = append(chunks[k], md)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		g, ok := groups[id]
		if !ok {
			continue
		}
		v := variantVisitor{chunks: chunks, mode: c.variants[id]}
		if lower, upper, ok := v.bounds(g); ok {
			m.LowerBounds[id] = lower
			m.UpperBounds[id] = upper
		}
	}
}

type variantVisitor struct {
	chunks map[string][]*format.ColumnMetaData
	mode   registry.MetricsMode
}

// fieldBound is the bounds of one shredded field: encoded Variant
// primitives, nil when absent.
type fieldBound struct {
	names        []string
	lower, upper []byte
}

// bounds serializes the bounds of the variant group g, or reports false
// when no field has any.
func (v *variantVisitor) bounds(g *fnode) (lower, upper []byte, ok bool) {
	if md := g.child("metadata"); md == nil || md.group() {
		return nil, nil, false
	}
	fields, ok := v.pair(g, nil)
	if !ok {
		return nil, nil, false
	}
	byPath := map[string]fieldBound{}
	for _, f := range fields {
		if f.lower == nil && f.upper == nil {
			continue
		}
		p, ok := normalizedPath(f.names)
		if !ok {
			continue
		}
		byPath[p] = f
	}
	if len(byPath) == 0 {
		return nil, nil, false
	}
	// Java collects the names in a TreeSet, so the metadata is sorted.
	names := slices.Sorted(maps.Keys(byPath))
	meta := variantMetadata(names)
	lowers, uppers := map[int][]byte{}, map[int][]byte{}
	for i, name := range names {
		if b := byPath[name].lower; b != nil {
			lowers[i] = b
		}
		if b := byPath[name].upper; b != nil {
			uppers[i] = b
		}
	}
	lower = append(slices.Clone(meta), variantObject(len(names), lowers)...)
	upper = append(slices.Clone(meta), variantObject(len(names), uppers)...)
	return lower, upper, true
}

// pair visits a value/typed_value pair (ParquetVariantVisitor.visitValue):
// the variant group itself, an object field's group or an array element's.
// ok is false for a malformed shredding, which leaves the whole variant
// without bounds (Java's visitor throws for it).
func (v *variantVisitor) pair(n *fnode, names []string) (fields []fieldBound, ok bool) {
	value := n.child("value")
	if value != nil && (value.group() || value.e.Type.V != format.ByteArray) {
		return nil, false
	}
	typed := n.child("typed_value")
	switch {
	case typed == nil:
		// value(valueResult, null): no typed bounds to keep.
		return nil, value != nil
	case !typed.group():
		// MetricsVariantVisitor.value: the typed bounds stand when there
		// is no value column or it holds only nulls.
		if value != nil && !v.onlyNulls(value) {
			return nil, true
		}
		lower, upper, has := v.primitive(typed)
		if !has {
			return nil, true
		}
		return []fieldBound{{names: names, lower: lower, upper: upper}}, true
	case isList(typed.e):
		// array(): nothing inside an array has bounds.
		return nil, true
	}
	// object(): every shredded field, named by its key; the object's own
	// value column does not matter.
	for _, f := range typed.children {
		if !f.group() {
			return nil, false
		}
		sub, ok := v.pair(f, append(names[:len(names):len(names)], f.e.Name))
		if !ok {
			return nil, false
		}
		fields = append(fields, sub...)
	}
	return fields, true
}

func isList(e *format.SchemaElement) bool {
	if _, ok := e.LogicalType.Value.(*format.ListType); ok {
		return true
	}
	return e.ConvertedType.Valid && e.ConvertedType.V == deprecated.List
}

// onlyNulls is MetricsVariantVisitor.counts() compared as value() does:
// every value of the column is a Parquet null or the Variant null, whose
// encoding is the single header byte 0 (Variants.isNull).
func (v *variantVisitor) onlyNulls(value *fnode) bool {
	var values, nulls int64
	for _, md := range v.chunks[pathKey(value.path)] {
		st := &md.Statistics
		values += md.NumValues
		if st.MinValue != nil && st.MaxValue != nil && len(st.MinValue) > 0 && len(st.MaxValue) > 0 &&
			st.MinValue[0] == 0 && st.MaxValue[0] == 0 {
			nulls += md.NumValues
		} else {
			nulls += st.NullCount
		}
	}
	return values == nulls
}

// vkind is a Variant primitive type a shredded typed_value can have, named
// by its type id in parquet-format's VariantEncoding.md.
type vkind uint8

const (
	vBool              vkind = 1 // true 1, false 2
	vInt8              vkind = 3
	vInt16             vkind = 4
	vInt32             vkind = 5
	vInt64             vkind = 6
	vDouble            vkind = 7
	vDecimal4          vkind = 8
	vDecimal8          vkind = 9
	vDecimal16         vkind = 10
	vDate              vkind = 11
	vTimestampTz       vkind = 12
	vTimestampNtz      vkind = 13
	vFloat             vkind = 14
	vBinary            vkind = 15
	vString            vkind = 16
	vTime              vkind = 17
	vTimestampTzNanos  vkind = 18
	vTimestampNtzNanos vkind = 19
	vUUID              vkind = 20
)

// typedKind is ParquetVariantUtil.convert: the Variant type of a shredded
// primitive column, from its logical type, else its physical type. ok is
// false for a column no Variant type matches (unsigned integers, millisecond
// timestamps, INT96, a bare FIXED_LEN_BYTE_ARRAY, ...), which gets no
// bounds. The physical type must be the one the Variant type is shredded
// as (VariantShredding.md), which Java's convertValue assumes.
func typedKind(e *format.SchemaElement) (k vkind, scale int, ok bool) {
	phys := e.Type.V
	want := func(k vkind, p format.Type) (vkind, int, bool) { return k, 0, phys == p }
	switch lt := e.LogicalType.Value.(type) {
	case *format.StringType:
		return want(vString, format.ByteArray)
	case *format.DecimalType:
		scale = int(lt.Scale)
		switch {
		case lt.Precision <= 9:
			return vDecimal4, scale, phys == format.Int32
		case lt.Precision <= 18:
			return vDecimal8, scale, phys == format.Int64
		default:
			// FIXED_LEN_BYTE_ARRAY only: a BYTE_ARRAY decimal's bytes have
			// no usable order in parquet-go's statistics.
			return vDecimal16, scale, phys == format.FixedLenByteArray && e.TypeLength.V <= 16
		}
	case *format.DateType:
		return want(vDate, format.Int32)
	case *format.TimeType:
		if _, micros := lt.Unit.Value.(*format.MicroSeconds); micros && !lt.IsAdjustedToUTC {
			return want(vTime, format.Int64)
		}
		return 0, 0, false
	case *format.TimestampType:
		switch lt.Unit.Value.(type) {
		case *format.MicroSeconds:
			if lt.IsAdjustedToUTC {
				return want(vTimestampTz, format.Int64)
			}
			return want(vTimestampNtz, format.Int64)
		case *format.NanoSeconds:
			if lt.IsAdjustedToUTC {
				return want(vTimestampTzNanos, format.Int64)
			}
			return want(vTimestampNtzNanos, format.Int64)
		}
		return 0, 0, false
	case *format.IntType:
		if !lt.IsSigned {
			return 0, 0, false
		}
		switch lt.BitWidth {
		case 8:
			return want(vInt8, format.Int32)
		case 16:
			return want(vInt16, format.Int32)
		case 32:
			return want(vInt32, format.Int32)
		case 64:
			return want(vInt64, format.Int64)
		}
		return 0, 0, false
	case *format.UUIDType:
		return vUUID, 0, phys == format.FixedLenByteArray && e.TypeLength.V == 16
	case nil:
	default:
		return 0, 0, false
	}
	if e.ConvertedType.Valid {
		// A converted type without a logical type: none of the lab's
		// typed_value columns has one, and guessing its meaning here
		// could give wrong bounds.
		return 0, 0, false
	}
	switch phys {
	case format.Boolean:
		return vBool, 0, true
	case format.Int32:
		return vInt32, 0, true
	case format.Int64:
		return vInt64, 0, true
	case format.Float:
		return vFloat, 0, true
	case format.Double:
		return vDouble, 0, true
	case format.ByteArray:
		return vBinary, 0, true
	}
	return 0, 0, false
}

// tvalue is one statistics value of a typed_value column.
type tvalue struct {
	i int64   // integers, dates, times, timestamps, decimal4/8, booleans
	f float64 // floats and doubles
	b []byte  // strings, binaries, UUIDs, decimal16 (big-endian two's complement)
}

// decodeStat reads a PLAIN-encoded statistics value of kind k.
func decodeStat(k vkind, raw []byte, typeLength int) (tvalue, bool) {
	le32 := func() (int32, bool) {
		if len(raw) != 4 {
			return 0, false
		}
		return int32(binary.LittleEndian.Uint32(raw)), true
	}
	le64 := func() (int64, bool) {
		if len(raw) != 8 {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint64(raw)), true
	}
	switch k {
	case vBool:
		if len(raw) != 1 || raw[0] > 1 {
			return tvalue{}, false
		}
		return tvalue{i: int64(raw[0])}, true
	case vInt8, vInt16, vInt32, vDecimal4, vDate:
		x, ok := le32()
		if ok && (k == vInt8 && int32(int8(x)) != x || k == vInt16 && int32(int16(x)) != x) {
			return tvalue{}, false
		}
		return tvalue{i: int64(x)}, ok
	case vInt64, vDecimal8, vTime, vTimestampTz, vTimestampNtz, vTimestampTzNanos, vTimestampNtzNanos:
		x, ok := le64()
		return tvalue{i: x}, ok
	case vFloat:
		if len(raw) != 4 {
			return tvalue{}, false
		}
		return tvalue{f: float64(math.Float32frombits(binary.LittleEndian.Uint32(raw)))}, true
	case vDouble:
		if len(raw) != 8 {
			return tvalue{}, false
		}
		return tvalue{f: math.Float64frombits(binary.LittleEndian.Uint64(raw))}, true
	case vString:
		if !utf8.Valid(raw) {
			return tvalue{}, false
		}
		return tvalue{b: slices.Clone(raw)}, true
	case vBinary:
		return tvalue{b: slices.Clone(raw)}, true
	case vUUID, vDecimal16:
		if len(raw) != typeLength {
			return tvalue{}, false
		}
		return tvalue{b: slices.Clone(raw)}, true
	}
	return tvalue{}, false
}

// compareTyped orders two values of kind k as Iceberg does (the comparators
// of ParquetVariantUtil.comparator): numbers numerically, -0.0 before +0.0,
// strings, binaries and UUIDs as unsigned bytes, decimal16 as signed
// big-endian integers of the same width.
func compareTyped(k vkind, a, b tvalue) int {
	switch k {
	case vFloat, vDouble:
		if a.f == b.f {
			return cmp.Compare(signRank(b.f), signRank(a.f))
		}
		return cmp.Compare(a.f, b.f)
	case vString, vBinary, vUUID:
		return bytes.Compare(a.b, b.b)
	case vDecimal16:
		if na, nb := a.b[0]&0x80 != 0, b.b[0]&0x80 != 0; na != nb {
			if na {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.b, b.b)
	}
	return cmp.Compare(a.i, b.i)
}

// signRank is 1 for a negative zero, so that it sorts first.
func signRank(f float64) int {
	if f == 0 && math.Signbit(f) {
		return 1
	}
	return 0
}

// primitive is MetricsVariantVisitor.metrics for a shredded primitive
// column: its lower and upper bound over every chunk, encoded as Variant
// values and truncated by the mode. has is false when the column gets no
// bounds.
func (v *variantVisitor) primitive(leaf *fnode) (lower, upper []byte, has bool) {
	k, scale, ok := typedKind(leaf.e)
	if !ok {
		return nil, nil, false
	}
	typeLength := int(leaf.e.TypeLength.V)
	var lo, hi tvalue
	seen := false
	for _, md := range v.chunks[pathKey(leaf.path)] {
		st := &md.Statistics
		if st.MinValue == nil || st.MaxValue == nil {
			if md.NumValues > st.NullCount {
				// Values without bounds: the file's bounds are unknown.
				return nil, nil, false
			}
			continue
		}
		cmin, ok1 := decodeStat(k, st.MinValue, typeLength)
		cmax, ok2 := decodeStat(k, st.MaxValue, typeLength)
		if !ok1 || !ok2 {
			return nil, nil, false
		}
		switch k {
		case vDecimal16:
			// parquet-go's unsigned order: a non-negative minimum with a
			// negative maximum means both signs occur, in an order that
			// says nothing about the signed bounds.
			if cmin.b[0]&0x80 == 0 && cmax.b[0]&0x80 != 0 {
				return nil, nil, false
			}
		case vFloat, vDouble:
			if math.IsNaN(cmin.f) || math.IsNaN(cmax.f) {
				return nil, nil, false
			}
			if cmin.f == 0 {
				cmin.f = math.Copysign(0, -1)
			}
			if cmax.f == 0 {
				cmax.f = 0
			}
		}
		if !seen || compareTyped(k, cmin, lo) < 0 {
			lo = cmin
		}
		if !seen || compareTyped(k, cmax, hi) > 0 {
			hi = cmax
		}
		seen = true
	}
	if !seen {
		return nil, nil, false
	}
	if (k == vString || k == vBinary) && v.mode.Kind == registry.MetricsTruncate {
		n := v.mode.Length
		if k == vString {
			lo.b = truncateStringLower(lo.b, n)
			hi.b, ok = truncateStringUpper(hi.b, n)
		} else {
			lo.b = truncateBinaryLower(lo.b, n)
			hi.b, ok = truncateBinaryUpper(hi.b, n)
		}
		lower = encodePrimitive(k, scale, lo)
		if ok {
			upper = encodePrimitive(k, scale, hi)
		}
		return lower, upper, true
	}
	return encodePrimitive(k, scale, lo), encodePrimitive(k, scale, hi), true
}

// encodePrimitive is the Variant encoding of a primitive value, as Iceberg's
// PrimitiveWrapper.writeTo writes it: a header byte (type id << 2), then the
// little-endian value; strings of at most 63 bytes as short strings.
func encodePrimitive(k vkind, scale int, x tvalue) []byte {
	head := func(id vkind) []byte { return []byte{byte(id) << 2} }
	switch k {
	case vBool:
		if x.i != 0 {
			return head(1)
		}
		return head(2)
	case vInt8:
		return append(head(k), byte(int8(x.i)))
	case vInt16:
		return binary.LittleEndian.AppendUint16(head(k), uint16(int16(x.i)))
	case vInt32, vDate:
		return binary.LittleEndian.AppendUint32(head(k), uint32(int32(x.i)))
	case vInt64, vTime, vTimestampTz, vTimestampNtz, vTimestampTzNanos, vTimestampNtzNanos:
		return binary.LittleEndian.AppendUint64(head(k), uint64(x.i))
	case vFloat:
		return binary.LittleEndian.AppendUint32(head(k), math.Float32bits(float32(x.f)))
	case vDouble:
		return binary.LittleEndian.AppendUint64(head(k), math.Float64bits(x.f))
	case vDecimal4:
		return binary.LittleEndian.AppendUint32(append(head(k), byte(scale)), uint32(int32(x.i)))
	case vDecimal8:
		return binary.LittleEndian.AppendUint64(append(head(k), byte(scale)), uint64(x.i))
	case vDecimal16:
		// Big-endian two's complement in the file, 16 little-endian bytes
		// sign-extended in the Variant.
		out := append(head(k), byte(scale))
		for i := len(x.b) - 1; i >= 0; i-- {
			out = append(out, x.b[i])
		}
		pad := byte(0)
		if x.b[0]&0x80 != 0 {
			pad = 0xFF
		}
		for len(out) < 2+16 {
			out = append(out, pad)
		}
		return out
	case vUUID:
		return append(head(k), x.b...)
	case vBinary:
		return append(binary.LittleEndian.AppendUint32(head(k), uint32(len(x.b))), x.b...)
	case vString:
		if len(x.b) <= 63 {
			return append([]byte{byte(len(x.b))<<2 | 1}, x.b...)
		}
		return append(binary.LittleEndian.AppendUint32(head(k), uint32(len(x.b))), x.b...)
	}
	panic(fmt.Sprintf("colmetrics: no Variant encoding for type id %d", k))
}

// sizeOf is VariantUtil.sizeOf: the bytes needed for an offset up to max.
func sizeOf(max int) int {
	switch {
	case max <= 0xFF:
		return 1
	case max <= 0xFFFF:
		return 2
	case max <= 0xFFFFFF:
		return 3
	}
	return 4
}

func appendUint(b []byte, v, size int) []byte {
	for i := 0; i < size; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// variantMetadata is the metadata of sorted, distinct names as Iceberg's
// Variants.metadata(Collection) writes it: header (version 1, sorted
// strings, offset size), dictionary size, offsets, name bytes.
func variantMetadata(names []string) []byte {
	dataSize := 0
	for _, n := range names {
		dataSize += len(n)
	}
	size := sizeOf(dataSize)
	out := []byte{byte((size-1)<<6 | 0b1_0000 | 0b0001)}
	out = appendUint(out, len(names), size)
	off := 0
	for _, n := range names {
		out = appendUint(out, off, size)
		off += len(n)
	}
	out = appendUint(out, off, size)
	for _, n := range names {
		out = append(out, n...)
	}
	return out
}

// variantObject is an object over a metadata of numNames names holding the
// given values by field id, as ShreddedObject.writeTo writes it: fields in
// name order (the ids' order, the metadata being sorted), the smallest
// field id and offset sizes.
func variantObject(numNames int, values map[int][]byte) []byte {
	ids := slices.Sorted(maps.Keys(values))
	dataSize := 0
	for _, id := range ids {
		dataSize += len(values[id])
	}
	idSize, offSize := sizeOf(numNames), sizeOf(dataSize)
	large := len(ids) > 0xFF
	header := byte((idSize-1)<<4 | (offSize-1)<<2 | 0b10)
	numSize := 1
	if large {
		header |= 0b100_0000
		numSize = 4
	}
	out := appendUint([]byte{header}, len(ids), numSize)
	for _, id := range ids {
		out = appendUint(out, id, idSize)
	}
	off := 0
	for _, id := range ids {
		out = appendUint(out, off, offSize)
		off += len(values[id])
	}
	out = appendUint(out, off, offSize)
	for _, id := range ids {
		out = append(out, values[id]...)
	}
	return out
}

// normalizedPath is PathUtil.toNormalizedPath: "$" then ['name'] per
// object key, escaped as RFC 9535 normalized paths escape member names.
// ok is false for a key that is not valid UTF-8, which Java's strings
// cannot hold either.
func normalizedPath(names []string) (string, bool) {
	var sb strings.Builder
	sb.WriteString("$")
	for _, name := range names {
		if !utf8.ValidString(name) {
			return "", false
		}
		sb.WriteString("['")
		for _, r := range name {
			switch r {
			case '\b':
				sb.WriteString(`\b`)
			case '\t':
				sb.WriteString(`\t`)
			case '\f':
				sb.WriteString(`\f`)
			case '\n':
				sb.WriteString(`\n`)
			case '\r':
				sb.WriteString(`\r`)
			case '\'':
				sb.WriteString(`\'`)
			case '\\':
				sb.WriteString(`\\`)
			default:
				if r < 0x20 {
					fmt.Fprintf(&sb, `\u%04x`, r)
				} else {
					sb.WriteRune(r)
				}
			}
		}
		sb.WriteString("']")
	}
	return sb.String(), true
}
