package parquet

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// TestReadForeignEncodings reads encodings this package never writes but
// other writers do: millisecond timestamps and times, INT96, ENUM,
// dictionary pages, v2 data pages and legacy 2-level lists.
func TestReadForeignEncodings(t *testing.T) {
	legacyList := newGroup(listGroupType, field("array", pq.FieldID(pq.Repeated(pq.Leaf(pq.Int32Type)), 7)))
	root := newGroup(plainGroupType,
		field("a", pq.FieldID(pq.Optional(pq.TimestampAdjusted(pq.Millisecond, true)), 1)),
		field("b", pq.FieldID(pq.Optional(pq.TimeAdjusted(pq.Millisecond, false)), 2)),
		field("c", pq.FieldID(pq.Optional(pq.Leaf(pq.Int96Type)), 3)),
		field("d", pq.FieldID(pq.Optional(pq.Enum()), 4)),
		field("e", pq.FieldID(pq.Optional(pq.Encoded(pq.String(), &pq.RLEDictionary)), 5)),
		field("f", pq.FieldID(pq.Optional(legacyList), 6)),
	)
	path := filepath.Join(t.TempDir(), "foreign.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewWriter(f, pq.NewSchema("spark_schema", root), pq.DataPageVersion(2))
	rows := []pq.Row{
		{
			pq.Int64Value(1000).Level(0, 1, 0),
			pq.Int32Value(1500).Level(0, 1, 1),
			pq.Int96Value(deprecated.Int96{1000, 0, 2440589}).Level(0, 1, 2),
			pq.ByteArrayValue([]byte("x")).Level(0, 1, 3),
			pq.ByteArrayValue([]byte("dup")).Level(0, 1, 4),
			pq.Int32Value(1).Level(0, 2, 5), pq.Int32Value(2).Level(1, 2, 5),
		},
		{
			pq.Value{}.Level(0, 0, 0), pq.Value{}.Level(0, 0, 1), pq.Value{}.Level(0, 0, 2), pq.Value{}.Level(0, 0, 3),
			pq.ByteArrayValue([]byte("dup")).Level(0, 1, 4),
			pq.Value{}.Level(0, 1, 5), // empty list
		},
		{
			pq.Value{}.Level(0, 0, 0), pq.Value{}.Level(0, 0, 1), pq.Value{}.Level(0, 0, 2), pq.Value{}.Level(0, 0, 3),
			pq.Value{}.Level(0, 0, 4),
			pq.Value{}.Level(0, 0, 5), // null list
		},
	}
	if _, err := w.WriteRows(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r, err := RecordModel{}.NewReader(registry.LocalInput(path), registry.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 2, Name: "b", Type: iceberg.PrimitiveTypes.Time},
		iceberg.NestedField{ID: 3, Name: "c", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 4, Name: "d", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 5, Name: "e", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 6, Name: "f", Type: &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}},
	)
	if got := r.(*recordReader).Schema(); !got.Equals(want) {
		t.Errorf("schema %s, want %s", got, want)
	}
	wantRecs := []*data.Record{
		data.Of(want, iceberg.Timestamp(1_000_000), iceberg.Time(1_500_000), iceberg.Timestamp(86_400_000_001), "x", "dup", []any{int32(1), int32(2)}),
		data.Of(want, nil, nil, nil, nil, "dup", []any{}),
		data.Of(want, nil, nil, nil, nil, nil, nil),
	}
	for i := 0; ; i++ {
		got, err := r.Next()
		if errors.Is(err, io.EOF) {
			if i != len(wantRecs) {
				t.Errorf("read %d records, want %d", i, len(wantRecs))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(wantRecs) || !got.Equal(wantRecs[i]) {
			t.Errorf("record %d: %s", i, got)
		}
	}
}

func TestThriftScannerBounds(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"empty struct", []byte{0}, true},
		{"i32 field then stop", []byte{0x15, 0x02, 0}, true},
		{"binary field", []byte{0x18, 0x02, 'h', 'i', 0}, true},
		{"short list of i32", []byte{0x19, 0x25, 0x02, 0x04, 0}, true},
		{"bool list", []byte{0x19, 0x21, 0x01, 0x02, 0}, true},
		{"map", []byte{0x1b, 0x01, 0x55, 0x02, 0x04, 0}, true},
		{"missing stop", []byte{0x15, 0x02}, false},
		{"binary past end", []byte{0x18, 0x10, 'h'}, false},
		{"list past end", []byte{0x19, 0xf5, 0x80, 0x80, 0x04}, false},
		{"map past end", []byte{0x1b, 0xff, 0xff, 0x03, 0x55}, false},
		{"trailing bytes", []byte{0, 0}, false},
		{"unknown type", []byte{0x1e, 0}, false},
		{"deep nesting", func() []byte {
			var b []byte
			for range 100 {
				b = append(b, 0x1c)
			}
			return b
		}(), false},
	}
	for _, tc := range cases {
		n, err := footer.ScanStruct(tc.b)
		if (err == nil && n == len(tc.b)) != tc.ok {
			t.Errorf("%s: error %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
