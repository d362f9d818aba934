package parquet

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry/registrytest"
)

// The registry's conformance suite, run on the three Parquet models.

const conformanceRows = 300

// conformanceProperties make row groups of 32 rows, so the split checks
// cut through ten of them.
var conformanceProperties = map[string]string{PropRowGroupRows: "32"}

func recordRender(r *data.Record) []string { return []string{r.String()} }

// idAndName projects arrowTestSchema's name and id, in that order, and
// renders the sample's rows so.
func idAndName(sc *iceberg.Schema, recs []*data.Record) registrytest.Projection {
	proj := iceberg.NewSchema(0, sc.Field(1), sc.Field(0))
	var want []string
	for _, r := range recs {
		want = append(want, data.Of(proj, r.Get(1), r.Get(0)).String())
	}
	return registrytest.Projection{Name: "name and id", Schema: proj, Want: want}
}

func TestRegistryConformanceRecords(t *testing.T) {
	sc := arrowTestSchema()
	rows := func() []*data.Record { return arrowTestRecords(sc, 0, conformanceRows) }
	registrytest.Run(t, registrytest.Case[*data.Record]{
		Model:           RecordModel{},
		Schema:          sc,
		Rows:            rows,
		Render:          recordRender,
		Properties:      conformanceProperties,
		Projections:     []registrytest.Projection{idAndName(sc, rows())},
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

func TestRegistryConformanceArrow(t *testing.T) {
	sc := arrowTestSchema()
	recs := arrowTestRecords(sc, 0, conformanceRows)
	// Batches of 64 rows, so a batch and a row group do not line up.
	rows := func() []arrow.RecordBatch {
		var out []arrow.RecordBatch
		for i := 0; i < len(recs); i += 64 {
			out = append(out, arrowBatchOf(t, sc, recs[i:min(i+64, len(recs))]...))
		}
		return out
	}
	// A batch renders as its rows, read back by the batch's own columns.
	render := func(b arrow.RecordBatch) []string {
		var fields []iceberg.NestedField
		for _, f := range b.Schema().Fields() {
			field, ok := sc.FindFieldByName(f.Name)
			if !ok {
				t.Fatalf("batch column %s is not in the schema", f.Name)
			}
			fields = append(fields, field)
		}
		var out []string
		for _, r := range arrowRecordsOf(t, iceberg.NewSchema(0, fields...), b) {
			out = append(out, r.String())
		}
		return out
	}
	registrytest.Run(t, registrytest.Case[arrow.RecordBatch]{
		Model:       arrowModel{},
		Schema:      sc,
		Rows:        rows,
		Render:      render,
		Release:     func(b arrow.RecordBatch) { b.Release() },
		Properties:  conformanceProperties,
		Projections: []registrytest.Projection{idAndName(sc, recs)},
		// parquet-arrow takes *arrow.Schema engine schemas and encrypts.
		Honours:         registrytest.Honours{EngineProjection: true, EngineSchema: true, Encryption: true},
		UnknownProperty: "write.parquet.no-such-setting",
	})
}
