package vector

import (
	"fmt"
	"strings"
)

// ElementType is the type of one vector element as stored in a file.
type ElementType uint8

const (
	Float32 ElementType = iota + 1
	Float64
	Float16  // IEEE 754 binary16
	Int8     // signed, two's complement
	BFloat16 // the upper half of a float32
)

// elementTypes lists every element type in declaration order; the zero
// ElementType is deliberately invalid so that a forgotten field is caught.
var elementTypes = []ElementType{Float32, Float64, Float16, Int8, BFloat16}

// ElementTypes returns every supported element type.
func ElementTypes() []ElementType { return append([]ElementType(nil), elementTypes...) }

// String returns the lower-case name used in schemas and on the command line.
func (t ElementType) String() string {
	switch t {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Float16:
		return "float16"
	case Int8:
		return "int8"
	case BFloat16:
		return "bfloat16"
	}
	return fmt.Sprintf("ElementType(%d)", uint8(t))
}

// Width is the size of one element in bytes, 0 for an invalid type.
func (t ElementType) Width() int {
	switch t {
	case Float32:
		return 4
	case Float64:
		return 8
	case Float16, BFloat16:
		return 2
	case Int8:
		return 1
	}
	return 0
}

// Valid reports whether t is one of the supported element types.
func (t ElementType) Valid() bool { return t.Width() != 0 }

// ParseElementType parses a name as printed by String. Matching ignores case
// and accepts the common aliases (float, double, half, fp16, bf16, ...), since
// names arrive from configuration files written by people and other tools.
func ParseElementType(name string) (ElementType, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "float32", "float", "f32", "fp32":
		return Float32, nil
	case "float64", "double", "f64", "fp64":
		return Float64, nil
	case "float16", "half", "f16", "fp16":
		return Float16, nil
	case "int8", "i8":
		return Int8, nil
	case "bfloat16", "bf16":
		return BFloat16, nil
	}
	return 0, fmt.Errorf("vector: unknown element type %q (want one of float32, float64, float16, int8, bfloat16)", name)
}

// ParquetElement names the element as the VECTOR annotation's key/value
// mirror and footer.VectorElementWidths do ("FLOAT", "DOUBLE", "FLOAT16",
// "INT8"). ok is false for bfloat16, which no Parquet type can represent.
func (t ElementType) ParquetElement() (name string, ok bool) {
	switch t {
	case Float32:
		return "FLOAT", true
	case Float64:
		return "DOUBLE", true
	case Float16:
		return "FLOAT16", true
	case Int8:
		return "INT8", true
	}
	return "", false
}
