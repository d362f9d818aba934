package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
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

// PeerBenchReport is the outcome of RunPeerBench.
type PeerBenchReport struct {
	Size       string
	N, Dim     int
	Dataset    string
	Seed       uint64
	Metric     string
	K, Queries int
	TakeRows   int
	RawBytes   int64
	Cores      int
	Floor      FloorResult
	// PageCache is the flba file read from the page cache and nothing else
	// (PageCacheReadFloor), measured after the engines in turn with the
	// memory floor: what a search of the file opened per query pays before
	// it reads a vector, and its ratio to the floor of the same moments.
	PageCache         PageCacheFloor
	LoadAvgStart      string
	LoadAvgEnd        string
	Versions          map[string]string
	Files             []DatasetFile
	Search            []EngineRun
	Take              []TakeRun
	LanceDBBuildMS    float64
	ScoreTolerance    float64
	Verdicts          []Verdict
	Notes             []string
	StartedAt         time.Time
	DurationSeconds   float64
	DuckDBReadsFLBAAs string // the column type DuckDB reports for the lab's flba column
}

// peerBenchReference is the run every engine must agree with: the lab's
// single-query search of the flba file, each query opening the file as a
// user's one-off search would.
const peerBenchReference = "lab single"

// RunPeerBench measures the lab's exact search and take against DuckDB,
// LanceDB and FAISS on the same data and queries, in one run, with the
// memory-bandwidth floor measured in the same run, and checks that every
// engine returns the lab's top-k. It writes the files, picks the engines and
// judges the run; RunEngines measures. The peers run as child processes with
// a time limit each (package peers); a missing, crashing, hanging or garbled
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
	// Every peer is needed: fail before generating anything when one is
	// missing (RunEngines would, but only after the files are written).
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
	raw, queries, err := Dataset(cfg.Dataset, n, dim, cfg.Clusters, cfg.Queries, cfg.Seed)
	if err != nil {
		return nil, err
	}
	data := vector.Matrix{Dim: dim, Data: raw}
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

	labFLBA := &LabFileEngine{Path: files.flba,
		Reads: "flba Parquet file (FIXED_LEN_BYTE_ARRAY, PLAIN, uncompressed), opened per query"}
	engines := []Engine{labFLBA}
	if files.duckdb != files.flba {
		engines = append(engines, &LabFileEngine{Path: files.duckdb, Mode: "single (list file)",
			Reads: "list Parquet file (the one DuckDB reads), opened per query"})
	}
	lance := &LanceDBEngine{Sidecar: files.sidecar, Dir: filepath.Join(dir, "lancedb"), Timeout: cfg.PeerTimeout}
	engines = append(engines,
		&LabFileEngine{Path: files.flba, Batch: true, Reads: "flba Parquet file, one pass for all queries"},
		// Each peer mode runs in its own process, so that its process time
		// is its own.
		&DuckDBEngine{Mode: "parquet", File: files.duckdb, Column: vectorcol.ColumnName, RowIDs: true, Timeout: cfg.PeerTimeout},
		&DuckDBEngine{Mode: "memory", File: files.duckdb, Column: vectorcol.ColumnName, RowIDs: true, Timeout: cfg.PeerTimeout},
		lance,
		&FAISSEngine{Mode: "single", Sidecar: files.sidecar, Timeout: cfg.PeerTimeout},
		&FAISSEngine{Mode: "batch", Sidecar: files.sidecar, Timeout: cfg.PeerTimeout},
	)
	// One floor buffer for the runner's floor and the page-cache read's.
	probe, err := NewFloorProbe(rep.RawBytes)
	if err != nil {
		return nil, err
	}
	defer probe.Close()
	res, err := RunEngines(ctx, RunConfig{
		Data: data, Queries: queries, Metric: cfg.Metric, K: cfg.K,
		Engines:   engines,
		Reference: peerBenchReference,
		FloorRuns: cfg.Runs, FloorBytes: rep.RawBytes, FloorProbe: probe,
		Takers:   []Taker{labFLBA, lance},
		TakeRows: DistinctRows(cfg.TakeRows, n, cfg.Seed), TakeRuns: cfg.Runs,
		Progress: progress,
	})
	if err != nil {
		return nil, err
	}
	rep.Floor, rep.Search, rep.Take = res.Floor, res.Search, res.Take
	if rep.PageCache, err = PageCacheReadFloor(files.flba, cfg.Runs, probe); err != nil {
		return nil, err
	}
	for k, v := range res.Versions {
		rep.Versions[k] = v
	}
	rep.LanceDBBuildMS = lance.BuildMS()
	rep.Files = append(rep.Files, datasetFile(dir, "lancedb",
		"Lance dataset (LanceDB table: id int64, vector FixedSizeList<float32>[N]), built from the sidecar", []string{"lancedb"}))

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
}

// writePeerFiles writes the lab's flba file, the sidecar, and asks DuckDB
// how it reads the flba column: DuckDB (1.5) sees a FIXED_LEN_BYTE_ARRAY as
// BLOB and has no cast from BLOB to FLOAT[N], so unless it reports a float
// array it gets a copy in the list layout, which it reads as FLOAT[].
func writePeerFiles(ctx context.Context, dir string, data vector.Matrix, rep *PeerBenchReport) (peerFiles, error) {
	f := peerFiles{flba: filepath.Join(dir, "vectors-flba.parquet"), sidecar: filepath.Join(dir, "vectors.f32")}
	if err := WritePlainVectors(f.flba, data, vectorcol.LayoutFLBA); err != nil {
		return f, err
	}
	if err := peers.WriteSidecar(f.sidecar, data); err != nil {
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
		if err := WritePlainVectors(f.duckdb, data, vectorcol.LayoutList); err != nil {
			return f, err
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("DuckDB reads the lab's flba column as %s and has no cast from it to FLOAT[%d], "+
			"so DuckDB searches a copy in the list layout (LIST<FLOAT>, PLAIN, uncompressed), which the lab searches too (lab \"single (list file)\").",
			rep.DuckDBReadsFLBAAs, rep.Dim))
	}
	rep.Files = append(rep.Files, datasetFile(dir, filepath.Base(f.flba), "Parquet, flba layout: FIXED_LEN_BYTE_ARRAY(4N) with the VECTOR annotation, PLAIN, uncompressed", readers))
	if f.duckdb != f.flba {
		rep.Files = append(rep.Files, datasetFile(dir, filepath.Base(f.duckdb), "Parquet, list layout: LIST<FLOAT>, PLAIN, uncompressed", []string{"duckdb", "lab"}))
	}
	rep.Files = append(rep.Files, datasetFile(dir, filepath.Base(f.sidecar), "raw float32 little-endian, row-major", []string{"lancedb (build)", "faiss"}))
	return f, nil
}
