package colmetrics

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// A footer whose schema is no tree never comes from the lab's writers, the
// only callers. Metrics then leaves out everything found by the schema's
// paths (sizes, counts, footer and variant bounds) rather than guess from a
// partial walk, keeps what it observed itself, and Err names the element;
// it never panics.
func TestMetricsOfSchemaThatIsNoTree(t *testing.T) {
	leaf := format.SchemaElement{Name: "x", Type: thrift.New(format.Int32), RepetitionType: thrift.New(format.Optional), FieldID: 1}
	chunk := format.ColumnChunk{MetaData: format.ColumnMetaData{Type: format.Int32, PathInSchema: []string{"x"},
		NumValues: 2, TotalCompressedSize: 40, Statistics: format.Statistics{MinValue: le32(1), MaxValue: le32(2)}}}
	withSchema := func(schema ...format.SchemaElement) *format.FileMetaData {
		return &format.FileMetaData{NumRows: 2, Schema: schema,
			ColumnOrders: []format.ColumnOrder{{Value: &format.TypeDefinedOrder{}}},
			RowGroups:    []format.RowGroup{{NumRows: 2, Columns: []format.ColumnChunk{chunk}}}}
	}
	root := func(n int32) format.SchemaElement {
		return format.SchemaElement{Name: "root", NumChildren: thrift.New(n)}
	}
	group := func(name string, n int32) format.SchemaElement {
		return format.SchemaElement{Name: name, NumChildren: thrift.New(n), FieldID: 2}
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int32})
	full := registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}}

	// The same footer with a well-formed schema has every metric.
	good := withSchema(root(1), leaf)
	for _, tc := range []struct {
		name   string
		footer *format.FileMetaData
		err    string // "" for a well-formed schema
	}{
		{"well formed", good, ""},
		{"more children than elements", withSchema(root(3), leaf), `footer schema: schema element 0 ("root") has num_children 3, but only 1 elements follow it`},
		{"negative child count", withSchema(root(2), group("g", -1), leaf), `schema element 1 ("g") has num_children -1`},
		{"element without a parent", withSchema(root(1), leaf, leaf), `element 2 ("x") has no parent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, footerOnly := range []bool{false, true} {
				c, err := NewCollector(schema, full)
				if err != nil {
					t.Fatal(err)
				}
				var m registry.Metrics
				if footerOnly {
					m = c.FooterMetrics(tc.footer)
				} else {
					c.Add(data.Of(schema, int32(5)))
					m = c.Metrics(tc.footer)
				}
				if m.RecordCount != 2 {
					t.Errorf("record count %d, want the footer's 2", m.RecordCount)
				}
				if tc.err == "" {
					if err := c.Err(); err != nil {
						t.Fatalf("Err %v", err)
					}
					if m.ColumnSizes[1] != 40 || m.ValueCounts[1] != 2 {
						t.Errorf("sizes %v, value counts %v, want the chunk's", m.ColumnSizes, m.ValueCounts)
					}
					if _, ok := m.LowerBounds[1]; !ok {
						t.Errorf("no lower bound")
					}
					continue
				}
				if err := c.Err(); err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("Err %v, want one containing %q", err, tc.err)
				}
				if len(m.ColumnSizes)+len(m.ValueCounts)+len(m.NullValueCounts) != 0 {
					t.Errorf("footer metrics from a schema that is no tree: sizes %v, values %v, nulls %v", m.ColumnSizes, m.ValueCounts, m.NullValueCounts)
				}
				// Observed values keep their bounds; the footer's give none.
				if _, ok := m.LowerBounds[1]; ok == footerOnly {
					t.Errorf("footer only %v: lower bounds %v", footerOnly, m.LowerBounds)
				}
			}
		})
	}
}
