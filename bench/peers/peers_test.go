package peers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/types/vector"
)

// needPeer skips (or, with LAB_REQUIRE_PEERS=1, fails) unless p is installed.
func needPeer(t *testing.T, p Peer) {
	t.Helper()
	if err := p.Available(); err != nil {
		var pe *Error
		if errors.As(err, &pe) && pe.Install == npmInstall {
			pe.Install = "" // MissingPeer says it already
		}
		testenv.MissingPeer(t, err.Error())
	}
}

type readRow struct {
	ID    int64     `parquet:"id"`
	Name  string    `parquet:"name"`
	Score float64   `parquet:"score"`
	Vec   []float32 `parquet:"vec,list"`
}

// f32 is how a float32 arrives in JSON: its exact value as a float64.
func f32(xs ...float32) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

func TestReadersReadValues(t *testing.T) {
	rows := []readRow{
		{ID: 1<<53 + 1, Name: "plain", Score: 1.5, Vec: []float32{0.1, -2, 3.25}},
		{ID: -7, Name: "naïve ☃ 🙂", Score: -0.1, Vec: []float32{float32(math.Pi)}},
		{ID: 0, Name: "", Score: 1e300, Vec: []float32{1e-30, 65504, -0.5, 7}},
		{ID: math.MaxInt64, Name: "nan", Score: math.NaN(), Vec: []float32{float32(math.Inf(-1))}},
	}
	want := []map[string]any{
		{"id": "9007199254740993", "name": "plain", "score": 1.5, "vec": f32(0.1, -2, 3.25)},
		{"id": "-7", "name": "naïve ☃ 🙂", "score": -0.1, "vec": f32(float32(math.Pi))},
		{"id": "0", "name": "", "score": 1e300, "vec": f32(1e-30, 65504, -0.5, 7)},
		{"id": "9223372036854775807", "name": "nan", "score": "NaN", "vec": []any{"-Infinity"}},
	}
	file := filepath.Join(t.TempDir(), "values.parquet")
	if err := parquet.WriteFile(file, rows); err != nil {
		t.Fatal(err)
	}
	for _, p := range Readers() {
		t.Run(p.Name, func(t *testing.T) {
			needPeer(t, p)
			t.Parallel()
			res, err := Read(context.Background(), p, file, -1)
			if err != nil {
				t.Fatal(err)
			}
			if res.Peer != p.Name || res.NumRows != int64(len(rows)) {
				t.Errorf("peer %q, num_rows %d; want %q, %d", res.Peer, res.NumRows, p.Name, len(rows))
			}
			var names []string
			for _, c := range res.Columns {
				names = append(names, c.Name)
			}
			if !reflect.DeepEqual(names, []string{"id", "name", "score", "vec"}) {
				t.Errorf("columns %v", res.Columns)
			}
			if len(res.Rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(res.Rows), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(res.Rows[i], want[i]) {
					t.Errorf("row %d:\n got %#v\nwant %#v", i, res.Rows[i], want[i])
				}
			}

			_, err = Read(context.Background(), p, filepath.Join(filepath.Dir(file), "absent.parquet"), -1)
			assertError(t, err, ErrCrash, "peer "+p.Name, "absent.parquet")

			limited, err := Read(context.Background(), p, file, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(limited.Rows) != 2 || limited.NumRows != int64(len(rows)) || !reflect.DeepEqual(limited.Rows[1], want[1]) {
				t.Errorf("limit 2: %d rows of %d, second %v", len(limited.Rows), limited.NumRows, limited.Rows)
			}
		})
	}
}

type vecRow struct {
	ID  int64     `parquet:"id"`
	Vec []float32 `parquet:"vec,list"`
}

// searchData is a small random dataset in the three forms the peers read:
// a Parquet file (DuckDB), a sidecar (FAISS, LanceDB), and the matrices.
type searchData struct {
	n, dim, k     int
	data, queries vector.Matrix
	parquet       string
	sidecar       string
}

func newSearchData(t *testing.T) *searchData {
	t.Helper()
	const n, dim, m = 400, 16, 4
	r := rand.New(rand.NewPCG(7, 11))
	random := func(count int) []float32 {
		out := make([]float32, count)
		for i := range out {
			out[i] = float32(r.Float64()*2 - 1)
		}
		return out
	}
	d := &searchData{n: n, dim: dim, k: 10,
		data:    vector.Matrix{Dim: dim, Data: random(n * dim)},
		queries: vector.Matrix{Dim: dim, Data: random(m * dim)},
	}
	dir := t.TempDir()
	d.parquet = filepath.Join(dir, "vectors.parquet")
	d.sidecar = filepath.Join(dir, "vectors.f32")
	rows := make([]vecRow, n)
	for i := range rows {
		rows[i] = vecRow{ID: int64(i), Vec: d.data.Row(i)}
	}
	if err := parquet.WriteFile(d.parquet, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteSidecar(d.sidecar, d.data); err != nil {
		t.Fatal(err)
	}
	return d
}

// exact is the true answer, as the peers score it (vector.Metric's scores).
func (d *searchData) exact(t *testing.T, m vector.Metric) []Hits {
	t.Helper()
	gt, err := vector.ComputeGroundTruth(m, d.data, d.queries, d.k)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Hits, len(gt.IDs))
	for i, ids := range gt.IDs {
		out[i].IDs = ids
		for _, dist := range gt.Distances[i] {
			var s float64
			switch m { // Distance64 → score
			case vector.MetricL2:
				s = dist * dist
			case vector.MetricCosine:
				s = 1 - dist
			case vector.MetricDot:
				s = -dist
			}
			out[i].Scores = append(out[i].Scores, s)
		}
	}
	return out
}

func (d *searchData) request(m vector.Metric) SearchRequest {
	// One thread each: the peers run side by side on a small shared machine,
	// where FAISS's spinning OpenMP threads otherwise slow everyone down.
	return SearchRequest{Metric: m.String(), K: d.k, Dim: d.dim, Queries: QueryRows(d.queries), Threads: 1}
}

func checkRuns(t *testing.T, res *SearchResult, wantModes []string, want []Hits) {
	t.Helper()
	for _, mode := range wantModes {
		run := res.Run(mode)
		if run == nil {
			t.Errorf("%s: no %q run in %+v", res.Peer, mode, res.Runs)
			continue
		}
		for q, hits := range run.Results {
			if !reflect.DeepEqual(hits.IDs, want[q].IDs) {
				t.Errorf("%s %s %s query %d: ids %v, want %v", res.Peer, mode, res.Metric, q, hits.IDs, want[q].IDs)
				continue
			}
			for j, s := range hits.Scores {
				if w := want[q].Scores[j]; math.Abs(s-w) > 1e-4*math.Max(1, math.Abs(w)) {
					t.Errorf("%s %s %s query %d rank %d: score %v, want %v", res.Peer, mode, res.Metric, q, j, s, w)
				}
			}
		}
	}
}

var metrics = []vector.Metric{vector.MetricCosine, vector.MetricDot, vector.MetricL2}

func TestSearchPeersMatchExact(t *testing.T) {
	d := newSearchData(t)
	ctx := context.Background()

	t.Run("duckdb", func(t *testing.T) {
		needPeer(t, DuckDB)
		t.Parallel()
		for _, m := range metrics {
			req := d.request(m)
			req.File, req.Column = d.parquet, "vec"
			res, err := DuckDBTopK(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			checkRuns(t, res, []string{"parquet", "memory"}, d.exact(t, m))
		}
	})

	t.Run("faiss", func(t *testing.T) {
		needPeer(t, FAISS)
		t.Parallel()
		for _, m := range metrics {
			req := d.request(m)
			req.Sidecar, req.N = d.sidecar, d.n
			res, err := FAISSSearch(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			checkRuns(t, res, []string{"single", "batch"}, d.exact(t, m))
			// A fair peer: FAISS on OpenBLAS (apt-packages.txt), not the
			// reference BLAS that made its batches ~30x slower.
			if testenv.RequirePeers() && !strings.Contains(res.Version, "OpenBLAS") {
				t.Errorf("FAISS reports %q: want it on OpenBLAS (install libopenblas0-pthread)", res.Version)
			}
		}
	})

	t.Run("lancedb", func(t *testing.T) {
		needPeer(t, LanceDB)
		t.Parallel()
		table, err := LanceDBBuild(ctx, d.sidecar, d.n, d.dim, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if table.N != d.n || table.Dim != d.dim || table.Table == "" {
			t.Fatalf("built %+v", table)
		}
		for _, m := range metrics {
			req := d.request(m)
			req.Dir, req.Table = table.Dir, table.Table
			res, err := LanceDBSearch(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			checkRuns(t, res, []string{"flat"}, d.exact(t, m))
		}

		offsets := []int64{399, 3, 0, 200}
		got, err := LanceDBTake(ctx, table, offsets, true)
		if err != nil {
			t.Fatal(err)
		}
		wantIDs := []int64{0, 3, 200, 399} // LanceDB returns ascending offsets
		if !reflect.DeepEqual(got.IDs, wantIDs) || len(got.Vectors) != len(wantIDs) {
			t.Fatalf("take %v: ids %v, %d vectors; want ids %v", offsets, got.IDs, len(got.Vectors), wantIDs)
		}
		for i, id := range got.IDs {
			if !reflect.DeepEqual(got.Vectors[i], d.data.Row(int(id))) {
				t.Errorf("take: row %d is %v, want %v", id, got.Vectors[i], d.data.Row(int(id)))
			}
		}
	})
}

// TestSearchRequestMetricNames: the Go side accepts vector.ParseMetric's
// aliases and sends the canonical names the scripts know.
func TestSearchRequestMetricNames(t *testing.T) {
	p := shellPeer(t, "echo", `cat >/dev/null; echo '{"peer":"echo","metric":"x","k":1,"runs":[{"mode":"m","results":[]}]}'`)
	if _, err := search(context.Background(), p, SearchRequest{Metric: "euclid"}); err == nil {
		t.Error("search accepted metric euclid")
	}
	res, err := search(context.Background(), p, SearchRequest{Metric: "ip"})
	if err != nil || res.Runs[0].Mode != "m" {
		t.Fatalf("search: %+v, %v", res, err)
	}
	bad := shellPeer(t, "short", `cat >/dev/null; echo '{"peer":"short","runs":[{"mode":"m","results":[]}]}'`)
	_, err = search(context.Background(), bad, SearchRequest{Metric: "l2", Queries: [][]float32{{1}}})
	assertError(t, err, ErrGarbage, "peer short", fmt.Sprintf("answered 0 of %d queries", 1))
}
