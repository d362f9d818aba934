package variant

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
)

// ReadParquet reads the top-level VARIANT column named column from f and
// returns its Layout (derived from the file schema) and one Row per file
// row. Columns are matched by name, as VariantShredding.md requires; the
// rows are assembled generically from parquet-go's leveled values.
func ReadParquet(f *parquet.File, column string) (*Layout, []Row, error) {
	var root parquet.Field
	for _, fl := range f.Schema().Fields() {
		if fl.Name() == column {
			root = fl
		}
	}
	if root == nil {
		return nil, nil, fmt.Errorf("variant column %q not found", column)
	}
	colIndex := map[string]int{}
	for i, p := range f.Schema().Columns() {
		colIndex[strings.Join(p, ".")] = i
	}
	pn, err := newPNode(root, []string{column}, colIndex, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	layout, err := LayoutFromParquet(root, column)
	if err != nil {
		return nil, nil, err
	}
	meta, value, typed, err := pairNodes(pn, true)
	if err != nil {
		return nil, nil, err
	}

	var rows []Row
	buf := make([]parquet.Row, 64)
	ncols := len(f.Schema().Columns())
	for _, rg := range f.RowGroups() {
		rr := rg.Rows()
		for {
			n, rerr := rr.ReadRows(buf)
			for _, prow := range buf[:n] {
				a := assembler{cols: make([][]parquet.Value, ncols), pos: make([]int, ncols)}
				for _, v := range prow {
					a.cols[v.Column()] = append(a.cols[v.Column()], v)
				}
				row, err := a.readRow(pn, meta, value, typed, layout)
				if err != nil {
					rr.Close()
					return layout, rows, fmt.Errorf("column %s, row %d: %w", column, len(rows), err)
				}
				rows = append(rows, row)
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				rr.Close()
				return layout, rows, rerr
			}
		}
		rr.Close()
	}
	return layout, rows, nil
}

// pnode is a schema node with the levels record assembly needs.
type pnode struct {
	node               parquet.Node
	name, path         string
	optional, repeated bool
	def, rep           int // max levels at this node, counting itself
	col                int // leaf column index
	cols               []int
	children           []*pnode
}

func newPNode(n parquet.Node, path []string, colIndex map[string]int, def, rep int) (*pnode, error) {
	p := &pnode{node: n, name: path[len(path)-1], path: strings.Join(path, "."), optional: n.Optional(), repeated: n.Repeated()}
	if p.optional || p.repeated {
		def++
	}
	if p.repeated {
		rep++
	}
	p.def, p.rep = def, rep
	if n.Leaf() {
		i, ok := colIndex[p.path]
		if !ok {
			return nil, fmt.Errorf("column %s not in file schema", p.path)
		}
		p.col, p.cols = i, []int{i}
		return p, nil
	}
	for _, f := range n.Fields() {
		c, err := newPNode(f, append(append([]string(nil), path...), f.Name()), colIndex, def, rep)
		if err != nil {
			return nil, err
		}
		p.children = append(p.children, c)
		p.cols = append(p.cols, c.cols...)
	}
	if len(p.cols) == 0 {
		return nil, fmt.Errorf("group %s has no columns", p.path)
	}
	return p, nil
}

func (p *pnode) child(name string) *pnode {
	for _, c := range p.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// pairNodes finds metadata (top level only), value and typed_value by name.
func pairNodes(p *pnode, top bool) (meta, value, typed *pnode, err error) {
	if p.node.Leaf() {
		return nil, nil, nil, fmt.Errorf("%s: expected a group with value/typed_value", p.path)
	}
	value, typed = p.child("value"), p.child("typed_value")
	if top {
		meta = p.child("metadata")
		if meta == nil || !meta.node.Leaf() {
			return nil, nil, nil, fmt.Errorf("%s: VARIANT group has no metadata column", p.path)
		}
	}
	if value == nil && typed == nil {
		return nil, nil, nil, fmt.Errorf("%s: group has neither value nor typed_value", p.path)
	}
	if value != nil && (!value.node.Leaf() || value.node.Type().Kind() != parquet.ByteArray) {
		return nil, nil, nil, fmt.Errorf("%s: value must be binary", value.path)
	}
	return meta, value, typed, nil
}

// LayoutFromParquet derives the Layout of a VARIANT group (or of a nested
// value/typed_value group) from its Parquet schema, rejecting typed_value
// types outside VariantShredding.md "Shredded Value Types".
func LayoutFromParquet(n parquet.Node, path string) (*Layout, error) {
	if n.Leaf() {
		return nil, fmt.Errorf("%s: expected a group", path)
	}
	var value, typed parquet.Node
	for _, f := range n.Fields() {
		switch f.Name() {
		case "value":
			value = f
		case "typed_value":
			typed = f
		}
	}
	if value == nil && typed == nil {
		return nil, fmt.Errorf("%s: group has neither value nor typed_value", path)
	}
	l := &Layout{OmitValue: value == nil}
	if typed == nil {
		return l, nil
	}
	tpath := path + ".typed_value"
	switch {
	case typed.Leaf():
		l.Kind = Primitive
		if err := primitiveFromParquet(l, typed, tpath); err != nil {
			return nil, err
		}
	case isList(typed):
		l.Kind = Array
		rep := typed.Fields()[0]
		if len(rep.Fields()) != 1 || rep.Leaf() {
			return nil, fmt.Errorf("%s: LIST must have one repeated group with one element", tpath)
		}
		elem := rep.Fields()[0]
		var err error
		if l.Element, err = LayoutFromParquet(elem, tpath+"."+rep.Name()+"."+elem.Name()); err != nil {
			return nil, err
		}
	default:
		l.Kind = Object
		for _, f := range typed.Fields() {
			// Field groups must be required; optional ones (parquet-testing
			// case 84, marked INVALID) are read with null meaning missing.
			if f.Repeated() {
				return nil, fmt.Errorf("%s.%s: shredded field group must be required, not repeated", tpath, f.Name())
			}
			fl, err := LayoutFromParquet(f, tpath+"."+f.Name())
			if err != nil {
				return nil, err
			}
			l.Fields = append(l.Fields, Field{Name: f.Name(), Layout: fl})
		}
	}
	return l, nil
}

func isList(n parquet.Node) bool {
	if lt := n.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	fs := n.Fields()
	return len(fs) == 1 && fs[0].Repeated()
}

func primitiveFromParquet(l *Layout, n parquet.Node, path string) error {
	t := n.Type()
	var lv format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		lv = lt.Value
	}
	unsupported := func() error {
		desc := t.Kind().String()
		if lv != nil {
			desc += " (" + lv.String() + ")"
		}
		return fmt.Errorf("%s: Unsupported shredded value type: %s", path, desc)
	}
	if n.Repeated() {
		return unsupported()
	}
	switch t.Kind() {
	case parquet.Boolean:
		if lv != nil {
			return unsupported()
		}
		l.Type = variant.Bool
	case parquet.Int32:
		switch x := lv.(type) {
		case nil:
			l.Type = variant.Int32
		case *format.IntType:
			if !x.IsSigned {
				return unsupported()
			}
			switch x.BitWidth {
			case 8:
				l.Type = variant.Int8
			case 16:
				l.Type = variant.Int16
			case 32:
				l.Type = variant.Int32
			default:
				return unsupported()
			}
		case *format.DecimalType:
			l.Type, l.Precision, l.Scale = variant.Decimal4, int(x.Precision), int(x.Scale)
		case *format.DateType:
			l.Type = variant.Date
		default:
			return unsupported()
		}
	case parquet.Int64:
		switch x := lv.(type) {
		case nil:
			l.Type = variant.Int64
		case *format.IntType:
			if !x.IsSigned || x.BitWidth != 64 {
				return unsupported()
			}
			l.Type = variant.Int64
		case *format.DecimalType:
			l.Type, l.Precision, l.Scale = variant.Decimal8, int(x.Precision), int(x.Scale)
		case *format.TimeType:
			if _, micros := x.Unit.Value.(*format.MicroSeconds); !micros || x.IsAdjustedToUTC {
				return unsupported()
			}
			l.Type = variant.Time
		case *format.TimestampType:
			switch x.Unit.Value.(type) {
			case *format.MicroSeconds:
				l.Type = variant.TimestampMicrosNTZ
				if x.IsAdjustedToUTC {
					l.Type = variant.TimestampMicros
				}
			case *format.NanoSeconds:
				l.Type = variant.TimestampNanosNTZ
				if x.IsAdjustedToUTC {
					l.Type = variant.TimestampNanos
				}
			default:
				return unsupported()
			}
		default:
			return unsupported()
		}
	case parquet.Float:
		if lv != nil {
			return unsupported()
		}
		l.Type = variant.Float
	case parquet.Double:
		if lv != nil {
			return unsupported()
		}
		l.Type = variant.Double
	case parquet.ByteArray:
		switch x := lv.(type) {
		case nil:
			l.Type = variant.Binary
		case *format.StringType:
			l.Type = variant.String
		case *format.DecimalType:
			l.Type, l.Precision, l.Scale = variant.Decimal16, int(x.Precision), int(x.Scale)
		default:
			return unsupported()
		}
	case parquet.FixedLenByteArray:
		switch x := lv.(type) {
		case *format.UUIDType:
			if t.Length() != 16 {
				return unsupported()
			}
			l.Type = variant.UUID
		case *format.DecimalType:
			if t.Length() > 16 {
				return unsupported()
			}
			l.Type, l.Precision, l.Scale = variant.Decimal16, int(x.Precision), int(x.Scale)
		default:
			return unsupported()
		}
	default:
		return unsupported()
	}
	if isDecimal(l.Type) && (l.Precision < 1 || l.Precision > 38 || l.Scale < 0 || l.Scale > l.Precision) {
		return fmt.Errorf("%s: invalid DECIMAL(%d, %d)", path, l.Precision, l.Scale)
	}
	return nil
}

// assembler rebuilds one record from per-column leveled values: the
// recursive form of Dremel record assembly. At any node every leaf below it
// has its next value at the same logical position, so the first leaf's
// levels decide nullness and list continuation for the whole subtree.
type assembler struct {
	cols [][]parquet.Value
	pos  []int
}

func (a *assembler) peek(p *pnode) (parquet.Value, error) {
	c := p.cols[0]
	if a.pos[c] >= len(a.cols[c]) {
		return parquet.Value{}, fmt.Errorf("%s: column ended early", p.path)
	}
	return a.cols[c][a.pos[c]], nil
}

// skip consumes the single entry each leaf has for a null or empty subtree.
func (a *assembler) skip(p *pnode) {
	for _, c := range p.cols {
		a.pos[c]++
	}
}

// null reports whether an optional node is null here, consuming it if so.
func (a *assembler) null(p *pnode) (bool, error) {
	if !p.optional {
		return false, nil
	}
	v, err := a.peek(p)
	if err != nil {
		return false, err
	}
	if v.DefinitionLevel() < p.def {
		a.skip(p)
		return true, nil
	}
	return false, nil
}

func (a *assembler) leaf(p *pnode) (parquet.Value, bool, error) {
	v, err := a.peek(p)
	if err != nil {
		return v, false, err
	}
	a.pos[p.col]++
	return v, v.DefinitionLevel() >= p.def, nil
}

func (a *assembler) readRow(p, meta, value, typed *pnode, l *Layout) (Row, error) {
	if null, err := a.null(p); err != nil || null {
		return Row{Null: true}, err
	}
	mv, ok, err := a.leaf(meta)
	if err != nil {
		return Row{}, err
	}
	if !ok {
		return Row{}, fmt.Errorf("%s: metadata is null", meta.path)
	}
	row := Row{Metadata: clone(mv.ByteArray())}
	row.Shredded, err = a.readPair(l, value, typed)
	return row, err
}

func (a *assembler) readPair(l *Layout, value, typed *pnode) (Shredded, error) {
	var s Shredded
	if value != nil {
		v, ok, err := a.leaf(value)
		if err != nil {
			return s, err
		}
		if ok {
			s.Value = clone(v.ByteArray())
		}
	}
	if typed == nil {
		return s, nil
	}
	switch l.Kind {
	case Primitive:
		v, ok, err := a.leaf(typed)
		if err != nil || !ok {
			return s, err
		}
		s.HasTyped = true
		s.Primitive, err = PrimitiveFromParquet(l, v)
		if err != nil {
			return s, fmt.Errorf("%s: %w", typed.path, err)
		}
	case Object:
		if null, err := a.null(typed); err != nil || null {
			return s, err
		}
		s.HasTyped = true
		s.Fields = make([]Shredded, len(l.Fields))
		for i, f := range l.Fields {
			fp := typed.child(f.Name)
			if null, err := a.null(fp); err != nil {
				return s, err
			} else if null {
				continue
			}
			_, fv, ft, err := pairNodes(fp, false)
			if err != nil {
				return s, err
			}
			if s.Fields[i], err = a.readPair(f.Layout, fv, ft); err != nil {
				return s, err
			}
		}
	case Array:
		if null, err := a.null(typed); err != nil || null {
			return s, err
		}
		s.HasTyped = true
		rep := typed.children[0]
		elem := rep.children[0]
		_, ev, et, err := pairNodes(elem, false)
		if err != nil {
			return s, err
		}
		first, err := a.peek(typed)
		if err != nil {
			return s, err
		}
		if first.DefinitionLevel() < rep.def {
			a.skip(typed) // empty list
			s.Elements = []Shredded{}
			return s, nil
		}
		for {
			e, err := a.readPair(l.Element, ev, et)
			if err != nil {
				return s, err
			}
			s.Elements = append(s.Elements, e)
			c := rep.cols[0]
			if a.pos[c] >= len(a.cols[c]) || a.cols[c][a.pos[c]].RepetitionLevel() != rep.rep {
				break
			}
		}
	}
	return s, nil
}

func clone(b []byte) []byte { return append([]byte{}, b...) }

// PrimitiveFromParquet converts a typed_value column value to the variant
// primitive of the layout's type, using arrow-go's builder. Integers keep
// the exact width the layout states.
func PrimitiveFromParquet(l *Layout, v parquet.Value) (variant.Value, error) {
	var b variant.Builder
	var err error
	switch l.Type {
	case variant.Bool:
		err = b.AppendBool(v.Boolean())
	case variant.Int8, variant.Int16, variant.Int32:
		x := int64(v.Int32())
		if (l.Type == variant.Int8 && int64(int8(x)) != x) || (l.Type == variant.Int16 && int64(int16(x)) != x) {
			return variant.Value{}, fmt.Errorf("value %d out of range for %s", x, typeName(l.Type))
		}
		err = b.UnsafeAppendEncoded(encodeExactInt(l.Type, x))
	case variant.Int64:
		err = b.UnsafeAppendEncoded(encodeExactInt(l.Type, v.Int64()))
	case variant.Float:
		err = b.AppendFloat32(v.Float())
	case variant.Double:
		err = b.AppendFloat64(v.Double())
	case variant.Decimal4:
		err = b.AppendDecimal4(uint8(l.Scale), decimal.Decimal32(v.Int32()))
	case variant.Decimal8:
		err = b.AppendDecimal8(uint8(l.Scale), decimal.Decimal64(v.Int64()))
	case variant.Decimal16:
		var n decimal128.Num
		n, err = data.DecimalFromBytes(v.ByteArray())
		if err == nil {
			err = b.AppendDecimal16(uint8(l.Scale), n)
		}
	case variant.Date:
		err = b.AppendDate(arrow.Date32(v.Int32()))
	case variant.Time:
		err = b.AppendTimeMicro(arrow.Time64(v.Int64()))
	case variant.TimestampMicros, variant.TimestampMicrosNTZ, variant.TimestampNanos, variant.TimestampNanosNTZ:
		micros := l.Type == variant.TimestampMicros || l.Type == variant.TimestampMicrosNTZ
		utc := l.Type == variant.TimestampMicros || l.Type == variant.TimestampNanos
		err = b.AppendTimestamp(arrow.Timestamp(v.Int64()), micros, utc)
	case variant.String:
		err = b.AppendString(string(v.ByteArray()))
	case variant.Binary:
		err = b.AppendBinary(clone(v.ByteArray()))
	case variant.UUID:
		var u uuid.UUID
		u, err = uuid.FromBytes(v.ByteArray())
		if err == nil {
			err = b.AppendUUID(u)
		}
	default:
		return variant.Value{}, fmt.Errorf("no conversion for %s", typeName(l.Type))
	}
	if err != nil {
		return variant.Value{}, err
	}
	out, err := b.Build()
	if err != nil {
		return out, err
	}
	return out.Clone(), nil
}
