package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data/coltype"
)

// PropColumns is the writer property that declares VECTOR columns (the
// Parquet model's write.parquet.vector-columns), a list of declarations.
const PropColumns = "write.parquet.vector-columns"

// TypeName is VECTOR's name in schemas.
const TypeName = "vector"

// Type is VECTOR's entry in the value-level registry (data/coltype): the
// schema forms, JSON rows and lab inspect know VECTOR through it.
var Type = &coltype.Type{
	Name:       TypeName,
	Property:   PropColumns,
	Annotation: "VECTOR",
	// A 768-dim float32 vector's lower and upper bounds are 6 KB per data
	// file, and no planner can prune on them.
	TableMetrics: "counts",
	Parse: func(column, spelling string) (coltype.Decl, error) {
		return ParseType(column, spelling)
	},
	Element: elementFromParquet,
}

// elementFromParquet is Type.Element: the schema name of the element type
// whose ParquetElement is name.
func elementFromParquet(name string) (string, bool) {
	for _, t := range elementTypes {
		if p, ok := t.ParquetElement(); ok && p == name {
			return t.String(), true
		}
	}
	return "", false
}

func init() { coltype.Register(Type) }

// Columns are the VECTOR declarations among decls (a schemaspec.Spec's).
func Columns(decls []coltype.Decl) []Declaration {
	var out []Declaration
	for _, d := range decls {
		if v, ok := d.(Declaration); ok {
			out = append(out, v)
		}
	}
	return out
}

// Lookup is the VECTOR declaration of column among decls.
func Lookup(decls []coltype.Decl, column string) (Declaration, bool) {
	for _, d := range decls {
		if v, ok := d.(Declaration); ok && v.Column == column {
			return v, true
		}
	}
	return Declaration{}, false
}

// Type is the registered VECTOR type.
func (d Declaration) Type() *coltype.Type { return Type }

// ColumnName is the declared column.
func (d Declaration) ColumnName() string { return d.Column }

// IcebergType is fixed[dim × width].
func (d Declaration) IcebergType(int) (iceberg.Type, error) {
	return iceberg.FixedTypeOf(d.Element.VectorBytes(d.Dim)), nil
}

// Bind checks that f is fixed[dim × width].
func (d Declaration) Bind(f iceberg.NestedField) (coltype.Decl, error) {
	want := d.Element.VectorBytes(d.Dim)
	if ft, ok := f.Type.(iceberg.FixedType); !ok || ft.Len() != want {
		return nil, fmt.Errorf("has type %s; %s needs fixed[%d]", f.Type, d.TypeName(), want)
	}
	d.Column = f.Name
	return d, nil
}

// DecodeJSON reads a JSON array of exactly dim numbers of the element type
// (floats may use the non-finite strings) into the fixed bytes, each
// element little-endian.
func (d Declaration) DecodeJSON(text []byte, _ coltype.Decoder) (any, error) {
	elems, ok := coltype.JSONArray(text)
	if !ok {
		return nil, coltype.WantJSON(fmt.Sprintf("a JSON array of %d numbers (%s)", d.Dim, d.TypeName()), text)
	}
	if len(elems) != d.Dim {
		return nil, fmt.Errorf("%d values, want %d", len(elems), d.Dim)
	}
	out := make([]byte, d.Element.VectorBytes(d.Dim))
	for i, e := range elems {
		if coltype.IsJSONNull(e) {
			return nil, fmt.Errorf("element %d is null; VECTOR elements are never null", i)
		}
		var err error
		switch d.Element {
		case Float32:
			var f float64
			if f, err = coltype.ParseJSONFloat(e, 32, "float32"); err == nil {
				binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(f)))
			}
		case Float64:
			var f float64
			if f, err = coltype.ParseJSONFloat(e, 64, "float64"); err == nil {
				binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(f))
			}
		case Float16:
			var f float64
			if f, err = coltype.ParseJSONFloat(e, 32, "float16"); err == nil {
				h := Float16FromFloat32(float32(f))
				if back := h.Float32(); math.IsInf(float64(back), 0) && !math.IsInf(f, 0) {
					err = fmt.Errorf("%s is out of range for float16 (largest finite: 65504)", e)
				}
				binary.LittleEndian.PutUint16(out[2*i:], uint16(h))
			}
		case Int8:
			var x int64
			if x, err = coltype.ParseJSONInt(e, 8, "int8"); err == nil {
				out[i] = byte(int8(x))
			}
		default:
			err = fmt.Errorf("element type %s is not supported", d.Element)
		}
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return out, nil
}

// AppendJSON writes the fixed bytes as a JSON array of numbers.
func (d Declaration) AppendJSON(dst []byte, v any, _ coltype.Encoder) ([]byte, error) {
	b, err := d.bytes(v)
	if err != nil {
		return nil, err
	}
	dst = append(dst, '[')
	for i := range d.Dim {
		if i > 0 {
			dst = append(dst, ',')
		}
		f, bits := d.element(b, i)
		if d.Element == Int8 {
			dst = strconv.AppendInt(dst, int64(int8(b[i])), 10)
			continue
		}
		dst = coltype.AppendJSONFloat(dst, f, bits)
	}
	return append(dst, ']'), nil
}

func (d Declaration) bytes(v any) ([]byte, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("VECTOR value holds a Go %T, not bytes", v)
	}
	if want := d.Element.VectorBytes(d.Dim); len(b) != want {
		return nil, fmt.Errorf("VECTOR value has %d bytes, %s needs %d", len(b), d.TypeName(), want)
	}
	if !d.Element.Valid() || d.Element == BFloat16 {
		return nil, fmt.Errorf("element type %s is not supported", d.Element)
	}
	return b, nil
}

// element is element i of b as a float and the size its text keeps.
func (d Declaration) element(b []byte, i int) (float64, int) {
	switch d.Element {
	case Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))), 32
	case Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])), 64
	case Float16:
		return float64(Float16Bits(binary.LittleEndian.Uint16(b[2*i:])).Float32()), 32
	case Int8:
		return float64(int8(b[i])), 64
	}
	return math.NaN(), 64
}

// formatWidth is about how many columns Format takes: two bounds and a
// column path fit a terminal line (lab inspect's statistics).
const formatWidth = 36

// Format shows the first elements, four significant digits each, and how
// many there are: "[0.1429, -2, 3.5e+04, …] 768×float32". Bytes that are not
// a vector of the declared type show as such.
func (d Declaration) Format(v any) string {
	b, err := d.bytes(v)
	if err != nil {
		if raw, ok := v.([]byte); ok {
			return fmt.Sprintf("%d bytes, not a %s", len(raw), d.TypeName())
		}
		return fmt.Sprintf("not a %s", d.TypeName())
	}
	suffix := fmt.Sprintf(" %d×%s", d.Dim, d.Element)
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range d.Dim {
		f, _ := d.element(b, i)
		s := strconv.FormatFloat(f, 'g', 4, 64)
		sep := ""
		if i > 0 {
			sep = ", "
		}
		// Room for this element, the close, and the count.
		if i > 0 && utf8.RuneCountInString(sb.String())+len(sep)+len(s)+len(", …]")-2+utf8.RuneCountInString(suffix) > formatWidth {
			sb.WriteString(", …")
			break
		}
		sb.WriteString(sep)
		sb.WriteString(s)
	}
	sb.WriteByte(']')
	return sb.String() + suffix
}

var _ coltype.BoundFormatter = Declaration{}

// FormatBound is Format for a whole vector of the declared type
// (coltype.BoundFormatter): a bound of other bytes, such as a page index's
// cut to its first 16, is not a vector, and lab inspect shows its bytes.
func (d Declaration) FormatBound(v any) (string, bool) {
	if _, err := d.bytes(v); err != nil {
		return "", false
	}
	return d.Format(v), true
}
