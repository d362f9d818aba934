// Package sample is the schema and rows the Parquet models' tests share:
// every nesting (struct, list, map) with nulls at every level, small enough
// to print, for the round-trip, conformance and cross-check tests of the
// record and arrow models alike.
package sample

import (
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry/registrytest"
)

// Schema has a required long, a string, a struct of two doubles, a list of
// strings and a map of string to int.
func Schema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "point", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 4, Name: "x", Type: iceberg.PrimitiveTypes.Float64, Required: true},
			{ID: 5, Name: "y", Type: iceberg.PrimitiveTypes.Float64},
		}}},
		iceberg.NestedField{ID: 6, Name: "tags", Type: &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.String}},
		iceberg.NestedField{ID: 8, Name: "attrs", Type: &iceberg.MapType{
			KeyID: 9, KeyType: iceberg.PrimitiveTypes.String, ValueID: 10, ValueType: iceberg.PrimitiveTypes.Int32}},
	)
}

// Records are n rows of Schema with ids from first, with
// nulls at every level: top-level, struct, struct child, list, element, map value.
func Records(sc *iceberg.Schema, first, n int) []*data.Record {
	pt := sc.Field(2).Type.(*iceberg.StructType)
	out := make([]*data.Record, n)
	for k := range n {
		i := first + k
		var name any = "row-" + string(rune('a'+i%26))
		if i%4 == 1 {
			name = nil
		}
		var point any
		if i%5 != 2 {
			p := data.NewStructRecord(pt)
			p.Set(0, float64(i)/2)
			if i%3 != 0 {
				p.Set(1, -float64(i))
			}
			point = p
		}
		var tags any
		if i%6 != 3 {
			l := []any{}
			for j := range i % 4 {
				if j == 1 {
					l = append(l, nil)
				} else {
					l = append(l, "t"+string(rune('0'+j)))
				}
			}
			tags = l
		}
		var attrs any
		if i%7 != 4 {
			m := data.Map{{Key: "k", Value: int32(i)}}
			if i%2 == 0 {
				m = append(m, data.MapEntry{Key: "nil", Value: nil})
			}
			attrs = m
		}
		out[k] = data.Of(sc, int64(i), name, point, tags, attrs)
	}
	return out
}

// IDAndName is the conformance suite's projection of the sample: name and
// id, in that order, with the rows recs render to under it.
func IDAndName(sc *iceberg.Schema, recs []*data.Record) registrytest.Projection {
	proj := iceberg.NewSchema(0, sc.Field(1), sc.Field(0))
	var want []string
	for _, r := range recs {
		want = append(want, data.Of(proj, r.Get(1), r.Get(0)).String())
	}
	return registrytest.Projection{Name: "name and id", Schema: proj, Want: want}
}
