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

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/notebooks/notebook"
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

// searchBench is the experiment's outcome: what bench.RunEngines measured,
// and the peers it left out because they are not installed here.
type searchBench struct {
	cfg     config
	floor   bench.FloorResult // at the raw float32 size
	runs    []bench.EngineRun
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

// labPerQuery is the lab's one-query-at-a-time file search: the run every
// other must agree with (bench.RunEngines refuses an engine that returns
// other rows than the lab's, ties aside).
const labPerQuery = "file, one query at a time"

// measure writes the vectors in the forms the engines read and hands the
// engines to the bench runner, which times them (the lab best of cfg.runs),
// measures the floor, and checks agreement and recall.
func measure(ctx context.Context, cfg config) (*searchBench, error) {
	dir, err := os.MkdirTemp("", "vector-search-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	raw, queries, err := bench.Dataset("clustered", cfg.n, cfg.dim, 64, cfg.queries, cfg.seed)
	if err != nil {
		return nil, err
	}
	data := vector.Matrix{Dim: cfg.dim, Data: raw}

	// The lab searches its VECTOR-annotated FLBA file; DuckDB a Parquet
	// file of (id, LIST<FLOAT>), which its array functions need; LanceDB
	// and FAISS load a raw sidecar of the same floats.
	labFile := filepath.Join(dir, "lab-flba.parquet")
	duckFile := filepath.Join(dir, "duckdb-list.parquet")
	sidecar := filepath.Join(dir, "vectors.f32")
	if err := bench.WritePlainVectors(labFile, data, vectorcol.LayoutFLBA); err != nil {
		return nil, err
	}
	if err := bench.WriteIDListFile(duckFile, data); err != nil {
		return nil, err
	}
	if err := peers.WriteSidecar(sidecar, data); err != nil {
		return nil, err
	}
	const (
		fileSource  = "FLBA Parquet file"
		duckSource  = "Parquet file (id, LIST<FLOAT>)"
		lanceSource = "Lance table built from the raw floats"
		faissSource = "raw floats loaded into a flat index"
	)
	threads := runtime.NumCPU()
	res, err := bench.RunEngines(ctx, bench.RunConfig{
		Data: data, Queries: queries, Metric: cfg.metric, K: cfg.k,
		Engines: []bench.Engine{
			&bench.LabFileEngine{Path: labFile, Mode: labPerQuery, Reads: fileSource},
			&bench.LabFileEngine{Path: labFile, Batch: true, Mode: "file, all queries in one scan", Reads: fileSource},
			&bench.LabMemoryEngine{Mode: "memory, batch", Reads: "in-memory matrix"},
			&bench.DuckDBEngine{Mode: "parquet", File: duckFile, Column: "emb", Reads: duckSource, Threads: threads},
			&bench.DuckDBEngine{Mode: "memory", File: duckFile, Column: "emb", Reads: duckSource, Threads: threads},
			&bench.LanceDBEngine{Sidecar: sidecar, Dir: filepath.Join(dir, "lance"), Reads: lanceSource},
			&bench.FAISSEngine{Mode: "single", Sidecar: sidecar, Reads: faissSource, Threads: threads},
			&bench.FAISSEngine{Mode: "batch", Sidecar: sidecar, Reads: faissSource, Threads: threads},
		},
		Reference:   "lab " + labPerQuery,
		SearchRuns:  cfg.runs,
		FloorRuns:   5,
		Recall:      true,
		SkipMissing: true,
	})
	if err != nil {
		return nil, err
	}
	return &searchBench{cfg: cfg, floor: res.Floor, runs: res.Search, missing: res.Missing}, nil
}

func report(sb *searchBench) (*notebook.Report, error) {
	cfg := sb.cfg
	rawMB := float64(cfg.n*cfg.dim*4) / 1e6
	r := &notebook.Report{
		Title:    "Exact vector search: the lab against DuckDB, LanceDB and FAISS",
		Question: "How fast is the lab's exact top-k search straight from a Parquet VECTOR column, against DuckDB over Parquet, LanceDB and FAISS on the same vectors and queries, measured in the same run, and do all of them return the true neighbours?",
		Setup: []string{
			fmt.Sprintf("Data: %d clustered vectors × %d float32 (%.1f MB raw, bench.Clustered, 64 clusters, seed %d); %d held-out queries from the same clusters; top-%d by %s.", cfg.n, cfg.dim, rawMB, cfg.seed, cfg.queries, cfg.k, cfg.metric),
			fmt.Sprintf("The lab searches its FLBA file (VECTOR annotation, plain, uncompressed) with vector.SearchFile, best of %d runs; its in-memory batch is vector.SearchBatch. DuckDB reads a Parquet file of the same floats as (id, LIST<FLOAT>); LanceDB and FAISS load them from a raw sidecar. Peers are capped at %d threads, the lab uses every core (%d).", cfg.runs, runtime.NumCPU(), runtime.NumCPU()),
			"Every engine runs through bench.RunEngines, the runner of `lab bench peers`, each peer mode in its own process. Peer times are the peers' own timings of the queries (bench/peers), without process start or JSON; load times are listed apart. Every engine's rows must equal the lab's one-query-at-a-time answer (ties within 1e-4 aside) or the run fails; recall is k-nn recall against float64 ground truth (ε = 1e-3).",
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
		pq := e.MeanMS
		if err := t.Row(e.Engine, e.Mode, e.Reads, e.LoadMS, pq, 1e3/pq, pq/floorMS, e.Recall); err != nil {
			return nil, err
		}
	}
	r.Table(t)
	r.Text("\"÷ floor\" is the time per query over the time to read the raw floats once: a scan-per-query engine cannot go below 1; a batch that shares one scan among all queries can.")

	names := make([]string, len(sb.runs))
	perQuery := make([]float64, len(sb.runs))
	for i, e := range sb.runs {
		names[i] = e.Name()
		perQuery[i] = e.MeanMS
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
	byEngine := func(engine string) []bench.EngineRun {
		var out []bench.EngineRun
		for _, e := range sb.runs {
			if e.Engine == engine {
				out = append(out, e)
			}
		}
		return out
	}
	fastestOf := func(runs []bench.EngineRun) bench.EngineRun {
		return slices.MinFunc(runs, func(a, b bench.EngineRun) int { return cmp.Compare(a.TotalMS, b.TotalMS) })
	}
	lab := byEngine("lab")
	labFile := lab[0] // one query at a time from the file
	labBest := fastestOf(lab)
	overall := fastestOf(sb.runs)
	r.Headline = fmt.Sprintf("At %d×%d, the lab answers a top-%d query from its Parquet file in %.2f ms (%.1f× the floor); fastest overall: %s, %.3f ms/query.",
		cfg.n, cfg.dim, cfg.k, labFile.MeanMS, labFile.MeanMS/floorMS, overall.Name(), overall.MeanMS)

	worst := slices.MinFunc(sb.runs, func(a, b bench.EngineRun) int { return cmp.Compare(a.Recall, b.Recall) })
	if worst.Recall >= 0.999 {
		r.Finding("Every engine and mode returned the true top-%d (lowest recall %.3f, %s): all of them search exactly, so only speed differs.", cfg.k, worst.Recall, worst.Name())
	} else {
		r.Finding("Not every answer is exact: %s reaches recall %.3f.", worst.Name(), worst.Recall)
	}
	r.Finding("The lab, one query at a time from the Parquet file: %.2f ms per query, %.1f× the floor; sharing one scan among all %d queries brings it to %.3f ms per query (%s).",
		labFile.MeanMS, labFile.MeanMS/floorMS, cfg.queries, labBest.MeanMS, labBest.Mode)
	for _, engine := range []string{peers.DuckDB.Name, peers.LanceDB.Name, peers.FAISS.Name} {
		runs := byEngine(engine)
		if len(runs) == 0 {
			continue
		}
		best := fastestOf(runs)
		ratio := best.MeanMS / labFile.MeanMS
		cmp := fmt.Sprintf("%.1f× the lab's per-query file search", ratio)
		if ratio < 1 {
			cmp = fmt.Sprintf("%.1f× faster than the lab's per-query file search", 1/ratio)
		}
		r.Finding("%s at its best (%s): %.3f ms per query, %s; it loaded for %.0f ms first.", engine, best.Mode, best.MeanMS, cmp, best.LoadMS)
	}
	if len(sb.missing) > 0 {
		r.Finding("Not compared here, because they are not installed: %s.", strings.Join(sb.missing, "; "))
	}
}
