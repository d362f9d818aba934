// Command vector-search is the notebook that sets the lab's exact vector
// search over a Parquet file beside the systems people would use instead
// (DuckDB over Parquet, LanceDB, FAISS), on the same vectors and queries, in
// the same run, with recall checked against float64 ground truth.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

var (
	sizeFlag    = flag.String("size", "100000x128", "rows x dimensions of the dataset")
	queriesFlag = flag.Int("queries", 32, "queries")
	metricFlag  = flag.String("metric", "cosine", "cosine, dot or l2")
)

func main() { notebook.Main(run) }

// config is one run's shape.
type config struct {
	n, dim, queries, k int
	metric             vector.Metric
	seed               uint64
	runs               int // timed runs of the lab's searches, best kept
}

func configFor(opts notebook.Options) (config, error) {
	m, err := vector.ParseMetric(*metricFlag)
	if err != nil {
		return config{}, err
	}
	cfg := config{queries: *queriesFlag, k: 10, metric: m, seed: opts.Seed, runs: 3}
	if opts.Quick {
		cfg.n, cfg.dim, cfg.queries, cfg.runs = 2000, 32, 4, 1
		return cfg, nil
	}
	n, d, ok := bench.ParseSize(*sizeFlag)
	if !ok || cfg.queries <= 0 {
		return config{}, fmt.Errorf("--size %q --queries %d: want ROWSxDIM and a positive query count", *sizeFlag, cfg.queries)
	}
	cfg.n, cfg.dim = n, d
	return cfg, nil
}

// engineRun is one way one engine answered all the queries. The peers'
// figures are their own timings of the queries (process start and JSON
// excluded); LoadMS is what they spent loading or indexing first.
type engineRun struct {
	Engine, Mode string
	Source       string // what it searched
	LoadMS       float64
	TotalMS      float64 // all queries
	Recall       float64 // mean k-nn recall against float64 ground truth
}

func (e engineRun) perQueryMS(queries int) float64 { return e.TotalMS / float64(queries) }
func (e engineRun) name() string                   { return e.Engine + " " + e.Mode }

// searchBench is the experiment's outcome. When bench.RunPeerBench lands,
// measure becomes a call to it and a conversion into this type; the page
// does not change.
type searchBench struct {
	cfg     config
	floor   bench.FloorResult // at the raw float32 size
	runs    []engineRun
	missing []string // peers not installed here, with the reason
}

func run(ctx context.Context, opts notebook.Options) (*notebook.Report, error) {
	cfg, err := configFor(opts)
	if err != nil {
		return nil, err
	}
	sb, err := measure(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(sb.missing) > 0 && testenv.RequirePeers() {
		return nil, fmt.Errorf("LAB_REQUIRE_PEERS=1 and peers are missing: %s", strings.Join(sb.missing, "; "))
	}
	return report(sb)
}

func measure(ctx context.Context, cfg config) (*searchBench, error) {
	dir, err := os.MkdirTemp("", "vector-search-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	data, err := vector.NewMatrix(cfg.dim, bench.Clustered(cfg.n, cfg.dim, 64, cfg.seed))
	if err != nil {
		return nil, err
	}
	queries, err := vector.NewMatrix(cfg.dim, bench.ClusteredQueries(cfg.queries, cfg.dim, 64, cfg.seed))
	if err != nil {
		return nil, err
	}
	gt, err := vector.ComputeGroundTruth(cfg.metric, data, queries, cfg.k)
	if err != nil {
		return nil, err
	}
	sb := &searchBench{cfg: cfg}
	if sb.floor, err = bench.Floor(int64(len(data.Data))*4, 5); err != nil {
		return nil, err
	}
	recall := func(results [][]int64) (float64, error) {
		st, err := gt.KNNRecall(data, queries, results, vector.DefaultRecallEpsilon)
		return st.Mean, err
	}

	// The lab: exact search straight from its VECTOR-annotated FLBA file.
	labFile := filepath.Join(dir, "lab-flba.parquet")
	if err := vectorcol.WriteFile(labFile, vectorcol.Column{Dim: cfg.dim, Data: data.Data}, vectorcol.WriteOptions{Layout: vectorcol.LayoutFLBA}); err != nil {
		return nil, err
	}
	single := func() ([][]int64, error) {
		var ids [][]int64
		for i := range queries.Rows() {
			q := vector.Matrix{Dim: cfg.dim, Data: queries.Row(i)}
			res, err := vector.SearchFile(registry.LocalInput(labFile), cfg.metric, q, cfg.k, nil)
			if err != nil {
				return nil, err
			}
			ids = append(ids, vector.IDsOf(res[0]))
		}
		return ids, nil
	}
	batch := func() ([][]int64, error) {
		return idsOf(vector.SearchFile(registry.LocalInput(labFile), cfg.metric, queries, cfg.k, nil))
	}
	memory := func() ([][]int64, error) {
		return idsOf(vector.SearchBatch(cfg.metric, data, queries, cfg.k))
	}
	for _, m := range []struct {
		mode, source string
		fn           func() ([][]int64, error)
	}{
		{"file, one query at a time", "FLBA Parquet file", single},
		{"file, all queries in one scan", "FLBA Parquet file", batch},
		{"memory, batch", "in-memory matrix", memory},
	} {
		ms, ids, err := timeBest(cfg.runs, m.fn)
		if err != nil {
			return nil, fmt.Errorf("lab %s: %w", m.mode, err)
		}
		rc, err := recall(ids)
		if err != nil {
			return nil, fmt.Errorf("lab %s: %w", m.mode, err)
		}
		sb.runs = append(sb.runs, engineRun{Engine: "lab", Mode: m.mode, Source: m.source, TotalMS: ms, Recall: rc})
	}

	// The peers, on the same vectors: DuckDB reads a Parquet file of (id,
	// LIST<FLOAT>), which its array functions need; LanceDB and FAISS load a
	// raw sidecar of the same floats.
	req := peers.SearchRequest{Metric: cfg.metric.String(), K: cfg.k, Dim: cfg.dim, Queries: peers.QueryRows(queries), Threads: runtime.NumCPU()}
	peerRun := func(p peers.Peer, source string, search func() (*peers.SearchResult, error)) error {
		if err := p.Available(); err != nil {
			sb.missing = append(sb.missing, fmt.Sprintf("%s (%v)", p.Name, err))
			return nil
		}
		res, err := search()
		if err != nil {
			return err
		}
		for _, r := range res.Runs {
			ids := make([][]int64, len(r.Results))
			for i, h := range r.Results {
				ids[i] = h.IDs
			}
			rc, err := recall(ids)
			if err != nil {
				return fmt.Errorf("peer %s %s: %w", p.Name, r.Mode, err)
			}
			sb.runs = append(sb.runs, engineRun{Engine: p.Name, Mode: r.Mode, Source: source, LoadMS: r.LoadMS, TotalMS: r.TotalMS, Recall: rc})
		}
		return nil
	}
	duckFile := filepath.Join(dir, "duckdb-list.parquet")
	sidecar := filepath.Join(dir, "vectors.f32")
	if err := writeIDList(duckFile, data); err != nil {
		return nil, err
	}
	if err := peers.WriteSidecar(sidecar, data); err != nil {
		return nil, err
	}
	if err := peerRun(peers.DuckDB, "Parquet file (id, LIST<FLOAT>)", func() (*peers.SearchResult, error) {
		r := req
		r.File, r.Column = duckFile, "emb"
		return peers.DuckDBTopK(ctx, r)
	}); err != nil {
		return nil, err
	}
	if err := peerRun(peers.LanceDB, "Lance table built from the raw floats", func() (*peers.SearchResult, error) {
		t, err := peers.LanceDBBuild(ctx, sidecar, cfg.n, cfg.dim, filepath.Join(dir, "lance"))
		if err != nil {
			return nil, err
		}
		r := req
		r.Dir, r.Table = t.Dir, t.Table
		return peers.LanceDBSearch(ctx, r)
	}); err != nil {
		return nil, err
	}
	if err := peerRun(peers.FAISS, "raw floats loaded into a flat index", func() (*peers.SearchResult, error) {
		r := req
		r.Sidecar, r.N = sidecar, cfg.n
		return peers.FAISSSearch(ctx, r)
	}); err != nil {
		return nil, err
	}
	return sb, nil
}

type idList struct {
	ID  int64     `parquet:"id"`
	Emb []float32 `parquet:"emb,list"`
}

// writeIDList writes the vectors as DuckDB searches them: an id column and a
// LIST<FLOAT> column, the layout its array functions cast to FLOAT[dim].
func writeIDList(path string, m vector.Matrix) error {
	rows := make([]idList, m.Rows())
	for i := range rows {
		rows[i] = idList{ID: int64(i), Emb: m.Row(i)}
	}
	if err := parquet.WriteFile(path, rows); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// timeBest is the fastest of runs calls of fn in milliseconds, and the
// ids of the last call.
func timeBest(runs int, fn func() ([][]int64, error)) (ms float64, ids [][]int64, err error) {
	sec, err := bench.BestOf(runs, func() error {
		ids, err = fn()
		return err
	})
	return sec * 1e3, ids, err
}

func report(sb *searchBench) (*notebook.Report, error) {
	cfg := sb.cfg
	rawMB := float64(cfg.n*cfg.dim*4) / 1e6
	r := &notebook.Report{
		Title:    "Exact vector search: the lab against DuckDB, LanceDB and FAISS",
		Question: "How fast is the lab's exact top-k search straight from a Parquet VECTOR column, against DuckDB over Parquet, LanceDB and FAISS on the same vectors and queries, measured in the same run, and do all of them return the true neighbours?",
		Setup: []string{
			fmt.Sprintf("Data: %d clustered vectors × %d float32 (%.1f MB raw, bench.Clustered, 64 clusters, seed %d); %d held-out queries from the same clusters; top-%d by %s.", cfg.n, cfg.dim, rawMB, cfg.seed, cfg.queries, cfg.k, cfg.metric),
			fmt.Sprintf("The lab searches its FLBA file (VECTOR annotation, plain, uncompressed) with vectorcol.SearchFile, best of %d runs; its in-memory batch is vector.SearchBatch. DuckDB reads a Parquet file of the same floats as (id, LIST<FLOAT>); LanceDB and FAISS load them from a raw sidecar. Peers are capped at %d threads, the lab uses every core (%d).", cfg.runs, runtime.NumCPU(), runtime.NumCPU()),
			"Peer times are the peers' own timings of the queries (bench/peers), without process start or JSON; load times are listed apart. Recall is k-nn recall against float64 ground truth (ε = 1e-3).",
			fmt.Sprintf("Memory-bandwidth floor measured in the same run at the raw size: %.2f GB/s (%.3f ms per scan of the data).", sb.floor.GBps, sb.floor.Seconds*1e3),
		},
	}
	if len(sb.missing) > 0 {
		r.Setup = append(r.Setup, fmt.Sprintf("**Peers missing here**, so their rows are absent and only the lab's own figures are shown: %s. Install them (see bench/peers) and rerun; CI sets LAB_REQUIRE_PEERS=1, which makes their absence fail.", strings.Join(sb.missing, "; ")))
	}

	r.Section("Results")
	floorMS := sb.floor.Seconds * 1e3
	t := notebook.NewTable(notebook.Text("engine"), notebook.Text("mode"), notebook.Text("searches"), notebook.Num("load ms", "%.1f"),
		notebook.Num("ms / query", "%.3f"), notebook.Num("queries/s", "%.0f"), notebook.Num("÷ floor", "%.1f"), notebook.Num("recall@"+strconv.Itoa(cfg.k), "%.3f"))
	for _, e := range sb.runs {
		pq := e.perQueryMS(cfg.queries)
		if err := t.Row(e.Engine, e.Mode, e.Source, e.LoadMS, pq, 1e3/pq, pq/floorMS, e.Recall); err != nil {
			return nil, err
		}
	}
	r.Table(t)
	r.Text("\"÷ floor\" is the time per query over the time to read the raw floats once: a scan-per-query engine cannot go below 1; a batch that shares one scan among all queries can.")

	names := make([]string, len(sb.runs))
	perQuery := make([]float64, len(sb.runs))
	for i, e := range sb.runs {
		names[i] = e.name()
		perQuery[i] = e.perQueryMS(cfg.queries)
	}
	p, err := notebook.Bars("Time per query", "ms per query (log)", names, []notebook.Series{{Name: "ms/query", Values: perQuery}}, true)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("per-query.svg", fmt.Sprintf("Milliseconds per top-%d query, %d×%d, %s (lower is faster); the floor is %.3f ms.", cfg.k, cfg.n, cfg.dim, cfg.metric, floorMS), p); err != nil {
		return nil, err
	}

	findings(r, sb)
	return r, nil
}

func findings(r *notebook.Report, sb *searchBench) {
	cfg := sb.cfg
	floorMS := sb.floor.Seconds * 1e3
	byEngine := func(engine string) []engineRun {
		var out []engineRun
		for _, e := range sb.runs {
			if e.Engine == engine {
				out = append(out, e)
			}
		}
		return out
	}
	fastestOf := func(runs []engineRun) engineRun {
		return slices.MinFunc(runs, func(a, b engineRun) int { return cmp.Compare(a.TotalMS, b.TotalMS) })
	}
	lab := byEngine("lab")
	labFile := lab[0] // one query at a time from the file
	labBest := fastestOf(lab)
	overall := fastestOf(sb.runs)
	r.Headline = fmt.Sprintf("At %d×%d, the lab answers a top-%d query from its Parquet file in %.2f ms (%.1f× the floor); fastest overall: %s, %.3f ms/query.",
		cfg.n, cfg.dim, cfg.k, labFile.perQueryMS(cfg.queries), labFile.perQueryMS(cfg.queries)/floorMS, overall.name(), overall.perQueryMS(cfg.queries))

	worst := slices.MinFunc(sb.runs, func(a, b engineRun) int { return cmp.Compare(a.Recall, b.Recall) })
	if worst.Recall >= 0.999 {
		r.Finding("Every engine and mode returned the true top-%d (lowest recall %.3f, %s): all of them search exactly, so only speed differs.", cfg.k, worst.Recall, worst.name())
	} else {
		r.Finding("Not every answer is exact: %s reaches recall %.3f.", worst.name(), worst.Recall)
	}
	r.Finding("The lab, one query at a time from the Parquet file: %.2f ms per query, %.1f× the floor; sharing one scan among all %d queries brings it to %.3f ms per query (%s).",
		labFile.perQueryMS(cfg.queries), labFile.perQueryMS(cfg.queries)/floorMS, cfg.queries, labBest.perQueryMS(cfg.queries), labBest.Mode)
	for _, engine := range []string{peers.DuckDB.Name, peers.LanceDB.Name, peers.FAISS.Name} {
		runs := byEngine(engine)
		if len(runs) == 0 {
			continue
		}
		best := fastestOf(runs)
		ratio := best.perQueryMS(cfg.queries) / labFile.perQueryMS(cfg.queries)
		cmp := fmt.Sprintf("%.1f× the lab's per-query file search", ratio)
		if ratio < 1 {
			cmp = fmt.Sprintf("%.1f× faster than the lab's per-query file search", 1/ratio)
		}
		r.Finding("%s at its best (%s): %.3f ms per query, %s; it loaded for %.0f ms first.", engine, best.Mode, best.perQueryMS(cfg.queries), cmp, best.LoadMS)
	}
	if len(sb.missing) > 0 {
		r.Finding("Not compared here, because they are not installed: %s.", strings.Join(sb.missing, "; "))
	}
}

// idsOf is the row ids of each query's results, or err.
func idsOf(res [][]vector.Result, err error) ([][]int64, error) {
	if err != nil {
		return nil, err
	}
	ids := make([][]int64, len(res))
	for i, r := range res {
		ids[i] = vector.IDsOf(r)
	}
	return ids, nil
}
