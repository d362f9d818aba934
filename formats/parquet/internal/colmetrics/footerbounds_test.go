package colmetrics

import (
	"math"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/registry"
)

// oneLeafFooter is a footer of one optional leaf x (field id 1) over row
// groups with the given statistics.
func oneLeafFooter(el format.SchemaElement, typeOrder bool, stats ...format.Statistics) *format.FileMetaData {
	el.Name, el.FieldID = "x", 1
	el.RepetitionType = thrift.New(format.Optional)
	md := &format.FileMetaData{Schema: []format.SchemaElement{{Name: "root", NumChildren: thrift.New[int32](1)}, el}}
	if typeOrder {
		md.ColumnOrders = []format.ColumnOrder{{Value: &format.TypeDefinedOrder{}}}
	}
	for _, st := range stats {
		md.RowGroups = append(md.RowGroups, format.RowGroup{NumRows: 4, Columns: []format.ColumnChunk{{MetaData: format.ColumnMetaData{
			Type: el.Type.V, PathInSchema: []string{"x"}, NumValues: 4, Statistics: st}}}})
	}
	return md
}

func TestFooterMetricsBounds(t *testing.T) {
	i32 := format.SchemaElement{Type: thrift.New(format.Int32)}
	dbl := format.SchemaElement{Type: thrift.New(format.Double)}
	str := format.SchemaElement{Type: thrift.New(format.ByteArray), LogicalType: format.LogicalType{Value: &format.StringType{}}}
	for _, tc := range []struct {
		name      string
		typ       iceberg.Type
		footer    *format.FileMetaData
		lo, hi    []byte // nil: no bound
		wantBound bool
	}{
		{"ints over row groups", iceberg.PrimitiveTypes.Int32, oneLeafFooter(i32, true,
			format.Statistics{MinValue: le32(3), MaxValue: le32(9)}, format.Statistics{MinValue: le32(-2), MaxValue: le32(4)}),
			le32(-2), le32(9), true},
		{"a row group of nulls has no statistics", iceberg.PrimitiveTypes.Int32, oneLeafFooter(i32, true,
			format.Statistics{MinValue: le32(3), MaxValue: le32(9)}, format.Statistics{NullCount: 4}), le32(3), le32(9), true},
		{"a row group without statistics", iceberg.PrimitiveTypes.Int32, oneLeafFooter(i32, true,
			format.Statistics{MinValue: le32(3), MaxValue: le32(9)}, format.Statistics{NullCount: 1}), nil, nil, false},
		{"no column order: min_value undefined", iceberg.PrimitiveTypes.Int32, oneLeafFooter(i32, false,
			format.Statistics{MinValue: le32(3), MaxValue: le32(9)}), nil, nil, false},
		{"deprecated signed min/max are not read", iceberg.PrimitiveTypes.Int32, oneLeafFooter(i32, true,
			format.Statistics{Min: le32(3), Max: le32(9)}), nil, nil, false},
		{"unsigned ints", iceberg.PrimitiveTypes.Int32, oneLeafFooter(format.SchemaElement{Type: thrift.New(format.Int32),
			LogicalType: format.LogicalType{Value: &format.IntType{BitWidth: 32}}}, true,
			format.Statistics{MinValue: le32(3), MaxValue: le32(9)}), nil, nil, false},
		{"zeros widen to -0 and +0", iceberg.PrimitiveTypes.Float64, oneLeafFooter(dbl, true,
			format.Statistics{MinValue: f64(0), MaxValue: f64(math.Copysign(0, -1))}),
			f64(math.Copysign(0, -1)), f64(0), true},
		{"a NaN max says nothing", iceberg.PrimitiveTypes.Float64, oneLeafFooter(dbl, true,
			format.Statistics{MinValue: f64(1), MaxValue: f64(math.NaN())}), nil, nil, false},
		{"empty strings are values", iceberg.PrimitiveTypes.String, oneLeafFooter(str, true,
			format.Statistics{MinValue: []byte{}, MaxValue: []byte{}}), []byte{}, []byte{}, true},
		{"a string max that is not UTF-8", iceberg.PrimitiveTypes.String, oneLeafFooter(str, true,
			format.Statistics{MinValue: []byte("a"), MaxValue: []byte{0xff}}), nil, nil, false},
		{"TIME in millis", iceberg.PrimitiveTypes.Time, oneLeafFooter(format.SchemaElement{Type: thrift.New(format.Int32),
			LogicalType: format.LogicalType{Value: &format.TimeType{Unit: format.TimeUnit{Value: &format.MilliSeconds{}}}}}, true,
			format.Statistics{MinValue: le32(1), MaxValue: le32(2)}), nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCollector(iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: tc.typ}), registry.DefaultMetricsConfig())
			if err != nil {
				t.Fatal(err)
			}
			m := c.FooterMetrics(tc.footer)
			lo, lok := m.LowerBounds[1]
			hi, hok := m.UpperBounds[1]
			if lok != tc.wantBound || hok != tc.wantBound || string(lo) != string(tc.lo) || string(hi) != string(tc.hi) {
				t.Fatalf("bounds %x (%v) %x (%v), want %x %x (%v)", lo, lok, hi, hok, tc.lo, tc.hi, tc.wantBound)
			}
			if len(m.NaNValueCounts) != 0 {
				t.Fatalf("NaN counts %v from a footer", m.NaNValueCounts)
			}
		})
	}
}
