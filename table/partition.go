package table

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
)

// partitioner computes the partition of each row: the transformed values by
// partition field id, the directory Iceberg names for them, and a key that
// tells partitions apart.
type partitioner struct {
	spec   iceberg.PartitionSpec
	schema *iceberg.Schema
	fields []partitionField
	values partitionTuple // reused per row
}

type partitionField struct {
	id        int
	name      string
	transform iceberg.Transform
	source    iceberg.NestedField
	path      []int // positions from the row to the source value
}

// partitionTuple is one row's partition values in spec order.
type partitionTuple []any

func (p partitionTuple) Size() int          { return len(p) }
func (p partitionTuple) Get(pos int) any    { return p[pos] }
func (p partitionTuple) Set(pos int, v any) { p[pos] = v }

func newPartitioner(spec iceberg.PartitionSpec, schema *iceberg.Schema) (*partitioner, error) {
	p := &partitioner{spec: spec, schema: schema}
	for _, f := range spec.Fields() {
		src, ok := schema.FindFieldByID(f.SourceID())
		if !ok {
			return nil, fmt.Errorf("partition field %s: source field id %d is not in the schema", f.Name, f.SourceID())
		}
		st := schema.AsStruct()
		path, ok := positionPath(&st, f.SourceID())
		if !ok {
			return nil, fmt.Errorf("partition field %s: source column %s is inside a list or map", f.Name, src.Name)
		}
		p.fields = append(p.fields, partitionField{id: f.FieldID, name: f.Name, transform: f.Transform, source: src, path: path})
	}
	p.values = make(partitionTuple, len(p.fields))
	return p, nil
}

// positionPath finds the positions leading to field id through structs only.
func positionPath(st *iceberg.StructType, id int) ([]int, bool) {
	for i, f := range st.FieldList {
		if f.ID == id {
			return []int{i}, true
		}
		if sub, ok := f.Type.(*iceberg.StructType); ok {
			if rest, ok := positionPath(sub, id); ok {
				return append([]int{i}, rest...), true
			}
		}
	}
	return nil, false
}

// partition returns the row's partition: key, values by partition field id
// (nil for an unpartitioned table) and the partition directory.
func (p *partitioner) partition(rec *data.Record) (string, map[int]any, string, error) {
	if len(p.fields) == 0 {
		return "", nil, "", nil
	}
	var key strings.Builder
	for i, f := range p.fields {
		v := valueAt(rec, f.path)
		var out any
		if v != nil {
			lit, err := literalOf(v, f.source.Type)
			if err != nil {
				return "", nil, "", fmt.Errorf("partition field %s: column %s: %w", f.name, f.source.Name, err)
			}
			if r := f.transform.Apply(iceberg.Optional[iceberg.Literal]{Valid: true, Val: lit}); r.Valid {
				out = r.Val.Any()
			}
		}
		p.values[i] = out
		fmt.Fprintf(&key, "%T:%v/", out, out)
	}
	values := make(map[int]any, len(p.fields))
	for i, f := range p.fields {
		values[f.id] = p.values[i]
	}
	return key.String(), values, p.spec.PartitionToPath(p.values, p.schema), nil
}

func valueAt(rec *data.Record, path []int) any {
	var v any = rec
	for _, pos := range path {
		r, ok := v.(*data.Record)
		if !ok || r == nil {
			return nil
		}
		v = r.Get(pos)
	}
	return v
}

// literalOf is the iceberg-go literal of a value of data.Record's Go types.
func literalOf(v any, t iceberg.Type) (iceberg.Literal, error) {
	switch v := v.(type) {
	case bool:
		return iceberg.NewLiteral(v), nil
	case int32:
		return iceberg.NewLiteral(v), nil
	case int64:
		return iceberg.NewLiteral(v), nil
	case float32:
		return iceberg.NewLiteral(v), nil
	case float64:
		return iceberg.NewLiteral(v), nil
	case string:
		return iceberg.NewLiteral(v), nil
	case iceberg.Date:
		return iceberg.NewLiteral(v), nil
	case iceberg.Time:
		return iceberg.NewLiteral(v), nil
	case iceberg.Timestamp:
		return iceberg.NewLiteral(v), nil
	case iceberg.TimestampNano:
		return iceberg.NewLiteral(v), nil
	case uuid.UUID:
		return iceberg.NewLiteral(v), nil
	case iceberg.Decimal:
		return iceberg.NewLiteral(v), nil
	case []byte:
		lit := iceberg.NewLiteral(v)
		if _, fixed := t.(iceberg.FixedType); fixed {
			return lit.To(t)
		}
		return lit, nil
	case variant.Value:
		return nil, fmt.Errorf("a variant cannot be a partition source")
	}
	return nil, fmt.Errorf("value of Go type %T has no Iceberg literal", v)
}
