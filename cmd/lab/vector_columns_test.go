package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// lab vector search --columns prints the hit rows' other columns, nested
// ones by dotted path, in lab read's JSON form; an unknown column is a
// usage error naming the file's columns.
func TestVectorSearchColumns(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	path := filepath.Join(work, "docs.parquet")
	meta := iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 5, Name: "a", Type: iceberg.PrimitiveTypes.Int32, Required: true}}}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "meta", Type: &meta, Required: true},
		iceberg.NestedField{ID: 4, Name: "emb", Type: iceberg.FixedTypeOf(8), Required: true})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).Set(vectorcol.PropColumns, "emb:float32:2").Set(parquet.PropRowGroupRows, "40").Build()
	if err != nil {
		t.Fatal(err)
	}
	st := meta
	for i := range 100 {
		// Row i scores i under dot with [1, 0]: the best rows are 99, 98, 97.
		emb, err := vector.Float32.EncodeAppend(nil, []float32{float32(i), 1})
		if err != nil {
			t.Fatal(err)
		}
		var name any
		if i%2 == 0 {
			name = "n" + string(rune('a'+i%26))
		}
		if err := w.Write(data.Of(sc, int64(1000+i), name, data.Of(iceberg.NewSchema(0, st.FieldList...), int32(-i)), emb)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, bin, work, "vector", "search", path, "--query", "[1,0]", "--k", "3", "--metric", "dot", "--columns", "id,meta.a,name", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Results [][]struct {
			Row     int64
			Columns json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	want := []string{
		`99 {"id":1099,"name":null,"meta":{"a":-99}}`,
		`98 {"id":1098,"name":"nu","meta":{"a":-98}}`,
		`97 {"id":1097,"name":null,"meta":{"a":-97}}`,
	}
	var got []string
	for _, h := range doc.Results[0] {
		var c bytes.Buffer
		if err := json.Compact(&c, h.Columns); err != nil {
			t.Fatalf("row %d: %v", h.Row, err)
		}
		got = append(got, fmt.Sprintf("%d %s", h.Row, c.String()))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	text, _, code := run(t, bin, work, "vector", "search", path, "--query", "[1,0]", "--k", "1", "--metric", "dot", "--columns", "id")
	if code != 0 || !strings.Contains(text, `row 99`) || !strings.Contains(text, `{"id":1099}`) {
		t.Errorf("text output (exit %d):\n%s", code, text)
	}
	_, errOut, code = run(t, bin, work, "vector", "search", path, "--query", "[1,0]", "--columns", "nope")
	if code != 2 || !strings.Contains(errOut, "--columns") || !strings.Contains(errOut, "id, name, meta, emb") {
		t.Errorf("unknown column: exit %d, stderr %q", code, errOut)
	}
}
