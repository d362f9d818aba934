package avro_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	hamba "github.com/hamba/avro/v2"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/registry"
)

func representativeSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String, Doc: "free text"},
		field(3, "location", &iceberg.StructType{FieldList: []iceberg.NestedField{
			field(4, "lat", iceberg.PrimitiveTypes.Float64, true),
			field(5, "lon", iceberg.PrimitiveTypes.Float64, false),
		}}, false),
		field(6, "tags", &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}, false),
		field(8, "props", &iceberg.MapType{KeyID: 9, KeyType: iceberg.PrimitiveTypes.String, ValueID: 10,
			ValueType: iceberg.PrimitiveTypes.Int32, ValueRequired: false}, true),
		field(11, "codes", &iceberg.MapType{KeyID: 12, KeyType: iceberg.PrimitiveTypes.Int32, ValueID: 13,
			ValueType: iceberg.PrimitiveTypes.String, ValueRequired: true}, false),
		field(14, "price", iceberg.DecimalTypeOf(9, 2), false),
		field(15, "list_price", iceberg.DecimalTypeOf(9, 2), true),
		field(16, "uid", iceberg.PrimitiveTypes.UUID, false),
		field(17, "ts", iceberg.PrimitiveTypes.Timestamp, true),
		field(18, "tstz", iceberg.PrimitiveTypes.TimestampTz, false),
		field(19, "ts_ns", iceberg.PrimitiveTypes.TimestampNs, false),
		field(20, "tstz_ns", iceberg.PrimitiveTypes.TimestampTzNs, false),
		field(21, "day", iceberg.PrimitiveTypes.Date, false),
		field(22, "at", iceberg.PrimitiveTypes.Time, false),
		field(23, "hash", iceberg.FixedTypeOf(4), false),
		field(24, "blob", iceberg.PrimitiveTypes.Binary, false),
		field(25, "last-name", iceberg.PrimitiveTypes.String, false),
		field(26, "flag", iceberg.PrimitiveTypes.Bool, true),
		field(27, "n", iceberg.PrimitiveTypes.Int32, false),
		field(28, "ratio", iceberg.PrimitiveTypes.Float32, false),
		field(29, "points", &iceberg.ListType{ElementID: 30, ElementRequired: false, Element: &iceberg.StructType{FieldList: []iceberg.NestedField{
			field(31, "x", iceberg.DecimalTypeOf(38, 10), true),
		}}}, false),
	)
}

// The expected Avro schema, written by hand from the spec's Avro appendix
// and Java's TypeToSchema. Property order is hamba's: name, doc, type,
// default, then the remaining properties sorted.
const representativeAvroSchema = `{"name":"table","type":"record","fields":[
{"name":"id","type":"long","field-id":1},
{"name":"data","doc":"free text","type":["null","string"],"default":null,"field-id":2},
{"name":"location","type":["null",{"name":"r3","type":"record","fields":[
  {"name":"lat","type":"double","field-id":4},
  {"name":"lon","type":["null","double"],"default":null,"field-id":5}]}],"default":null,"field-id":3},
{"name":"tags","type":["null",{"type":"array","items":"string","element-id":7}],"default":null,"field-id":6},
{"name":"props","type":{"type":"map","values":["null","int"],"key-id":9,"value-id":10},"field-id":8},
{"name":"codes","type":["null",{"type":"array","items":{"name":"k12_v13","type":"record","fields":[
  {"name":"key","type":"int","field-id":12},
  {"name":"value","type":"string","field-id":13}]},"logicalType":"map"}],"default":null,"field-id":11},
{"name":"price","type":["null",{"name":"decimal_9_2","type":"fixed","size":4,"logicalType":"decimal","precision":9,"scale":2}],"default":null,"field-id":14},
{"name":"list_price","type":"decimal_9_2","field-id":15},
{"name":"uid","type":["null",{"name":"uuid_fixed","type":"fixed","size":16,"logicalType":"uuid"}],"default":null,"field-id":16},
{"name":"ts","type":{"type":"long","adjust-to-utc":false,"logicalType":"timestamp-micros"},"field-id":17},
{"name":"tstz","type":["null",{"type":"long","adjust-to-utc":true,"logicalType":"timestamp-micros"}],"default":null,"field-id":18},
{"name":"ts_ns","type":["null",{"type":"long","adjust-to-utc":false,"logicalType":"timestamp-nanos"}],"default":null,"field-id":19},
{"name":"tstz_ns","type":["null",{"type":"long","adjust-to-utc":true,"logicalType":"timestamp-nanos"}],"default":null,"field-id":20},
{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null,"field-id":21},
{"name":"at","type":["null",{"type":"long","logicalType":"time-micros"}],"default":null,"field-id":22},
{"name":"hash","type":["null",{"name":"fixed_4","type":"fixed","size":4}],"default":null,"field-id":23},
{"name":"blob","type":["null","bytes"],"default":null,"field-id":24},
{"name":"last_x2Dname","type":["null","string"],"default":null,"field-id":25,"iceberg-field-name":"last-name"},
{"name":"flag","type":"boolean","field-id":26},
{"name":"n","type":["null","int"],"default":null,"field-id":27},
{"name":"ratio","type":["null","float"],"default":null,"field-id":28},
{"name":"points","type":["null",{"type":"array","items":["null",{"name":"r30","type":"record","fields":[
  {"name":"x","type":{"name":"decimal_38_10","type":"fixed","size":16,"logicalType":"decimal","precision":38,"scale":10},"field-id":31}]}],
  "element-id":30}],"default":null,"field-id":29}
]}`

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		t.Fatalf("expected schema is not JSON: %v", err)
	}
	return buf.String()
}

func TestSchemaJSON(t *testing.T) {
	got, err := avro.SchemaJSON(representativeSchema())
	if err != nil {
		t.Fatal(err)
	}
	want := compactJSON(t, representativeAvroSchema)
	if got != want {
		t.Errorf("Avro schema differs\n got  %s\n want %s", got, want)
	}
	// The schema must also parse as Avro, which checks that every name is
	// defined once and referenced after its definition.
	if _, err := hamba.Parse(got); err != nil {
		t.Errorf("schema does not parse as Avro: %v", err)
	}
}

func TestSchemaInFileHeader(t *testing.T) {
	schema := representativeSchema()
	path := tempPath(t, "header.avro")
	b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).Meta("written-by", "coltype-lab").Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	meta, err := avro.Metadata(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := meta["avro.schema"], compactJSON(t, representativeAvroSchema); got != want {
		t.Errorf("avro.schema\n got  %s\n want %s", got, want)
	}
	if meta["written-by"] != "coltype-lab" {
		t.Errorf("footer metadata written-by = %q", meta["written-by"])
	}
	var parsed iceberg.Schema
	if err := json.Unmarshal([]byte(meta["iceberg.schema"]), &parsed); err != nil {
		t.Fatalf("iceberg.schema does not parse: %v", err)
	}
	if !parsed.Equals(schema) {
		t.Errorf("iceberg.schema = %s, want %s", &parsed, schema)
	}
	// Same keys through hamba's decoder, an independent header reader.
	if hm := metadata(t, path); hm["written-by"] != "coltype-lab" || hm["iceberg.schema"] != meta["iceberg.schema"] {
		t.Errorf("hamba sees metadata %v", hm)
	}
}

func TestSchemaDefaultsAndNames(t *testing.T) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "n", Type: iceberg.PrimitiveTypes.Int32, Required: true, InitialDefault: float64(34)},
		iceberg.NestedField{ID: 2, Name: "s", Type: iceberg.PrimitiveTypes.String, InitialDefault: "x"},
		iceberg.NestedField{ID: 3, Name: "1st", Type: iceberg.PrimitiveTypes.Date, InitialDefault: "1970-01-02"},
	)
	got, err := avro.SchemaJSON(schema)
	if err != nil {
		t.Fatal(err)
	}
	// A non-null default leads the union, as Avro requires of defaults.
	want := `{"name":"table","type":"record","fields":[` +
		`{"name":"n","type":"int","default":34,"field-id":1},` +
		`{"name":"s","type":["string","null"],"default":"x","field-id":2},` +
		`{"name":"_1st","type":[{"type":"int","logicalType":"date"},"null"],"default":1,"field-id":3,"iceberg-field-name":"1st"}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// And the rows round-trip through those unions.
	path := tempPath(t, "defaults.avro")
	rows := []*data.Record{data.Of(schema, int32(1), "a", iceberg.Date(5)), data.Of(schema, int32(2), nil, nil)}
	writeRecords(t, path, schema, rows, nil)
	assertRows(t, mustRead(t, path, nil), rows)
	assertIndependentReader(t, path, 2)
}

func TestUnsupportedTypes(t *testing.T) {
	for _, typ := range []iceberg.Type{iceberg.VariantType{}, iceberg.GeometryType{}} {
		schema := iceberg.NewSchema(0, field(1, "v", typ, false))
		path := tempPath(t, "unsupported.avro")
		b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Schema(schema).Build()
		if err == nil || !strings.Contains(err.Error(), "field v (id 1)") {
			t.Errorf("%s: err = %v, want one naming field v (id 1)", typ, err)
		}
	}
}
