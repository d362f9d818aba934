package table

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

const vecSchema = "id:long!,region:string,emb:vector<float32,8>"

type vecRow struct {
	id     int64
	region string
	emb    []float32 // nil: a null vector
}

func (r vecRow) json() string {
	emb := "null"
	if r.emb != nil {
		var parts []string
		for _, x := range r.emb {
			parts = append(parts, fmt.Sprint(x))
		}
		emb = "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf(`{"id":%d,"region":%q,"emb":%s}`, r.id, r.region, emb)
}

func randomVecRows(rng *rand.Rand, first, n int, region string) []vecRow {
	var out []vecRow
	for i := range n {
		r := vecRow{id: int64(first + i), region: region}
		if i%17 != 5 {
			r.emb = make([]float32, 8)
			for j := range r.emb {
				r.emb[j] = float32(rng.NormFloat64())
			}
		}
		out = append(out, r)
	}
	return out
}

func appendVecRows(t *testing.T, tbl *Table, rows []vecRow) {
	t.Helper()
	var lines []string
	for _, r := range rows {
		lines = append(lines, r.json())
	}
	appendJSON(t, tbl, lines...)
}

// bruteForce is the top-k ids of rows under metric, by the same ranking.
func bruteForce(rows []vecRow, keep func(vecRow) bool, metric vector.Metric, q []float32, k int) []int64 {
	top := vector.NewTopK(k, metric)
	for _, r := range rows {
		if r.emb != nil && keep(r) {
			top.Push(r.id, metric.Score(q, r.emb))
		}
	}
	var ids []int64
	for _, r := range top.Results() {
		ids = append(ids, r.ID)
	}
	return ids
}

func hitIDs(t *testing.T, hits []Hit) []int64 {
	t.Helper()
	var ids []int64
	for _, h := range hits {
		if h.Row == nil {
			t.Fatalf("hit %s:%d has no row", h.File, h.Pos)
		}
		ids = append(ids, h.Row.Get(0).(int64))
	}
	return ids
}

// A table search equals brute force over the rows a scan returns: across
// files and partitions, with deletion vectors, equality deletes and a
// filter, on the page reader and on the record path.
func TestTableSearch(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.vec", CreateOptions{Spec: mustSpec(t, vecSchema), Partition: "region"})
	var rows []vecRow
	for i, region := range []string{"eu", "us", "eu"} {
		batch := randomVecRows(rng, i*200, 200, region)
		appendVecRows(t, tbl, batch)
		rows = append(rows, batch...)
	}
	queries := vector.Matrix{Dim: 8}
	for range 3 {
		for range 8 {
			queries.Data = append(queries.Data, float32(rng.NormFloat64()))
		}
	}
	deleted := map[int64]bool{}
	check := func(name string, metric vector.Metric, k int, filter string, keep func(vecRow) bool, wantPaged bool) {
		t.Helper()
		o := SearchOptions{Metric: metric, Queries: queries, K: k, Columns: []string{"id"}}
		if filter != "" {
			o.Filter = mustFilter(t, tbl, filter)
		}
		res, err := tbl.Search(ctx, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if wantPaged != (res.Paged == res.Files) || res.Files == 0 {
			t.Fatalf("%s: %d of %d files paged", name, res.Paged, res.Files)
		}
		for q := range queries.Rows() {
			want := bruteForce(rows, func(r vecRow) bool { return !deleted[r.id] && keep(r) }, metric, queries.Row(q), k)
			if got := hitIDs(t, res.Hits[q]); !slices.Equal(got, want) {
				t.Fatalf("%s: query %d: ids %v, brute force %v", name, q, got, want)
			}
			for i := 1; i < len(res.Hits[q]); i++ {
				a, b := res.Hits[q][i-1].Score, res.Hits[q][i].Score
				if metric.HigherIsBetter() && a < b || !metric.HigherIsBetter() && a > b {
					t.Fatalf("%s: query %d: scores out of order at %d: %v then %v", name, q, i, a, b)
				}
			}
		}
	}
	all := func(vecRow) bool { return true }
	check("cosine", vector.MetricCosine, 10, "", all, true)
	check("l2, k beyond the rows", vector.MetricL2, 1000, "", all, true)

	// Delete the current best rows of every query and some more: the page
	// reader asks each file for k plus its deleted rows.
	res, err := tbl.Search(ctx, SearchOptions{Metric: vector.MetricDot, Queries: queries, K: 5, Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for q := range res.Hits {
		for _, id := range hitIDs(t, res.Hits[q]) {
			deleted[id] = true
			ids = append(ids, fmt.Sprint(id))
		}
	}
	for id := int64(300); id < 320; id++ {
		deleted[id] = true
		ids = append(ids, fmt.Sprint(id))
	}
	deleteWhere(t, tbl, "id in ("+strings.Join(ids, ",")+")")
	check("dot after deletion vectors", vector.MetricDot, 5, "", all, true)
	check("filter: record path", vector.MetricDot, 7, "region = 'us' or id < 50", func(r vecRow) bool { return r.region == "us" || r.id < 50 }, false)

	// Equality deletes send their files to the record path.
	deleteWhere(t, tbl, "id = 401", "id")
	deleted[401] = true
	check("after equality deletes", vector.MetricCosine, 9, "", all, false)

	// Bad requests name the table and what is wrong.
	for _, c := range []struct {
		o    SearchOptions
		want string
	}{
		{SearchOptions{Metric: vector.MetricDot, Queries: vector.Matrix{Dim: 3, Data: []float32{1, 2, 3}}, K: 3}, "dimension 8"},
		{SearchOptions{Column: "id", Metric: vector.MetricDot, Queries: queries, K: 3}, "not a VECTOR column"},
		{SearchOptions{Metric: vector.MetricDot, Queries: queries, K: -1}, "negative"},
	} {
		if _, err := tbl.Search(ctx, c.o); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "lab.vec") {
			t.Errorf("error %v, want one naming lab.vec and %q", err, c.want)
		}
	}
}
