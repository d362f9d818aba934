package inspect

import (
	"testing"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	_ "github.com/coltype-lab/lab/types/vector" // registers VECTOR with data/coltype, as lab does
)

// VECTOR's element names reach inspect through data/coltype's Element
// hook, from the names the footer gives the element.
func TestVectorElementNames(t *testing.T) {
	typ, ok := coltype.ByAnnotation("VECTOR")
	if !ok || typ.Element == nil {
		t.Fatal("VECTOR is not registered with an Element hook")
	}
	two, sixteen := int32(2), int32(16)
	signed, unsigned := true, false
	for _, c := range []struct {
		node *Node
		want string
	}{
		{&Node{PhysicalType: "FLOAT"}, "float32"},
		{&Node{PhysicalType: "DOUBLE"}, "float64"},
		{&Node{PhysicalType: "FIXED_LEN_BYTE_ARRAY", TypeLength: &two, LogicalType: &LogicalType{Name: "FLOAT16", Text: "FLOAT16"}}, "float16"},
		{&Node{PhysicalType: "INT32", LogicalType: &LogicalType{Name: "INT", BitWidth: 8, Signed: &signed, Text: "INT(8, signed)"}}, "int8"},
		{&Node{PhysicalType: "INT32", ConvertedType: "INT_8"}, "int8"},
		// Not elements VECTOR has: described by their Parquet types.
		{&Node{PhysicalType: "INT32", LogicalType: &LogicalType{Name: "INT", BitWidth: 8, Signed: &unsigned, Text: "INT(8, unsigned)"}}, "INT32 INT(8, unsigned)"},
		{&Node{PhysicalType: "FIXED_LEN_BYTE_ARRAY", TypeLength: &sixteen, LogicalType: &LogicalType{Name: "UUID", Text: "UUID"}}, "FIXED_LEN_BYTE_ARRAY(16) UUID"},
		{&Node{PhysicalType: "FLOAT", LogicalType: &LogicalType{Name: "UNKNOWN", Text: "unknown (id 99)"}}, "FLOAT unknown (id 99)"},
		{&Node{PhysicalType: "INT64"}, "INT64"},
		{&Node{}, "GROUP"},
	} {
		if c.node.PhysicalType != "" {
			col := 0
			c.node.Column = &col
		}
		if got := c.node.ElementName(); got != c.want {
			t.Errorf("ElementName(%+v) = %q, want %q", c.node, got, c.want)
		}
	}
	for name, want := range map[string]string{"FLOAT": "float32", "DOUBLE": "float64", "FLOAT16": "float16", "INT8": "int8"} {
		if got, ok := typ.Element(name); !ok || got != want {
			t.Errorf("Element(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	// Every element a FIXED_LEN_BYTE_ARRAY VECTOR's mirror may name has a name.
	for name := range footer.VectorElementWidths {
		if _, ok := typ.Element(name); !ok {
			t.Errorf("footer.VectorElementWidths has %q, which VECTOR's Element does not name", name)
		}
	}
	for _, name := range []string{"BFLOAT16", "INT64", "float32", ""} {
		if got, ok := typ.Element(name); ok {
			t.Errorf("Element(%q) = %q, want none", name, got)
		}
	}
}

// VECTOR tells a bound from a value: a whole vector formats as Format
// does, any other bytes (a page index's prefix) are no vector.
func TestVectorFormatBound(t *testing.T) {
	typ, _ := coltype.ByAnnotation("VECTOR")
	d, err := typ.Parse("emb", "vector<float32,4>")
	if err != nil {
		t.Fatal(err)
	}
	bf, ok := d.(coltype.BoundFormatter)
	if !ok {
		t.Fatalf("%T is not a coltype.BoundFormatter", d)
	}
	whole := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40} // 1, 2, 3, 4
	if got, ok := bf.FormatBound(whole); !ok || got != d.Format(whole) || got != "[1, 2, 3, 4] 4×float32" {
		t.Errorf("FormatBound(whole) = %q, %v; Format gives %q", got, ok, d.Format(whole))
	}
	for _, v := range []any{whole[:8], append(whole, 0), int32(1)} {
		if got, ok := bf.FormatBound(v); ok {
			t.Errorf("FormatBound(%v) = %q, want no vector", v, got)
		}
	}
}
