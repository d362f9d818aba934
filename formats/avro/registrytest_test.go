package avro_test

import (
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/registry/registrytest"
)

// conformanceSchema has a required and optional primitives and a struct.
func conformanceSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "score", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 4, Name: "loc", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 5, Name: "x", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		}}},
	)
}

const conformanceRows = 300

func conformanceRecords() []*data.Record {
	s := conformanceSchema()
	loc := s.Fields()[3].Type.(*iceberg.StructType)
	rows := make([]*data.Record, conformanceRows)
	for i := range rows {
		var name, score, where any
		if i%3 != 0 {
			name = fmt.Sprintf("row %d", i)
		}
		if i%5 != 0 {
			score = float64(i) / 4
		}
		if i%7 != 0 {
			where = data.NewStructRecord(loc)
			where.(*data.Record).Set(0, int32(-i))
		}
		rows[i] = data.Of(s, int64(i), name, score, where)
	}
	return rows
}

func TestRegistryConformanceGeneric(t *testing.T) {
	s := conformanceSchema()
	idName := iceberg.NewSchema(0, s.Fields()[1], s.Fields()[0]) // reordered
	var wantIDName []string
	for _, r := range conformanceRecords() {
		wantIDName = append(wantIDName, data.Of(idName, r.Get(1), r.Get(0)).String())
	}
	registrytest.Run(t, registrytest.Case[*data.Record]{
		Model:  avro.GenericModel{},
		Schema: s,
		Rows:   conformanceRecords,
		Render: func(r *data.Record) []string { return []string{r.String()} },
		// Blocks of about 200 bytes: the split checks cut through many.
		Properties:      map[string]string{avro.SyncIntervalKey: "200"},
		Projections:     []registrytest.Projection{{Name: "name and id", Schema: idName, Want: wantIDName}},
		UnknownProperty: "write.avro.no-such-setting",
	})
}

func conformanceDeletes() []data.PositionDelete {
	var out []data.PositionDelete
	for f := range 3 {
		for p := range 100 {
			out = append(out, data.PositionDelete{FilePath: fmt.Sprintf("s3://b/data/%d.parquet", f), Pos: int64(p * (f + 1))})
		}
	}
	return out
}

func TestRegistryConformancePositionDeletes(t *testing.T) {
	var want []string
	for _, d := range conformanceDeletes() {
		want = append(want, d.String())
	}
	registrytest.Run(t, registrytest.Case[data.PositionDelete]{
		Model:           avro.PositionDeleteModel,
		Content:         iceberg.EntryContentPosDeletes,
		Schema:          data.PositionDeleteSchema(),
		Rows:            conformanceDeletes,
		Render:          func(d data.PositionDelete) []string { return []string{d.String()} },
		Properties:      map[string]string{avro.SyncIntervalKey: "200"},
		Projections:     []registrytest.Projection{{Name: "file_path and pos", Schema: data.PositionDeleteSchema(), Want: want}},
		UnknownProperty: "write.delete.avro.no-such-setting",
	})
}

var _ registry.FormatModel[data.PositionDelete] = avro.PositionDeleteModel
