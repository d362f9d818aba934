package parquet

import (
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/sample"
	"github.com/coltype-lab/lab/registry/registrytest"
)

// The registry's conformance suite, run on the record and position-delete
// models; formats/parquet/arrow runs it on the arrow model.

const conformanceRows = 300

// ConformanceProperties make row groups of 32 rows, so the split checks
// cut through ten of them.
var conformanceProperties = map[string]string{PropRowGroupRows: "32"}

func recordRender(r *data.Record) []string { return []string{r.String()} }

func TestRegistryConformanceRecords(t *testing.T) {
	sc := sample.Schema()
	rows := func() []*data.Record { return sample.Records(sc, 0, conformanceRows) }
	registrytest.Run(t, registrytest.Case[*data.Record]{
		Model:           RecordModel{},
		Schema:          sc,
		Rows:            rows,
		Render:          recordRender,
		Properties:      conformanceProperties,
		Projections:     []registrytest.Projection{sample.IDAndName(sc, rows())},
		UnknownProperty: "write.parquet.no-such-setting",
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
		Model:           PositionDeleteModel,
		Content:         iceberg.EntryContentPosDeletes,
		Schema:          data.PositionDeleteSchema(),
		Rows:            conformanceDeletes,
		Render:          func(d data.PositionDelete) []string { return []string{d.String()} },
		Properties:      conformanceProperties,
		Projections:     []registrytest.Projection{{Name: "file_path and pos", Schema: data.PositionDeleteSchema(), Want: want}},
		UnknownProperty: "write.parquet.no-such-setting",
	})
}
