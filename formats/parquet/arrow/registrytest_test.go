package arrow

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	labpq "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/internal/sample"
	"github.com/coltype-lab/lab/registry/registrytest"
)

// The registry's conformance suite on the arrow model, with the record
// model's sample and settings (formats/parquet/registrytest_test.go): 300
// rows in row groups of 32, so the split checks cut through ten of them.

const conformanceRows = 300

func TestRegistryConformanceArrow(t *testing.T) {
	sc := sample.Schema()
	recs := sample.Records(sc, 0, conformanceRows)
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
		Properties:  map[string]string{labpq.PropRowGroupRows: "32"},
		Projections: []registrytest.Projection{sample.IDAndName(sc, recs)},
		// parquet-arrow takes *arrow.Schema engine schemas and encrypts.
		Honours:         registrytest.Honours{EngineProjection: true, EngineSchema: true, Encryption: true},
		UnknownProperty: "write.parquet.no-such-setting",
	})
}
