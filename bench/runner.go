package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// RunConfig is one run of engines over one workload: the data, the
// queries, the metric and k, and how to measure.
type RunConfig struct {
	Data, Queries vector.Matrix
	// CheckData, when set, is called once after every search for the data
	// the checks (and the takes) compare with, instead of Data, which may
	// then be empty: engines are prepared with Data as it is, so they must
	// read theirs from files. A caller that samples heap peaks during the
	// timing drops its dataset, since a live one raises the garbage
	// collector's target and with it the peaks, and regenerates it here.
	CheckData func() (vector.Matrix, error)
	Metric    vector.Metric
	K         int
	// SingleQueries, when positive, is how many of the queries (the first)
	// every single-query engine (not EngineInfo.Batch) answers; batches
	// answer all of them. A single-query search of a whole file is a scan
	// per query, which a sweep over many files times on a few.
	SingleQueries int
	// Engines answer the queries in this order, each prepared just before
	// its search and, unless it is a taker, closed just after it.
	Engines []Engine
	// BeforeSearch, when set, is called with each engine after its Prepare,
	// just before its searches: the caller measures there what belongs
	// next to them in time but is not a search (the vector benchmark
	// decodes the configuration's file, samples a search's heap peak and
	// times takes before its searches and floors).
	BeforeSearch func(Engine) error
	// Reference names (EngineInfo.Name, "lab single") the run every other
	// must agree with (compareTopK), and the baseline of the ×lab ratios:
	// single-query runs against it, batches against its engine's first
	// batch run. BruteForce compares every run with float64 brute force
	// instead, without ratios. Empty: no agreement check and no ratios.
	Reference string
	// SearchRuns is how many times an in-process engine searches, the
	// fastest kept (default 1); peers search once (EngineInfo.InProcess).
	SearchRuns int
	// FloorRuns is how many times the memory-bandwidth floor is measured,
	// the best kept (default 3); FloorBytes is its buffer (default the
	// data's float32 size).
	FloorRuns  int
	FloorBytes int64
	// FloorProbe, when set, is the floor's buffer, kept by the caller to
	// time the floor again later (it must hold FloorBytes); nil: the run
	// allocates one and frees it at its end. FloorEngines read it again
	// beside their searches.
	FloorProbe *FloorProbe
	// Recall scores every run's k-nn recall against float64 brute force.
	Recall bool
	// SkipMissing leaves out the engines that are not available here,
	// naming them in RunResult.Missing, instead of failing the run.
	SkipMissing bool
	// Takers read TakeRows with their vectors, TakeRuns times each (default
	// 3); each must be one of Engines, which prepares it. The first is the
	// take ratios' baseline.
	Takers   []Taker
	TakeRows []int64
	TakeRuns int
	// Progress, when set, receives one line per step.
	Progress func(format string, args ...any)
}

// BruteForce as RunConfig.Reference checks every run against the exact
// neighbours in float64 (vector.ComputeGroundTruth) rather than against an
// engine: for a sweep of one system's formats, where no engine is the
// baseline, it is the truth they must all return.
const BruteForce = "brute force"

// RunResult is what RunEngines measured.
type RunResult struct {
	Floor  FloorResult
	Search []EngineRun
	Take   []TakeRun
	// Versions holds each engine's version string, where it reports one.
	Versions map[string]string
	// Missing names the engines left out (SkipMissing), one per engine
	// name, with the reason.
	Missing []string
}

// EngineRun is one engine answering every query one way.
type EngineRun struct {
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
	// FloorMS and OwnFloorMS, for a FloorEngine, are the memory floor and
	// the engine's own floor timed in turn with its search, best of the
	// same runs; its FloorRatio is to FloorMS. Zero for other engines,
	// whose FloorRatio is to the run's floor (RunResult.Floor).
	FloorMS    float64 `json:",omitempty"`
	OwnFloorMS float64 `json:",omitempty"`
	// LabRatio is MedianMS / the reference's: a single-query run against
	// the reference (the lab's single-query search of the flba file), a
	// batch against the reference engine's batch. Above 1 means slower.
	LabRatio float64
	// ProcessMS is the peer process's wall time seen from Go (0 for the
	// lab); OutsideMS is the part of it outside LoadMS and TotalMS:
	// process start-up, module import, the request and result JSON.
	ProcessMS, OutsideMS float64
	Agreement            Agreement
	// Recall is the mean k-nn recall against float64 brute force, when the
	// run asked for it (RunConfig.Recall).
	Recall float64 `json:",omitempty"`
}

// Name is "engine mode".
func (r EngineRun) Name() string { return r.Engine + " " + r.Mode }

func (cfg *RunConfig) defaults() error {
	if cfg.K <= 0 {
		return fmt.Errorf("bench: k %d, want ≥ 1", cfg.K)
	}
	dataDim := cfg.Data.Dim
	if cfg.CheckData != nil {
		dataDim = cfg.Queries.Dim // checked when the data comes (checkedData)
	}
	if dataDim <= 0 || cfg.Queries.Dim != dataDim || cfg.Queries.Rows() == 0 {
		return fmt.Errorf("bench: %d queries of dimension %d for data of dimension %d", cfg.Queries.Rows(), cfg.Queries.Dim, dataDim)
	}
	if !cfg.Metric.Valid() {
		return fmt.Errorf("bench: unknown metric %d", cfg.Metric)
	}
	if len(cfg.Takers) > 0 && len(cfg.TakeRows) == 0 {
		return fmt.Errorf("bench: %d takers and no rows to take", len(cfg.Takers))
	}
	cfg.SearchRuns = max(cfg.SearchRuns, 1)
	if cfg.FloorRuns <= 0 {
		cfg.FloorRuns = 3
	}
	if cfg.FloorBytes <= 0 {
		cfg.FloorBytes = int64(len(cfg.Data.Data)) * 4
	}
	if cfg.TakeRuns <= 0 {
		cfg.TakeRuns = 3
	}
	if cfg.Progress == nil {
		cfg.Progress = func(string, ...any) {}
	}
	return nil
}

// RunEngines measures every engine on the same queries in one run, as
// ann-benchmarks' runner does for its algorithms: the memory-bandwidth
// floor first, at the data's size, so every time has a ratio to what no
// scan can beat on this machine now; then each engine's search (in-process
// engines best of SearchRuns, a FloorEngine's in turn with the floors);
// then the checks: every answer agrees with the reference's (ids equal, or
// ties within the score tolerance) and, when asked, its recall against
// brute force; then the takes. An engine's failure fails the run with an
// error naming it; every disagreement does, joined.
func RunEngines(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	res := &RunResult{Versions: map[string]string{}}
	engines, takers, err := availableEngines(&cfg, res)
	if err != nil {
		return nil, err
	}
	if cfg.Reference != "" && cfg.Reference != BruteForce && !slices.ContainsFunc(engines, func(e Engine) bool { return e.Info().Name() == cfg.Reference }) {
		// Before any work: a misspelt reference would otherwise show only
		// after every search.
		return nil, fmt.Errorf("bench: the agreement reference %q is not among the engines", cfg.Reference)
	}
	for _, t := range takers {
		if !slices.Contains(engines, Engine(t)) {
			return nil, fmt.Errorf("bench: taker %s is not among the engines, which prepare it", t.Info().Engine)
		}
	}

	cfg.Progress("measuring the memory-bandwidth floor at %.1f MB", float64(cfg.FloorBytes)/1e6)
	probe := cfg.FloorProbe
	if probe == nil {
		if probe, err = NewFloorProbe(cfg.FloorBytes); err != nil {
			return nil, err
		}
		defer probe.Close()
	} else if held := int64(len(probe.words)) * 8; held != cfg.FloorBytes/8*8 {
		return nil, fmt.Errorf("bench: the floor probe holds %d bytes, the run's floor is of %d", held, cfg.FloorBytes)
	}
	if res.Floor, err = probe.Floor(cfg.FloorRuns); err != nil {
		return nil, err
	}

	answers := make([]*Answer, len(engines))
	// open holds the engines not closed yet: a taker stays open for the
	// takes; every other is closed after its searches, so that a run of
	// many engines does not hold all their files and mappings at once.
	open := slices.Clone(engines)
	defer func() {
		for _, e := range open {
			if e != nil {
				_ = e.Close() // after a failure; the success path reports Close's errors
			}
		}
	}()
	var closeErr error
	for i, e := range engines {
		var run EngineRun
		if answers[i], run, err = prepareAndSearch(ctx, &cfg, probe.Read, e); err != nil {
			return nil, err
		}
		if answers[i].Version != "" {
			res.Versions[run.Engine] = answers[i].Version
		}
		res.Search = append(res.Search, run)
		if !slices.ContainsFunc(takers, func(t Taker) bool { return Engine(t) == e }) {
			closeErr = errors.Join(closeErr, e.Close())
			open[i] = nil
		}
	}
	data, err := checkedData(&cfg)
	if err != nil {
		return nil, err
	}
	if err := checkAnswers(&cfg, data, res.Search, answers); err != nil {
		return nil, err
	}
	setRatios(res.Search, cfg.Reference, res.Floor.Seconds*1e3)

	if len(takers) > 0 {
		names := make([]string, len(takers))
		for i, t := range takers {
			names[i] = t.Info().Engine
		}
		cfg.Progress("take: %d random rows, %s", len(cfg.TakeRows), strings.Join(names, " and "))
		if res.Take, err = runTakes(ctx, takers, data, cfg.TakeRows, cfg.TakeRuns); err != nil {
			return nil, err
		}
	}
	for i, e := range open {
		if e != nil {
			closeErr = errors.Join(closeErr, e.Close())
			open[i] = nil
		}
	}
	return res, closeErr
}

// checkedData is the data the checks compare with: Data, or what CheckData
// returns, which must be of the queries' dimension.
func checkedData(cfg *RunConfig) (vector.Matrix, error) {
	if cfg.CheckData == nil {
		return cfg.Data, nil
	}
	data, err := cfg.CheckData()
	if err != nil {
		return data, err
	}
	if data.Dim != cfg.Queries.Dim {
		return data, fmt.Errorf("bench: the data to check against is of dimension %d, the queries of %d", data.Dim, cfg.Queries.Dim)
	}
	return data, nil
}

// availableEngines asks every engine and taker whether it can run here,
// before any work: a missing one fails the run, or with SkipMissing is left
// out and named once per engine name.
func availableEngines(cfg *RunConfig, res *RunResult) ([]Engine, []Taker, error) {
	var engines []Engine
	left := map[Engine]bool{}
	for _, e := range cfg.Engines {
		err := e.Available()
		switch {
		case err == nil:
			engines = append(engines, e)
			continue
		case !cfg.SkipMissing:
			return nil, nil, err
		}
		left[e] = true
		name := e.Info().Engine
		if !slices.ContainsFunc(res.Missing, func(m string) bool { return strings.HasPrefix(m, name+" (") }) {
			res.Missing = append(res.Missing, fmt.Sprintf("%s (%v)", name, err))
		}
	}
	var takers []Taker
	for _, t := range cfg.Takers {
		if !left[t] {
			takers = append(takers, t)
		}
	}
	return engines, takers, nil
}

// prepareAndSearch prepares e and searches with it, best of cfg.SearchRuns
// when it runs in-process, a FloorEngine in turn with floor (the memory
// floor's read) and its own floor; the fastest answer is the one checked.
func prepareAndSearch(ctx context.Context, cfg *RunConfig, floor func() error, e Engine) (*Answer, EngineRun, error) {
	if p := e.Info().Prepares; p != "" {
		cfg.Progress("%s: %s", e.Info().Engine, p)
	}
	if err := e.Prepare(ctx, cfg.Data, cfg.Metric); err != nil {
		return nil, EngineRun{}, err
	}
	if cfg.BeforeSearch != nil {
		if err := cfg.BeforeSearch(e); err != nil {
			return nil, EngineRun{}, err
		}
	}
	info := e.Info()
	runs := 1
	if info.InProcess {
		runs = cfg.SearchRuns
	}
	queries := cfg.Queries
	if !info.Batch && cfg.SingleQueries > 0 {
		queries = firstQueries(queries, cfg.SingleQueries)
	}
	cfg.Progress("%s: %d queries, mode %s", info.Engine, queries.Rows(), info.Mode)
	var best *Answer
	timed := []func() error{func() error {
		ans, err := e.Search(ctx, queries, cfg.K)
		if err != nil {
			return err
		}
		if len(ans.Hits) != queries.Rows() {
			return fmt.Errorf("bench: %s answered %d of %d queries", info.Name(), len(ans.Hits), queries.Rows())
		}
		if best == nil || ans.TotalMS < best.TotalMS {
			best = ans
		}
		return nil
	}}
	fe, floored := e.(FloorEngine)
	if floored {
		timed = append(timed, floor, fe.OwnFloor)
	}
	// The search's own time is the engine's (Answer.TotalMS); BestOfEach
	// keeps the floors'.
	sec, err := BestOfEach(runs, timed...)
	if err != nil {
		return nil, EngineRun{}, err
	}
	run := engineRun(info, best, queries.Rows())
	if floored {
		run.FloorMS, run.OwnFloorMS = sec[1]*1e3, sec[2]*1e3
	}
	return best, run, nil
}

// firstQueries is the first n rows of queries (all of them when n is
// larger), aliasing it.
func firstQueries(queries vector.Matrix, n int) vector.Matrix {
	return vector.Matrix{Dim: queries.Dim, Data: queries.Data[:min(n, queries.Rows())*queries.Dim]}
}

// engineRun is the report's row for one answer, before the checks and
// the ratios.
func engineRun(info EngineInfo, ans *Answer, queries int) EngineRun {
	run := EngineRun{Engine: info.Engine, Mode: info.Mode, Batch: info.Batch, Reads: info.Reads, Computes: info.Computes,
		LoadMS: ans.LoadMS, TotalMS: ans.TotalMS, ProcessMS: ans.ProcessMS}
	if ans.ProcessMS > 0 {
		run.OutsideMS = ans.ProcessMS - ans.LoadMS - ans.TotalMS
	}
	run.MeanMS = run.TotalMS / float64(queries)
	if run.Batch {
		run.MedianMS = run.MeanMS
	} else {
		times := make([]float64, len(ans.Hits))
		for i, h := range ans.Hits {
			times[i] = h.MS
		}
		run.MedianMS = median(times)
	}
	run.QPS = float64(queries) / max(run.TotalMS, 1e-9) * 1e3
	return run
}

// checkAnswers compares every answer with the reference's (an engine's,
// or brute force's) over the queries it answered and, when asked, scores
// its recall against brute force. Every disagreement is an error naming
// the run; they are joined.
func checkAnswers(cfg *RunConfig, data vector.Matrix, runs []EngineRun, answers []*Answer) error {
	var judge *recallJudge
	if cfg.Recall || cfg.Reference == BruteForce {
		var err error
		if judge, err = newRecallJudge(cfg.Metric, data, cfg.Queries, cfg.K); err != nil {
			return err
		}
	}
	var ref []peers.Hits
	refName := cfg.Reference
	switch cfg.Reference {
	case "":
	case BruteForce:
		ref = truthHits(judge.truth, data, cfg.Queries)
	default:
		i := slices.IndexFunc(runs, func(r EngineRun) bool { return r.Name() == cfg.Reference })
		if i < 0 {
			return fmt.Errorf("bench: the agreement reference %q is not among the runs", cfg.Reference)
		}
		ref, refName = answers[i].Hits, runs[i].Engine
	}
	if ref != nil {
		cfg.Progress("checking that every engine returns the %s's top-%d", refName, cfg.K)
	}
	var errs []error
	for i := range runs {
		r := &runs[i]
		hits := answers[i].Hits
		switch {
		case ref == nil:
		case r.Name() == cfg.Reference:
			// The reference agrees with itself.
			r.Agreement = Agreement{Queries: len(hits), SameIDs: len(hits)}
		default:
			// Over the queries the run answered (SingleQueries); a
			// reference that answered fewer is a count mismatch.
			var err error
			want := ref[:min(len(ref), len(hits))]
			if r.Agreement, err = compareTopK(r.Name(), refName, cfg.Metric, data, cfg.Queries, want, hits); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if cfg.Recall {
			var err error
			if r.Recall, err = judge.meanRecall(hits); err != nil {
				errs = append(errs, fmt.Errorf("bench: %s: %w", r.Name(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// setRatios fills the ratios to the floor (a FloorEngine's own memory
// floor, else the run's) and to the reference: single runs against the
// reference, batches against its engine's first batch.
func setRatios(runs []EngineRun, reference string, floorMS float64) {
	var single, batch float64
	if i := slices.IndexFunc(runs, func(r EngineRun) bool { return r.Name() == reference }); i >= 0 {
		single = runs[i].MedianMS
		if j := slices.IndexFunc(runs, func(r EngineRun) bool { return r.Engine == runs[i].Engine && r.Batch }); j >= 0 {
			batch = runs[j].MedianMS
		}
	}
	for i := range runs {
		r := &runs[i]
		r.FloorRatio = r.MedianMS / floorMS
		if r.FloorMS > 0 {
			r.FloorRatio = r.MedianMS / r.FloorMS
		}
		base := single
		if r.Batch {
			base = batch
		}
		if base > 0 {
			r.LabRatio = r.MedianMS / base
		}
	}
}
