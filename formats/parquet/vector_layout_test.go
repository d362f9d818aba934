package parquet_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// vectorRows are rows of (id, emb, name): every seventh vector null, and,
// when elemNulls, every fifth element of every third vector null.
type vectorCase struct {
	layout   string
	encoding string
	codec    string
}

const vecDim = 6

func vectorValues(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([][]float32, n)
	for i := range out {
		if i%7 == 3 {
			continue // null
		}
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		if i == 5 {
			v[0], v[1] = float32(math.Copysign(0, -1)), 0 // signed zeros survive
		}
		out[i] = v
	}
	return out
}

func elemNull(i, j int) bool { return i%3 == 1 && j%5 == 0 }

// vectorRecords builds the records of a fixed[L] VECTOR column (listTyped
// false) or a list<float> one, with null elements when elemNulls.
func vectorRecords(t testing.TB, sc *iceberg.Schema, vecs [][]float32, et vector.ElementType, listTyped, elemNulls bool) []*data.Record {
	t.Helper()
	var recs []*data.Record
	for i, v := range vecs {
		var cell any
		switch {
		case v == nil:
		case listTyped:
			items := make([]any, len(v))
			for j, x := range v {
				if !(elemNulls && elemNull(i, j)) {
					items[j] = x
				}
			}
			cell = items
		default:
			b, err := et.EncodeAppend(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			cell = b
		}
		var name any
		if i%4 != 0 {
			name = fmt.Sprintf("row-%d", i)
		}
		recs = append(recs, data.Of(sc, int64(i), cell, name))
	}
	return recs
}

func vectorSchema(emb iceberg.Type) *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: emb},
		iceberg.NestedField{ID: 3, Name: "name", Type: iceberg.PrimitiveTypes.String})
}

// checkVectorFile reads path back through vectorcol.OpenColumn (ReadAll,
// Take, Search) and compares every vector with vecs, element by element
// (null elements read as NaN).
func checkVectorFile(t *testing.T, path string, vecs [][]float32, elemNulls bool, layout vectorcol.Layout) {
	t.Helper()
	f, err := vectorcol.OpenColumn(path, "emb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info := f.Info()
	if info.Layout != layout || info.Dim != vecDim || info.Rows != int64(len(vecs)) {
		t.Fatalf("vectorcol.OpenColumn: %+v, want layout %v, dim %d, %d rows", info, layout, vecDim, len(vecs))
	}
	m, nulls, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for i, v := range vecs {
		if v == nil {
			if nulls == nil || !nulls[i] {
				t.Fatalf("ReadAll: row %d should be null", i)
			}
			continue
		}
		if nulls != nil && nulls[i] {
			t.Fatalf("ReadAll: row %d is null", i)
		}
		got := m.Data[k*vecDim : (k+1)*vecDim]
		k++
		for j := range v {
			want := v[j]
			if elemNulls && elemNull(i, j) {
				if !math.IsNaN(float64(got[j])) {
					t.Fatalf("ReadAll: row %d element %d = %v, want NaN (null)", i, j, got[j])
				}
				continue
			}
			if math.Float32bits(got[j]) != math.Float32bits(want) {
				t.Fatalf("ReadAll: row %d element %d = %v, want %v", i, j, got[j], want)
			}
		}
	}
	rows := []int64{0, 2, int64(len(vecs) - 1)}
	taken, err := f.Take(rows)
	if err != nil {
		t.Fatal(err)
	}
	for n, r := range rows {
		if (vecs[r] == nil) != (taken[n] == nil) {
			t.Fatalf("Take: row %d = %v, want %v", r, taken[n], vecs[r])
		}
	}
	// The exact search finds a present vector as its own nearest (l2 0).
	q := vecs[2]
	res, err := f.Search(0, vector.MetricL2, vector.Matrix{Dim: vecDim, Data: q}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !elemNulls && (len(res[0]) != 1 || res[0][0].ID != 2 || res[0][0].Score != 0) {
		t.Fatalf("Search: %+v, want row 2 at distance 0", res)
	}
}

// Every layout × encoding × codec writes through the registry, with null
// vectors, several row groups and several pages per chunk, and reads back
// through the record reader (the same records) and the vector page reader
// (the same vectors).
func TestVectorLayoutsRoundTrip(t *testing.T) {
	vecs := vectorValues(250, vecDim, 1)
	sc := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
	recs := vectorRecords(t, sc, vecs, vector.Float32, false, false)
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutFixedSizeList, vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		for _, enc := range []string{"plain", "byte-stream-split"} {
			// Every codec: the page stack reads gzip and brotli too.
			for _, codec := range []string{"uncompressed", "zstd", "snappy", "lz4", "gzip", "brotli"} {
				t.Run(fmt.Sprintf("%v/%s/%s", layout, enc, codec), func(t *testing.T) {
					path := tempFile(t, "v.parquet")
					props := map[string]string{
						vectorcol.PropColumns:                "emb:float32:6",
						vectorcol.PropLayoutColumn + "emb":   layout.String(),
						vectorcol.PropEncodingColumn + "emb": enc,
						parquet.PropCompressionCodec:         codec,
						parquet.PropRowGroupRows:             "100",
						parquet.PropPageBytes:                "200",
					}
					df := writeRecords(t, path, sc, props, recs...)
					if df.Count() != int64(len(recs)) {
						t.Fatalf("DataFile: %d records", df.Count())
					}
					if got := df.ValueCounts()[2]; got != int64(len(recs)) {
						t.Errorf("value count of emb = %d, want %d", got, len(recs))
					}
					if got := df.NullValueCounts()[2]; got != 36 {
						t.Errorf("null count of emb = %d, want 36", got)
					}
					if df.ColumnSizes()[2] <= 0 {
						t.Errorf("no column size for emb: %v", df.ColumnSizes())
					}
					assertRecords(t, readRecords(t, path, nil), recs)
					checkVectorFile(t, path, vecs, false, layout)
					// Each split from one offset to the next reads one row group.
					splits := df.SplitOffsets()
					st, _ := os.Stat(path)
					var bySplit []*data.Record
					for i, start := range splits {
						end := st.Size()
						if i+1 < len(splits) {
							end = splits[i+1]
						}
						got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Split(start, end-start) })
						if len(got) != 100 && i < 2 {
							t.Errorf("split %d [%d, %d): %d records", i, start, end, len(got))
						}
						bySplit = append(bySplit, got...)
					}
					assertRecords(t, bySplit, recs)
					meta := readFooter(t, path)
					if len(meta.RowGroups) != 3 {
						t.Errorf("%d row groups, want 3", len(meta.RowGroups))
					}
					for _, rg := range meta.RowGroups {
						for _, cc := range rg.Columns {
							md := cc.MetaData
							if md.PathInSchema[0] != "emb" {
								continue
							}
							wantEnc := format.Plain
							if enc != "plain" {
								wantEnc = format.ByteStreamSplit
							}
							if md.Encoding[0] != wantEnc {
								t.Errorf("encodings %v, want %v first", md.Encoding, wantEnc)
							}
							want := map[string]format.CompressionCodec{"uncompressed": format.Uncompressed, "zstd": format.Zstd,
								"snappy": format.Snappy, "lz4": format.Lz4Raw, "gzip": format.Gzip, "brotli": format.Brotli}[codec]
							if md.Codec != want {
								t.Errorf("codec %v, want %s", md.Codec, codec)
							}
						}
					}
				})
			}
		}
	}
}

// The list and vector-repetition layouts hold null elements, written from
// a list<float> column with optional elements and read back as the same
// lists (and as NaN by the vector reader).
func TestVectorLayoutsNullElements(t *testing.T) {
	vecs := vectorValues(120, vecDim, 2)
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		for _, enc := range []string{"plain", "byte-stream-split"} {
			// Every codec: the page stack reads gzip and brotli too.
			for _, codec := range []string{"uncompressed", "zstd", "snappy", "lz4", "gzip", "brotli"} {
				t.Run(fmt.Sprintf("%v/%s/%s", layout, enc, codec), func(t *testing.T) {
					sc := vectorSchema(&iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Float32})
					recs := vectorRecords(t, sc, vecs, vector.Float32, true, true)
					path := tempFile(t, "v.parquet")
					writeRecords(t, path, sc, map[string]string{
						vectorcol.PropColumns:                    "emb:float32:6",
						vectorcol.PropLayoutDefault:              layout.String(),
						vectorcol.PropEncodingDefault:            enc,
						parquet.PropCompressionCodec:             codec,
						parquet.PropPageBytes:                    "100",
						vectorcol.PropStatsEnabledColumn + "emb": "false",
					}, recs...)
					assertRecords(t, readRecords(t, path, nil), recs)
					checkVectorFile(t, path, vecs, true, layout)
					// A fixed[L] projection cannot hold the null elements.
					proj := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
					_, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(proj) })
					if err == nil || !strings.Contains(err.Error(), "element 0 is null") {
						t.Errorf("fixed projection of null elements: %v", err)
					}
				})
			}
		}
	}
}

// A list<float> column without null elements also reads as fixed[L], and a
// fixed[L] vector-repetition column as list<float>: the projection chooses.
func TestVectorLayoutsProjections(t *testing.T) {
	vecs := vectorValues(40, vecDim, 3)
	fixed := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
	list := vectorSchema(&iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Float32, ElementRequired: true})
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		t.Run(layout.String(), func(t *testing.T) {
			props := map[string]string{vectorcol.PropColumns: "emb:float32:6", vectorcol.PropLayoutDefault: layout.String()}
			path := tempFile(t, "list.parquet")
			writeRecords(t, path, list, props, vectorRecords(t, list, vecs, vector.Float32, true, false)...)
			got := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(fixed) })
			assertRecords(t, got, vectorRecords(t, fixed, vecs, vector.Float32, false, false))

			path = tempFile(t, "fixed.parquet")
			writeRecords(t, path, fixed, props, vectorRecords(t, fixed, vecs, vector.Float32, false, false)...)
			if layout == vectorcol.LayoutVectorRepetition {
				got = readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(list) })
				assertRecords(t, got, vectorRecords(t, list, vecs, vector.Float32, true, false))
			}
		})
	}
}

// Every element type through every layout that holds it.
func TestVectorLayoutsElementTypes(t *testing.T) {
	for _, et := range []vector.ElementType{vector.Float32, vector.Float64, vector.Float16, vector.Int8} {
		vecs := vectorValues(30, vecDim, 4)
		for _, v := range vecs {
			for j := range v {
				if et == vector.Int8 {
					v[j] = float32(math.Round(float64(v[j] * 20)))
				}
				if et == vector.Float16 {
					v[j] = vector.Float16FromFloat32(v[j]).Float32()
				}
			}
		}
		sc := vectorSchema(iceberg.FixedTypeOf(vecDim * et.Width()))
		recs := vectorRecords(t, sc, vecs, et, false, false)
		for _, layout := range []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutFixedSizeList, vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
			if layout == vectorcol.LayoutFixedSizeList && et != vector.Float32 && et != vector.Float64 {
				continue
			}
			for _, enc := range []string{"plain", "byte-stream-split"} {
				t.Run(fmt.Sprintf("%v/%v/%s", et, layout, enc), func(t *testing.T) {
					path := tempFile(t, "v.parquet")
					writeRecords(t, path, sc, map[string]string{
						vectorcol.PropColumns:                fmt.Sprintf("emb:%s:%d", et, vecDim),
						vectorcol.PropLayoutColumn + "emb":   layout.String(),
						vectorcol.PropEncodingColumn + "emb": enc,
						parquet.PropPageBytes:                "64",
					}, recs...)
					assertRecords(t, readRecords(t, path, nil), recs)
					f, err := vectorcol.OpenColumn(path, "emb")
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					if info := f.Info(); info.Element != et || info.Layout != layout {
						t.Fatalf("vectorcol.OpenColumn: %+v", info)
					}
					m, _, err := f.ReadAll()
					if err != nil {
						t.Fatal(err)
					}
					k := 0
					for _, v := range vecs {
						if v == nil {
							continue
						}
						want, _ := et.DecodeAppend(nil, mustEncode(t, et, v))
						for j := range want {
							if m.Data[k*vecDim+j] != want[j] {
								t.Fatalf("vector %d element %d = %v, want %v", k, j, m.Data[k*vecDim+j], want[j])
							}
						}
						k++
					}
				})
			}
		}
	}
}

func mustEncode(t testing.TB, et vector.ElementType, v []float32) []byte {
	t.Helper()
	b, err := et.EncodeAppend(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFooter(t testing.TB, path string) *footer.FileMetaData {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := footer.ReadFooter(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return f.Meta
}

// VECTOR columns carry no min/max and no ColumnIndex unless
// write.parquet.stats-enabled.column.<col> asks; their null count always.
// The other columns keep theirs.
func TestVectorStatisticsOnlyWhenAsked(t *testing.T) {
	vecs := vectorValues(60, vecDim, 5)
	sc := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
	recs := vectorRecords(t, sc, vecs, vector.Float32, false, false)
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutFixedSizeList, vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		for _, stats := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/stats=%v", layout, stats), func(t *testing.T) {
				props := map[string]string{
					vectorcol.PropColumns:              "emb:float32:6",
					vectorcol.PropLayoutColumn + "emb": layout.String(),
					parquet.PropPageBytes:              "100",
				}
				if stats {
					props[vectorcol.PropStatsEnabledColumn+"emb"] = "true"
				}
				path := tempFile(t, "s.parquet")
				writeRecords(t, path, sc, props, recs...)
				meta := readFooter(t, path)
				raw, _ := os.ReadFile(path)
				for _, cc := range meta.RowGroups[0].Columns {
					md := cc.MetaData
					st := md.Statistics
					if md.PathInSchema[0] != "emb" {
						if st == nil || st.MaxValue == nil && st.Max == nil || !cc.ColumnIndexOffset.Valid {
							t.Errorf("column %v lost its statistics or column index", md.PathInSchema)
						}
						continue
					}
					if st == nil || !st.NullCount.Valid {
						t.Fatalf("emb: statistics %+v, want a null count", st)
					}
					wantNulls := int64(9) // rows 3, 10, ..., 59
					if layout == vectorcol.LayoutVectorRepetition {
						wantNulls *= vecDim
					}
					if st.NullCount.V != wantNulls {
						t.Errorf("emb: null count %d, want %d", st.NullCount.V, wantNulls)
					}
					hasBounds := st.MinValue != nil || st.MaxValue != nil || st.Min != nil || st.Max != nil
					if hasBounds != stats || cc.ColumnIndexOffset.Valid != stats {
						t.Fatalf("emb with stats=%v: bounds %v, column index %v", stats, hasBounds, cc.ColumnIndexOffset.Valid)
					}
					if !stats {
						continue
					}
					lo, hi := vectorBounds(layout, vecs)
					if !bytes.Equal(st.MinValue, lo) || !bytes.Equal(st.MaxValue, hi) {
						t.Errorf("emb: min %x max %x, want %x %x", st.MinValue, st.MaxValue, lo, hi)
					}
					var ci format.ColumnIndex
					if err := decodeThrift(raw[cc.ColumnIndexOffset.V:cc.ColumnIndexOffset.V+int64(cc.ColumnIndexLength.V)], &ci); err != nil {
						t.Fatal(err)
					}
					var oi format.OffsetIndex
					if err := decodeThrift(raw[cc.OffsetIndexOffset.V:cc.OffsetIndexOffset.V+int64(cc.OffsetIndexLength.V)], &oi); err != nil {
						t.Fatal(err)
					}
					if len(ci.MinValues) != len(oi.PageLocations) || len(ci.MinValues) < 2 {
						t.Errorf("column index of %d pages, offset index of %d", len(ci.MinValues), len(oi.PageLocations))
					}
				}
			})
		}
	}
}

// vectorBounds are the min/max statistics of vecs in layout: byte-wise
// over the cells, or over the float elements.
func vectorBounds(layout vectorcol.Layout, vecs [][]float32) (lo, hi []byte) {
	if layout.Flat() {
		for _, v := range vecs {
			if v == nil {
				continue
			}
			b, _ := vector.Float32.EncodeAppend(nil, v)
			if lo == nil || bytes.Compare(b, lo) < 0 {
				lo = b
			}
			if hi == nil || bytes.Compare(b, hi) > 0 {
				hi = b
			}
		}
		return lo, hi
	}
	mn, mx := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, v := range vecs {
		for _, x := range v {
			mn, mx = min(mn, x), max(mx, x)
		}
	}
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(mn)), binary.LittleEndian.AppendUint32(nil, math.Float32bits(mx))
}

// Bad VECTOR property values and keys are refused, naming the key (and
// the value), before anything is written.
func TestVectorPropertiesRefused(t *testing.T) {
	fixed := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
	for _, tc := range []struct {
		name  string
		props map[string]string
		want  []string
	}{
		{"layout value", map[string]string{vectorcol.PropLayoutColumn + "emb": "columnar"},
			[]string{vectorcol.PropLayoutColumn + "emb", `"columnar" is not a VECTOR layout`}},
		{"default layout value", map[string]string{vectorcol.PropLayoutDefault: "nested"},
			[]string{vectorcol.PropLayoutDefault, `"nested"`}},
		{"flba-raw", map[string]string{vectorcol.PropLayoutColumn + "emb": "flba-raw"},
			[]string{vectorcol.PropLayoutColumn + "emb", "flba-raw is flba without the VECTOR annotation"}},
		{"encoding value", map[string]string{vectorcol.PropEncodingColumn + "emb": "delta"},
			[]string{vectorcol.PropEncodingColumn + "emb", `"delta" is not a VECTOR value encoding`}},
		{"statistics value", map[string]string{vectorcol.PropStatsEnabledColumn + "emb": "sometimes"},
			[]string{vectorcol.PropStatsEnabledColumn + "emb", `"sometimes" is not a boolean`}},
		{"layout of an undeclared column", map[string]string{vectorcol.PropLayoutColumn + "name": "list"},
			[]string{vectorcol.PropLayoutColumn + "name", `column "name" is not a VECTOR column`}},
		{"statistics of another column", map[string]string{vectorcol.PropStatsEnabledColumn + "id": "true"},
			[]string{vectorcol.PropStatsEnabledColumn + "id", "VECTOR columns only"}},
		{"fixed-size-list of int8", map[string]string{vectorcol.PropColumns: "emb:int8:24", vectorcol.PropLayoutColumn + "emb": "fixed-size-list"},
			[]string{vectorcol.PropLayoutColumn + "emb", "float32 and float64 elements only"}},
		{"vector-repetition without footer annotations", map[string]string{vectorcol.PropLayoutColumn + "emb": "vector-repetition", parquet.PropFooterAnnotations: "false"},
			[]string{vectorcol.PropLayoutColumn + "emb", parquet.PropFooterAnnotations}},
		{"unknown vector key", map[string]string{"write.parquet.vector-layouts": "list"},
			[]string{"write.parquet.vector-layouts", "not honoured"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]string{vectorcol.PropColumns: "emb:float32:6"}
			for k, v := range tc.props {
				props[k] = v
			}
			path := tempFile(t, "bad.parquet")
			_, err := tryWriteRecords(path, fixed, props)
			if err == nil {
				t.Fatal("write succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
			if _, serr := os.Stat(path); !os.IsNotExist(serr) {
				t.Errorf("the refused write left %s behind", path)
			}
		})
	}
	// A list<float> column needs the list or vector-repetition layout.
	list := vectorSchema(&iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Float32})
	_, err := tryWriteRecords(tempFile(t, "list.parquet"), list, map[string]string{vectorcol.PropColumns: "emb:float32:6"})
	if err == nil || !strings.Contains(err.Error(), vectorcol.PropLayoutColumn+"emb") || !strings.Contains(err.Error(), "layout flba cannot store") {
		t.Errorf("list<float> in flba: %v", err)
	}
}

// Bad values are refused record by record, naming the column; the file
// stays writable.
func TestVectorValuesRefused(t *testing.T) {
	list := vectorSchema(&iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Float32, ElementRequired: true})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "v.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(list).SetAll(map[string]string{vectorcol.PropColumns: "emb:float32:2", vectorcol.PropLayoutDefault: "vector-repetition"}).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cell any
		want string
	}{
		{[]any{float32(1)}, "needs 2 elements, got 1"},
		{[]any{float32(1), 2.0}, "element 1: expected float32, got float64"},
		{[]any{float32(1), nil}, "element 1 is null in a list of required elements"},
		{[]byte{1}, "expected []any"},
	} {
		err := w.Write(data.Of(list, int64(1), tc.cell, nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `column "emb"`) {
			t.Errorf("%v: err = %v, want %q", tc.cell, err, tc.want)
		}
	}
	if err := w.Write(data.Of(list, int64(1), []any{float32(1), float32(2)}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file whose only columns are VECTOR columns has no parquet-go part:
// the lab writes it whole.
func TestVectorOnlyFile(t *testing.T) {
	vecs := vectorValues(50, vecDim, 6)
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "emb", Type: iceberg.FixedTypeOf(vecDim * 4)})
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		t.Run(layout.String(), func(t *testing.T) {
			var recs []*data.Record
			for _, v := range vecs {
				var cell any
				if v != nil {
					cell = mustEncode(t, vector.Float32, v)
				}
				recs = append(recs, data.Of(sc, cell))
			}
			path := tempFile(t, "only.parquet")
			df := writeRecords(t, path, sc, map[string]string{
				vectorcol.PropColumns: "emb:float32:6", vectorcol.PropLayoutDefault: layout.String(),
				parquet.PropRowGroupRows: "20", "write.metadata.x": "kept",
			}, recs...)
			if df.Count() != int64(len(recs)) || len(df.SplitOffsets()) != 3 {
				t.Fatalf("DataFile: %d records, splits %v", df.Count(), df.SplitOffsets())
			}
			assertRecords(t, readRecords(t, path, nil), recs)
			checkVectorFile(t, path, vecs, false, layout)
			if v, ok := readFooter(t, path).KeyValue(parquet.IcebergSchemaKey); !ok || !strings.Contains(v, `"emb"`) {
				t.Errorf("iceberg.schema = %q", v)
			}
		})
	}
	// An empty file too.
	path := tempFile(t, "empty.parquet")
	writeRecords(t, path, sc, map[string]string{vectorcol.PropColumns: "emb:float32:6", vectorcol.PropLayoutDefault: "vector-repetition"})
	if got := readRecords(t, path, nil); len(got) != 0 {
		t.Fatalf("%d records", len(got))
	}
}

// VECTOR columns declared in another order than the schema's are written
// in the schema's: each row group's chunks follow the merged schema's
// leaves, whatever the declaration order (which once put one column's
// chunk metadata on the other's leaf), in every layout and with a
// parquet-go column between them.
func TestVectorColumnsDeclaredOutOfSchemaOrder(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.FixedTypeOf(2 * 4), Required: true},
		iceberg.NestedField{ID: 2, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 3, Name: "b", Type: iceberg.FixedTypeOf(3 * 4)})
	for _, layout := range []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutList, vectorcol.LayoutVectorRepetition} {
		t.Run(layout.String(), func(t *testing.T) {
			var recs []*data.Record
			for i := range 30 {
				var b any
				if i%4 != 1 {
					b = mustEncode(t, vector.Float32, []float32{float32(i), -1, 0.5})
				}
				recs = append(recs, data.Of(sc, mustEncode(t, vector.Float32, []float32{float32(i), 2}), int64(i), b))
			}
			path := tempFile(t, "order.parquet")
			writeRecords(t, path, sc, map[string]string{
				vectorcol.PropColumns: "b:vector<float32,3>,a:vector<float32,2>", vectorcol.PropLayoutDefault: layout.String(),
				parquet.PropRowGroupRows: "10",
			}, recs...)
			assertRecords(t, readRecords(t, path, nil), recs)
		})
	}
}

func decodeThrift(b []byte, v any) error {
	return thrift.Unmarshal(new(thrift.CompactProtocol), b, v)
}
