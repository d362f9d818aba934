package compat

import (
	"encoding/hex"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/coltype-lab/lab/spec/golden"
)

// arrowRows turns arrow-go record batches into rows in the common JSON
// form, with each top-level column's Arrow type as the reader's type.
func arrowRows(schema *arrow.Schema, batches []arrow.RecordBatch) (*Output, error) {
	out := &Output{}
	for _, f := range schema.Fields() {
		out.Columns = append(out.Columns, Column{Name: f.Name, Type: f.Type.String()})
	}
	for _, b := range batches {
		fields := b.Schema().Fields() // a copy per call
		for r := 0; r < int(b.NumRows()); r++ {
			row := map[string]any{}
			for c, f := range fields {
				v, err := arrowValue(b.Column(c), r)
				if err != nil {
					return nil, fmt.Errorf("column %s row %d: %w", f.Name, len(out.Rows), err)
				}
				row[f.Name] = v
			}
			out.Rows = append(out.Rows, row)
		}
	}
	return out, nil
}

// arrowValue is element i of arr in the common JSON form: bytes as hex,
// lists as slices, structs as maps, a Variant (arrow-go's extension type)
// decoded to its JSON value.
func arrowValue(arr arrow.Array, i int) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	switch a := arr.(type) {
	case *extensions.VariantArray:
		v, err := a.Value(i)
		if err != nil {
			return nil, err
		}
		return golden.VariantJSON(v)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := map[string]any{}
		for f := 0; f < a.NumField(); f++ {
			v, err := arrowValue(a.Field(f), i)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", st.Field(f).Name, err)
			}
			m[st.Field(f).Name] = v
		}
		return m, nil
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := arrowValue(a.ListValues(), int(j))
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", j-start, err)
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Binary:
		return hex.EncodeToString(a.Value(i)), nil
	case *array.LargeBinary:
		return hex.EncodeToString(a.Value(i)), nil
	case *array.FixedSizeBinary:
		return hex.EncodeToString(a.Value(i)), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Float16:
		return float64(a.Value(i).Float32()), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case array.ExtensionArray:
		return arrowValue(a.Storage(), i)
	}
	// Integers, doubles, booleans, dates: arrow-go's own JSON value.
	return arr.GetOneForMarshal(i), nil
}
