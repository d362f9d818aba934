package golden

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/variant"
)

// variantColumns are the shredded file's variant columns, each shredded on
// its own (Iceberg shreds top-level variants): objects, arrays and
// primitives. The first two rows fix each layout (variantInferenceRows);
// the others hold what the layout does not fit. Row by row, the JSON of each column's value; "" is a SQL
// NULL, "null" a Variant null.
var variantColumns = []struct {
	name string
	rows []string
}{
	{"obj", []string{
		`{"a": 1, "b": "x", "tags": ["t1", "t2"]}`,
		`{"a": 2, "b": "y", "tags": [], "extra": true}`,
		`{"a": "str", "b": "z", "tags": ["t3"]}`, // a is not an int: in a's value
		``,
		`null`,
		`{"a": 3, "tags": ["t4", 5], "nested": {"k": true}}`, // b missing, a mixed array, an unshredded field
	}},
	{"arr", []string{`[1, 2, 3]`, `[]`, `[4, "five", null]`, ``, `null`, `[6]`}},
	{"num", []string{`1`, `2`, `"three"`, ``, `null`, `4`}},
}

const variantCase = "shredded"

// variantInferenceRows is the writer's inference buffer: the layout comes
// from the first two rows, which agree, so that the later rows exercise
// partial shredding (VariantShredding.md: a value that does not match
// typed_value is stored in value) instead of unshredding the column.
const variantInferenceRows = 2

// generateVariantCases writes variant/shredded.parquet through the record
// model with shredding on (the writer infers each column's layout from
// the rows, as Iceberg's does), then derives the sidecar's physical rows
// from the file and checks that reconstructing them gives the values back.
func generateVariantCases(out, work string) error {
	fields := []iceberg.NestedField{{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}}
	for i, c := range variantColumns {
		fields = append(fields, iceberg.NestedField{ID: i + 2, Name: c.name, Type: iceberg.VariantType{}})
	}
	sc := iceberg.NewSchema(0, fields...)
	n := len(variantColumns[0].rows)
	values := make([][]*pvariant.Value, len(variantColumns)) // [column][row], nil = SQL NULL
	recs := make([]*data.Record, n)
	for r := range n {
		cells := []any{int64(r)}
		for c, col := range variantColumns {
			var cell any
			values[c] = append(values[c], nil)
			if col.rows[r] != "" {
				v, err := pvariant.ParseJSON(col.rows[r], false)
				if err != nil {
					return fmt.Errorf("column %s row %d: %w", col.name, r, err)
				}
				values[c][r], cell = &v, v
			}
			cells = append(cells, cell)
		}
		recs[r] = data.Of(sc, cells...)
	}
	tmp := filepath.Join(work, variantCase+".parquet")
	props := map[string]string{
		parquet.PropShredVariants:        "true",
		parquet.PropVariantInferenceRows: fmt.Sprint(variantInferenceRows),
		parquet.PropCompressionCodec:     "uncompressed",
	}
	if err := writeRecords(tmp, sc, props, recs...); err != nil {
		return err
	}
	path := filepath.Join(out, variantCase+".parquet")
	if err := rewriteFooter(tmp, path, nil); err != nil {
		return err
	}

	side := Sidecar{
		Case: variantCase, Kind: KindVariant, File: variantCase + ".parquet", Column: variantColumns[0].name, Annotation: "VARIANT",
		Description: "three shredded VARIANT columns: objects (a field of another type left in value, a missing field, an unshredded extra), arrays (mixed elements), primitives (one of another type); a SQL NULL and a Variant null in each",
		Shredding:   map[string]string{},
	}
	side.Rows = make([]map[string]any, n)
	side.PhysicalRows = make([]map[string]any, n)
	for r := range n {
		side.Rows[r] = map[string]any{"id": r}
		side.PhysicalRows[r] = map[string]any{"id": r}
	}
	f, err := openParquetGo(path)
	if err != nil {
		return err
	}
	for c, col := range variantColumns {
		layout, rows, err := variant.ReadParquet(f, col.name)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.name, err)
		}
		if layout == nil || layout.Kind == variant.Unshredded {
			return fmt.Errorf("column %s: the writer did not shred it; the golden file must show shredding", col.name)
		}
		side.Shredding[col.name] = layout.String()
		if len(rows) != n {
			return fmt.Errorf("column %s: %d rows read back, wrote %d", col.name, len(rows), n)
		}
		for r, row := range rows {
			if err := checkReconstructs(layout, row, values[c][r]); err != nil {
				return fmt.Errorf("column %s row %d: %w", col.name, r, err)
			}
			if side.Rows[r][col.name], err = variantJSON(values[c][r]); err != nil {
				return fmt.Errorf("column %s row %d: %w", col.name, r, err)
			}
			if side.PhysicalRows[r][col.name], err = physicalRow(layout, row); err != nil {
				return fmt.Errorf("column %s row %d: %w", col.name, r, err)
			}
		}
	}
	return writeSidecar(out, side)
}

// checkReconstructs anchors the physical rows to the values written:
// construct_variant over the row must give the value back.
func checkReconstructs(layout *variant.Layout, row variant.Row, want *pvariant.Value) error {
	if want == nil {
		if !row.Null {
			return fmt.Errorf("SQL NULL written, a value read back")
		}
		return nil
	}
	got, err := variant.Reconstruct(layout, row)
	if err != nil {
		return err
	}
	return variant.Equal(got, *want)
}

func openParquetGo(path string) (*pq.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return pq.OpenFile(bytes.NewReader(b), int64(len(b)))
}

// variantJSON is a value's JSON (VariantEncoding.md's JSON mapping), with
// integers kept exact; nil for SQL NULL.
func variantJSON(v *pvariant.Value) (any, error) {
	if v == nil {
		return nil, nil
	}
	return VariantJSON(*v)
}

// VariantJSON is a Variant value in the sidecars' JSON form
// (VariantEncoding.md's JSON mapping, integers exact as json.Number).
// It walks objects and arrays itself: arrow-go v18.8.0's
// ArrayValue.MarshalJSON prints an empty array as null (it marshals a nil
// slice), which would make the sidecar lie. Primitives go through
// arrow-go's MarshalJSON.
func VariantJSON(v pvariant.Value) (any, error) {
	switch v.Type() {
	case pvariant.Object:
		obj, ok := v.Value().(pvariant.ObjectValue)
		if !ok {
			return nil, fmt.Errorf("variant object decodes as %T", v.Value())
		}
		out := map[string]any{}
		for k, x := range obj.Values() {
			j, err := VariantJSON(x)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", k, err)
			}
			out[k] = j
		}
		return out, nil
	case pvariant.Array:
		arr, ok := v.Value().(pvariant.ArrayValue)
		if !ok {
			return nil, fmt.Errorf("variant array decodes as %T", v.Value())
		}
		out := []any{}
		for x := range arr.Values() {
			j, err := VariantJSON(x)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", len(out), err)
			}
			out = append(out, j)
		}
		return out, nil
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}

// physicalRow is a row as its Parquet groups hold it (VariantShredding.md):
// metadata and value as hex, typed_value as the shredded type's value, an
// object's typed_value as one {value, typed_value} group per field, an
// array's as a list of them.
func physicalRow(layout *variant.Layout, row variant.Row) (any, error) {
	if row.Null {
		return nil, nil
	}
	m, err := physicalPair(layout, row.Shredded)
	if err != nil {
		return nil, err
	}
	m["metadata"] = hex.EncodeToString(row.Metadata)
	return m, nil
}

func physicalPair(l *variant.Layout, s variant.Shredded) (map[string]any, error) {
	m := map[string]any{}
	if !l.OmitValue {
		m["value"] = nil
		if s.Value != nil {
			m["value"] = hex.EncodeToString(s.Value)
		}
	}
	if l.Kind == variant.Unshredded {
		return m, nil
	}
	m["typed_value"] = nil
	if !s.HasTyped {
		return m, nil
	}
	switch l.Kind {
	case variant.Primitive:
		v, err := variantJSON(&s.Primitive)
		if err != nil {
			return nil, err
		}
		m["typed_value"] = v
	case variant.Object:
		obj := map[string]any{}
		for i, f := range l.Fields {
			p, err := physicalPair(f.Layout, s.Fields[i])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			obj[f.Name] = p
		}
		m["typed_value"] = obj
	case variant.Array:
		arr := make([]any, len(s.Elements))
		for i, e := range s.Elements {
			p, err := physicalPair(l.Element, e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			arr[i] = p
		}
		m["typed_value"] = arr
	}
	return m, nil
}
