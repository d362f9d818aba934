package parquet_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/types/vector"
)

// The record writer's layouts are vectorcol.WriteFile's: the same schema
// elements (plus field ids, and VECTOR in place of LIST on the list
// layout's outer group), the same annotation and chunk metadata, the same
// vectors; for vector-repetition, written by the same page writer, the
// same data pages byte for byte. (vectorcol.WriteFile's list comes from
// parquet-go, which writes data pages v2 and a type_length of 32 on its
// FLOAT leaves; the lab's pages are v1, as Iceberg Java writes them, and
// its FLOAT leaves carry no type_length, which parquet-format defines for
// FIXED_LEN_BYTE_ARRAY only.)
func TestVectorLayoutsMatchWriteFile(t *testing.T) {
	const n = 300
	vecs := vectorValues(n, vecDim, 8)
	for i := range vecs {
		if vecs[i] == nil {
			vecs[i] = make([]float32, vecDim) // required vectors
		}
	}
	flat := slices.Concat(vecs...)
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: vectorcol.ColumnName, Type: iceberg.FixedTypeOf(vecDim * 4), Required: true})
	var recs []*data.Record
	for _, v := range vecs {
		recs = append(recs, data.Of(sc, mustEncode(t, vector.Float32, v)))
	}
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutFixedSizeList, vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		for _, enc := range []vectorcol.ValueEncoding{vectorcol.EncodingPlain, vectorcol.EncodingByteStreamSplit} {
			t.Run(fmt.Sprintf("%v/%v", layout, enc), func(t *testing.T) {
				dir := t.TempDir()
				ref, got := dir+"/writefile.parquet", dir+"/registry.parquet"
				if err := vectorcol.WriteFile(ref, vectorcol.Column{Dim: vecDim, Data: flat}, vectorcol.WriteOptions{Layout: layout, Encoding: enc, PageBytes: 2048}); err != nil {
					t.Fatal(err)
				}
				encName := "plain"
				if enc == vectorcol.EncodingByteStreamSplit {
					encName = "byte-stream-split"
				}
				writeRecords(t, got, sc, map[string]string{
					vectorcol.PropColumns: "emb:float32:6", vectorcol.PropLayoutDefault: layout.String(),
					vectorcol.PropEncodingDefault: encName, parquet.PropCompressionCodec: "uncompressed", parquet.PropPageBytes: "2048",
				}, recs...)
				rm, gm := readFooter(t, ref), readFooter(t, got)
				if len(rm.Schema) != len(gm.Schema) {
					t.Fatalf("schema of %d elements, vectorcol.WriteFile's %d", len(gm.Schema), len(rm.Schema))
				}
				for i := 1; i < len(rm.Schema); i++ {
					r, g := rm.Schema[i], gm.Schema[i]
					if !g.FieldID.Valid && i == 1 {
						t.Errorf("element %d has no field id", i)
					}
					g.FieldID = r.FieldID
					if r.Type.V != format.FixedLenByteArray {
						r.TypeLength = g.TypeLength
					}
					if layout == vectorcol.LayoutList && i == 1 {
						if _, ok := g.LogicalType.Value.(*footer.VectorType); !ok {
							t.Errorf("list's outer group: logical type %s, want VECTOR", g.LogicalType.String())
						}
						g.LogicalType = r.LogicalType
					}
					if r.Name != g.Name || r.Type != g.Type || r.TypeLength != g.TypeLength || r.RepetitionType != g.RepetitionType ||
						r.NumChildren != g.NumChildren || r.ConvertedType != g.ConvertedType || r.VectorLength != g.VectorLength ||
						r.LogicalType.String() != g.LogicalType.String() {
						t.Errorf("schema element %d: %+v, vectorcol.WriteFile's %+v", i, g, r)
					}
				}
				ra, _ := footer.ReadAnnotations(rm)
				ga, _ := footer.ReadAnnotations(gm)
				if layout != vectorcol.LayoutList {
					if len(ra) != 1 || len(ga) != 1 || ra[0].Kind != ga[0].Kind || ra[0].VectorLength != ga[0].VectorLength ||
						ra[0].Element != ga[0].Element || ra[0].VectorRepetition != ga[0].VectorRepetition {
						t.Errorf("annotations %+v, vectorcol.WriteFile's %+v", ga, ra)
					}
				} else if len(ga) != 1 || ga[0].Kind != footer.KindVector || ga[0].VectorLength != vecDim {
					t.Errorf("list annotations %+v, want VECTOR of length %d", ga, vecDim)
				}
				rc, gc := rm.RowGroups[0].Columns[0].MetaData, gm.RowGroups[0].Columns[0].MetaData
				re, ge := slices.Sorted(slices.Values(rc.Encoding)), slices.Sorted(slices.Values(gc.Encoding))
				if rc.Type != gc.Type || !slices.Equal(rc.PathInSchema, gc.PathInSchema) || rc.Codec != gc.Codec || rc.NumValues != gc.NumValues || !slices.Equal(re, ge) {
					t.Errorf("chunk %+v, vectorcol.WriteFile's %+v", gc, rc)
				}
				if layout == vectorcol.LayoutVectorRepetition {
					rb, _ := os.ReadFile(ref)
					gb, _ := os.ReadFile(got)
					start, end := rc.DataPageOffset, rc.DataPageOffset+rc.TotalCompressedSize
					if !bytes.Equal(rb[start:end], gb[gc.DataPageOffset:gc.DataPageOffset+gc.TotalCompressedSize]) {
						t.Errorf("vector-repetition pages differ from vectorcol.WriteFile's")
					}
				}
				checkVectorFile(t, got, vecs, false, layout)
				checkVectorFile(t, ref, vecs, false, layout)
			})
		}
	}
}

// DuckDB opens the flba, fixed-size-list and list files the registry
// writes, with the lab's values. It refuses two, which the test checks so
// that a DuckDB that starts misreading them is noticed: vector-repetition
// (it does not know FieldRepetitionType 3: spec/COMPAT.md), and
// BYTE_STREAM_SPLIT on a FIXED_LEN_BYTE_ARRAY cell ("only supported for
// FLOAT or DOUBLE data"; parquet-format allows it since 2.11). Skipped
// without the DuckDB peer unless LAB_REQUIRE_PEERS=1.
func TestVectorLayoutsDuckDB(t *testing.T) {
	if err := peers.DuckDB.Available(); err != nil {
		testenv.MissingPeer(t, err.Error())
	}
	vecs := vectorValues(40, vecDim, 9)
	fixed := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
	list := vectorSchema(&iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Float32})
	for _, tc := range []struct {
		layout           vectorcol.Layout
		listTyped, nulls bool
	}{
		{vectorcol.LayoutFLBA, false, false},
		{vectorcol.LayoutFixedSizeList, false, false},
		{vectorcol.LayoutList, false, false},
		{vectorcol.LayoutList, true, true},
		{vectorcol.LayoutVectorRepetition, false, false},
	} {
		for _, enc := range []string{"plain", "byte-stream-split"} {
			t.Run(fmt.Sprintf("%v/%s/null-elements=%v", tc.layout, enc, tc.nulls), func(t *testing.T) {
				sc := fixed
				if tc.listTyped {
					sc = list
				}
				path := tempFile(t, "duck.parquet")
				writeRecords(t, path, sc, map[string]string{
					vectorcol.PropColumns: "emb:float32:6", vectorcol.PropLayoutDefault: tc.layout.String(),
					vectorcol.PropEncodingDefault: enc, parquet.PropRowGroupRows: "16",
				}, vectorRecords(t, sc, vecs, vector.Float32, tc.listTyped, tc.nulls)...)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				res, err := peers.DuckDBExec(ctx, fmt.Sprintf("SELECT id, emb, name FROM read_parquet('%s') ORDER BY id", path))
				if tc.layout == vectorcol.LayoutVectorRepetition {
					if err == nil {
						t.Fatalf("DuckDB read the vector-repetition file: %v", res.Results[0][:1])
					}
					t.Logf("DuckDB refuses vector-repetition, as spec/COMPAT.md records: %v", lastLine(err.Error()))
					return
				}
				if tc.layout.Flat() && enc != "plain" {
					if err == nil || !strings.Contains(err.Error(), "BYTE_STREAM_SPLIT") {
						t.Fatalf("DuckDB on BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY: %v", err)
					}
					t.Logf("DuckDB refuses BYTE_STREAM_SPLIT on FIXED_LEN_BYTE_ARRAY: %v", lastLine(err.Error()))
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				rows := res.Results[0]
				if len(rows) != len(vecs) {
					t.Fatalf("DuckDB reads %d rows, want %d", len(rows), len(vecs))
				}
				for i, row := range rows {
					if toInt64(t, row[0]) != int64(i) {
						t.Fatalf("row %d: id %v", i, row[0])
					}
					v := vecs[i]
					switch got := row[1].(type) {
					case nil:
						if v != nil {
							t.Fatalf("row %d: DuckDB reads NULL", i)
						}
					case string: // FIXED_LEN_BYTE_ARRAY as hex
						if !tc.layout.Flat() || got != hex.EncodeToString(mustEncode(t, vector.Float32, v)) {
							t.Fatalf("row %d: DuckDB reads %q", i, got)
						}
					case []any:
						if tc.layout != vectorcol.LayoutList || len(got) != vecDim {
							t.Fatalf("row %d: DuckDB reads %v", i, got)
						}
						for j, x := range got {
							if tc.nulls && elemNull(i, j) {
								if x != nil {
									t.Fatalf("row %d element %d: DuckDB reads %v, want NULL", i, j, x)
								}
								continue
							}
							// (JSON carries no -0: the sign of a zero is not compared.)
							f, ok := x.(float64)
							if !ok || float32(f) != v[j] {
								t.Fatalf("row %d element %d: DuckDB reads %v, want %v", i, j, x, v[j])
							}
						}
					default:
						t.Fatalf("row %d: DuckDB reads %T %v", i, got, got)
					}
				}
			})
		}
	}
}

// lastLine is the last line of a peer's error that says something: the
// message, not the caret under a quoted query.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "Error") {
			return strings.TrimSpace(lines[i])
		}
	}
	return lines[len(lines)-1]
}

func toInt64(t testing.TB, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return int64(x)
	case int64:
		return x
	case string:
		var n int64
		if _, err := fmt.Sscan(x, &n); err == nil {
			return n
		}
	}
	t.Fatalf("%v (%T) is not an integer", v, v)
	return 0
}
