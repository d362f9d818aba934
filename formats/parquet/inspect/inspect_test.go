package inspect

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"

	_ "github.com/coltype-lab/lab/formats/parquet/filecol" // FILE's placement rule, as lab annotate links it
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

func TestSchemaAnnotations(t *testing.T) {
	rep := inspectBytes(t, writeParquet(t, rows()), Options{Name: "rows.parquet"})
	lt := func(text string) *LogicalType { return &LogicalType{Text: text} }
	cases := []struct {
		path       string
		repetition string
		physical   string
		logical    *LogicalType // compared by Text
		converted  string
	}{
		// parquet-go annotates plain integers INT(64, signed) too.
		{"id", "REQUIRED", "INT64", lt("INT(64, signed)"), "INT_64"},
		{"name", "REQUIRED", "BYTE_ARRAY", lt("STRING"), "UTF8"},
		{"price", "REQUIRED", "INT32", lt("DECIMAL(9,2)"), "DECIMAL(9,2)"},
		{"amount", "REQUIRED", "INT64", lt("DECIMAL(18,3)"), "DECIMAL(18,3)"},
		{"ts", "REQUIRED", "INT64", lt("TIMESTAMP(MICROS, UTC)"), "TIMESTAMP_MICROS"},
		// parquet-go also writes TIMESTAMP_MILLIS, which implies UTC.
		{"local", "REQUIRED", "INT64", lt("TIMESTAMP(MILLIS, local)"), "TIMESTAMP_MILLIS"},
		{"uid", "REQUIRED", "FIXED_LEN_BYTE_ARRAY", lt("UUID"), ""},
		{"small", "REQUIRED", "INT32", lt("INT(8, signed)"), "INT_8"},
		{"score", "REQUIRED", "DOUBLE", nil, ""},
		{"blob", "REQUIRED", "BYTE_ARRAY", nil, ""},
		{"addr", "REQUIRED", "", nil, ""},
		{"addr.zip", "OPTIONAL", "INT32", lt("INT(32, signed)"), "INT_32"},
		{"tags", "REQUIRED", "", lt("LIST"), "LIST"},
		{"tags.list", "REPEATED", "", nil, ""},
		{"tags.list.element", "REQUIRED", "BYTE_ARRAY", lt("STRING"), "UTF8"},
		{"attrs", "REQUIRED", "", lt("MAP"), "MAP"},
		{"attrs.key_value.key", "REQUIRED", "BYTE_ARRAY", lt("STRING"), "UTF8"},
		{"attrs.key_value.value", "REQUIRED", "INT64", lt("INT(64, signed)"), "INT_64"},
		{"emb.list.element", "REQUIRED", "FLOAT", nil, ""},
		{"doc", "OPTIONAL", "", nil, ""},
	}
	for _, c := range cases {
		n := node(t, rep, strings.Split(c.path, ".")...)
		if n.Repetition != c.repetition || n.PhysicalType != c.physical || n.ConvertedType != c.converted {
			t.Errorf("%s: repetition %q physical %q converted %q; want %q %q %q",
				c.path, n.Repetition, n.PhysicalType, n.ConvertedType, c.repetition, c.physical, c.converted)
		}
		switch {
		case c.logical == nil && n.LogicalType != nil:
			t.Errorf("%s: logical type %q, want none", c.path, n.LogicalType.Text)
		case c.logical != nil && (n.LogicalType == nil || n.LogicalType.Text != c.logical.Text):
			t.Errorf("%s: logical type %+v, want %q", c.path, n.LogicalType, c.logical.Text)
		}
	}
	// Parameters, not only the text.
	price := node(t, rep, "price").LogicalType
	if price.Name != "DECIMAL" || price.ID != 5 || *price.Precision != 9 || *price.Scale != 2 {
		t.Errorf("price: %+v", price)
	}
	ts := node(t, rep, "ts").LogicalType
	if ts.Name != "TIMESTAMP" || ts.Unit != "MICROS" || !*ts.AdjustedToUTC {
		t.Errorf("ts: %+v", ts)
	}
	if uid := node(t, rep, "uid"); *uid.TypeLength != 16 {
		t.Errorf("uid type length %d", *uid.TypeLength)
	}
	if small := node(t, rep, "small").LogicalType; small.BitWidth != 8 || !*small.Signed {
		t.Errorf("small: %+v", small)
	}
	// Leaves are numbered in column-chunk order.
	if rep.NumColumns != len(rep.RowGroups[0].Columns) {
		t.Errorf("%d leaves, %d column chunks", rep.NumColumns, len(rep.RowGroups[0].Columns))
	}
	for i, c := range rep.RowGroups[0].Columns {
		if n := node(t, rep, c.Path...); n.Column == nil || *n.Column != i {
			t.Errorf("column chunk %d (%v): leaf index %v", i, c.Path, n.Column)
		}
	}
	if rep.CreatedBy == nil || !strings.Contains(*rep.CreatedBy, "parquet-go") {
		t.Errorf("created_by %v", rep.CreatedBy)
	}
	if rep.NumRows != 3 || rep.Version != 2 || rep.File != "rows.parquet" || rep.Encrypted {
		t.Errorf("header: %d rows, version %d, file %q, encrypted %v", rep.NumRows, rep.Version, rep.File, rep.Encrypted)
	}
}

// Every number the report gives for row groups and column chunks is the
// footer's.
func TestColumnChunksMatchTheFooter(t *testing.T) {
	data := writeParquet(t, rows(), parquet.Compression(&zstd.Codec{}), parquet.MaxRowsPerRowGroup(2))
	f := readFooter(t, data)
	rep := inspectBytes(t, data, Options{})
	if rep.FooterOffset != f.Offset || rep.FooterLength != f.Length || rep.Size != int64(len(data)) {
		t.Errorf("footer at %d (%d bytes) of %d; want %d (%d) of %d", rep.FooterOffset, rep.FooterLength, rep.Size, f.Offset, f.Length, len(data))
	}
	if len(rep.RowGroups) != 2 || len(f.Meta.RowGroups) != 2 {
		t.Fatalf("%d row groups in the report, %d in the footer", len(rep.RowGroups), len(f.Meta.RowGroups))
	}
	for i, rg := range f.Meta.RowGroups {
		got := rep.RowGroups[i]
		if got.NumRows != rg.NumRows || got.TotalByteSize != rg.TotalByteSize || got.Index != i {
			t.Errorf("row group %d: %d rows, %d bytes; want %d, %d", i, got.NumRows, got.TotalByteSize, rg.NumRows, rg.TotalByteSize)
		}
		if (got.FileOffset == nil) != !rg.FileOffset.Valid || (got.FileOffset != nil && *got.FileOffset != rg.FileOffset.V) {
			t.Errorf("row group %d: file offset %v, footer %v", i, got.FileOffset, rg.FileOffset)
		}
		for j, cc := range rg.Columns {
			c, md := got.Columns[j], cc.MetaData
			var encodings []string
			for _, e := range md.Encoding {
				encodings = append(encodings, e.String())
			}
			want := ColumnChunk{
				Path: md.PathInSchema, FileOffset: cc.FileOffset, PhysicalType: md.Type.String(), Encodings: encodings,
				Codec: "ZSTD", NumValues: md.NumValues, TotalCompressedSize: md.TotalCompressedSize,
				TotalUncompressedSize: md.TotalUncompressedSize, DataPageOffset: md.DataPageOffset,
			}
			gotCmp := c
			gotCmp.Statistics, gotCmp.ColumnIndex, gotCmp.OffsetIndex, gotCmp.DictionaryPageOffset = nil, nil, nil, nil
			if !reflect.DeepEqual(gotCmp, want) {
				t.Errorf("row group %d column %d:\n got %+v\nwant %+v", i, j, gotCmp, want)
			}
			if c.ColumnIndex == nil || c.ColumnIndex.Offset != cc.ColumnIndexOffset.V || *c.ColumnIndex.Length != cc.ColumnIndexLength.V ||
				c.OffsetIndex == nil || c.OffsetIndex.Offset != cc.OffsetIndexOffset.V || *c.OffsetIndex.Length != cc.OffsetIndexLength.V {
				t.Errorf("row group %d column %d: page index %+v %+v", i, j, c.ColumnIndex, c.OffsetIndex)
			}
			if c.BloomFilter != nil {
				t.Errorf("row group %d column %d: bloom filter %+v without one written", i, j, c.BloomFilter)
			}
			if s := md.Statistics; s != nil && s.NullCount.Valid && (c.Statistics == nil || *c.Statistics.NullCount != s.NullCount.V) {
				t.Errorf("row group %d column %d: null count %+v, footer %d", i, j, c.Statistics, s.NullCount.V)
			}
		}
	}
	if !slices.Contains(rep.RowGroups[0].Columns[0].Encodings, "PLAIN") {
		t.Errorf("id encodings %v", rep.RowGroups[0].Columns[0].Encodings)
	}
}

func TestStatisticsDecoded(t *testing.T) {
	rep := inspectBytes(t, writeParquet(t, rows()), Options{})
	rg := rep.RowGroups[0]
	cases := []struct{ path, min, max string }{
		{"id", "1", "3"},
		{"name", `"alpha"`, `"ü€"`},
		{"price", "-0.05", "123.45"},
		{"amount", "-1.500", "0.007"},
		{"ts", "2026-01-02T02:04:05.000006Z", "2026-01-02T04:04:05.000006Z"},
		{"local", "2020-09-13T12:26:40", "2023-11-14T22:13:20.001"},
		{"uid", "00000000-0000-0000-0000-000000000000", "ff000000-0000-0000-0000-000000000000"},
		{"small", "-3", "100"},
		{"score", "-0.25", "1e+300"},
		{"blob", "0x", "0xff00"},
		{"emb.list.element", "-1", "8"},
		{"tags.list.element", `""`, `"q"`},
	}
	for _, c := range cases {
		s := column(t, rg, c.path).Statistics
		if s == nil || s.Min != c.min || s.Max != c.max {
			t.Errorf("%s: statistics %+v, want min %s max %s", c.path, s, c.min, c.max)
		}
	}
	if s := column(t, rg, "addr.zip").Statistics; s == nil || s.NullCount == nil || *s.NullCount != 2 {
		t.Errorf("addr.zip null count: %+v", s)
	}
}

func TestFormatValue(t *testing.T) {
	el := func(typ format.Type, lt footer.LogicalTypeValue, length int32) *footer.SchemaElement {
		e := &footer.SchemaElement{Type: nullOf(typ), LogicalType: footer.LogicalType{Value: lt}}
		if length > 0 {
			e.TypeLength = nullOf(length)
		}
		return e
	}
	cases := []struct {
		name string
		el   *footer.SchemaElement
		in   []byte
		want string
	}{
		{"bool", el(format.Boolean, nil, 0), []byte{1}, "true"},
		{"bool bad", el(format.Boolean, nil, 0), []byte{7}, "0x07"},
		{"int32 wrong length", el(format.Int32, nil, 0), []byte{1, 2}, "0x0102"},
		{"uint32", el(format.Int32, &format.IntType{BitWidth: 32}, 0), []byte{0xff, 0xff, 0xff, 0xff}, "4294967295"},
		{"date", el(format.Int32, &format.DateType{}, 0), []byte{1, 0, 0, 0}, "1970-01-02"},
		{"time millis", el(format.Int32, &format.TimeType{Unit: format.TimeUnit{Value: &format.MilliSeconds{}}}, 0), []byte{0xe8, 0x03, 0, 0}, "00:00:01"},
		{"timestamp nanos", el(format.Int64, &format.TimestampType{IsAdjustedToUTC: true, Unit: format.TimeUnit{Value: &format.NanoSeconds{}}}, 0),
			[]byte{1, 0, 0, 0, 0, 0, 0, 0}, "1970-01-01T00:00:00.000000001Z"},
		{"float", el(format.Float, nil, 0), []byte{0, 0, 0xc0, 0x3f}, "1.5"},
		{"float16", el(format.FixedLenByteArray, &format.Float16Type{}, 2), []byte{0x00, 0x3c}, "1"},
		{"decimal flba negative", el(format.FixedLenByteArray, &format.DecimalType{Precision: 5, Scale: 2}, 2), []byte{0xff, 0x85}, "-1.23"},
		{"decimal binary", el(format.ByteArray, &format.DecimalType{Precision: 30, Scale: 0}, 0), []byte{0x01, 0x00}, "256"},
		{"string not utf-8", el(format.ByteArray, &format.StringType{}, 0), []byte{0xff}, "0xff"},
		{"long string", el(format.ByteArray, &format.StringType{}, 0), []byte(strings.Repeat("a", 70)), `"` + strings.Repeat("a", 64) + `"…`},
		{"long bytes", el(format.ByteArray, nil, 0), bytes.Repeat([]byte{0xab}, 70), "0x" + strings.Repeat("ab", 64) + "…"},
		{"int96", el(format.Int96, nil, 0), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x8c, 0x3d, 0x25, 0}, "1970-01-01T00:00:00"},
	}
	for _, c := range cases {
		if got := formatValue(c.el, c.in, DefaultMaxValueLen); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestPageIndexAndBloomFilter(t *testing.T) {
	bloom := writeParquet(t, rows(), parquet.BloomFilters(parquet.SplitBlockFilter(10, "id"), parquet.SplitBlockFilter(10, "name")))
	f := readFooter(t, bloom)
	rep := inspectBytes(t, bloom, Options{})
	for j, c := range rep.RowGroups[0].Columns {
		md := f.Meta.RowGroups[0].Columns[j].MetaData
		hasBloom := md.BloomFilterOffset.Valid
		if want := joinPath(c.Path) == "id" || joinPath(c.Path) == "name"; hasBloom != want {
			t.Fatalf("%v: footer bloom filter %v, want %v", c.Path, hasBloom, want)
		}
		if (c.BloomFilter != nil) != hasBloom || (hasBloom && c.BloomFilter.Offset != md.BloomFilterOffset.V) {
			t.Errorf("%v: bloom filter %+v, footer %v", c.Path, c.BloomFilter, md.BloomFilterOffset)
		}
	}
	if !strings.Contains(text(t, rep), "@") {
		t.Error("text view shows no bloom filter offset")
	}

	// The same data from a writer that wrote no page index.
	noIndex := withFooter(t, writeParquet(t, rows()), func(m *footer.FileMetaData) {
		for i := range m.RowGroups {
			for j := range m.RowGroups[i].Columns {
				c := &m.RowGroups[i].Columns[j]
				c.ColumnIndexOffset.Valid, c.ColumnIndexLength.Valid = false, false
				c.OffsetIndexOffset.Valid, c.OffsetIndexLength.Valid = false, false
			}
		}
	})
	for _, c := range inspectBytes(t, noIndex, Options{}).RowGroups[0].Columns {
		if c.ColumnIndex != nil || c.OffsetIndex != nil || c.BloomFilter != nil {
			t.Errorf("%v: page index %+v %+v, bloom %+v; want none", c.Path, c.ColumnIndex, c.OffsetIndex, c.BloomFilter)
		}
	}
}

func TestKeyValueMetadata(t *testing.T) {
	long := strings.Repeat("x", 100)
	data := writeParquet(t, rows(), parquet.KeyValueMetadata("origin", "lab test"), parquet.KeyValueMetadata("long", long))
	rep := inspectBytes(t, data, Options{MaxValueLen: 10})
	got := map[string]KeyValue{}
	for _, kv := range rep.KeyValue {
		got[kv.Key] = kv
	}
	if kv := got["origin"]; kv.Value == nil || *kv.Value != "lab test" || kv.Truncated || kv.Length != 8 {
		t.Errorf("origin: %+v", kv)
	}
	if kv := got["long"]; kv.Value == nil || *kv.Value != strings.Repeat("x", 10)+"…" || !kv.Truncated || kv.Length != 100 {
		t.Errorf("long: %+v", kv)
	}
	// lab inspect --json keeps values whole (FullKeyValue).
	for _, kv := range inspectBytes(t, data, Options{MaxValueLen: 10, FullKeyValue: true}).KeyValue {
		if kv.Key == "long" && (kv.Value == nil || *kv.Value != long || kv.Truncated) {
			t.Errorf("long, in full: %+v", kv)
		}
	}
}

// annotatedFile writes rows and adds FILE on doc and VECTOR on emb by footer
// rewrite, as lab annotate does.
func annotatedFile(t *testing.T, vec footer.Annotation, opts ...footer.Option) []byte {
	t.Helper()
	data := writeParquet(t, rows())
	var out bytes.Buffer
	err := footer.RewriteFooter(bytes.NewReader(data), int64(len(data)), &out, func(m *footer.FileMetaData) error {
		if err := footer.Annotate(m, []string{"doc"}, footer.Annotation{Kind: footer.KindFile}); err != nil {
			return err
		}
		return footer.Annotate(m, []string{"emb"}, vec)
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestFileAndVectorAnnotations(t *testing.T) {
	cases := []struct {
		name   string
		vec    footer.Annotation
		opts   []footer.Option
		inspID int16
		want   Vector
		wantID int16
	}{
		{"list layout", footer.Annotation{Kind: footer.KindVector, VectorLength: 4}, nil, 0,
			Vector{Element: "float32", Dim: 4, DimSource: "mirror", Layout: "list"}, 20},
		{"vector repetition, id 33", footer.Annotation{Kind: footer.KindVector, VectorLength: 4, ID: 33, VectorRepetition: true},
			[]footer.Option{footer.AllowVectorRepetition()}, 33,
			Vector{Element: "float32", Dim: 4, DimSource: "vector_length", Layout: "vector-repetition"}, 33},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := inspectBytes(t, annotatedFile(t, c.vec, c.opts...), Options{VectorID: c.inspID})
			doc := node(t, rep, "doc").LogicalType
			if doc == nil || doc.Name != "FILE" || doc.ID != 19 || doc.Text != "FILE(id=19)" {
				t.Errorf("doc: %+v", doc)
			}
			emb := node(t, rep, "emb").LogicalType
			if emb == nil || emb.Name != "VECTOR" || emb.ID != c.wantID || emb.Vector == nil || *emb.Vector != c.want {
				t.Fatalf("emb: %+v (vector %+v)", emb, emb.Vector)
			}
			wantText := "VECTOR(id=" + map[int16]string{20: "20", 33: "33"}[c.wantID] + ", element=float32, dim=4, layout=" + c.want.Layout + ")"
			if emb.Text != wantText {
				t.Errorf("emb text %q, want %q", emb.Text, wantText)
			}
			middle := node(t, rep, "emb", "list")
			if c.vec.VectorRepetition && (middle.Repetition != "VECTOR" || middle.VectorLength == nil || *middle.VectorLength != 4) {
				t.Errorf("middle group: repetition %s, vector_length %v", middle.Repetition, middle.VectorLength)
			}
			want := []Annotation{ // schema order
				{Path: []string{"emb"}, Kind: "VECTOR", ID: c.wantID, VectorLength: 4, VectorRepetition: c.vec.VectorRepetition,
					Element: "FLOAT", InFooter: true, InKeyValue: true},
				{Path: []string{"doc"}, Kind: "FILE", ID: 19, InFooter: true, InKeyValue: true},
			}
			if !reflect.DeepEqual(rep.Annotations, want) {
				t.Errorf("annotations\n got %+v\nwant %+v", rep.Annotations, want)
			}
			// The text view gives the parameters as the bounds do (4×float32).
			shortText := "VECTOR(id=" + map[int16]string{20: "20", 33: "33"}[c.wantID] + ", 4×float32, " + c.want.Layout + ")"
			s := text(t, rep)
			for _, line := range []string{"FILE(id=19)", shortText, "schema+mirror"} {
				if !strings.Contains(s, line) {
					t.Errorf("text view lacks %q:\n%s", line, s)
				}
			}
		})
	}
	// Read with another VECTOR id, id 33 is a member the decode does not know.
	rep := inspectBytes(t, annotatedFile(t, footer.Annotation{Kind: footer.KindVector, VectorLength: 4, ID: 33}), Options{})
	if emb := node(t, rep, "emb").LogicalType; emb.Name != "UNKNOWN" || emb.Text != "unknown (id 33)" {
		t.Errorf("emb under the default id: %+v", emb)
	}
}

func TestJSON(t *testing.T) {
	rep := inspectBytes(t, annotatedFile(t, footer.Annotation{Kind: footer.KindVector, VectorLength: 4}), Options{Name: "x.parquet"})
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(buf.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"file", "size", "footer_offset", "footer_length", "version", "num_rows", "num_columns",
		"created_by", "vector_id", "encrypted", "schema", "row_groups", "key_value_metadata", "annotations"} {
		if _, ok := generic[key]; !ok {
			t.Errorf("JSON lacks %q", key)
		}
	}
	chunk := generic["row_groups"].([]any)[0].(map[string]any)["columns"].([]any)[0].(map[string]any)
	for _, key := range []string{"path", "file_offset", "physical_type", "encodings", "codec", "num_values",
		"total_compressed_size", "total_uncompressed_size", "data_page_offset", "statistics", "column_index", "offset_index"} {
		if _, ok := chunk[key]; !ok {
			t.Errorf("column chunk JSON lacks %q: %v", key, chunk)
		}
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(&back)
	first, _ := json.Marshal(rep)
	if !bytes.Equal(again, first) {
		t.Error("the JSON does not round-trip through Report")
	}
	if !strings.Contains(buf.String(), `"text": "VECTOR(id=20, element=float32, dim=4, layout=list)"`) {
		t.Errorf("JSON lacks the VECTOR text:\n%s", buf.String())
	}
}

func TestText(t *testing.T) {
	s := text(t, inspectBytes(t, writeParquet(t, rows(), parquet.KeyValueMetadata("origin", "lab test")), Options{Name: "rows.parquet"}))
	for _, want := range []string{
		"file           rows.parquet\n",
		"rows           3 in 1 row group, 22 columns\n",
		"    price   ", "DECIMAL(9,2)",
		"TIMESTAMP(MICROS, UTC)",
		"      list  ",
		"row group 0: 3 rows",
		`  origin  "lab test"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("text view lacks %q:\n%s", want, s)
		}
	}
}

func TestErrorsNameTheFileAndOffset(t *testing.T) {
	good := writeParquet(t, rows())
	f := readFooter(t, good)
	corrupt := bytes.Clone(good)
	corrupt[f.Offset+3] = 0xff
	cases := []struct {
		name string
		data []byte
		want []string
	}{
		{"not parquet", []byte("this is plainly not a parquet file"), []string{"bad.parquet", "no PAR1 magic at offset 30"}},
		{"too small", []byte("PAR1"), []string{"bad.parquet", "too small"}},
		{"truncated", good[:len(good)-100], []string{"bad.parquet", "offset"}},
		{"corrupt footer", corrupt, []string{"bad.parquet", "footer at offset"}},
	}
	for _, c := range cases {
		_, err := Inspect(bytes.NewReader(c.data), int64(len(c.data)), Options{Name: "bad.parquet"})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

func text(t testing.TB, rep *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestElementName(t *testing.T) {
	leaf := func(phys string, length int32, lt *LogicalType, converted string) *Node {
		n := &Node{PhysicalType: phys, LogicalType: lt, ConvertedType: converted, Column: ptr(0)}
		if length > 0 {
			n.TypeLength = &length
		}
		return n
	}
	cases := []struct {
		n    *Node
		want string
	}{
		{leaf("FLOAT", 0, nil, ""), "float32"},
		{leaf("DOUBLE", 0, nil, ""), "float64"},
		{leaf("FIXED_LEN_BYTE_ARRAY", 2, &LogicalType{Name: "FLOAT16", Text: "FLOAT16"}, ""), "float16"},
		{leaf("INT32", 0, &LogicalType{Name: "INT", Text: "INT(8, signed)", BitWidth: 8, Signed: ptr(true)}, "INT_8"), "int8"},
		{leaf("INT32", 0, nil, "INT_8"), "int8"},
		{leaf("INT32", 0, &LogicalType{Name: "INT", Text: "INT(8, unsigned)", BitWidth: 8, Signed: ptr(false)}, "UINT_8"), "INT32 INT(8, unsigned)"},
		{leaf("INT32", 0, nil, ""), "INT32"},
		{leaf("FIXED_LEN_BYTE_ARRAY", 16, nil, ""), "FIXED_LEN_BYTE_ARRAY(16)"},
		{&Node{Children: []*Node{}}, "GROUP"},
	}
	for _, c := range cases {
		if got := c.n.ElementName(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.n, got, c.want)
		}
	}
}
