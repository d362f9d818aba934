package vectorcol

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// storedWidth is the size in bytes of one element as a list or
// vector-repetition leaf stores it: the element width, except int8, which
// Parquet stores as INT32 (annotated INT(8, signed)).
func storedWidth(t vector.ElementType) int {
	if t == vector.Int8 {
		return 4
	}
	return t.Width()
}

// leafElement describes one element of the vector-repetition layout in the
// footer model (list and vector-repetition).
func leafElement(t vector.ElementType, name string, rep thrift.Null[footer.FieldRepetitionType]) footer.SchemaElement {
	e := footer.SchemaElement{Name: name, RepetitionType: rep, Type: thrift.New(physicalType(t))}
	switch t {
	case vector.Float16:
		e.TypeLength = thrift.New(int32(2))
		e.LogicalType = footer.LogicalType{Value: &format.Float16Type{}}
	case vector.BFloat16:
		e.TypeLength = thrift.New(int32(2))
	case vector.Int8:
		e.ConvertedType = thrift.New(deprecated.Int8)
		e.LogicalType = footer.LogicalType{Value: &format.IntType{BitWidth: 8, IsSigned: true}}
	}
	return e
}

func physicalType(t vector.ElementType) format.Type {
	switch t {
	case vector.Float64:
		return format.Double
	case vector.Float16, vector.BFloat16:
		return format.FixedLenByteArray
	case vector.Int8:
		return format.Int32
	}
	return format.Float
}

// elementFromLeaf works out the element type of a list or vector-repetition
// leaf from its physical and logical type; hint is the ElementKey entry (0
// when absent), needed only for bfloat16, which no Parquet type names.
func elementFromLeaf(e *footer.SchemaElement, hint vector.ElementType) (vector.ElementType, error) {
	var t vector.ElementType
	switch e.Type.V {
	case format.Float:
		t = vector.Float32
	case format.Double:
		t = vector.Float64
	case format.Int32:
		it, ok := e.LogicalType.Value.(*format.IntType)
		if !ok && e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Int8 {
			it, ok = &format.IntType{BitWidth: 8, IsSigned: true}, true
		}
		if !ok || it.BitWidth != 8 || !it.IsSigned {
			return 0, fmt.Errorf("element %s is INT32 without INT(8, signed); the only integer element is int8", e.Name)
		}
		t = vector.Int8
	case format.FixedLenByteArray:
		if e.TypeLength.V != 2 {
			return 0, fmt.Errorf("element %s is FIXED_LEN_BYTE_ARRAY(%d); a vector element of that type is 2 bytes (float16 or bfloat16)", e.Name, e.TypeLength.V)
		}
		switch e.LogicalType.Value.(type) {
		case *format.Float16Type:
			t = vector.Float16
		case nil:
			if hint != vector.BFloat16 {
				return 0, fmt.Errorf("element %s is FIXED_LEN_BYTE_ARRAY(2) without the FLOAT16 logical type and no %s entry says bfloat16: its element type is unknown", e.Name, ElementKey)
			}
			t = vector.BFloat16
		default:
			return 0, fmt.Errorf("element %s is FIXED_LEN_BYTE_ARRAY(2) with logical type %s, not FLOAT16", e.Name, e.LogicalType.String())
		}
	default:
		return 0, fmt.Errorf("element %s is %s; a vector element is FLOAT, DOUBLE, INT32 (int8), or FIXED_LEN_BYTE_ARRAY(2) (float16, bfloat16)", e.Name, e.Type.V)
	}
	if hint != 0 && hint != t {
		return 0, fmt.Errorf("element %s is stored as %v but the %s entry says %v", e.Name, t, ElementKey, hint)
	}
	return t, nil
}

// ElementFromParquetName maps a VECTOR annotation's element name (FLOAT, DOUBLE,
// FLOAT16, INT8) back to the element type.
func ElementFromParquetName(name string) (vector.ElementType, bool) {
	for _, t := range vector.ElementTypes() {
		if n, ok := t.ParquetElement(); ok && n == name {
			return t, true
		}
	}
	return 0, false
}

// decodeStored appends n stored elements of src (storedWidth each), as
// float32, to dst; int8 stored as INT32 must lie in [-128, 127].
func decodeStored(t vector.ElementType, dst []float32, src []byte) ([]float32, error) {
	if t != vector.Int8 {
		return t.DecodeAppend(dst, src)
	}
	if len(src)%4 != 0 {
		return dst, fmt.Errorf("%d bytes is not a multiple of the INT32 width 4", len(src))
	}
	for i := 0; i < len(src); i += 4 {
		v := int32(binary.LittleEndian.Uint32(src[i:]))
		if v < math.MinInt8 || v > math.MaxInt8 {
			return dst, fmt.Errorf("INT(8) value %d at element %d lies outside [-128, 127]", v, i/4)
		}
		dst = append(dst, float32(v))
	}
	return dst, nil
}
