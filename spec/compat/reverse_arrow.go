package compat

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/coltype-lab/lab/data"
)

// genColumn is a column of the in-process writers' families: its kind
// decides the Arrow type, the value of row i and the value lab read must
// print for it (the generator's known data).
type genColumn struct {
	name      string
	kind      string
	nullEvery int // every n-th row is null; 0: none
}

type genFamily struct {
	name    string
	rows    int
	columns []genColumn
	vector  string
	dim     int
}

const genDim = 16

var genFamilies = []genFamily{
	{name: "primitives", rows: 3000, columns: []genColumn{
		{"id", "int64", 0}, {"i32", "int32", 0}, {"f32", "float32", 11}, {"f64", "float64", 0},
		{"s", "string", 5}, {"b", "binary", 0}, {"t", "bool", 0}, {"dt", "date", 7},
		{"ts", "timestamptz", 0}, {"dec", "decimal18_4", 9},
	}},
	{name: "unsigned", rows: 3000, columns: []genColumn{
		{"u8", "uint8", 0}, {"u16", "uint16", 0}, {"u32", "uint32", 0}, {"u64", "uint64", 0},
	}},
	{name: "nested", rows: 3000, columns: []genColumn{
		{"l", "list_int32", 9}, {"st", "struct_ab", 6}, {"m", "map_string_int32", 0},
	}},
	{name: "fixed-size-list-16", rows: 3000, vector: "emb", dim: genDim, columns: []genColumn{
		{"id", "int64", 0}, {"emb", "fsl_float", 0}, // pqarrow cannot write a null fixed-size list
	}},
	{name: "list-float-16", rows: 3000, vector: "emb", dim: genDim, columns: []genColumn{
		{"id", "int64", 0}, {"emb", "list_float", 0},
	}},
}

func genVector(i int) []float32 {
	v := make([]float32, genDim)
	for x := range v {
		v[x] = float32(math.Sin(float64(i)*0.37 + float64(x)*1.3))
	}
	return v
}

func num(s string) json.Number { return json.Number(s) }

func f32Number(f float32) json.Number {
	return num(strconv.FormatFloat(float64(f), 'g', -1, 32))
}

// genList and genStruct are the Go forms of the nested kinds' values.
type (
	genList   []*int32
	genStruct struct {
		a int32
		b string
	}
	genMap   []genEntry
	genEntry struct {
		k string
		v int32
	}
	genDate   int32 // days since the epoch
	genMicros int64 // microseconds since the epoch, UTC
	genNanos  int64 // nanoseconds since the epoch, UTC, whole microseconds
	genDec    int64 // decimal(18, 4), unscaled
)

// genValue is row i of a column, in the Go type of its kind; nil for a
// null. The in-process writer (appendGen), the JavaScript writers
// (genJSValue) and the expected values (genExpected) all derive from it.
func genValue(c genColumn, i int) any {
	if c.nullEvery > 0 && i%c.nullEvery == c.nullEvery-1 {
		return nil
	}
	switch c.kind {
	case "int64":
		return int64(i)*1000000007 - 500000000000000000
	case "int32":
		return int32(uint32(i) * 2654435761)
	case "float32":
		return float32(i) / 7
	case "float64":
		return float64(i)/3 - 100
	case "string":
		return fmt.Sprintf("s%d", i%300)
	case "binary":
		return []byte{byte(i), byte(i >> 8), 0xff}
	case "bool":
		return i%3 == 0
	case "date":
		return genDate(i*17 - 40000)
	case "timestamptz":
		return genMicros(981173106123456 + int64(i)*987654321)
	case "timestamptz_int96":
		return genNanos((981173106123456 + int64(i)*987654321) * 1000)
	case "decimal18_4":
		return genDec(int64(i)*123456789 - 1000000000000)
	case "uint8":
		return uint8(i % 256)
	case "uint16":
		return uint16(i * 13 % 65536)
	case "uint32":
		return uint32(i) * 2654435761
	case "uint64":
		return uint64(math.MaxUint64) - uint64(i)*3
	case "list_int32":
		if i%4 == 0 {
			return genList{}
		}
		return genList{ptr(int32(i)), nil, ptr(int32(2 * i))}[:i%3+1]
	case "list_int32_dense": // no null elements, for parquet-go
		if i%4 == 0 {
			return genList{}
		}
		return genList{ptr(int32(i)), ptr(int32(-i)), ptr(int32(2 * i))}[:i%3+1]
	case "struct_ab":
		return genStruct{int32(i), fmt.Sprintf("x%d", i)}
	case "map_string_int32":
		return genMap{{fmt.Sprintf("k%d", i%5), int32(i)}, {"z", 0}}
	case "fsl_float", "list_float":
		return genVector(i)
	}
	panic("genValue: kind " + c.kind)
}

// genExpected is the value lab read prints for row i of a column.
func genExpected(c genColumn, i int) any {
	switch v := genValue(c, i).(type) {
	case nil:
		return nil
	case int64:
		return num(strconv.FormatInt(v, 10))
	case int32:
		return num(strconv.FormatInt(int64(v), 10))
	case float32:
		return f32Number(v)
	case float64:
		return num(strconv.FormatFloat(v, 'g', -1, 64))
	case string, bool:
		return v
	case []byte:
		return hex.EncodeToString(v)
	case genDate:
		return time.Unix(int64(v)*86400, 0).UTC().Format("2006-01-02")
	case genMicros:
		return time.UnixMicro(int64(v)).UTC().Format("2006-01-02T15:04:05.000000") + "+00:00"
	case genNanos:
		// Written as INT96, read as timestamptz in microseconds, as
		// Iceberg reads the legacy type.
		return time.UnixMicro(int64(v)/1000).UTC().Format("2006-01-02T15:04:05.000000") + "+00:00"
	case genDec:
		return data.DecimalString(big.NewInt(int64(v)), 4)
	case uint8:
		return num(strconv.Itoa(int(v)))
	case uint16:
		return num(strconv.Itoa(int(v)))
	case uint32:
		return num(strconv.FormatUint(uint64(v), 10))
	case uint64:
		return strconv.FormatUint(v, 10) // read as decimal(20, 0)
	case genList:
		out := []any{}
		for _, e := range v {
			if e == nil {
				out = append(out, nil)
			} else {
				out = append(out, num(strconv.Itoa(int(*e))))
			}
		}
		return out
	case genStruct:
		return map[string]any{"a": num(strconv.Itoa(int(v.a))), "b": v.b}
	case genMap:
		out := map[string]any{}
		for _, e := range v {
			out[e.k] = num(strconv.Itoa(int(e.v)))
		}
		return out
	case []float32:
		var out []any
		for _, f := range v {
			out = append(out, f32Number(f))
		}
		return out
	}
	panic(fmt.Sprintf("genExpected: %T", genValue(c, i)))
}

func genArrowType(kind string) arrow.DataType {
	switch kind {
	case "int64":
		return arrow.PrimitiveTypes.Int64
	case "int32":
		return arrow.PrimitiveTypes.Int32
	case "float32":
		return arrow.PrimitiveTypes.Float32
	case "float64":
		return arrow.PrimitiveTypes.Float64
	case "string":
		return arrow.BinaryTypes.String
	case "binary":
		return arrow.BinaryTypes.Binary
	case "bool":
		return arrow.FixedWidthTypes.Boolean
	case "date":
		return arrow.FixedWidthTypes.Date32
	case "timestamptz":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case "timestamptz_int96":
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	case "decimal18_4":
		return &arrow.Decimal128Type{Precision: 18, Scale: 4}
	case "uint8":
		return arrow.PrimitiveTypes.Uint8
	case "uint16":
		return arrow.PrimitiveTypes.Uint16
	case "uint32":
		return arrow.PrimitiveTypes.Uint32
	case "uint64":
		return arrow.PrimitiveTypes.Uint64
	case "list_int32":
		return arrow.ListOf(arrow.PrimitiveTypes.Int32)
	case "struct_ab":
		return arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	case "map_string_int32":
		return arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	case "fsl_float":
		return arrow.FixedSizeListOf(genDim, arrow.PrimitiveTypes.Float32)
	case "list_float":
		return arrow.ListOf(arrow.PrimitiveTypes.Float32)
	}
	panic("genArrowType: kind " + kind)
}

// appendGen appends row i of a column to its Arrow builder.
func appendGen(b array.Builder, c genColumn, i int) {
	v := genValue(c, i)
	if v == nil {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.Int64Builder:
		x.Append(v.(int64))
	case *array.Int32Builder:
		x.Append(v.(int32))
	case *array.Float32Builder:
		x.Append(v.(float32))
	case *array.Float64Builder:
		x.Append(v.(float64))
	case *array.StringBuilder:
		x.Append(v.(string))
	case *array.BinaryBuilder:
		x.Append(v.([]byte))
	case *array.BooleanBuilder:
		x.Append(v.(bool))
	case *array.Date32Builder:
		x.Append(arrow.Date32(v.(genDate)))
	case *array.TimestampBuilder:
		switch t := v.(type) {
		case genMicros:
			x.Append(arrow.Timestamp(t))
		case genNanos:
			x.Append(arrow.Timestamp(t))
		}
	case *array.Decimal128Builder:
		x.Append(decimal128.FromI64(int64(v.(genDec))))
	case *array.Uint8Builder:
		x.Append(v.(uint8))
	case *array.Uint16Builder:
		x.Append(v.(uint16))
	case *array.Uint32Builder:
		x.Append(v.(uint32))
	case *array.Uint64Builder:
		x.Append(v.(uint64))
	case *array.MapBuilder:
		x.Append(true)
		kb, ib := x.KeyBuilder().(*array.StringBuilder), x.ItemBuilder().(*array.Int32Builder)
		for _, e := range v.(genMap) {
			kb.Append(e.k)
			ib.Append(e.v)
		}
	case *array.ListBuilder:
		x.Append(true)
		switch vb := x.ValueBuilder().(type) {
		case *array.Int32Builder:
			for _, e := range v.(genList) {
				if e == nil {
					vb.AppendNull()
				} else {
					vb.Append(*e)
				}
			}
		case *array.Float32Builder:
			vb.AppendValues(v.([]float32), nil)
		}
	case *array.FixedSizeListBuilder:
		x.Append(true)
		x.ValueBuilder().(*array.Float32Builder).AppendValues(v.([]float32), nil)
	case *array.StructBuilder:
		st := v.(genStruct)
		x.Append(true)
		x.FieldBuilder(0).(*array.Int32Builder).Append(st.a)
		x.FieldBuilder(1).(*array.StringBuilder).Append(st.b)
	default:
		panic(fmt.Sprintf("appendGen: builder %T", b))
	}
}

func ptr[T any](v T) *T { return &v }

// arrowSetting is a pqarrow writer configuration users pick.
type arrowSetting struct {
	name     string
	props    func(f genFamily) []parquet.WriterProperty
	fieldIDs bool
	// arrow are pqarrow's own options (how Arrow types map to Parquet's).
	arrow []pqarrow.WriterOption
}

// int96 is legacy INT96 timestamps, as Impala and old Spark write them
// (pqarrow writes nanosecond timestamps so when asked): its own family,
// since only it holds a column the setting changes.
var (
	int96Family  = genFamily{name: "timestamps", rows: 3000, columns: []genColumn{{"id", "int64", 0}, {"ts", "timestamptz_int96", 7}}}
	int96Setting = arrowSetting{name: "int96-timestamps", props: func(genFamily) []parquet.WriterProperty { return nil },
		arrow: []pqarrow.WriterOption{pqarrow.WithDeprecatedInt96Timestamps(true)}}
)

// floatColumns are the family's float columns' Parquet paths, for
// BYTE_STREAM_SPLIT; element is the writer's name for a list's element
// ("element" in pqarrow, "item" in arrow-rs).
func floatColumns(f genFamily, element string) []string {
	var out []string
	for _, c := range f.columns {
		switch c.kind {
		case "float32", "float64":
			out = append(out, c.name)
		case "fsl_float", "list_float":
			out = append(out, c.name+".list."+element)
		}
	}
	return out
}

var arrowSettings = []arrowSetting{
	{name: "default", props: func(genFamily) []parquet.WriterProperty { return nil }},
	{name: "v2-zstd-no-dictionary", props: func(genFamily) []parquet.WriterProperty {
		return []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false)}
	}},
	{name: "bss-snappy-small-pages", props: func(f genFamily) []parquet.WriterProperty {
		p := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false),
			parquet.WithDataPageSize(1024), parquet.WithMaxRowGroupLength(700)}
		for _, path := range floatColumns(f, "element") {
			p = append(p, parquet.WithEncodingFor(path, parquet.Encodings.ByteStreamSplit))
		}
		return p
	}},
	{name: "field-ids", fieldIDs: true, props: func(genFamily) []parquet.WriterProperty { return nil }},
}

// withFieldIDs numbers every field of a schema, nested ones included, as
// pqarrow writes the PARQUET:field_id metadata.
func withFieldIDs(fields []arrow.Field, next *int) []arrow.Field {
	out := make([]arrow.Field, len(fields))
	for i, f := range fields {
		f.Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(*next)})
		*next++
		switch t := f.Type.(type) {
		case *arrow.ListType:
			e := withFieldIDs([]arrow.Field{t.ElemField()}, next)[0]
			f.Type = arrow.ListOfField(e)
		case *arrow.StructType:
			f.Type = arrow.StructOf(withFieldIDs(t.Fields(), next)...)
		}
		out[i] = f
	}
	return out
}

// ArrowGoCases writes every family with every pqarrow setting into dir.
func ArrowGoCases(dir string) ([]*WriterCase, error) {
	var out []*WriterCase
	for _, f := range genFamilies {
		for _, s := range arrowSettings {
			c, err := writeArrowCase(dir, f, s)
			if err != nil {
				return nil, fmt.Errorf("arrow-go/%s/%s: %w", s.name, f.name, err)
			}
			out = append(out, c)
		}
	}
	c, err := writeArrowCase(dir, int96Family, int96Setting)
	if err != nil {
		return nil, fmt.Errorf("arrow-go/%s/%s: %w", int96Setting.name, int96Family.name, err)
	}
	return append(out, c), nil
}

func writeArrowCase(dir string, f genFamily, s arrowSetting) (*WriterCase, error) {
	var fields []arrow.Field
	for _, c := range f.columns {
		fields = append(fields, arrow.Field{Name: c.name, Type: genArrowType(c.kind), Nullable: true})
	}
	if s.fieldIDs {
		next := 1
		fields = withFieldIDs(fields, &next)
	}
	schema := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	c := &WriterCase{Writer: "arrow-go", Setting: s.name, Family: f.name, Vector: f.vector, Dim: f.dim,
		Path: filepath.Join(dir, "arrow-go-"+s.name+"-"+f.name+".parquet")}
	for _, col := range f.columns {
		c.Columns = append(c.Columns, col.name)
	}
	for i := range f.rows {
		row := map[string]any{}
		for j, col := range f.columns {
			appendGen(rb.Field(j), col, i)
			row[col.name] = genExpected(col, i)
		}
		c.Rows = append(c.Rows, row)
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	out, err := os.Create(c.Path)
	if err != nil {
		return nil, err
	}
	w, err := pqarrow.NewFileWriter(schema, out, parquet.NewWriterProperties(s.props(f)...), pqarrow.NewArrowWriterProperties(s.arrow...))
	if err != nil {
		out.Close()
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	_ = out.Close() // pqarrow closes its sink; a second close only errs
	if f.vector != "" {
		c.WriterDefect, err = arrowVectorReadBack(c.Path, f)
	}
	return c, err
}

// arrowVectorReadBack reads the vector column back with pqarrow and says
// where it differs from what the writer was given: pqarrow (v18.8.0)
// writes a FixedSizeList column split into several row groups with the
// first row group's values again in the later ones, a writer defect the
// lab must not be blamed for, and DuckDB reads the same values the lab does.
func arrowVectorReadBack(path string, f genFamily) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	rd, err := file.NewParquetReader(in)
	if err != nil {
		return "", err
	}
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return "", err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return "", err
	}
	defer tbl.Release()
	col := tbl.Column(tbl.Schema().FieldIndices(f.vector)[0])
	row := 0
	for _, chunk := range col.Data().Chunks() {
		var values *array.Float32
		switch a := chunk.(type) {
		case *array.FixedSizeList:
			values = a.ListValues().(*array.Float32)
		case *array.List:
			values = a.ListValues().(*array.Float32)
		default:
			return "", fmt.Errorf("vector column read back as %T", chunk)
		}
		for i := 0; i < chunk.Len(); i, row = i+1, row+1 {
			if chunk.IsNull(i) {
				continue
			}
			start, _ := chunk.(array.ListLike).ValueOffsets(i)
			want := genVector(row)
			for x := range want {
				if got := values.Value(int(start) + x); got != want[x] {
					return fmt.Sprintf("pqarrow reads back row %d element %d as %v, it was given %v", row, x, got, want[x]), nil
				}
			}
		}
	}
	return "", nil
}
