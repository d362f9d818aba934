package variant

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Kind says what a node's typed_value column holds.
type Kind uint8

const (
	// Unshredded: no typed_value column; everything is in value.
	Unshredded Kind = iota
	// Primitive: typed_value is a Parquet primitive (Layout.Type).
	Primitive
	// Object: typed_value is a group with one required group per field.
	Object
	// Array: typed_value is a 3-level LIST whose element is a required group.
	Array
)

func (k Kind) String() string {
	switch k {
	case Unshredded:
		return "unshredded"
	case Primitive:
		return "primitive"
	case Object:
		return "object"
	case Array:
		return "array"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Layout describes one value/typed_value pair of a shredded variant: the
// top-level VARIANT group (minus metadata), an object field group, or a list
// element group. It is the shredding schema; ParquetSchema renders it.
type Layout struct {
	Kind Kind

	// Type is the variant type admitted in typed_value when Kind is
	// Primitive. Bool covers true and false.
	Type variant.Type
	// Precision and Scale of a decimal typed_value (Decimal4/8/16).
	Precision, Scale int

	// Fields of an Object layout, sorted by name.
	Fields []Field
	// Element of an Array layout.
	Element *Layout

	// OmitValue is set when the Parquet group has no value column, which the
	// spec allows for array elements and object fields; values that do not
	// fit typed_value then cannot be stored.
	OmitValue bool
}

// Field is one shredded object field.
type Field struct {
	Name   string
	Layout *Layout
}

// field returns the index of name in an Object layout's fields, or -1.
func (l *Layout) field(name string) int {
	for i := range l.Fields {
		if l.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// ParquetSchema renders the layout as the Parquet group it stands for, in
// the notation of VariantShredding.md, for reports and documentation.
func (l *Layout) ParquetSchema(name string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "optional group %s (VARIANT(1)) {\n", name)
	sb.WriteString("  required binary metadata;\n")
	l.writePair(&sb, "  ")
	sb.WriteString("}\n")
	return sb.String()
}

func (l *Layout) writePair(sb *strings.Builder, indent string) {
	if l == nil {
		sb.WriteString(indent + "optional binary value;\n")
		return
	}
	if !l.OmitValue {
		sb.WriteString(indent + "optional binary value;\n")
	}
	switch l.Kind {
	case Primitive:
		phys, ann, _ := strings.Cut(l.primitiveParquetType(), " ")
		if ann != "" {
			ann = " " + ann
		}
		sb.WriteString(indent + "optional " + phys + " typed_value" + ann + ";\n")
	case Object:
		sb.WriteString(indent + "optional group typed_value {\n")
		for _, f := range l.Fields {
			fmt.Fprintf(sb, "%s  required group %s {\n", indent, f.Name)
			f.Layout.writePair(sb, indent+"    ")
			sb.WriteString(indent + "  }\n")
		}
		sb.WriteString(indent + "}\n")
	case Array:
		sb.WriteString(indent + "optional group typed_value (LIST) {\n")
		sb.WriteString(indent + "  repeated group list {\n")
		sb.WriteString(indent + "    required group element {\n")
		l.Element.writePair(sb, indent+"      ")
		sb.WriteString(indent + "    }\n")
		sb.WriteString(indent + "  }\n")
		sb.WriteString(indent + "}\n")
	}
}

// primitiveParquetType is the Parquet physical/logical type for a primitive
// typed_value, per VariantShredding.md "Shredded Value Types".
func (l *Layout) primitiveParquetType() string {
	switch l.Type {
	case variant.Bool:
		return "boolean"
	case variant.Int8:
		return "int32 (INT(8, signed=true))"
	case variant.Int16:
		return "int32 (INT(16, signed=true))"
	case variant.Int32:
		return "int32"
	case variant.Int64:
		return "int64"
	case variant.Float:
		return "float"
	case variant.Double:
		return "double"
	case variant.Decimal4:
		return fmt.Sprintf("int32 (DECIMAL(%d, %d))", l.Precision, l.Scale)
	case variant.Decimal8:
		return fmt.Sprintf("int64 (DECIMAL(%d, %d))", l.Precision, l.Scale)
	case variant.Decimal16:
		return fmt.Sprintf("fixed_len_byte_array(16) (DECIMAL(%d, %d))", l.Precision, l.Scale)
	case variant.Date:
		return "int32 (DATE)"
	case variant.Time:
		return "int64 (TIME(false, MICROS))"
	case variant.TimestampMicros:
		return "int64 (TIMESTAMP(true, MICROS))"
	case variant.TimestampMicrosNTZ:
		return "int64 (TIMESTAMP(false, MICROS))"
	case variant.TimestampNanos:
		return "int64 (TIMESTAMP(true, NANOS))"
	case variant.TimestampNanosNTZ:
		return "int64 (TIMESTAMP(false, NANOS))"
	case variant.Binary:
		return "binary"
	case variant.String:
		return "binary (STRING)"
	case variant.UUID:
		return "fixed_len_byte_array(16) (UUID)"
	}
	return "unknown(" + typeName(l.Type) + ")"
}

// String is a compact one-line form, e.g. {a:int32,b:[string]}.
func (l *Layout) String() string {
	if l == nil {
		return "-"
	}
	switch l.Kind {
	case Primitive:
		if isDecimal(l.Type) {
			return fmt.Sprintf("decimal(%d,%d)", l.Precision, l.Scale)
		}
		return typeName(l.Type)
	case Object:
		parts := make([]string, len(l.Fields))
		for i, f := range l.Fields {
			parts[i] = f.Name + ":" + f.Layout.String()
		}
		return "{" + strings.Join(parts, ",") + "}"
	case Array:
		return "[" + l.Element.String() + "]"
	}
	return "-"
}

func isDecimal(t variant.Type) bool {
	return t == variant.Decimal4 || t == variant.Decimal8 || t == variant.Decimal16
}

func isInteger(t variant.Type) bool {
	return t == variant.Int8 || t == variant.Int16 || t == variant.Int32 || t == variant.Int64
}

// typeName names a variant type as VariantEncoding.md does.
func typeName(t variant.Type) string {
	switch t {
	case variant.Object:
		return "object"
	case variant.Array:
		return "array"
	case variant.Null:
		return "null"
	case variant.Bool:
		return "boolean"
	case variant.Int8:
		return "int8"
	case variant.Int16:
		return "int16"
	case variant.Int32:
		return "int32"
	case variant.Int64:
		return "int64"
	case variant.String:
		return "string"
	case variant.Double:
		return "double"
	case variant.Decimal4:
		return "decimal4"
	case variant.Decimal8:
		return "decimal8"
	case variant.Decimal16:
		return "decimal16"
	case variant.Date:
		return "date"
	case variant.TimestampMicros:
		return "timestamptz(6)"
	case variant.TimestampMicrosNTZ:
		return "timestampntz(6)"
	case variant.Float:
		return "float"
	case variant.Binary:
		return "binary"
	case variant.Time:
		return "time"
	case variant.TimestampNanos:
		return "timestamptz(9)"
	case variant.TimestampNanosNTZ:
		return "timestampntz(9)"
	case variant.UUID:
		return "uuid"
	}
	return fmt.Sprintf("type(%d)", int(t))
}
