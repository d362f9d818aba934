package inspect

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/variant"
)

// variantOf describes a VARIANT group. The shredded layout comes from
// variant.LayoutFromParquet, the lab's one reading of VariantShredding.md,
// over a parquet-go view of the footer's subtree (the footer model is not a
// parquet.Node, and parquet-go's own schema would drop annotations it does
// not know).
func variantOf(n *Node) *Variant {
	v := &Variant{}
	if n.IsLeaf() {
		v.Error = "VARIANT annotates a group, and this is a leaf"
		return v
	}
	if n.Find([]string{"metadata"}) == nil {
		v.Error = "no metadata column"
		return v
	}
	v.Shredded = n.Find([]string{"typed_value"}) != nil
	pn, err := parquetNode(n)
	if err == nil {
		var l *variant.Layout
		if l, err = variant.LayoutFromParquet(pn, strings.Join(n.Path, ".")); err == nil {
			v.Layout = variantLayout(l)
			if v.Shredded {
				v.Summary = l.String()
			}
			return v
		}
	}
	v.Error = err.Error()
	return v
}

func variantLayout(l *variant.Layout) *VariantLayout {
	if l == nil {
		return nil
	}
	out := &VariantLayout{Kind: l.Kind.String(), Value: !l.OmitValue}
	switch l.Kind {
	case variant.Primitive:
		out.Type = l.String()
	case variant.Object:
		out.Fields = []VariantField{}
		for _, f := range l.Fields {
			out.Fields = append(out.Fields, VariantField{Name: f.Name, Layout: variantLayout(f.Layout)})
		}
	case variant.Array:
		out.Element = variantLayout(l.Element)
	}
	return out
}

// parquetNode is a parquet-go view of the subtree at n: the same names,
// repetitions, physical types and (logical) annotations.
func parquetNode(n *Node) (parquet.Node, error) {
	el := n.el
	var pn parquet.Node
	if el.IsGroup() {
		g := parquet.Group{}
		for _, c := range n.Children {
			if _, dup := g[c.Name]; dup {
				return nil, fmt.Errorf("%s: two children named %q", strings.Join(n.Path, "."), c.Name)
			}
			cn, err := parquetNode(c)
			if err != nil {
				return nil, err
			}
			g[c.Name] = cn
		}
		pn = g
		_, list := el.LogicalType.Value.(*format.ListType)
		if list || (el.LogicalType.Value == nil && el.ConvertedType.Valid && el.ConvertedType.V == deprecated.List) {
			pn = listGroup{g}
		}
	} else {
		typ, err := physicalType(el)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(n.Path, "."), err)
		}
		pn = parquet.Leaf(annotated{Type: typ, logical: logicalOf(el)})
	}
	switch {
	case !el.RepetitionType.Valid || el.RepetitionType.V == footer.Required:
		return parquet.Required(pn), nil
	case el.RepetitionType.V == footer.Optional:
		return parquet.Optional(pn), nil
	case el.RepetitionType.V == footer.Repeated:
		return parquet.Repeated(pn), nil
	}
	return nil, fmt.Errorf("%s: repetition %s inside a variant", strings.Join(n.Path, "."), el.RepetitionType.V)
}

func physicalType(el *footer.SchemaElement) (parquet.Type, error) {
	switch el.Type.V {
	case format.Boolean:
		return parquet.BooleanType, nil
	case format.Int32:
		return parquet.Int32Type, nil
	case format.Int64:
		return parquet.Int64Type, nil
	case format.Int96:
		return parquet.Int96Type, nil
	case format.Float:
		return parquet.FloatType, nil
	case format.Double:
		return parquet.DoubleType, nil
	case format.ByteArray:
		return parquet.ByteArrayType, nil
	case format.FixedLenByteArray:
		if !el.TypeLength.Valid || el.TypeLength.V <= 0 {
			return nil, fmt.Errorf("FIXED_LEN_BYTE_ARRAY without a positive type_length")
		}
		return parquet.FixedLenByteArrayType(int(el.TypeLength.V)), nil
	}
	return nil, fmt.Errorf("physical type %s", physicalName(el.Type.V))
}

// logicalOf is the element's annotation as parquet-go models it, derived
// from the converted type when the logical type is absent.
func logicalOf(el *footer.SchemaElement) *format.LogicalType {
	if v := el.LogicalType.Value; footer.IsExtension(v) {
		return &format.LogicalType{Value: otherLogical{v.String(), v.FieldID()}}
	}
	switch v := el.LogicalType.Value.(type) {
	case nil:
	case *footer.VariantType, *footer.GeometryType, *footer.GeographyType:
		// The footer model's own members are no shreddable primitives;
		// keep their name for the error.
		return &format.LogicalType{Value: otherLogical{v.String(), v.FieldID()}}
	default:
		return &format.LogicalType{Value: v} // parquet-go's format member
	}
	if !el.ConvertedType.Valid {
		return nil
	}
	switch ct := el.ConvertedType.V; ct {
	case deprecated.UTF8:
		return &format.LogicalType{Value: &format.StringType{}}
	case deprecated.Decimal:
		return &format.LogicalType{Value: &format.DecimalType{Precision: el.Precision.V, Scale: el.Scale.V}}
	case deprecated.Date:
		return &format.LogicalType{Value: &format.DateType{}}
	case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
		return &format.LogicalType{Value: &format.IntType{BitWidth: int8(8 << (ct - deprecated.Int8)), IsSigned: true}}
	case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
		return &format.LogicalType{Value: &format.IntType{BitWidth: int8(8 << (ct - deprecated.Uint8))}}
	default:
		name, _ := convertedNames[ct]
		return &format.LogicalType{Value: otherLogical{name, -1}}
	}
}

// otherLogical stands for an annotation parquet-go's union has no member for.
type otherLogical struct {
	name string
	id   int16
}

func (o otherLogical) FieldID() int16 { return o.id }
func (o otherLogical) String() string { return o.name }

// annotated is a physical type carrying the footer's annotation.
type annotated struct {
	parquet.Type
	logical *format.LogicalType
}

func (a annotated) LogicalType() *format.LogicalType { return a.logical }

func (a annotated) String() string {
	if a.logical != nil {
		return a.Type.String() + " (" + a.logical.String() + ")"
	}
	return a.Type.String()
}

// listGroup is a group annotated LIST.
type listGroup struct{ parquet.Group }

func (g listGroup) Type() parquet.Type { return listType{g.Group.Type()} }

type listType struct{ parquet.Type }

func (listType) LogicalType() *format.LogicalType {
	return &format.LogicalType{Value: &format.ListType{}}
}
