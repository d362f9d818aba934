package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coltype-lab/lab/types/vector"
)

// RunConfig is one run of engines over one workload: the data, the
// queries, the metric and k, and how to measure.
type RunConfig struct {
	Data, Queries vector.Matrix
	Metric        vector.Metric
	K             int
	// Engines answer the queries in this order, each prepared just before
	// its search.
	Engines []Engine
	// Reference names (EngineInfo.Name, "lab single") the run every other
	// must agree with (compareTopK), and the baseline of the ×lab ratios:
	// single-query runs against it, batches against its engine's first
	// batch run. Empty: no agreement check and no ratios.
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
	// allocates one for its measurement and frees it.
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
	if cfg.Data.Dim <= 0 || cfg.Queries.Dim != cfg.Data.Dim || cfg.Queries.Rows() == 0 {
		return fmt.Errorf("bench: %d queries of dimension %d for data of dimension %d", cfg.Queries.Rows(), cfg.Queries.Dim, cfg.Data.Dim)
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
// engines best of SearchRuns); then the checks: every answer agrees with
// the reference's (ids equal, or ties within the score tolerance) and, when
// asked, its recall against brute force; then the takes. An engine's
// failure or disagreement fails the run with an error naming it.
func RunEngines(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	res := &RunResult{Versions: map[string]string{}}
	engines, takers, err := availableEngines(&cfg, res)
	if err != nil {
		return nil, err
	}
	if cfg.Reference != "" && !slices.ContainsFunc(engines, func(e Engine) bool { return e.Info().Name() == cfg.Reference }) {
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
	if probe := cfg.FloorProbe; probe != nil {
		if held := int64(len(probe.words)) * 8; held != cfg.FloorBytes/8*8 {
			return nil, fmt.Errorf("bench: the floor probe holds %d bytes, the run's floor is of %d", held, cfg.FloorBytes)
		}
		res.Floor, err = probe.Floor(cfg.FloorRuns)
	} else {
		res.Floor, err = Floor(cfg.FloorBytes, cfg.FloorRuns)
	}
	if err != nil {
		return nil, err
	}

	answers := make([]*Answer, len(engines))
	defer func() {
		for _, e := range engines {
			_ = e.Close() // after a failure; the success path reports Close's error below
		}
	}()
	for i, e := range engines {
		if answers[i], err = prepareAndSearch(ctx, &cfg, e); err != nil {
			return nil, err
		}
		run := engineRun(e.Info(), answers[i], cfg.Queries.Rows())
		if answers[i].Version != "" {
			res.Versions[run.Engine] = answers[i].Version
		}
		res.Search = append(res.Search, run)
	}
	if err := checkAnswers(&cfg, res.Search, answers); err != nil {
		return nil, err
	}
	setRatios(res.Search, cfg.Reference, res.Floor.Seconds*1e3)

	if len(takers) > 0 {
		names := make([]string, len(takers))
		for i, t := range takers {
			names[i] = t.Info().Engine
		}
		cfg.Progress("take: %d random rows, %s", len(cfg.TakeRows), strings.Join(names, " and "))
		if res.Take, err = runTakes(ctx, takers, cfg.Data, cfg.TakeRows, cfg.TakeRuns); err != nil {
			return nil, err
		}
	}
	var closeErr error
	for _, e := range engines {
		closeErr = errors.Join(closeErr, e.Close())
	}
	engines = nil // closed
	return res, closeErr
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
// when it runs in-process; the fastest answer is the one checked.
func prepareAndSearch(ctx context.Context, cfg *RunConfig, e Engine) (*Answer, error) {
	if p := e.Info().Prepares; p != "" {
		cfg.Progress("%s: %s", e.Info().Engine, p)
	}
	if err := e.Prepare(ctx, cfg.Data, cfg.Metric); err != nil {
		return nil, err
	}
	info := e.Info()
	runs := 1
	if info.InProcess {
		runs = cfg.SearchRuns
	}
	cfg.Progress("%s: %d queries, mode %s", info.Engine, cfg.Queries.Rows(), info.Mode)
	var best *Answer
	for range runs {
		ans, err := e.Search(ctx, cfg.Queries, cfg.K)
		if err != nil {
			return nil, err
		}
		if len(ans.Hits) != cfg.Queries.Rows() {
			return nil, fmt.Errorf("bench: %s answered %d of %d queries", info.Name(), len(ans.Hits), cfg.Queries.Rows())
		}
		if best == nil || ans.TotalMS < best.TotalMS {
			best = ans
		}
	}
	return best, nil
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

// checkAnswers compares every answer with the reference's and, when
// asked, scores its recall against brute force.
func checkAnswers(cfg *RunConfig, runs []EngineRun, answers []*Answer) error {
	ref := -1
	if cfg.Reference != "" {
		ref = slices.IndexFunc(runs, func(r EngineRun) bool { return r.Name() == cfg.Reference })
		if ref < 0 {
			return fmt.Errorf("bench: the agreement reference %q is not among the runs", cfg.Reference)
		}
		cfg.Progress("checking that every engine returns the %s's top-%d", runs[ref].Engine, cfg.K)
	}
	var judge *recallJudge
	if cfg.Recall {
		var err error
		if judge, err = newRecallJudge(cfg.Metric, cfg.Data, cfg.Queries, cfg.K); err != nil {
			return err
		}
	}
	for i := range runs {
		r := &runs[i]
		switch {
		case ref < 0:
		case i == ref:
			// The reference agrees with itself.
			r.Agreement = Agreement{Queries: len(answers[i].Hits), SameIDs: len(answers[i].Hits)}
		default:
			var err error
			if r.Agreement, err = compareTopK(r.Name(), runs[ref].Engine, cfg.Metric, cfg.Data, cfg.Queries, answers[ref].Hits, answers[i].Hits); err != nil {
				return err
			}
		}
		if judge != nil {
			var err error
			if r.Recall, err = judge.meanRecall(answers[i].Hits); err != nil {
				return fmt.Errorf("bench: %s: %w", r.Name(), err)
			}
		}
	}
	return nil
}

// setRatios fills the ratios to the floor and to the reference: single
// runs against the reference, batches against its engine's first batch.
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
		base := single
		if r.Batch {
			base = batch
		}
		if base > 0 {
			r.LabRatio = r.MedianMS / base
		}
	}
}
