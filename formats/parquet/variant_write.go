package parquet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/variant"
)

// Variant shredding properties, with Iceberg's names and defaults
// (TableProperties.PARQUET_SHRED_VARIANTS and PARQUET_VARIANT_BUFFER_SIZE,
// apache/iceberg PR #14297): shredding is opt-in and applies to top-level
// variant columns; the writer buffers the first rows of each file to infer
// the shredding layout.
const (
	PropShredVariants           = "write.parquet.shred-variants"
	PropVariantInferenceRows    = "write.parquet.variant-inference-buffer-size"
	defaultVariantInferenceRows = 100
	variantMetadataName         = "metadata"
	variantValueName            = "value"
	variantTypedValueName       = "typed_value"
)

// variantGroupType is parquet-go's VARIANT group type: the annotation the
// top-level variant group carries.
var variantGroupType = pq.Variant().Type()

// variantSettings are the parsed shredding properties.
type variantSettings struct {
	shred bool
	rows  int
}

func parseVariantSettings(props map[string]string) (variantSettings, error) {
	s := variantSettings{rows: defaultVariantInferenceRows}
	if v, ok := props[PropShredVariants]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return s, fmt.Errorf("%s: %q is not a boolean", PropShredVariants, v)
		}
		s.shred = b
	}
	n, err := positiveProperty(props, PropVariantInferenceRows, defaultVariantInferenceRows)
	if err != nil {
		return s, err
	}
	s.rows = int(min(n, 1<<24))
	return s, nil
}

// topLevelVariants are the positions of the schema's top-level variant
// columns: the ones Iceberg shreds.
func topLevelVariants(schema *iceberg.Schema) []int {
	var out []int
	for i, f := range schema.AsStruct().FieldList {
		if _, ok := f.Type.(iceberg.VariantType); ok {
			out = append(out, i)
		}
	}
	return out
}

// vpair is one value/typed_value pair of a variant column in the write
// plan, mirroring a variant.Layout node with the columns it fills.
type vpair struct {
	layout        *variant.Layout // nil: unshredded
	value         int             // value column, -1 when the layout omits it
	valueRequired bool            // the unshredded top level: required binary value
	typed         int             // Primitive: typed_value column
	typedLeaves   []int           // every column under typed_value
	fields        []*vpair        // Object
	namesSorted   bool            // Object: layout.Fields ascend by name (the analyzer's order)
	elem          *vpair          // Array
	listRep       int             // Array: repetition level of the elements
	path          string
}

// variantPlan is how a variant column is written.
type variantPlan struct {
	meta int
	top  *vpair
}

// variant plans a variant value: unshredded, or shredded by the layout
// recorded for its path.
func (b *planBuilder) variant(n *wnode, path string, wrap func(pq.Node) pq.Node) (*wnode, pq.Node, error) {
	layout := b.layouts[path]
	n.kind = wVariant
	vp := &variantPlan{meta: b.next}
	b.next++
	fields := []pq.Field{field(variantMetadataName, pq.Required(pq.Leaf(pq.ByteArrayType)))}
	top, pairFields, err := b.pair(layout, path, n.rep, true)
	if err != nil {
		return nil, nil, err
	}
	vp.top = top
	fields = append(fields, pairFields...)
	n.variant = vp
	n.leaves = make([]int, 0, b.next-vp.meta)
	for c := vp.meta; c < b.next; c++ {
		n.leaves = append(n.leaves, c)
	}
	return n, wrap(newGroup(variantGroupType, fields...)), nil
}

// pair allocates the columns of one value/typed_value pair in schema order.
func (b *planBuilder) pair(l *variant.Layout, path string, rep int, top bool) (*vpair, []pq.Field, error) {
	p := &vpair{layout: l, value: -1, typed: -1, path: path}
	var fields []pq.Field
	if l == nil || l.Kind == variant.Unshredded {
		p.layout = nil
		p.value = b.next
		b.next++
		if top {
			p.valueRequired = true
			return p, []pq.Field{field(variantValueName, pq.Required(pq.Leaf(pq.ByteArrayType)))}, nil
		}
		return p, []pq.Field{field(variantValueName, pq.Optional(pq.Leaf(pq.ByteArrayType)))}, nil
	}
	if !l.OmitValue {
		p.value = b.next
		b.next++
		fields = append(fields, field(variantValueName, pq.Optional(pq.Leaf(pq.ByteArrayType))))
	}
	first := b.next
	tpath := path + "." + variantTypedValueName
	var typed pq.Node
	switch l.Kind {
	case variant.Primitive:
		leaf, err := variantLeaf(l)
		if err != nil {
			return nil, nil, fmt.Errorf("column %q: %w", tpath, err)
		}
		p.typed = b.next
		b.next++
		typed = leaf
	case variant.Object:
		var groups []pq.Field
		for _, f := range l.Fields {
			c, cf, err := b.pair(f.Layout, tpath+"."+f.Name, rep, false)
			if err != nil {
				return nil, nil, err
			}
			p.fields = append(p.fields, c)
			groups = append(groups, field(f.Name, pq.Required(newGroup(plainGroupType, cf...))))
		}
		typed = newGroup(plainGroupType, groups...)
		p.namesSorted = slices.IsSortedFunc(l.Fields, func(x, y variant.Field) int { return strings.Compare(x.Name, y.Name) })
	case variant.Array:
		p.listRep = rep + 1
		c, cf, err := b.pair(l.Element, tpath+"."+listRepeatedName+"."+listElementName, rep+1, false)
		if err != nil {
			return nil, nil, err
		}
		p.elem = c
		elem := field(listElementName, pq.Required(newGroup(plainGroupType, cf...)))
		typed = newGroup(listGroupType, field(listRepeatedName, pq.Repeated(newGroup(plainGroupType, elem))))
	default:
		return nil, nil, fmt.Errorf("column %q: layout kind %s cannot be written", tpath, l.Kind)
	}
	for c := first; c < b.next; c++ {
		p.typedLeaves = append(p.typedLeaves, c)
	}
	fields = append(fields, field(variantTypedValueName, pq.Optional(typed)))
	return p, fields, nil
}

// variantLeaf is the Parquet leaf of a primitive typed_value, exactly as
// Layout.ParquetSchema names it.
func variantLeaf(l *variant.Layout) (pq.Node, error) {
	switch l.Type {
	case pvariant.Bool:
		return pq.Leaf(pq.BooleanType), nil
	case pvariant.Int8:
		return pq.Int(8), nil
	case pvariant.Int16:
		return pq.Int(16), nil
	case pvariant.Int32:
		return bareLeaf(pq.Int32Type), nil
	case pvariant.Int64:
		return bareLeaf(pq.Int64Type), nil
	case pvariant.Float:
		return pq.Leaf(pq.FloatType), nil
	case pvariant.Double:
		return pq.Leaf(pq.DoubleType), nil
	case pvariant.Decimal4:
		return pq.Decimal(l.Scale, l.Precision, pq.Int32Type), nil
	case pvariant.Decimal8:
		return pq.Decimal(l.Scale, l.Precision, pq.Int64Type), nil
	case pvariant.Decimal16:
		// Iceberg's VariantShreddingAnalyzer.createDecimalTypedValue: a
		// FIXED_LEN_BYTE_ARRAY of TypeUtil.decimalRequiredBytes(precision),
		// the width Iceberg gives decimal columns, not 16.
		return pq.Decimal(l.Scale, l.Precision, pq.FixedLenByteArrayType(data.DecimalRequiredBytes(l.Precision))), nil
	case pvariant.Date:
		return pq.Date(), nil
	case pvariant.Time:
		return pq.Leaf(noConvertedType{pq.TimeAdjusted(pq.Microsecond, false).Type()}), nil
	case pvariant.TimestampMicros:
		return pq.TimestampAdjusted(pq.Microsecond, true), nil
	case pvariant.TimestampMicrosNTZ:
		return pq.Leaf(noConvertedType{pq.TimestampAdjusted(pq.Microsecond, false).Type()}), nil
	case pvariant.TimestampNanos:
		return pq.TimestampAdjusted(pq.Nanosecond, true), nil
	case pvariant.TimestampNanosNTZ:
		return pq.Leaf(noConvertedType{pq.TimestampAdjusted(pq.Nanosecond, false).Type()}), nil
	case pvariant.Binary:
		return pq.Leaf(pq.ByteArrayType), nil
	case pvariant.String:
		return pq.String(), nil
	case pvariant.UUID:
		return pq.UUID(), nil
	}
	return nil, fmt.Errorf("variant type %v has no shredded Parquet type", l.Type)
}

// variantOf accepts the record value of a variant column.
func variantOf(v any) (pvariant.Value, error) {
	switch x := v.(type) {
	case pvariant.Value:
		return x, nil
	case *pvariant.Value:
		if x != nil {
			return *x, nil
		}
	}
	return pvariant.Value{}, wrongType("variant.Value", v)
}

// variantValue shreds a present variant value into its columns.
func (s *shredder) variantValue(n *wnode, v any, rep int) error {
	val, err := variantOf(v)
	if err != nil {
		return fmt.Errorf("column %q: %w", n.path, err)
	}
	if val.Bytes() == nil {
		return fmt.Errorf("column %q: variant value has no bytes (the zero variant.Value)", n.path)
	}
	// Re-validate: a variant.Value may wrap bytes nobody checked, and a bad
	// value must be refused here, not found by a reader later. The fast
	// path validates as it walks (shredFast); a value that could nest past
	// arrow-go's depth bound is validated whole first.
	me := s.metas.get(val.Metadata().Bytes())
	if me.err != nil {
		return fmt.Errorf("column %q: invalid variant: %w", n.path, me.err)
	}
	vp := n.variant
	b := val.Bytes()
	s.fast.validated = variantShredSlow || len(b) > variant.DepthFreeBytes
	s.fast.entry = me
	if s.fast.validated {
		if _, err := variant.DecodeValue(me.meta, b); err != nil {
			return fmt.Errorf("column %q: invalid variant: %w", n.path, err)
		}
	}
	if !variantShredSlow {
		if err := s.shredFast(vp.top, me.meta, b, rep, n.def, 0); err != nil {
			return err
		}
		s.cols[vp.meta] = append(s.cols[vp.meta], pq.ByteArrayValue(val.Metadata().Bytes()).Level(rep, n.def, vp.meta))
		return nil
	}
	row, err := variant.Shred(n.variant.top.layout, val)
	if err != nil {
		return fmt.Errorf("column %q: %w", n.path, err)
	}
	s.cols[vp.meta] = append(s.cols[vp.meta], pq.ByteArrayValue(row.Metadata).Level(rep, n.def, vp.meta))
	return s.variantPair(vp.top, &row.Shredded, rep, n.def)
}

// variantPair writes one pair whose enclosing group is present at def.
func (s *shredder) variantPair(p *vpair, sh *variant.Shredded, rep, def int) error {
	if p.value >= 0 {
		switch {
		case p.valueRequired:
			if sh.Value == nil {
				return fmt.Errorf("column %q: no value for the required value column", p.path)
			}
			s.cols[p.value] = append(s.cols[p.value], pq.ByteArrayValue(sh.Value).Level(rep, def, p.value))
		case sh.Value != nil:
			s.cols[p.value] = append(s.cols[p.value], pq.ByteArrayValue(sh.Value).Level(rep, def+1, p.value))
		default:
			s.appendNull(p.value, rep, def)
		}
	}
	if p.layout == nil {
		return nil
	}
	if !sh.HasTyped {
		s.nulls(p.typedLeaves, rep, def)
		return nil
	}
	switch p.layout.Kind {
	case variant.Primitive:
		pv, err := variantPrimitive(p.layout, sh.Primitive)
		if err != nil {
			return fmt.Errorf("column %q: %w", p.path, err)
		}
		s.cols[p.typed] = append(s.cols[p.typed], pv.Level(rep, def+1, p.typed))
	case variant.Object:
		for i, c := range p.fields {
			var fs variant.Shredded
			if i < len(sh.Fields) {
				fs = sh.Fields[i]
			}
			if err := s.variantPair(c, &fs, rep, def+1); err != nil {
				return err
			}
		}
	case variant.Array:
		if len(sh.Elements) == 0 {
			s.nulls(p.typedLeaves, rep, def+1)
			return nil
		}
		for i := range sh.Elements {
			r := rep
			if i > 0 {
				r = p.listRep
			}
			if err := s.variantPair(p.elem, &sh.Elements[i], r, def+2); err != nil {
				return err
			}
		}
	}
	return nil
}

// variantPrimitive converts a shredded primitive to the Parquet value of
// the layout's type (spec/VARIANT.md section 9).
func variantPrimitive(l *variant.Layout, v pvariant.Value) (pq.Value, error) {
	switch x := v.Value().(type) {
	case bool:
		return pq.BooleanValue(x), nil
	case int8:
		return pq.Int32Value(int32(x)), nil
	case int16:
		return pq.Int32Value(int32(x)), nil
	case int32:
		return pq.Int32Value(x), nil
	case int64:
		return pq.Int64Value(x), nil
	case float32:
		return pq.FloatValue(x), nil
	case float64:
		return pq.DoubleValue(x), nil
	case arrow.Date32:
		return pq.Int32Value(int32(x)), nil
	case arrow.Time64:
		return pq.Int64Value(int64(x)), nil
	case arrow.Timestamp:
		return pq.Int64Value(int64(x)), nil
	case string:
		return pq.ByteArrayValue([]byte(x)), nil
	case []byte:
		return pq.ByteArrayValue(x), nil
	case uuid.UUID:
		return pq.FixedLenByteArrayValue(x[:]), nil
	case pvariant.DecimalValue[decimal.Decimal32]:
		return pq.Int32Value(int32(x.Value.(decimal.Decimal32))), nil
	case pvariant.DecimalValue[decimal.Decimal64]:
		return pq.Int64Value(int64(x.Value.(decimal.Decimal64))), nil
	case pvariant.DecimalValue[decimal.Decimal128]:
		b, err := data.AppendDecimalBytes(nil, x.Value.(decimal128.Num), data.DecimalRequiredBytes(l.Precision))
		if err != nil {
			return pq.Value{}, err
		}
		return pq.FixedLenByteArrayValue(b), nil
	}
	return pq.Value{}, fmt.Errorf("no Parquet conversion for a %v variant in a %s typed_value", v.Type(), l)
}

// variantBuffer holds the first records of a file while the writer infers
// the shredding layouts of its top-level variant columns.
type variantBuffer struct {
	settings variantSettings
	columns  []int // record positions of the top-level variant columns
	names    []string
	records  []*data.Record
}

// layouts analyzes the buffered records: one layout per variant column
// path (nil entries are left out and write unshredded).
func (vb *variantBuffer) layouts() (map[string]*variant.Layout, map[string]*variant.Report) {
	out := map[string]*variant.Layout{}
	reports := map[string]*variant.Report{}
	cfg := variant.DefaultAnalyzerConfig()
	cfg.BufferRows = vb.settings.rows
	for i, pos := range vb.columns {
		values := make([]pvariant.Value, 0, len(vb.records))
		for _, rec := range vb.records {
			if v, err := variantOf(rec.Get(pos)); err == nil {
				values = append(values, v)
			} else {
				values = append(values, pvariant.Value{})
			}
		}
		l, rep := variant.Analyze(values, cfg)
		reports[vb.names[i]] = rep
		if l != nil {
			out[vb.names[i]] = l
		}
	}
	return out, reports
}
