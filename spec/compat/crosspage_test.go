package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/types/vector"
)

// DuckDB cuts its V1 data pages at about 100 MB and lets a row cross the
// cut, so every FLOAT[768] table of more than about 35k rows has a row
// split between two pages (parquet-format allows it for V1 pages without a
// page index). The lab's vector search, take and full read of such a file
// agree with DuckDB's own values and its own top-k. The file is about
// 120 MB; the test checks that DuckDB did cut a row, so it cannot pass
// vacuously if DuckDB ever changes its page size.
func TestDuckDBRowsCrossingPages(t *testing.T) {
	if err := peers.DuckDB.Available(); err != nil {
		testenv.MissingPeer(t, err.Error())
	}
	const rows, dim = 36000, 768
	path := filepath.Join(t.TempDir(), "duckdb-float768-cross.parquet")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	query := make([]float32, dim)
	for x := range query {
		query[x] = float32(math.Cos(float64(x)*0.7) + math.Sin(float64(x*x)*0.01))
	}
	qjson, _ := json.Marshal(query)
	// Distinct values (no dictionary), a null row every 997.
	emb := fmt.Sprintf("(CASE WHEN i %% 997 = 5 THEN NULL ELSE list_transform(range(%d), x -> ((hash(i * %d + x) %% 1000000007) / 500000003.5 - 1)::FLOAT) END)::FLOAT[%d]", dim, dim, dim)
	sample := []int64{0, 5, 17000, 34815, 34816, 34817, 34818, rows - 1}
	sampleList, _ := json.Marshal(sample)
	res, err := peers.DuckDBExec(ctx,
		fmt.Sprintf("COPY (SELECT i::BIGINT AS id, %s AS emb FROM range(%d) t(i)) TO '%s' (FORMAT parquet)", emb, rows, path),
		fmt.Sprintf("SELECT id FROM read_parquet('%s') WHERE emb IS NOT NULL ORDER BY array_cosine_similarity(emb::FLOAT[%d], %s::FLOAT[%d]) DESC, id LIMIT 10", path, dim, qjson, dim),
		fmt.Sprintf("SELECT id, emb::FLOAT[] FROM read_parquet('%s') WHERE list_contains(%s, id) ORDER BY id", path, sampleList),
	)
	if err != nil {
		t.Fatal(err)
	}
	if cut := firstPageCutsRow(t, path, dim); !cut {
		t.Fatalf("DuckDB's first page of %s ends at a row boundary: the file no longer tests rows crossing pages", path)
	}

	f, err := vectorcol.OpenColumn(path, "emb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := f.Search(0, vector.MetricCosine, vector.Matrix{Dim: dim, Data: query}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range res.Results[1] {
		want := toInt64(t, row[0])
		if got[0][i].ID != want {
			t.Fatalf("result %d: the lab ranks row %d, DuckDB row %d (lab: %v)", i, got[0][i].ID, want, got[0])
		}
	}
	taken, err := f.Take(sample)
	if err != nil {
		t.Fatal(err)
	}
	m, null, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	present := map[int64]int{} // row → index in m
	k := 0
	for r := range int64(rows) {
		if null == nil || !null[r] {
			present[r] = k
			k++
		}
	}
	byID := map[int64][]any{}
	for _, row := range res.Results[2] {
		byID[toInt64(t, row[0])], _ = row[1].([]any)
	}
	for i, r := range sample {
		want := byID[r]
		if want == nil {
			if taken[i] != nil {
				t.Fatalf("row %d: DuckDB reads NULL, take gives %d values", r, len(taken[i]))
			}
			continue
		}
		if len(taken[i]) != dim || len(want) != dim {
			t.Fatalf("row %d: take gives %d values, DuckDB %d", r, len(taken[i]), len(want))
		}
		read := m.Row(present[r])
		for x := range dim {
			w := float32(want[x].(float64))
			if taken[i][x] != w || read[x] != w {
				t.Fatalf("row %d element %d: take %v, read %v, DuckDB %v", r, x, taken[i][x], read[x], w)
			}
		}
	}
}

// firstPageCutsRow reports whether the vector column's first data page
// holds a number of level entries that is not a multiple of dim: DuckDB
// writes every row, null or not, as dim entries, so the page cuts a row.
func firstPageCutsRow(t *testing.T, path string, dim int) bool {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	ft, err := footer.ReadFooter(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range ft.Meta.RowGroups[0].Columns {
		md := cc.MetaData
		if md == nil || len(md.PathInSchema) == 0 || md.PathInSchema[0] != "emb" {
			continue
		}
		off := md.DataPageOffset
		if d := md.DictionaryPageOffset; d.Valid && d.V > 0 {
			t.Fatalf("the vector column is dictionary-encoded; the test wants PLAIN pages")
		}
		buf := make([]byte, 256)
		if _, err := fh.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
		var h format.PageHeader
		if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReaderFromBytes(buf)).Decode(&h); err != nil {
			t.Fatal(err)
		}
		if !h.DataPageHeader.Valid {
			t.Fatalf("first page is %v, not a V1 data page", h.Type)
		}
		return int(h.DataPageHeader.V.NumValues)%dim != 0
	}
	t.Fatal("no emb column in the footer")
	return false
}

func toInt64(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return int64(x)
	case string:
		var n int64
		if _, err := fmt.Sscan(x, &n); err != nil {
			t.Fatal(err)
		}
		return n
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	t.Fatalf("id %v (%T) is not a number", v, v)
	return 0
}
