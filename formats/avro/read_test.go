package avro_test

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	"github.com/hamba/avro/v2/ocf"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/registry"
)

var locationType = &iceberg.StructType{FieldList: []iceberg.NestedField{
	field(4, "lat", iceberg.PrimitiveTypes.Float64, true),
	field(5, "lon", iceberg.PrimitiveTypes.Float64, false),
}}

func projectionFileSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "data", iceberg.PrimitiveTypes.String, false),
		field(3, "location", locationType, false),
		field(6, "count", iceberg.PrimitiveTypes.Int32, false),
		field(7, "ratio", iceberg.PrimitiveTypes.Float32, false),
		field(8, "price", iceberg.DecimalTypeOf(9, 2), false),
		field(9, "day", iceberg.PrimitiveTypes.Date, false),
	)
}

func writeProjectionFile(t *testing.T) string {
	t.Helper()
	s := projectionFileSchema()
	loc := func(lat float64, lon any) *data.Record {
		r := data.NewStructRecord(locationType)
		r.Set(0, lat)
		r.Set(1, lon)
		return r
	}
	rows := []*data.Record{
		data.Of(s, int64(1), "a", loc(1.5, 2.5), int32(10), float32(0.5), dec(t, "1234", 2), iceberg.Date(1)),
		data.Of(s, int64(2), nil, nil, nil, nil, nil, nil),
		data.Of(s, int64(3), "c", loc(-3, nil), int32(math.MinInt32), float32(math.Inf(1)), dec(t, "-999999999", 2), iceberg.Date(-1)),
	}
	path := tempPath(t, "projection.avro")
	writeRecords(t, path, s, rows, nil)
	return path
}

func TestProjection(t *testing.T) {
	path := writeProjectionFile(t)
	lonOnly := &iceberg.StructType{FieldList: []iceberg.NestedField{field(5, "lon", iceberg.PrimitiveTypes.Float64, false)}}
	lon := func(v any) *data.Record {
		r := data.NewStructRecord(lonOnly)
		r.Set(0, v)
		return r
	}
	cases := []struct {
		name      string
		schema    *iceberg.Schema
		constants map[int]any
		want      [][]any
	}{
		{
			name:   "subset, reordered, nested subset",
			schema: iceberg.NewSchema(0, field(3, "location", lonOnly, false), field(1, "id", iceberg.PrimitiveTypes.Int64, true)),
			want:   [][]any{{lon(2.5), int64(1)}, {nil, int64(2)}, {lon(nil), int64(3)}},
		},
		{
			name: "type promotion",
			schema: iceberg.NewSchema(0,
				field(6, "count", iceberg.PrimitiveTypes.Int64, false),
				field(7, "ratio", iceberg.PrimitiveTypes.Float64, false),
				field(8, "price", iceberg.DecimalTypeOf(18, 2), false),
				field(9, "day", iceberg.PrimitiveTypes.Timestamp, false),
				field(91, "day_ns", iceberg.PrimitiveTypes.TimestampNs, false)),
			want: [][]any{
				{int64(10), 0.5, dec(t, "1234", 2), iceberg.Timestamp(86_400_000_000), nil},
				{nil, nil, nil, nil, nil},
				{int64(math.MinInt32), math.Inf(1), dec(t, "-999999999", 2), iceberg.Timestamp(-86_400_000_000), nil},
			},
		},
		{
			name: "missing columns: null or initial default",
			schema: iceberg.NewSchema(0,
				field(1, "id", iceberg.PrimitiveTypes.Int64, true),
				field(100, "added", iceberg.PrimitiveTypes.String, false),
				iceberg.NestedField{ID: 101, Name: "n", Type: iceberg.PrimitiveTypes.Int32, Required: true, InitialDefault: float64(7)},
				iceberg.NestedField{ID: 102, Name: "p", Type: iceberg.DecimalTypeOf(9, 2), InitialDefault: "12.34"},
				iceberg.NestedField{ID: 103, Name: "d", Type: iceberg.PrimitiveTypes.Date, InitialDefault: "2017-11-16"},
				iceberg.NestedField{ID: 104, Name: "b", Type: iceberg.PrimitiveTypes.Binary, InitialDefault: "00ff"},
				iceberg.NestedField{ID: 105, Name: "s", Type: iceberg.PrimitiveTypes.String, InitialDefault: iceberg.NewLiteral("lit")}),
			want: [][]any{
				{int64(1), nil, int32(7), dec(t, "1234", 2), iceberg.Date(17486), []byte{0, 0xff}, "lit"},
				{int64(2), nil, int32(7), dec(t, "1234", 2), iceberg.Date(17486), []byte{0, 0xff}, "lit"},
				{int64(3), nil, int32(7), dec(t, "1234", 2), iceberg.Date(17486), []byte{0, 0xff}, "lit"},
			},
		},
		{
			name: "constants replace file values and fill missing ids",
			schema: iceberg.NewSchema(0,
				field(1, "id", iceberg.PrimitiveTypes.Int64, true),
				field(2, "data", iceberg.PrimitiveTypes.String, false),
				field(200, "part", iceberg.PrimitiveTypes.Int32, true)),
			constants: map[int]any{2: "const", 200: int32(42)},
			want:      [][]any{{int64(1), "const", int32(42)}, {int64(2), "const", int32(42)}, {int64(3), "const", int32(42)}},
		},
		{
			name: "metadata columns _pos and _deleted",
			schema: iceberg.NewSchema(0,
				field(1, "id", iceberg.PrimitiveTypes.Int64, true),
				field(avro.RowPositionFieldID, "_pos", iceberg.PrimitiveTypes.Int64, true),
				field(avro.IsDeletedFieldID, "_deleted", iceberg.PrimitiveTypes.Bool, true)),
			want: [][]any{{int64(1), int64(0), false}, {int64(2), int64(1), false}, {int64(3), int64(2), false}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want []*data.Record
			for _, vals := range tc.want {
				want = append(want, data.Of(tc.schema, vals...))
			}
			got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) {
				b.Project(tc.schema)
				if tc.constants != nil {
					b.IDToConstant(tc.constants)
				}
			})
			assertRows(t, got, want)
		})
	}
}

func TestProjectionErrors(t *testing.T) {
	path := writeProjectionFile(t)
	cases := []struct {
		name    string
		schema  *iceberg.Schema
		wantErr []string
	}{
		{"required missing without default",
			iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true), field(300, "must", iceberg.PrimitiveTypes.Int32, true)),
			[]string{path, "missing required field must (id 300)"}},
		{"incompatible type",
			iceberg.NewSchema(0, field(2, "data", iceberg.PrimitiveTypes.Int32, false)),
			[]string{path, "data (id 2)", "cannot read Avro string"}},
		{"narrowing is not a promotion",
			iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int32, true)),
			[]string{"id (id 1)", "as Iceberg int"}},
		{"decimal scale change",
			iceberg.NewSchema(0, field(8, "price", iceberg.DecimalTypeOf(9, 3), false)),
			[]string{"price (id 8)", "decimal(9, 3)"}},
		{"struct read as list",
			iceberg.NewSchema(0, field(3, "location", &iceberg.ListType{ElementID: 40, Element: iceberg.PrimitiveTypes.Int32}, false)),
			[]string{"location (id 3)", "as an Iceberg list"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(tc.schema) })
			if err == nil {
				t.Fatal("read succeeded")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	t.Run("null in a field projected as required", func(t *testing.T) {
		schema := iceberg.NewSchema(0, field(2, "data", iceberg.PrimitiveTypes.String, true))
		rows, err := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(schema) })
		if err == nil || !strings.Contains(err.Error(), "field data (id 2): null value in required field") || !strings.Contains(err.Error(), path) {
			t.Fatalf("err = %v", err)
		}
		if len(rows) != 1 {
			t.Errorf("read %d rows before the null, want 1", len(rows))
		}
	})
	t.Run("records per batch", func(t *testing.T) {
		_, err := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.RecordsPerBatch(10) })
		if err == nil || !strings.Contains(err.Error(), "batch reading is not supported") {
			t.Fatalf("err = %v", err)
		}
	})
}

// legacyRow is written by hamba's own encoder with a schema that has no
// Iceberg ids, as a file from a non-Iceberg writer would be.
type legacyRow struct {
	ID       int64            `avro:"id"`
	FullName *string          `avro:"full_name"`
	Tags     []string         `avro:"tags"`
	Attrs    map[string]int64 `avro:"attrs"`
	Pairs    []legacyPair     `avro:"pairs"`
	Extra    float64          `avro:"extra"`
}

type legacyPair struct {
	Key   int32  `avro:"key"`
	Value string `avro:"value"`
}

const legacySchema = `{"type":"record","name":"legacy","fields":[
	{"name":"id","type":"long"},
	{"name":"full_name","type":["null","string"],"default":null},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"attrs","type":{"type":"map","values":"long"}},
	{"name":"pairs","type":{"type":"array","items":{"type":"record","name":"pair","fields":[
		{"name":"key","type":"int"},{"name":"value","type":"string"}]}}},
	{"name":"extra","type":"double"}]}`

func writeLegacyFile(t *testing.T) string {
	t.Helper()
	path := tempPath(t, "legacy.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ocf.NewEncoder(legacySchema, f, ocf.WithCodec(ocf.Deflate))
	if err != nil {
		t.Fatal(err)
	}
	ann := "Ann"
	for _, r := range []legacyRow{
		{ID: 1, FullName: &ann, Tags: []string{"x", "y"}, Attrs: map[string]int64{"k": 5}, Pairs: []legacyPair{{7, "seven"}}, Extra: 1},
		{ID: 2, Tags: []string{}, Attrs: map[string]int64{}, Extra: 2},
	} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func intPtr(i int) *int { return &i }

func TestNameMapping(t *testing.T) {
	path := writeLegacyFile(t)
	projection := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "name", iceberg.PrimitiveTypes.String, false),
		field(3, "tags", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}, false),
		field(5, "attrs", &iceberg.MapType{KeyID: 6, KeyType: iceberg.PrimitiveTypes.String, ValueID: 7,
			ValueType: iceberg.PrimitiveTypes.Int64, ValueRequired: true}, false),
		field(8, "pairs", &iceberg.MapType{KeyID: 9, KeyType: iceberg.PrimitiveTypes.Int32, ValueID: 10,
			ValueType: iceberg.PrimitiveTypes.String, ValueRequired: true}, false),
	)
	mapping := iceberg.NameMapping{
		{FieldID: intPtr(1), Names: []string{"id"}},
		{FieldID: intPtr(2), Names: []string{"name", "full_name"}},
		{FieldID: intPtr(3), Names: []string{"tags"}, Fields: []iceberg.MappedField{{FieldID: intPtr(4), Names: []string{"element"}}}},
		{FieldID: intPtr(5), Names: []string{"attrs"}, Fields: []iceberg.MappedField{
			{FieldID: intPtr(6), Names: []string{"key"}}, {FieldID: intPtr(7), Names: []string{"value"}}}},
		{FieldID: intPtr(8), Names: []string{"pairs"}, Fields: []iceberg.MappedField{
			{FieldID: intPtr(9), Names: []string{"key"}}, {FieldID: intPtr(10), Names: []string{"value"}}}},
	}
	want := []*data.Record{
		data.Of(projection, int64(1), "Ann", []any{"x", "y"}, data.Map{{Key: "k", Value: int64(5)}}, data.Map{{Key: int32(7), Value: "seven"}}),
		data.Of(projection, int64(2), nil, []any{}, data.Map{}, data.Map{}),
	}
	t.Run("explicit mapping", func(t *testing.T) {
		got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(projection).WithNameMapping(mapping) })
		assertRows(t, got, want)
	})
	t.Run("mapping without projection reads the mapped columns", func(t *testing.T) {
		got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.WithNameMapping(mapping) })
		if len(got) != 2 || len(got[0].Fields()) != 5 {
			t.Fatalf("got %v", got)
		}
		if v, _ := got[0].GetField("full_name"); v != "Ann" {
			t.Errorf("full_name = %v", v)
		}
	})
	t.Run("projection names when no mapping is given", func(t *testing.T) {
		// As Java's Avro.ReadBuilder: MappingUtil.create(projection).
		got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(projection) })
		want0 := data.Of(projection, int64(1), nil, []any{"x", "y"}, data.Map{{Key: "k", Value: int64(5)}}, data.Map{{Key: int32(7), Value: "seven"}})
		assertRows(t, got[:1], []*data.Record{want0}) // "name" is not the file's "full_name"
	})
	t.Run("neither ids nor mapping: ids derived from the file", func(t *testing.T) {
		got, err := readRecords(t, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Every column, the mapping's unmapped "extra" too; "pairs", an
		// array of key/value records without logicalType "map", reads as
		// a list of structs: nothing in the file says it is a map.
		if len(got) != 2 || len(got[0].Fields()) != 6 || got[0].Fields()[0].ID != 1 {
			t.Fatalf("got %v", got)
		}
		if v, _ := got[0].GetField("full_name"); v != "Ann" {
			t.Errorf("full_name = %v", v)
		}
	})
	t.Run("ids in the file win over a mapping", func(t *testing.T) {
		own := writeProjectionFile(t)
		wrong := iceberg.NameMapping{{FieldID: intPtr(1), Names: []string{"data"}}}
		got := mustRead(t, own, func(b *registry.ReadBuilder[*data.Record]) {
			b.Project(iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true))).WithNameMapping(wrong)
		})
		if len(got) != 3 || got[0].Get(0) != int64(1) {
			t.Fatalf("got %v", got)
		}
	})
}

func TestSplits(t *testing.T) {
	schema := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true), field(2, "s", iceberg.PrimitiveTypes.String, false))
	var rows []*data.Record
	for i := range 1000 {
		rows = append(rows, data.Of(schema, int64(i), strings.Repeat("s", i%37)))
	}
	withPos := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(avro.RowPositionFieldID, "_pos", iceberg.PrimitiveTypes.Int64, true))
	for _, codec := range []string{"uncompressed", "gzip"} {
		path := tempPath(t, "splits.avro")
		writeRecords(t, path, schema, rows, map[string]string{
			"write.avro.compression-codec": codec,
			avro.SyncIntervalKey:           "512",
		})
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		size := st.Size()
		for _, splitSize := range []int64{41, 97, 512, 1000, 4096, size} {
			t.Run(codec+"/split"+strconv.FormatInt(splitSize, 10), func(t *testing.T) {
				var ids []int64
				for start := int64(0); start < size; start += splitSize {
					got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) {
						b.Project(withPos).Split(start, splitSize)
					})
					for _, r := range got {
						id, pos := r.Get(0).(int64), r.Get(1).(int64)
						if id != pos {
							t.Fatalf("split at %d: row id %d has _pos %d", start, id, pos)
						}
						ids = append(ids, id)
					}
				}
				if len(ids) != len(rows) {
					t.Fatalf("splits of %d bytes read %d rows, want %d", splitSize, len(ids), len(rows))
				}
				for i, id := range ids {
					if id != int64(i) {
						t.Fatalf("row %d has id %d: rows lost, repeated or reordered", i, id)
					}
				}
			})
		}
		// A split past the end, or inside the header only, reads nothing;
		// one whose length runs past the end reads to the end.
		if got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Split(0, math.MaxInt64) }); len(got) != len(rows) {
			t.Errorf("split [0, MaxInt64) read %d rows, want %d", len(got), len(rows))
		}
		for _, s := range [][2]int64{{size, 100}, {size + 10, 5}, {0, 10}, {math.MaxInt64 - 5, math.MaxInt64}} {
			got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Split(s[0], s[1]) })
			if len(got) != 0 {
				t.Errorf("split %v read %d rows", s, len(got))
			}
		}
	}
}

// Files from other Avro writers use types Iceberg's writer does not: enums,
// string uuids, bytes decimals, wider fixed decimals, millisecond units,
// local timestamps, [T, "null"] unions, general unions, recursive records
// and arrays written in sized (negative-count) blocks.
const foreignSchema = `{"type":"record","name":"foreign","namespace":"com.example","fields":[
	{"name":"id","type":"long","field-id":1},
	{"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]},"field-id":2},
	{"name":"uid","type":{"type":"string","logicalType":"uuid"},"field-id":3},
	{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":3},"field-id":4},
	{"name":"wide","type":{"type":"fixed","name":"wide8","size":8,"logicalType":"decimal","precision":9,"scale":2},"field-id":5},
	{"name":"ts_ms","type":{"type":"long","logicalType":"timestamp-millis"},"field-id":6},
	{"name":"t_ms","type":{"type":"int","logicalType":"time-millis"},"field-id":7},
	{"name":"local","type":{"type":"long","logicalType":"local-timestamp-micros"},"field-id":8},
	{"name":"later_null","type":["string","null"],"field-id":9},
	{"name":"choice","type":["null","int","string"],"field-id":10},
	{"name":"nums","type":{"type":"array","items":"int","element-id":12},"field-id":11},
	{"name":"node","type":["null",{"type":"record","name":"Node","fields":[
		{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}],"field-id":13},
	{"name":"tail","type":"string","field-id":14}]}`

type foreignNode struct {
	V    int32        `avro:"v"`
	Next *foreignNode `avro:"next"`
}

type foreignRow struct {
	ID        int64         `avro:"id"`
	Color     string        `avro:"color"`
	UID       string        `avro:"uid"`
	Amount    *big.Rat      `avro:"amount"`
	Wide      *big.Rat      `avro:"wide"`
	TsMs      time.Time     `avro:"ts_ms"`
	TMs       time.Duration `avro:"t_ms"`
	Local     time.Time     `avro:"local"`
	LaterNull *string       `avro:"later_null"`
	Choice    any           `avro:"choice"`
	Nums      []int32       `avro:"nums"`
	Node      *foreignNode  `avro:"node"`
	Tail      string        `avro:"tail"`
}

func TestForeignAvroTypes(t *testing.T) {
	path := tempPath(t, "foreign.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// hamba's default marshaler writes the canonical form, which drops field ids.
	enc, err := ocf.NewEncoder(foreignSchema, f, ocf.WithCodec(ocf.Snappy), ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler))
	if err != nil {
		t.Fatal(err)
	}
	later := "later"
	rows := []foreignRow{
		{ID: 1, Color: "GREEN", UID: "f79c3e09-677c-4bbd-a479-512f87f77acf", Amount: big.NewRat(-12345, 1000), Wide: big.NewRat(999999999, 100),
			TsMs: time.UnixMilli(1_700_000_000_123).UTC(), TMs: 1500 * time.Millisecond, Local: time.UnixMicro(42).UTC(),
			LaterNull: &later, Choice: map[string]any{"string": "s"}, Nums: []int32{1, 2, 3},
			Node: &foreignNode{V: 1, Next: &foreignNode{V: 2}}, Tail: "end1"},
		{ID: 2, Color: "RED", UID: "00000000-0000-0000-0000-000000000000", Amount: big.NewRat(0, 1), Wide: big.NewRat(-1, 100),
			TsMs: time.UnixMilli(-1).UTC(), Local: time.UnixMicro(-42).UTC(), Choice: map[string]any{"int": 7}, Nums: []int32{}, Tail: "end2"},
	}
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	projection := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "color", iceberg.PrimitiveTypes.String, true),
		field(3, "uid", iceberg.PrimitiveTypes.UUID, true),
		field(4, "amount", iceberg.DecimalTypeOf(12, 3), true),
		field(5, "wide", iceberg.DecimalTypeOf(9, 2), true),
		field(6, "ts_ms", iceberg.PrimitiveTypes.Timestamp, true),
		field(7, "t_ms", iceberg.PrimitiveTypes.Time, true),
		field(8, "local", iceberg.PrimitiveTypes.Timestamp, true),
		field(9, "later_null", iceberg.PrimitiveTypes.String, false),
		field(11, "nums", &iceberg.ListType{ElementID: 12, Element: iceberg.PrimitiveTypes.Int64, ElementRequired: true}, true),
		field(14, "tail", iceberg.PrimitiveTypes.String, true),
	)
	want := []*data.Record{
		data.Of(projection, int64(1), "GREEN", uuid.MustParse("f79c3e09-677c-4bbd-a479-512f87f77acf"), dec(t, "-12345", 3),
			dec(t, "999999999", 2), iceberg.Timestamp(1_700_000_000_123_000), iceberg.Time(1_500_000), iceberg.Timestamp(42),
			"later", []any{int64(1), int64(2), int64(3)}, "end1"),
		data.Of(projection, int64(2), "RED", uuid.Nil, dec(t, "0", 3), dec(t, "-1", 2), iceberg.Timestamp(-1000),
			iceberg.Time(0), iceberg.Timestamp(-42), nil, []any{}, "end2"),
	}
	assertRows(t, mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(projection) }), want)

	// Without a projection every field must be read, and the general union
	// and the recursive record have no Iceberg type: the read fails naming
	// the first, rather than leaving columns out in silence.
	if _, err := readRecords(t, path, nil); err == nil || !strings.Contains(err.Error(), "field choice: Avro union of 3 types") {
		t.Fatalf("whole read: err = %v, want it to name the general union", err)
	}
	// A name mapping that leaves them out reads the file's own types for
	// the rest.
	mapped := iceberg.NameMapping{}
	for _, n := range []struct {
		id   int
		name string
	}{{1, "id"}, {2, "color"}, {3, "uid"}, {4, "amount"}, {5, "wide"}, {6, "ts_ms"}, {7, "t_ms"}, {8, "local"}, {9, "later_null"}, {11, "nums"}, {14, "tail"}} {
		id := n.id
		mf := iceberg.MappedField{FieldID: &id, Names: []string{n.name}}
		if n.name == "nums" {
			eid := 12
			mf.Fields = []iceberg.MappedField{{FieldID: &eid, Names: []string{"element"}}}
		}
		mapped = append(mapped, mf)
	}
	got := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.WithNameMapping(mapped) })
	if len(got) != 2 {
		t.Fatalf("read %d rows", len(got))
	}
	var names []string
	for _, f := range got[0].Fields() {
		names = append(names, f.Name+":"+f.Type.String())
	}
	wantNames := "id:long color:string uid:uuid amount:decimal(10, 3) wide:decimal(9, 2) ts_ms:timestamp t_ms:time " +
		"local:timestamp later_null:string nums:list<int> tail:string"
	if strings.Join(names, " ") != wantNames {
		t.Errorf("file schema read as\n %s\nwant\n %s", strings.Join(names, " "), wantNames)
	}
	if v, _ := got[1].GetField("tail"); v != "end2" {
		t.Errorf("tail = %v: skipping the union and recursive values lost the row's alignment", v)
	}

	// Projecting the general union is an error naming it.
	_, err = readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Project(iceberg.NewSchema(0, field(10, "choice", iceberg.PrimitiveTypes.Int32, false)))
	})
	if err == nil || !strings.Contains(err.Error(), "choice (id 10)") || !strings.Contains(err.Error(), "union of 3 types") {
		t.Errorf("err = %v", err)
	}
}

// A projection made by iceberg-go's Select has no lazily built name
// mapping; reading with it must not dereference nil.
func TestReadWithSelectedProjection(t *testing.T) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	)
	path := filepath.Join(t.TempDir(), "selected.avro")
	writeRecords(t, path, schema, []*data.Record{data.Of(schema, int64(7), "x")}, nil)
	projection, err := schema.Select(true, "name")
	if err != nil {
		t.Fatal(err)
	}
	rows := mustRead(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(projection) })
	if len(rows) != 1 || rows[0].Get(0) != "x" {
		t.Fatalf("read %v, want one row with name x", rows)
	}
}

// Another writer's Avro file has no Iceberg ids at all: it reads through
// ids derived from its own schema (top-level fields 1..n, then nested),
// with no name mapping or projection, as the Parquet model reads such files.
func TestAvroWithoutIDsReadsThroughDerivedIDs(t *testing.T) {
	noIDs := regexp.MustCompile(`,"(field|element)-id":\d+`).ReplaceAllString(foreignSchema, "")
	// Without the general union and the recursive record, which Iceberg
	// cannot represent and a whole read refuses (TestForeignAvroTypes).
	noIDs = regexp.MustCompile(`(?s)\{"name":"choice".*?\},\s*`).ReplaceAllString(noIDs, "")
	noIDs = regexp.MustCompile(`(?s)\{"name":"node".*?"Node"\]\}\]\}\]\},\s*`).ReplaceAllString(noIDs, "")
	if strings.Contains(noIDs, "choice") || strings.Contains(noIDs, "Node") {
		t.Fatalf("the schema still has the union or the recursive record:\n%s", noIDs)
	}
	if strings.Contains(noIDs, "-id") {
		t.Fatal("the schema still has ids")
	}
	path := tempPath(t, "noids.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ocf.NewEncoder(noIDs, f, ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler))
	if err != nil {
		t.Fatal(err)
	}
	row := foreignRow{ID: 7, Color: "RED", UID: "00000000-0000-0000-0000-000000000000", Amount: big.NewRat(1, 1000), Wide: big.NewRat(1, 100),
		TsMs: time.UnixMilli(5).UTC(), Local: time.UnixMicro(6).UTC(), Choice: map[string]any{"int": 1}, Nums: []int32{4, 5}, Tail: "t"}
	if err := enc.Encode(row); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := mustRead(t, path, nil)
	if len(got) != 1 {
		t.Fatalf("read %d rows", len(got))
	}
	var ids []string
	for _, fl := range got[0].Fields() {
		ids = append(ids, fmt.Sprintf("%d:%s", fl.ID, fl.Name))
	}
	if want := "1:id 2:color 3:uid 4:amount 5:wide 6:ts_ms 7:t_ms 8:local 9:later_null 10:nums 11:tail"; strings.Join(ids, " ") != want {
		t.Fatalf("derived ids\n %s\nwant\n %s", strings.Join(ids, " "), want)
	}
	if v, _ := got[0].GetField("id"); v != int64(7) {
		t.Errorf("id = %v", v)
	}
	if v, _ := got[0].GetField("nums"); fmt.Sprint(v) != "[4 5]" {
		t.Errorf("nums = %v", v)
	}
}
