package inspect

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// parquet-go's enum names print "Type(?)" for values they do not know; the
// report keeps the number instead.

func physicalName(t format.Type) string {
	if s := t.String(); !strings.Contains(s, "?") {
		return s
	}
	return fmt.Sprintf("Type(%d)", int32(t))
}

func encodingName(e format.Encoding) string {
	if s := e.String(); !strings.Contains(s, "?") {
		return s
	}
	return fmt.Sprintf("Encoding(%d)", int32(e))
}

func codecName(c format.CompressionCodec) string {
	if s := c.String(); !strings.Contains(s, "?") {
		return s
	}
	return fmt.Sprintf("CompressionCodec(%d)", int32(c))
}

var convertedNames = map[deprecated.ConvertedType]string{
	deprecated.UTF8: "UTF8", deprecated.Map: "MAP", deprecated.MapKeyValue: "MAP_KEY_VALUE",
	deprecated.List: "LIST", deprecated.Enum: "ENUM", deprecated.Decimal: "DECIMAL",
	deprecated.Date: "DATE", deprecated.TimeMillis: "TIME_MILLIS", deprecated.TimeMicros: "TIME_MICROS",
	deprecated.TimestampMillis: "TIMESTAMP_MILLIS", deprecated.TimestampMicros: "TIMESTAMP_MICROS",
	deprecated.Uint8: "UINT_8", deprecated.Uint16: "UINT_16", deprecated.Uint32: "UINT_32", deprecated.Uint64: "UINT_64",
	deprecated.Int8: "INT_8", deprecated.Int16: "INT_16", deprecated.Int32: "INT_32", deprecated.Int64: "INT_64",
	deprecated.Json: "JSON", deprecated.Bson: "BSON", deprecated.Interval: "INTERVAL",
}

// convertedName is the element's converted type as parquet-format names it,
// with DECIMAL's precision and scale; "" when there is none.
func convertedName(el *footer.SchemaElement) string {
	if !el.ConvertedType.Valid {
		return ""
	}
	ct := el.ConvertedType.V
	name, ok := convertedNames[ct]
	if !ok {
		return fmt.Sprintf("ConvertedType(%d)", int32(ct))
	}
	if ct == deprecated.Decimal {
		return fmt.Sprintf("DECIMAL(%s,%s)", nullText(el.Precision.V, el.Precision.Valid), nullText(el.Scale.V, el.Scale.Valid))
	}
	return name
}

func nullText(v int32, valid bool) string {
	if !valid {
		return "?"
	}
	return fmt.Sprint(v)
}

func columnOrderName(co footer.ColumnOrder) string {
	switch co.Value.(type) {
	case *format.TypeDefinedOrder:
		return "TYPE_ORDER"
	case *footer.IEEE754TotalOrder:
		return "IEEE_754_TOTAL_ORDER"
	case *footer.Int96TimestampOrder:
		return "INT96_TIMESTAMP_ORDER"
	case nil:
		return "unknown"
	}
	return fmt.Sprintf("%T", co.Value)
}

// parquetElement is the name the footer's key/value mirror and
// footer.VectorElementWidths give a vector element leaf: FLOAT, DOUBLE,
// FIXED_LEN_BYTE_ARRAY(2) FLOAT16 and INT32 INT(8, signed) are FLOAT,
// DOUBLE, FLOAT16 and INT8. It reads only the exported fields, so it works
// on a Report decoded from JSON.
func parquetElement(n *Node) (string, bool) {
	lt := n.LogicalType
	switch n.PhysicalType {
	case "FLOAT":
		return "FLOAT", lt == nil
	case "DOUBLE":
		return "DOUBLE", lt == nil
	case "FIXED_LEN_BYTE_ARRAY":
		return "FLOAT16", lt != nil && lt.Name == "FLOAT16" && n.TypeLength != nil && *n.TypeLength == 2
	case "INT32":
		if lt != nil {
			return "INT8", lt.Name == "INT" && lt.BitWidth == 8 && lt.Signed != nil && *lt.Signed
		}
		return "INT8", n.ConvertedType == "INT_8"
	}
	return "", false
}

// elementName names the element Parquet calls parquet as the registered
// type t spells it (coltype.Type.Element: VECTOR's "FLOAT" is "float32"),
// so that inspect knows no type's element names; ok is false when t is nil
// (the program links no type for the annotation), names no elements, or
// has no such element.
func elementName(t *coltype.Type, parquet string) (string, bool) {
	if t == nil || t.Element == nil {
		return "", false
	}
	return t.Element(parquet)
}

// equivalentConverted is the converted type parquet-format pairs with a
// logical type ("" when there is none), so that the text view can leave out
// a converted type that only repeats the logical one.
func equivalentConverted(lt *LogicalType) string {
	switch lt.Name {
	case "STRING":
		return "UTF8"
	case "MAP", "LIST", "ENUM", "DATE", "JSON", "BSON", "DECIMAL":
		return lt.Text // DECIMAL(p,s) prints alike in both
	case "TIME", "TIMESTAMP":
		if lt.AdjustedToUTC != nil && *lt.AdjustedToUTC && (lt.Unit == "MILLIS" || lt.Unit == "MICROS") {
			return lt.Name + "_" + lt.Unit
		}
	case "INT":
		if lt.Signed != nil && *lt.Signed {
			return fmt.Sprintf("INT_%d", lt.BitWidth)
		}
		return fmt.Sprintf("UINT_%d", lt.BitWidth)
	}
	return ""
}
