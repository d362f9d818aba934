package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// PeerBenchConfig configures RunPeerBench. The dataset, seed and queries are
// the vector benchmark's (RunVectorBench), so the figures line up.
type PeerBenchConfig struct {
	Size Size
	// Dataset is "clustered" (default) or "uniform".
	Dataset  string
	Clusters int    // default 64
	Seed     uint64 // default 1
	Queries  int    // default 64, the vector benchmark's batch
	K        int    // default 10
	TakeRows int    // distinct random rows taken; default 100
	// Runs is how many times the floor and the takes are measured, best
	// kept; default 3. Searches run once per query: each engine answers the
	// same queries in the same order, once.
	Runs   int
	Metric vector.Metric // default cosine
	// Dir holds the files (default: a new temporary directory, removed
	// afterwards).
	Dir string
	// PeerTimeout bounds each search process; default 10 minutes (the
	// DuckDB straight-from-Parquet run at the reference sizes is long).
	PeerTimeout time.Duration
	// Progress, when set, receives one line per step.
	Progress io.Writer
}

// PeerBenchFile is one file the benchmark wrote and who reads it.
type PeerBenchFile struct {
	Name    string
	Bytes   int64
	Format  string
	ReadBy  []string
	Comment string `json:",omitempty"`
}

// PeerSearch is one engine answering every query one way.
type PeerSearch struct {
	Engine string // lab, duckdb, lancedb, faiss
	Mode   string // single, batch, parquet, memory, flat
	Batch  bool   // all queries in one call
	// Reads says where the vectors come from for each query.
	Reads string
	// Computes says exactly what the score is.
	Computes string
	// LoadMS is the time to load or index the data before the queries
	// (DuckDB's FLOAT[N] table, FAISS's index, opening LanceDB's table);
	// not part of the query times.
	LoadMS float64
	// TotalMS is the queries' time as the engine measured it in-process.
	TotalMS float64
	// MedianMS is the median single query's time; for a batch, TotalMS per
	// query. MeanMS is TotalMS per query.
	MedianMS, MeanMS float64
	QPS              float64 // queries / TotalMS
	// FloorRatio is MedianMS / the floor's time: how many full-speed
	// memory passes over the dataset one query costs.
	FloorRatio float64
	// LabRatio is MedianMS / the lab's: a single-query run against the
	// lab's single-query search of the flba file, a batch against the lab's
	// batch. Above 1 means slower than the lab.
	LabRatio float64
	// ProcessMS is the peer process's wall time seen from Go (0 for the
	// lab); OutsideMS is the part of it outside LoadMS and TotalMS:
	// process start-up, module import, the request and result JSON.
	ProcessMS, OutsideMS float64
	Agreement            Agreement
}

// Agreement is how one run's answers compare with the lab's single-query
// search of the flba file, the reference.
type Agreement struct {
	Queries int // queries compared
	SameIDs int // queries whose ids equal the lab's, in order
	// TieSwaps counts ranks whose id differs from the lab's while both
	// scores are equal to the lab's within the tolerance.
	TieSwaps int
	// MaxScoreDiff is the largest |score − lab's score| at the same rank.
	MaxScoreDiff float64
}

// PeerTake is reading TakeRows random rows with their vectors.
type PeerTake struct {
	Engine string
	// OpenMS opens the file or table once; TakeMS is the best of Runs
	// takes on it, FirstTakeMS the first; OpenTakeMS (the lab only) is the
	// best of Runs vectorcol.Take calls, which open the file each time.
	OpenMS, TakeMS, FirstTakeMS, OpenTakeMS float64
	LabRatio                                float64 // TakeMS / the lab's TakeMS
	ProcessMS                               float64 `json:",omitempty"`
}

// Verdict is one of the benchmark's targets and whether this run met it.
type Verdict struct {
	Target string
	Met    bool
	Detail string
}

// PeerBenchReport is the outcome of RunPeerBench.
type PeerBenchReport struct {
	Size              string
	N, Dim            int
	Dataset           string
	Seed              uint64
	Metric            string
	K, Queries        int
	TakeRows          int
	RawBytes          int64
	Cores             int
	Floor             FloorResult
	LoadAvgStart      string
	LoadAvgEnd        string
	Versions          map[string]string
	Files             []PeerBenchFile
	Search            []PeerSearch
	Take              []PeerTake
	LanceDBBuildMS    float64
	ScoreTolerance    float64
	Verdicts          []Verdict
	Notes             []string
	StartedAt         time.Time
	DurationSeconds   float64
	DuckDBReadsFLBAAs string // the column type DuckDB reports for the lab's flba column
}

// scoreTolerance is how far two engines' scores for the same rank may be
// apart: float32 sums in different orders differ in the last bits, and a
// different id at a rank is accepted only between scores this close (a tie).
const scoreTolerance = 1e-4

// RunPeerBench measures the lab's exact search and take against DuckDB,
// LanceDB and FAISS on the same data and queries, in one run, with the
// memory-bandwidth floor measured in the same run, and checks that every
// engine returns the lab's top-k. The peers run as child processes with a
// time limit each (package peers); a missing, crashing, hanging or garbled
// peer fails the run with an error naming it.
func RunPeerBench(ctx context.Context, cfg PeerBenchConfig) (*PeerBenchReport, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	started := time.Now()
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "peers: "+format+"\n", args...)
		}
	}
	for _, p := range []peers.Peer{peers.DuckDB, peers.LanceDB, peers.FAISS} {
		if err := p.Available(); err != nil {
			return nil, err
		}
	}
	n, dim := cfg.Size.N, cfg.Size.Dim
	rep := &PeerBenchReport{
		Size: cfg.Size.Name, N: n, Dim: dim, Dataset: cfg.Dataset, Seed: cfg.Seed,
		Metric: cfg.Metric.String(), K: cfg.K, Queries: cfg.Queries, TakeRows: cfg.TakeRows,
		RawBytes: cfg.Size.Bytes(), Cores: runtime.GOMAXPROCS(0), ScoreTolerance: scoreTolerance,
		LoadAvgStart: loadAverage(), Versions: map[string]string{"go": runtime.Version()}, StartedAt: started,
	}

	progress("generating %s %s with %d queries (seed %d)", cfg.Dataset, cfg.Size, cfg.Queries, cfg.Seed)
	data, queries, err := Dataset(cfg.Dataset, n, dim, cfg.Clusters, cfg.Queries, cfg.Seed)
	if err != nil {
		return nil, err
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "lab-peers-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, err := writePeerFiles(ctx, dir, data, rep)
	if err != nil {
		return nil, err
	}

	progress("measuring the memory-bandwidth floor at %.1f MB", float64(rep.RawBytes)/1e6)
	if rep.Floor, err = Floor(rep.RawBytes, cfg.Runs); err != nil {
		return nil, err
	}
	floorMS := rep.Floor.Seconds * 1e3

	// The reference: the lab's single-query search of the flba file, each
	// query opening the file as a user's one-off search would.
	progress("lab: %d single queries from %s", cfg.Queries, filepath.Base(files.flba))
	ref, labSingle, err := labSearchSingle(files.flba, cfg.Metric, queries, cfg.K)
	if err != nil {
		return nil, err
	}
	labSingle.Reads = "flba Parquet file (FIXED_LEN_BYTE_ARRAY, PLAIN, uncompressed), opened per query"
	runs := []PeerSearch{labSingle}
	answers := [][]peers.Hits{nil} // the reference is not compared with itself

	if files.duckdb != files.flba {
		progress("lab: %d single queries from %s", cfg.Queries, filepath.Base(files.duckdb))
		res, run, err := labSearchSingle(files.duckdb, cfg.Metric, queries, cfg.K)
		if err != nil {
			return nil, err
		}
		run.Mode = "single (list file)"
		run.Reads = "list Parquet file (the one DuckDB reads), opened per query"
		runs, answers = append(runs, run), append(answers, labHits(res))
	}

	progress("lab: one batch of %d queries", cfg.Queries)
	start := time.Now()
	batch, err := vector.SearchFile(registry.LocalInput(files.flba), cfg.Metric, queries, cfg.K, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: lab batch search of %s: %w", files.flba, err)
	}
	runs = append(runs, PeerSearch{Engine: "lab", Mode: "batch", Batch: true, TotalMS: msSince(start),
		Reads: "flba Parquet file, one pass for all queries"})
	answers = append(answers, labHits(batch))

	req := peers.SearchRequest{Dim: dim, Metric: cfg.Metric.String(), K: cfg.K,
		Queries: peers.QueryRows(queries), Timeout: cfg.PeerTimeout}

	// Each peer mode runs in its own process, so that its process time is
	// its own.
	duckReq := req
	duckReq.File, duckReq.Column, duckReq.RowIDs = files.duckdb, vectorcol.ColumnName, true
	for _, mode := range []string{"parquet", "memory"} {
		progress("duckdb: %d queries, mode %s", cfg.Queries, mode)
		duckReq.Modes = []string{mode}
		res, wall, err := timed(func() (*peers.SearchResult, error) { return peers.DuckDBTopK(ctx, duckReq) })
		if err != nil {
			return nil, err
		}
		rep.Versions["duckdb"] = res.Version
		reads := "the Parquet file, read_parquet per query"
		if mode == "memory" {
			reads = "a FLOAT[N] table loaded from the Parquet file first (load ms)"
		}
		run, hits, err := peerRun("duckdb", res, mode, wall, reads)
		if err != nil {
			return nil, err
		}
		runs, answers = append(runs, run), append(answers, hits)
	}

	progress("lancedb: building the table from the sidecar")
	table, err := peers.LanceDBBuild(ctx, files.sidecar, n, dim, filepath.Join(dir, "lancedb"))
	if err != nil {
		return nil, err
	}
	rep.LanceDBBuildMS = table.TimingsMS["read"] + table.TimingsMS["build"]
	files.add(rep, "lancedb", "Lance dataset (LanceDB table: id int64, vector FixedSizeList<float32>[N]), built from the sidecar", []string{"lancedb"})
	progress("lancedb: %d flat queries", cfg.Queries)
	lanceReq := req
	lanceReq.Dir, lanceReq.Table = table.Dir, table.Table
	res, wall, err := timed(func() (*peers.SearchResult, error) { return peers.LanceDBSearch(ctx, lanceReq) })
	if err != nil {
		return nil, err
	}
	rep.Versions["lancedb"] = res.Version
	run, hits, err := peerRun("lancedb", res, "flat", wall, "the Lance dataset on disk, no vector index (bypassVectorIndex), table opened once (load ms)")
	if err != nil {
		return nil, err
	}
	runs, answers = append(runs, run), append(answers, hits)

	faissReq := req
	faissReq.Sidecar, faissReq.N = files.sidecar, n
	for _, mode := range []string{"single", "batch"} {
		progress("faiss: %d queries, mode %s", cfg.Queries, mode)
		faissReq.Modes = []string{mode}
		res, wall, err := timed(func() (*peers.SearchResult, error) { return peers.FAISSSearch(ctx, faissReq) })
		if err != nil {
			return nil, err
		}
		rep.Versions["faiss"] = res.Version
		run, hits, err := peerRun("faiss", res, mode, wall, "an in-memory IndexFlat built from the sidecar first (load ms)")
		if err != nil {
			return nil, err
		}
		runs, answers = append(runs, run), append(answers, hits)
	}

	progress("checking that every engine returns the lab's top-%d", cfg.K)
	dataM := vector.Matrix{Dim: dim, Data: data}
	for i := range runs {
		runs[i].Computes = computes(runs[i].Engine, cfg.Metric)
		if answers[i] == nil {
			runs[i].Agreement = Agreement{Queries: len(ref), SameIDs: len(ref)}
			continue
		}
		name := runs[i].Engine + " " + runs[i].Mode
		if runs[i].Agreement, err = compareTopK(name, cfg.Metric, dataM, queries, ref, answers[i]); err != nil {
			return nil, err
		}
	}
	finishSearchRatios(runs, cfg.Queries, floorMS)
	rep.Search = runs

	progress("take: %d random rows, lab and lancedb", cfg.TakeRows)
	if rep.Take, err = takeBoth(ctx, files.flba, table, dataM, cfg, cfg.Seed); err != nil {
		return nil, err
	}

	rep.Verdicts = verdicts(rep)
	rep.LoadAvgEnd = loadAverage()
	rep.DurationSeconds = time.Since(started).Seconds()
	return rep, nil
}

func (cfg *PeerBenchConfig) defaults() error {
	if err := datasetDefaults("peer benchmark", cfg.Size, &cfg.Dataset, &cfg.Clusters, &cfg.Seed); err != nil {
		return err
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 64
	}
	if cfg.K <= 0 {
		cfg.K = 10
	}
	if cfg.K > cfg.Size.N {
		return fmt.Errorf("bench: k %d exceeds the %d rows", cfg.K, cfg.Size.N)
	}
	if cfg.TakeRows <= 0 {
		cfg.TakeRows = 100
	}
	cfg.TakeRows = min(cfg.TakeRows, cfg.Size.N)
	if cfg.Runs <= 0 {
		cfg.Runs = 3
	}
	if cfg.Metric == 0 {
		cfg.Metric = vector.MetricCosine
	}
	if !cfg.Metric.Valid() {
		return fmt.Errorf("bench: unknown metric %d", cfg.Metric)
	}
	if cfg.PeerTimeout <= 0 {
		cfg.PeerTimeout = 10 * time.Minute
	}
	return nil
}

// peerFiles are the paths of one run's inputs.
type peerFiles struct {
	flba    string // the lab's recommended search layout
	duckdb  string // the file DuckDB searches: flba when it can, else list
	sidecar string // raw float32 for LanceDB and FAISS
	dir     string
}

func (f peerFiles) add(rep *PeerBenchReport, name, format string, readBy []string) {
	var size int64
	_ = filepath.WalkDir(filepath.Join(f.dir, name), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	rep.Files = append(rep.Files, PeerBenchFile{Name: name, Bytes: size, Format: format, ReadBy: readBy})
}

// writePeerFiles writes the lab's flba file, the sidecar, and asks DuckDB
// how it reads the flba column: DuckDB (1.5) sees a FIXED_LEN_BYTE_ARRAY as
// BLOB and has no cast from BLOB to FLOAT[N], so unless it reports a float
// array it gets a copy in the list layout, which it reads as FLOAT[].
func writePeerFiles(ctx context.Context, dir string, data []float32, rep *PeerBenchReport) (peerFiles, error) {
	f := peerFiles{dir: dir, flba: filepath.Join(dir, "vectors-flba.parquet"), sidecar: filepath.Join(dir, "vectors.f32")}
	col := vectorcol.Column{Dim: rep.Dim, Data: data}
	plain := vectorcol.WriteOptions{Layout: vectorcol.LayoutFLBA, Encoding: vectorcol.EncodingPlain, Codec: vectorcol.CodecNone}
	if err := vectorcol.WriteFile(f.flba, col, plain); err != nil {
		return f, fmt.Errorf("bench: %s: %w", f.flba, err)
	}
	if err := peers.WriteSidecar(f.sidecar, vector.Matrix{Dim: rep.Dim, Data: data}); err != nil {
		return f, err
	}
	seen, err := peers.Read(ctx, peers.DuckDB, f.flba, 0)
	if err != nil {
		return f, err
	}
	for _, c := range seen.Columns {
		if c.Name == vectorcol.ColumnName {
			rep.DuckDBReadsFLBAAs = c.Type
		}
	}
	readers := []string{"lab"}
	if strings.HasPrefix(rep.DuckDBReadsFLBAAs, "FLOAT[") {
		f.duckdb = f.flba
		readers = append(readers, "duckdb")
	} else {
		f.duckdb = filepath.Join(dir, "vectors-list.parquet")
		plain.Layout = vectorcol.LayoutList
		if err := vectorcol.WriteFile(f.duckdb, col, plain); err != nil {
			return f, fmt.Errorf("bench: %s: %w", f.duckdb, err)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("DuckDB reads the lab's flba column as %s and has no cast from it to FLOAT[%d], "+
			"so DuckDB searches a copy in the list layout (LIST<FLOAT>, PLAIN, uncompressed), which the lab searches too (lab \"single (list file)\").",
			rep.DuckDBReadsFLBAAs, rep.Dim))
	}
	f.add(rep, filepath.Base(f.flba), "Parquet, flba layout: FIXED_LEN_BYTE_ARRAY(4N) with the VECTOR annotation, PLAIN, uncompressed", readers)
	if f.duckdb != f.flba {
		f.add(rep, filepath.Base(f.duckdb), "Parquet, list layout: LIST<FLOAT>, PLAIN, uncompressed", []string{"duckdb", "lab"})
	}
	f.add(rep, filepath.Base(f.sidecar), "raw float32 little-endian, row-major", []string{"lancedb (build)", "faiss"})
	return f, nil
}

// labSearchSingle answers each query with its own SearchFile call, timing
// each, and returns the answers and the run.
func labSearchSingle(path string, metric vector.Metric, queries vector.Matrix, k int) ([][]vector.Result, PeerSearch, error) {
	run := PeerSearch{Engine: "lab", Mode: "single"}
	out := make([][]vector.Result, queries.Rows())
	times := make([]float64, queries.Rows())
	for i := range out {
		q := vector.Matrix{Dim: queries.Dim, Data: queries.Row(i)}
		start := time.Now()
		res, err := vector.SearchFile(registry.LocalInput(path), metric, q, k, nil)
		times[i] = msSince(start)
		if err != nil {
			return nil, run, fmt.Errorf("bench: lab search of %s, query %d: %w", path, i, err)
		}
		out[i] = res[0]
		run.TotalMS += times[i]
	}
	run.MedianMS = median(times)
	return out, run, nil
}

func labHits(res [][]vector.Result) []peers.Hits {
	out := make([]peers.Hits, len(res))
	for i, r := range res {
		out[i].IDs = vector.IDsOf(r)
		for _, x := range r {
			out[i].Scores = append(out[i].Scores, float64(x.Score))
		}
	}
	return out
}

// peerRun turns a peer's answer into a run of the report.
func peerRun(engine string, res *peers.SearchResult, mode string, wallMS float64, reads string) (PeerSearch, []peers.Hits, error) {
	r := res.Run(mode)
	if r == nil {
		return PeerSearch{}, nil, &peers.Error{Peer: engine, Kind: peers.ErrGarbage, Detail: fmt.Sprintf("no run of mode %q in the result", mode)}
	}
	run := PeerSearch{Engine: engine, Mode: mode, Batch: mode == "batch", Reads: reads,
		LoadMS: r.LoadMS, TotalMS: r.TotalMS, ProcessMS: wallMS, OutsideMS: wallMS - r.LoadMS - r.TotalMS}
	if !run.Batch {
		times := make([]float64, len(r.Results))
		for i, h := range r.Results {
			times[i] = h.MS
		}
		run.MedianMS = median(times)
	}
	return run, r.Results, nil
}

// finishSearchRatios fills the per-query figures and the ratios to the
// floor and to the lab.
func finishSearchRatios(runs []PeerSearch, queries int, floorMS float64) {
	var labSingle, labBatch float64
	for i := range runs {
		r := &runs[i]
		r.MeanMS = r.TotalMS / float64(queries)
		if r.Batch {
			r.MedianMS = r.MeanMS
		}
		r.QPS = float64(queries) / max(r.TotalMS, 1e-9) * 1e3
		r.FloorRatio = r.MedianMS / floorMS
		switch {
		case r.Engine == "lab" && r.Mode == "single":
			labSingle = r.MedianMS
		case r.Engine == "lab" && r.Mode == "batch":
			labBatch = r.MedianMS
		}
	}
	for i := range runs {
		r := &runs[i]
		if r.Batch {
			r.LabRatio = r.MedianMS / labBatch
		} else {
			r.LabRatio = r.MedianMS / labSingle
		}
	}
}

// compareTopK checks one engine's answers against the lab's reference:
// for every query and rank, the engine's score must equal the lab's within
// the tolerance, and where the id differs, that id's own score (recomputed
// by the lab from the data) must too, so a different id is accepted only
// as an equally good row, a tie. Ids must be rows of the data and not repeat.
// The error names the engine and the query.
func compareTopK(engine string, metric vector.Metric, data, queries vector.Matrix, want [][]vector.Result, got []peers.Hits) (Agreement, error) {
	var a Agreement
	if len(got) != len(want) {
		return a, fmt.Errorf("bench: %s answered %d queries, the lab %d", engine, len(got), len(want))
	}
	tol := func(ref float64) float64 {
		if metric == vector.MetricCosine {
			return scoreTolerance // cosine is in [-1, 1]
		}
		return scoreTolerance * max(1, math.Abs(ref))
	}
	for qi := range want {
		w, g := want[qi], got[qi]
		fail := func(format string, args ...any) (Agreement, error) {
			return a, fmt.Errorf("bench: %s disagrees with the lab on query %d: %s", engine, qi, fmt.Sprintf(format, args...))
		}
		if len(g.IDs) != len(w) || len(g.Scores) != len(g.IDs) {
			return fail("%d ids and %d scores, the lab has %d hits", len(g.IDs), len(g.Scores), len(w))
		}
		q := queries.Row(qi)
		same := true
		seen := make(map[int64]bool, len(g.IDs))
		for r, id := range g.IDs {
			if id < 0 || id >= int64(data.Rows()) {
				return fail("rank %d: id %d is not a row of the %d", r, id, data.Rows())
			}
			if seen[id] {
				return fail("rank %d: id %d repeats", r, id)
			}
			seen[id] = true
			ref := float64(w[r].Score)
			diff := math.Abs(g.Scores[r] - ref)
			if !(diff <= tol(ref)) { // also catches NaN
				return fail("rank %d: id %d score %.7g, the lab's id %d score %.7g (differ by %.2g > %.0e)",
					r, id, g.Scores[r], w[r].ID, ref, diff, tol(ref))
			}
			a.MaxScoreDiff = max(a.MaxScoreDiff, diff)
			if id == w[r].ID {
				continue
			}
			same = false
			own := float64(metric.Score(q, data.Row(int(id))))
			if d := math.Abs(own - ref); !(d <= tol(ref)) {
				return fail("rank %d: id %d instead of the lab's %d, and its score is %.7g, not the lab's %.7g",
					r, id, w[r].ID, own, ref)
			}
			a.TieSwaps++
		}
		a.Queries++
		if same {
			a.SameIDs++
		}
	}
	return a, nil
}

// computes says exactly what an engine's score is, for the report.
func computes(engine string, m vector.Metric) string {
	switch m {
	case vector.MetricCosine:
		switch engine {
		case "lab":
			return "cosine similarity q·x/(‖q‖‖x‖) in float32 (vector.Cosine)"
		case "duckdb":
			return "array_cosine_similarity(CAST(emb AS FLOAT[N]), q::FLOAT[N]), float32"
		case "lancedb":
			return "1 − LanceDB's cosine distance (distanceType cosine), float32"
		case "faiss":
			return "inner product of L2-normalised float32 vectors (IndexFlatIP after normalize_L2 on data and queries)"
		}
	case vector.MetricDot:
		switch engine {
		case "lab":
			return "inner product q·x in float32"
		case "duckdb":
			return "array_inner_product, float32"
		case "lancedb":
			return "1 − LanceDB's dot distance (distanceType dot), float32"
		case "faiss":
			return "IndexFlatIP inner product, float32"
		}
	case vector.MetricL2:
		switch engine {
		case "lab":
			return "squared Euclidean distance in float32"
		case "duckdb":
			return "pow(array_distance, 2), float32 distance squared"
		case "lancedb":
			return "LanceDB's l2 distance (squared), float32"
		case "faiss":
			return "IndexFlatL2 squared distance, float32"
		}
	}
	return ""
}

// takeBoth reads the same distinct random rows with the lab (vectorcol.Take)
// and LanceDB (takeOffsets), checks that both return the dataset's vectors
// bit for bit, and times both, best of cfg.Runs.
func takeBoth(ctx context.Context, flba string, table *peers.LanceDBTable, data vector.Matrix, cfg PeerBenchConfig, seed uint64) ([]PeerTake, error) {
	rows := distinctRows(cfg.TakeRows, data.Rows(), seed)
	check := func(engine string, id int64, got []float32) error {
		want := data.Row(int(id))
		if len(got) != len(want) {
			return fmt.Errorf("bench: %s take: row %d has %d values, want %d", engine, id, len(got), len(want))
		}
		for j := range want {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				return fmt.Errorf("bench: %s take: row %d element %d is %v, the dataset has %v", engine, id, j, got[j], want[j])
			}
		}
		return nil
	}

	lab := PeerTake{Engine: "lab"}
	var got [][]float32
	sec, err := BestOf(cfg.Runs, func() error {
		var e error
		got, e = vectorcol.Take(flba, rows)
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("bench: lab take from %s: %w", flba, err)
	}
	lab.OpenTakeMS = sec * 1e3
	start := time.Now()
	f, err := vectorcol.OpenFile(flba)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lab.OpenMS = msSince(start)
	for i := range cfg.Runs {
		start := time.Now()
		if got, err = f.Take(rows); err != nil {
			return nil, fmt.Errorf("bench: lab take from %s: %w", flba, err)
		}
		ms := msSince(start)
		if i == 0 {
			lab.FirstTakeMS, lab.TakeMS = ms, ms
		}
		lab.TakeMS = min(lab.TakeMS, ms)
	}
	if len(got) != len(rows) {
		return nil, fmt.Errorf("bench: lab take returned %d rows for %d", len(got), len(rows))
	}
	for i, id := range rows {
		if err := check("lab", id, got[i]); err != nil {
			return nil, err
		}
	}

	start = time.Now()
	taken, err := peers.LanceDBTakeRuns(ctx, table, rows, true, cfg.Runs)
	if err != nil {
		return nil, err
	}
	lance := PeerTake{Engine: "lancedb", OpenMS: taken.TimingsMS["open"], FirstTakeMS: taken.TakeMS[0],
		TakeMS: slices.Min(taken.TakeMS), ProcessMS: msSince(start)}
	if len(taken.IDs) != len(rows) || len(taken.Vectors) != len(rows) {
		return nil, &peers.Error{Peer: "lancedb", Kind: peers.ErrGarbage,
			Detail: fmt.Sprintf("take of %d rows returned %d ids and %d vectors", len(rows), len(taken.IDs), len(taken.Vectors))}
	}
	asked := make(map[int64]bool, len(rows))
	for _, id := range rows {
		asked[id] = true
	}
	for i, id := range taken.IDs {
		if !asked[id] {
			return nil, fmt.Errorf("bench: lancedb take returned row %d, which was not asked for", id)
		}
		delete(asked, id)
		if err := check("lancedb", id, taken.Vectors[i]); err != nil {
			return nil, err
		}
	}
	lab.LabRatio, lance.LabRatio = 1, lance.TakeMS/lab.TakeMS
	return []PeerTake{lab, lance}, nil
}

// distinctRows draws count distinct rows of n from the vector benchmark's
// take stream (its seed, stream 9), skipping repeats.
func distinctRows(count, n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 9))
	seen := make(map[int64]bool, count)
	rows := make([]int64, 0, count)
	for len(rows) < count {
		id := r.Int64N(int64(n))
		if !seen[id] {
			seen[id] = true
			rows = append(rows, id)
		}
	}
	return rows
}

// verdicts judges the run against the benchmark's two targets.
func verdicts(rep *PeerBenchReport) []Verdict {
	var lab PeerSearch
	for _, r := range rep.Search {
		if r.Engine == "lab" && r.Mode == "single" {
			lab = r
		}
	}
	// Peers that, like the lab, read the vectors from files for each query.
	fromFile := map[string]bool{"duckdb parquet": true, "lancedb flat": true}
	searchMet := true
	var fileParts, memParts []string
	for _, r := range rep.Search {
		if r.Engine == "lab" || r.Batch {
			continue
		}
		part := fmt.Sprintf("%s %s %s ms (×%.2f)", r.Engine, r.Mode, fmtMS(r.MedianMS), r.LabRatio)
		if fromFile[r.Engine+" "+r.Mode] {
			fileParts = append(fileParts, part)
			searchMet = searchMet && lab.MedianMS < r.MedianMS
		} else {
			memParts = append(memParts, part)
		}
	}
	search := Verdict{
		Target: "lab ahead of every peer on single-query search from a file",
		Met:    searchMet,
		Detail: fmt.Sprintf("Lab %s ms per query (median) vs %s; for information, peers searching memory loaded beforehand: %s",
			fmtMS(lab.MedianMS), strings.Join(fileParts, ", "), strings.Join(memParts, ", ")),
	}
	take := Verdict{Target: fmt.Sprintf("lab take of %d random rows not slower than LanceDB's takeOffsets", rep.TakeRows)}
	if len(rep.Take) == 2 {
		l, p := rep.Take[0], rep.Take[1]
		take.Met = l.TakeMS <= p.TakeMS
		take.Detail = fmt.Sprintf("On an open file/table, best of runs: lab %s ms, lancedb %s ms (×%.2f); opening included: lab %s ms (vectorcol.Take), lancedb %s ms (open) + %s ms",
			fmtMS(l.TakeMS), fmtMS(p.TakeMS), p.LabRatio, fmtMS(l.OpenTakeMS), fmtMS(p.OpenMS), fmtMS(p.TakeMS))
	}
	return []Verdict{search, take}
}

// loadAverage returns the 1, 5 and 15 minute load averages from
// /proc/loadavg, or says why it cannot.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unavailable (" + err.Error() + ")"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unavailable (/proc/loadavg: " + strings.TrimSpace(string(b)) + ")"
	}
	return strings.Join(f[:3], " ")
}

func timed[T any](fn func() (T, error)) (T, float64, error) {
	start := time.Now()
	v, err := fn()
	return v, msSince(start), err
}

// fmtMS prints milliseconds with three significant digits, without
// switching to an exponent.
func fmtMS(ms float64) string {
	if ms >= 100 {
		return fmt.Sprintf("%.0f", ms)
	}
	return fmt.Sprintf("%.3g", ms)
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Markdown renders the report: the setting, one table of searches, one of
// takes, the agreement and the verdicts.
func (r *PeerBenchReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Peer benchmark: %s %s (%d × %d float32, %.1f MB raw), %d queries, top-%d %s, seed %d.\n",
		r.Dataset, r.Size, r.N, r.Dim, float64(r.RawBytes)/1e6, r.Queries, r.K, r.Metric, r.Seed)
	fmt.Fprintf(&b, "Floor %.2f GB/s (%.3f ms for the dataset) on %d cores; load average %s at start, %s at end; %.0f s in all.\n",
		r.Floor.GBps, r.Floor.Seconds*1e3, r.Cores, r.LoadAvgStart, r.LoadAvgEnd, r.DurationSeconds)
	var vs []string
	for _, k := range []string{"duckdb", "lancedb", "faiss", "go"} {
		if v := r.Versions[k]; v != "" && k == "go" {
			vs = append(vs, v) // runtime.Version says "go1.x"
		} else if v != "" {
			vs = append(vs, k+" "+v)
		}
	}
	fmt.Fprintf(&b, "Versions: %s.\n\n", strings.Join(vs, ", "))

	b.WriteString("| file | MB | format | read by |\n|---|--:|---|---|\n")
	for _, f := range r.Files {
		fmt.Fprintf(&b, "| %s | %.1f | %s | %s |\n", f.Name, float64(f.Bytes)/1e6, f.Format, strings.Join(f.ReadBy, ", "))
	}
	b.WriteString("\nSearch. ms/query is the engine's own in-process time: the median single query, or a batch's time per query; " +
		"load is before the queries and not in them; ×floor is ms/query over the floor's time; ×lab is ms/query over the lab's " +
		"(single-query rows against the lab's single query on the flba file, batches against the lab's batch); " +
		"process is the peer process's wall time seen from Go, and outside the part of it that is neither load nor queries (start-up, imports, JSON); " +
		"same ids counts queries whose ids equal the lab's in order, tie swaps the ranks where an equally scored row stands instead.\n\n")
	b.WriteString("| engine | mode | reads | load ms | ms/query | q/s | ×floor | ×lab | process s | outside s | same ids | tie swaps |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Search {
		load, proc, outside := "–", "–", "–"
		if x.Engine != "lab" {
			load = fmt.Sprintf("%.1f", x.LoadMS)
		}
		if x.ProcessMS > 0 {
			proc, outside = fmt.Sprintf("%.2f", x.ProcessMS/1e3), fmt.Sprintf("%.2f", x.OutsideMS/1e3)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f | %.1f | %.2f | %.2f | %s | %s | %d/%d | %d |\n",
			x.Engine, x.Mode, x.Reads, load, x.MedianMS, x.QPS, x.FloorRatio, x.LabRatio, proc, outside,
			x.Agreement.SameIDs, x.Agreement.Queries, x.Agreement.TieSwaps)
	}
	if r.LanceDBBuildMS > 0 {
		fmt.Fprintf(&b, "\nLanceDB table build from the sidecar: %.0f ms (not in any row above).\n", r.LanceDBBuildMS)
	}
	fmt.Fprintf(&b, "\nTake of %d distinct random rows with their vectors (both checked bit for bit against the dataset):\n\n", r.TakeRows)
	b.WriteString("| engine | open ms | take ms (best) | take ms (first) | open+take ms | ×lab |\n|---|--:|--:|--:|--:|--:|\n")
	for _, t := range r.Take {
		openTake := t.OpenTakeMS
		if openTake == 0 {
			openTake = t.OpenMS + t.TakeMS
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", t.Engine, t.OpenMS, t.TakeMS, t.FirstTakeMS, openTake, t.LabRatio)
	}
	b.WriteString("\nWhat each engine computes:\n\n")
	done := map[string]bool{}
	for _, x := range r.Search {
		if !done[x.Engine] {
			done[x.Engine] = true
			fmt.Fprintf(&b, "- %s: %s\n", x.Engine, x.Computes)
		}
	}
	fmt.Fprintf(&b, "\nAgreement: every run returned the lab's top-%d for every query (ids identical, or a different id only where its score equals the lab's within %.0e).\n",
		r.K, r.ScoreTolerance)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	b.WriteString("\nVerdicts:\n\n")
	for _, v := range r.Verdicts {
		mark := "MISSED"
		if v.Met {
			mark = "MET"
		}
		fmt.Fprintf(&b, "- %s: %s. %s.\n", mark, v.Target, v.Detail)
	}
	return b.String()
}
