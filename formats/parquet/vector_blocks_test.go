package parquet_test

import (
	"bytes"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/httpio"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// bruteTopK is the k best rows of vecs (nil: null) with ids in keep,
// scored one by one.
func bruteTopK(vecs [][]float32, q []float32, k int, metric vector.Metric, keep func(row int) bool) []vector.Result {
	top := vector.NewTopK(k, metric)
	for i, v := range vecs {
		if v != nil && keep(i) {
			top.Push(int64(i), metric.Score(q, v))
		}
	}
	return top.Results()
}

// closeResults: the same rows in the same order, scores equal to float32
// rounding (the kernels sum in another order than Metric.Score).
func closeResults(got, want []vector.Result) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		d := math.Abs(float64(got[i].Score - want[i].Score))
		if got[i].ID != want[i].ID || d > 1e-5*max(1, math.Abs(float64(want[i].Score))) {
			return false
		}
	}
	return true
}

// vectorBlocksFile writes 250 rows (ids 0..249, every 7th vector null) in
// row groups of 100 in layout and returns the file with its vectors.
func vectorBlocksFile(t *testing.T, layout string) (string, [][]float32) {
	t.Helper()
	vecs := vectorValues(250, vecDim, 3)
	sc := vectorSchema(iceberg.FixedTypeOf(vecDim * 4))
	path := tempFile(t, layout+".parquet")
	writeRecords(t, path, sc, map[string]string{
		vectorcol.PropColumns:              "emb:float32:6",
		vectorcol.PropLayoutColumn + "emb": layout,
		parquet.PropRowGroupRows:           "100",
		parquet.PropPageBytes:              "300",
	}, vectorRecords(t, sc, vecs, vector.Float32, false, false)...)
	return path, vecs
}

// A vector search is one registry read of (PARQUET, vector.Block): the
// same results as scoring every row, on every layout, and the builder's
// split, filter and projection select what a record read would.
func TestVectorBlocksThroughTheRegistry(t *testing.T) {
	queries := vector.Matrix{Dim: vecDim, Data: slices.Concat(vectorValues(3, vecDim, 9)...)}
	for _, layout := range []string{"flba", "fixed-size-list", "list", "vector-repetition"} {
		t.Run(layout, func(t *testing.T) {
			path, vecs := vectorBlocksFile(t, layout)
			in := registry.LocalInput(path)
			search := func(t *testing.T, configure func(*registry.ReadBuilder[vector.Block]), keep func(int) bool) {
				t.Helper()
				for _, metric := range []vector.Metric{vector.MetricDot, vector.MetricL2} {
					got, err := vector.SearchFile(in, metric, queries, 10, configure)
					if err != nil {
						t.Fatal(err)
					}
					for q := range queries.Rows() {
						want := bruteTopK(vecs, queries.Row(q), 10, metric, keep)
						if !closeResults(got[q], want) {
							t.Fatalf("%v query %d:\n got %v\nwant %v", metric, q, got[q], want)
						}
					}
				}
			}
			t.Run("whole file", func(t *testing.T) { search(t, nil, func(int) bool { return true }) })
			t.Run("filter on another column", func(t *testing.T) {
				// id ≥ 230 rules out the first two row groups by their id
				// statistics; the filter is best-effort, so the last row
				// group is searched whole.
				search(t, func(b *registry.ReadBuilder[vector.Block]) {
					b.Filter(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(230)))
				}, func(row int) bool { return row >= 200 })
			})
			t.Run("split", func(t *testing.T) {
				starts := rowGroupStarts(t, path)
				search(t, func(b *registry.ReadBuilder[vector.Block]) {
					b.Split(starts[1], starts[2]-starts[1])
				}, func(row int) bool { return row >= 100 && row < 200 })
			})
			t.Run("column by name", func(t *testing.T) {
				search(t, func(b *registry.ReadBuilder[vector.Block]) { b.Set(vectorcol.PropVectorColumn, "emb") }, func(int) bool { return true })
			})
			t.Run("projection", func(t *testing.T) {
				emb := iceberg.NewSchema(0, iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(vecDim * 4)})
				search(t, func(b *registry.ReadBuilder[vector.Block]) { b.Project(emb) }, func(int) bool { return true })
			})
		})
	}
}

// rowGroupStarts are the byte offsets where the row groups of path start.
func rowGroupStarts(t *testing.T, path string) []int64 {
	t.Helper()
	meta := readFooter(t, path)
	var out []int64
	for _, rg := range meta.RowGroups {
		cc := rg.Columns[0].MetaData
		start := cc.DataPageOffset
		if d := cc.DictionaryPageOffset; d.Valid && d.V > 0 && d.V < start {
			start = d.V
		}
		out = append(out, start)
	}
	return out
}

// What a block read cannot honour fails naming the model; a projection
// must name one VECTOR column of the file; the query dimension must match.
func TestVectorBlocksRefusals(t *testing.T) {
	path, _ := vectorBlocksFile(t, "flba")
	in := registry.LocalInput(path)
	q := vector.Matrix{Dim: vecDim, Data: make([]float32, vecDim)}
	two := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(vecDim * 4)})
	missing := iceberg.NewSchema(0, iceberg.NestedField{ID: 9, Name: "other", Type: iceberg.FixedTypeOf(vecDim * 4)})
	notVector := iceberg.NewSchema(0, iceberg.NestedField{ID: 3, Name: "name", Type: iceberg.PrimitiveTypes.String})
	for _, tc := range []struct {
		name      string
		configure func(*registry.ReadBuilder[vector.Block])
		queries   vector.Matrix
		want      []string
	}{
		{"batch size", func(b *registry.ReadBuilder[vector.Block]) { b.RecordsPerBatch(64) }, q,
			[]string{vectorcol.VectorBlockModelName, "batch size"}},
		{"constants", func(b *registry.ReadBuilder[vector.Block]) { b.IDToConstant(map[int]any{1: int64(1)}) }, q,
			[]string{vectorcol.VectorBlockModelName, "constants"}},
		{"engine projection", func(b *registry.ReadBuilder[vector.Block]) { b.EngineProjection("x") }, q,
			[]string{vectorcol.VectorBlockModelName, "engine projection"}},
		{"unknown property", func(b *registry.ReadBuilder[vector.Block]) { b.Set("read.vector.wrokers", "2") }, q,
			[]string{vectorcol.VectorBlockModelName, "read.vector.wrokers", vectorcol.PropVectorWorkers}},
		{"named column disagrees", func(b *registry.ReadBuilder[vector.Block]) {
			b.Project(iceberg.NewSchema(0, iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(vecDim * 4)})).Set(vectorcol.PropVectorColumn, "name")
		}, q, []string{vectorcol.PropVectorColumn + "=name", "emb"}},
		{"named column not a vector", func(b *registry.ReadBuilder[vector.Block]) { b.Set(vectorcol.PropVectorColumn, "name") }, q,
			[]string{path, "name"}},
		{"bad workers", func(b *registry.ReadBuilder[vector.Block]) { b.Set(vectorcol.PropVectorWorkers, "-1") }, q,
			[]string{vectorcol.PropVectorWorkers, `"-1"`}},
		{"two fields", func(b *registry.ReadBuilder[vector.Block]) { b.Project(two) }, q,
			[]string{"one VECTOR column", "2 fields"}},
		{"field not in the file", func(b *registry.ReadBuilder[vector.Block]) { b.Project(missing) }, q,
			[]string{`"other"`, "id 9", "not in the file"}},
		{"not a vector", func(b *registry.ReadBuilder[vector.Block]) { b.Project(notVector) }, q,
			[]string{path, "name"}},
		{"query dimension", nil, vector.Matrix{Dim: 4, Data: make([]float32, 4)},
			[]string{"query dimension 4", "column dimension 6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := vector.SearchFile(in, vector.MetricDot, tc.queries, 3, tc.configure)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to contain %q", err, w)
				}
			}
		})
	}
	wb, err := registry.DataWriteBuilder[vector.Block](registry.PARQUET, registry.LocalOutput(tempFile(t, "w.parquet")))
	if err == nil {
		_, err = wb.Schema(two).Build()
	}
	if err == nil || !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), vectorcol.VectorBlockModelName) {
		t.Errorf("writing blocks: err = %v, want the model's refusal", err)
	}
}

// A page whose bytes no longer match its CRC is refused through the
// registry too, naming the file.
func TestVectorBlocksChecksums(t *testing.T) {
	path, _ := vectorBlocksFile(t, "flba")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Flip a byte well inside the first page body of emb.
	var at int64
	for _, cc := range readFooter(t, path).RowGroups[0].Columns {
		if cc.MetaData.PathInSchema[0] == "emb" {
			at = cc.MetaData.DataPageOffset + 60
		}
	}
	raw[at] ^= 0x55
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	q := vector.Matrix{Dim: vecDim, Data: make([]float32, vecDim)}
	_, err = vector.SearchFile(registry.LocalInput(path), vector.MetricDot, q, 3, nil)
	if err == nil || !strings.Contains(err.Error(), "checksum") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a checksum error naming the file", err)
	}
}

// The block model reads any FileIO: here an http server answering ranges,
// read through internal/httpio; the results are those of the local file.
func TestVectorBlocksOverHTTP(t *testing.T) {
	path, vecs := vectorBlocksFile(t, "list")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ranged, whole atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if r.Header.Get("Range") == "" {
				whole.Add(1)
			} else {
				ranged.Add(1)
			}
		}
		http.ServeContent(w, r, "v.parquet", time.Unix(1, 0), bytes.NewReader(raw))
	}))
	defer srv.Close()
	in := registry.InputFile{FS: &httpio.FS{}, Location: srv.URL + "/v.parquet"}
	queries := vector.Matrix{Dim: vecDim, Data: slices.Concat(vectorValues(2, vecDim, 11)...)}
	got, err := vector.SearchFile(in, vector.MetricCosine, queries, 7, func(b *registry.ReadBuilder[vector.Block]) {
		b.Filter(iceberg.LessThan(iceberg.Reference("id"), int64(150)))
	})
	if err != nil {
		t.Fatal(err)
	}
	for q := range queries.Rows() {
		want := bruteTopK(vecs, queries.Row(q), 7, vector.MetricCosine, func(row int) bool { return row < 200 })
		if !closeResults(got[q], want) {
			t.Errorf("query %d:\n got %v\nwant %v", q, got[q], want)
		}
	}
	if whole.Load() != 0 || ranged.Load() == 0 {
		t.Errorf("%d ranged GETs, %d whole-object GETs: want ranges only", ranged.Load(), whole.Load())
	}
}

// The block reader's Search (the fused scan) finds what SearchStream over
// its blocks finds, and counts the same pages checked for their CRC; with
// read.vector.workers set it streams the blocks, honouring the setting.
func TestVectorBlocksSearchMatchesTheStream(t *testing.T) {
	queries := vector.Matrix{Dim: vecDim, Data: slices.Concat(vectorValues(4, vecDim, 11)...)}
	for _, layout := range []string{"flba", "list", "vector-repetition"} {
		path, _ := vectorBlocksFile(t, layout)
		open := func(props map[string]string) vectorcol.VectorBlocks {
			t.Helper()
			r, err := vectorcol.OpenVectorBlocks(registry.LocalInput(path), func(b *registry.ReadBuilder[vector.Block]) { b.SetAll(props) })
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		fused := open(nil)
		got, err := fused.Search(vector.MetricL2, queries, 7)
		if err != nil {
			t.Fatal(err)
		}
		gotChecked, gotWithout := fused.Checksums()
		if _, err := fused.Next(); err == nil || !strings.Contains(err.Error(), "searched") {
			t.Errorf("%s: Next after Search: %v, want an error saying the rows were searched", layout, err)
		}
		fused.Close()
		stream := open(nil)
		want, err := vector.SearchStream(vector.MetricL2, vecDim, stream, queries, 7, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantChecked, wantWithout := stream.Checksums()
		stream.Close()
		for q := range want {
			if !closeResults(got[q], want[q]) {
				t.Fatalf("%s query %d: Search %v, the block stream %v", layout, q, got[q], want[q])
			}
		}
		if gotChecked != wantChecked || gotWithout != wantWithout || gotChecked == 0 {
			t.Errorf("%s: Search checked %d pages' CRCs (%d without), the stream %d (%d)", layout, gotChecked, gotWithout, wantChecked, wantWithout)
		}
		workers := open(map[string]string{vectorcol.PropVectorWorkers: "1"})
		res, err := workers.Search(vector.MetricL2, queries, 7)
		workers.Close()
		if err != nil || len(res) != len(want) || !closeResults(res[0], want[0]) {
			t.Errorf("%s: Search with read.vector.workers=1: %v, %v", layout, res, err)
		}
	}
}
