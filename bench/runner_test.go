package bench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// fakeEngine is an Engine without peers: it answers with the exact top-k
// (vector.SearchBatch), which tamper may change, and reports the times it
// is given, so the runner's checks and best-of can be tested exactly.
type fakeEngine struct {
	info    EngineInfo
	missing error
	// totals are the TotalMS of successive searches (the last repeats).
	totals []float64
	// tamper changes the answer of a search.
	tamper func(h []peers.Hits) []peers.Hits
	// own, when set, is the data the engine searches whatever Prepare is
	// given, as a file engine reads its own.
	own vector.Matrix
	// log, when set, records the calls as "name: call".
	log *[]string

	given            vector.Matrix // what Prepare was given
	data             vector.Matrix
	metric           vector.Metric
	prepared, closed int
	searches         int
	asked            []int // the queries of each search
}

func (e *fakeEngine) Info() EngineInfo { return e.info }
func (e *fakeEngine) Available() error { return e.missing }
func (e *fakeEngine) Close() error     { e.note("close"); e.closed++; return nil }

func (e *fakeEngine) note(call string) {
	if e.log != nil {
		*e.log = append(*e.log, e.info.Name()+": "+call)
	}
}

func (e *fakeEngine) Prepare(_ context.Context, data vector.Matrix, metric vector.Metric) error {
	e.note("prepare")
	e.prepared++
	e.given, e.data, e.metric = data, data, metric
	if e.own.Dim > 0 {
		e.data = e.own
	}
	return nil
}

func (e *fakeEngine) Search(_ context.Context, queries vector.Matrix, k int) (*Answer, error) {
	e.note("search")
	e.asked = append(e.asked, queries.Rows())
	res, err := vector.SearchBatch(e.metric, e.data, queries, k)
	if err != nil {
		return nil, err
	}
	hits := resultHits(res)
	total := 1.0
	if len(e.totals) > 0 {
		total = e.totals[min(e.searches, len(e.totals)-1)]
	}
	e.searches++
	for i := range hits {
		hits[i].MS = total / float64(len(hits))
	}
	if e.tamper != nil {
		hits = e.tamper(hits)
	}
	return &Answer{Hits: hits, TotalMS: total}, nil
}

// fakeTaker takes rows from the data it was prepared with, in reverse
// order (an engine may return them in its own order), with tamper applied.
type fakeTaker struct {
	fakeEngine
	takeMS     []float64
	tamperTake func(a *TakeAnswer)
}

func (t *fakeTaker) Take(_ context.Context, rows []int64, runs int) (*TakeAnswer, error) {
	a := &TakeAnswer{OpenMS: 1, TakeMS: t.takeMS[:runs]}
	for _, id := range slices.Backward(rows) {
		a.IDs = append(a.IDs, id)
		a.Vectors = append(a.Vectors, slices.Clone(t.data.Row(int(id))))
	}
	if t.tamperTake != nil {
		t.tamperTake(a)
	}
	return a, nil
}

// fakeFloorEngine is a fakeEngine with a floor of its own, which sleeps
// ownMS and notes its calls.
type fakeFloorEngine struct {
	*fakeEngine
	ownMS int
	owns  int
}

func (e *fakeFloorEngine) OwnFloor() error {
	e.note("own floor")
	e.owns++
	time.Sleep(time.Duration(e.ownMS) * time.Millisecond)
	return nil
}

func fake(engine, mode string, batch, inProcess bool) *fakeEngine {
	return &fakeEngine{info: EngineInfo{Engine: engine, Mode: mode, Batch: batch, InProcess: inProcess}}
}

// twinsWorkload has rows 2 and 3 equal, so they tie for every query, and
// query 0 ranks them first.
func twinsWorkload() (data, queries vector.Matrix) {
	data = vector.Matrix{Dim: 4, Data: []float32{
		1, 0, 0, 0,
		0, 1, 0, 0,
		1, 1, 0, 0,
		1, 1, 0, 0,
		-1, 0, 0, 0,
		0, 0, 1, 0,
	}}
	queries = vector.Matrix{Dim: 4, Data: []float32{
		1, 0.9, 0, 0,
		0, 1, 0.1, 0,
		0, 0, 1, 0.2,
	}}
	return data, queries
}

func twinsConfig(engines ...Engine) RunConfig {
	data, queries := twinsWorkload()
	return RunConfig{Data: data, Queries: queries, Metric: vector.MetricCosine, K: 3, Engines: engines,
		Reference: "lab single", FloorRuns: 1, Recall: true}
}

// TestRunEnginesAgreementAndRecall: exact answers agree with the reference
// and have recall 1; a tie swapped is accepted and counted; a wrong row is
// refused with an error naming the engine and the query.
func TestRunEnginesAgreementAndRecall(t *testing.T) {
	ref := fake("lab", "single", false, true)
	same := fake("peer", "exact", false, false)
	swapped := fake("peer", "swapped", false, false)
	swapped.tamper = func(h []peers.Hits) []peers.Hits {
		h[0].IDs[0], h[0].IDs[1] = h[0].IDs[1], h[0].IDs[0]
		return h
	}
	res, err := RunEngines(context.Background(), twinsConfig(ref, same, swapped))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Search) != 3 {
		t.Fatalf("%d runs, want 3", len(res.Search))
	}
	for _, r := range res.Search {
		if r.Recall != 1 || r.Agreement.Queries != 3 {
			t.Errorf("%s: recall %v, agreement %+v; want recall 1 over 3 queries", r.Name(), r.Recall, r.Agreement)
		}
	}
	if a := res.Search[1].Agreement; a.SameIDs != 3 || a.TieSwaps != 0 {
		t.Errorf("identical answer: %+v", a)
	}
	if a := res.Search[2].Agreement; a.SameIDs != 2 || a.TieSwaps != 2 {
		t.Errorf("twins swapped: %+v; want 2 same, 2 tie swaps", a)
	}
	for _, e := range []*fakeEngine{ref, same, swapped} {
		if e.prepared != 1 || e.closed != 1 {
			t.Errorf("%s: prepared %d, closed %d times; want once each", e.info.Name(), e.prepared, e.closed)
		}
	}

	for _, tt := range []struct {
		name   string
		tamper func(h []peers.Hits) []peers.Hits
		msg    string
	}{
		{"a row that is not a tie", func(h []peers.Hits) []peers.Hits { h[1].IDs[0] = 4; return h }, "peer wrong disagrees with the lab on query 1: rank 0: id 4 instead of"},
		{"a lower score", func(h []peers.Hits) []peers.Hits { h[2].Scores[1] -= 0.01; return h }, "peer wrong disagrees with the lab on query 2: rank 1"},
		{"a query missing", func(h []peers.Hits) []peers.Hits { return h[:2] }, "peer wrong answered 2 of 3 queries"},
		{"a short answer", func(h []peers.Hits) []peers.Hits { h[0].IDs, h[0].Scores = h[0].IDs[:2], h[0].Scores[:2]; return h }, "query 0: 2 ids and 2 scores, the lab has 3 hits"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wrong := fake("peer", "wrong", false, false)
			wrong.tamper = tt.tamper
			after := fake("peer", "after", false, false)
			_, err := RunEngines(context.Background(), twinsConfig(fake("lab", "single", false, true), wrong, after))
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %v; want %q", err, tt.msg)
			}
			if after.closed != 1 {
				t.Errorf("after a failure, an engine was closed %d times, want 1", after.closed)
			}
		})
	}
}

// TestRunEnginesRecallWithoutReference: without a reference nothing is
// refused; an inexact answer shows as recall below 1.
func TestRunEnginesRecallWithoutReference(t *testing.T) {
	approx := fake("ann", "index", true, true)
	approx.tamper = func(h []peers.Hits) []peers.Hits {
		h[0].IDs[2] = 4 // row 4 points away from query 0: not among its true top 3
		return h
	}
	cfg := twinsConfig(approx)
	cfg.Reference = ""
	res, err := RunEngines(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Search[0]
	if want := (1 + 1 + 2.0/3) / 3; r.Recall < want-1e-12 || r.Recall > want+1e-12 {
		t.Errorf("recall %v, want %v", r.Recall, want)
	}
	if r.Agreement != (Agreement{}) || r.LabRatio != 0 {
		t.Errorf("agreement %+v, ratio %v without a reference", r.Agreement, r.LabRatio)
	}
}

// TestRunEnginesBestOfAndRatios: an in-process engine searches SearchRuns
// times and its fastest search is kept; a peer searches once. Single runs
// are compared with the reference, batches with its engine's batch.
func TestRunEnginesBestOfAndRatios(t *testing.T) {
	ref := fake("lab", "single", false, true)
	ref.totals = []float64{9, 3, 6}
	batch := fake("lab", "batch", true, true)
	batch.totals = []float64{2, 1, 4}
	peer := fake("peer", "single", false, false)
	peer.totals = []float64{12, 1, 1}
	peerBatch := fake("peer", "batch", true, false)
	peerBatch.totals = []float64{3}
	cfg := twinsConfig(ref, batch, peer, peerBatch)
	cfg.SearchRuns = 3
	res, err := RunEngines(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ref.searches != 3 || batch.searches != 3 || peer.searches != 1 || peerBatch.searches != 1 {
		t.Errorf("searches: lab %d, lab batch %d, peer %d, peer batch %d; want 3, 3, 1, 1",
			ref.searches, batch.searches, peer.searches, peerBatch.searches)
	}
	for _, tt := range []struct {
		run           int
		total, median float64
		labRatio      float64
	}{
		{0, 3, 1, 1},       // best of 9, 3, 6; each query 1 ms
		{1, 1, 1.0 / 3, 1}, // best of 2, 1, 4; a batch's median is its mean
		{2, 12, 4, 4},      // once: 12 ms, 4 per query, against the lab's 1
		{3, 3, 1, 3},       // against the lab's batch, 1/3 ms per query
	} {
		r := res.Search[tt.run]
		if !near(r.TotalMS, tt.total) || !near(r.MedianMS, tt.median) || !near(r.LabRatio, tt.labRatio) {
			t.Errorf("%s: total %v, median %v, ×lab %v; want %v, %v, %v", r.Name(), r.TotalMS, r.MedianMS, r.LabRatio, tt.total, tt.median, tt.labRatio)
		}
		if !near(r.FloorRatio, r.MedianMS/(res.Floor.Seconds*1e3)) || !near(r.QPS, 3/r.TotalMS*1e3) {
			t.Errorf("%s: ×floor %v, q/s %v", r.Name(), r.FloorRatio, r.QPS)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestRunEnginesMissing: a missing engine fails the run before any engine
// is prepared, or with SkipMissing is left out and named once.
func TestRunEnginesMissing(t *testing.T) {
	absent := &peers.Error{Peer: "peer", Kind: peers.ErrMissing, Detail: "not here"}
	lab := fake("lab", "single", false, true)
	p1, p2 := fake("peer", "one", false, false), fake("peer", "two", false, false)
	p1.missing, p2.missing = absent, absent
	_, err := RunEngines(context.Background(), twinsConfig(lab, p1, p2))
	if !errors.Is(err, peers.ErrMissing) || lab.prepared != 0 {
		t.Fatalf("error %v, lab prepared %d times; want the peer missing before any work", err, lab.prepared)
	}

	cfg := twinsConfig(lab, p1, p2)
	cfg.SkipMissing = true
	res, err := RunEngines(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Search) != 1 || len(res.Missing) != 1 || !strings.HasPrefix(res.Missing[0], "peer (peer peer not installed: not here") {
		t.Errorf("runs %d, missing %q; want the lab alone and the peer named once", len(res.Search), res.Missing)
	}
	if p1.prepared != 0 || p2.prepared != 0 {
		t.Error("a missing engine was prepared")
	}

	cfg.Reference = "peer one"
	if _, err := RunEngines(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), `reference "peer one" is not among the engines`) {
		t.Errorf("a missing reference: %v", err)
	}
}

// TestRunEnginesTake: takers' rows are checked bit for bit, in any order,
// the best and the first take kept, ratios to the first taker.
func TestRunEnginesTake(t *testing.T) {
	newTaker := func(engine string, takeMS ...float64) *fakeTaker {
		return &fakeTaker{fakeEngine: *fake(engine, "single", false, true), takeMS: takeMS}
	}
	run := func(tamper func(*TakeAnswer)) ([]TakeRun, error) {
		lab, peer := newTaker("lab", 4, 2, 3), newTaker("peer", 5, 8, 6)
		peer.tamperTake = tamper
		cfg := twinsConfig(lab, peer)
		cfg.Reference = ""
		cfg.Takers, cfg.TakeRows, cfg.TakeRuns = []Taker{lab, peer}, []int64{5, 0, 3}, 3
		res, err := RunEngines(context.Background(), cfg)
		if err != nil {
			return nil, err
		}
		return res.Take, nil
	}
	takes, err := run(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []TakeRun{
		{Engine: "lab", OpenMS: 1, TakeMS: 2, FirstTakeMS: 4, LabRatio: 1},
		{Engine: "peer", OpenMS: 1, TakeMS: 5, FirstTakeMS: 5, LabRatio: 2.5},
	}
	if !slices.Equal(takes, want) {
		t.Errorf("takes %+v, want %+v", takes, want)
	}
	for _, tt := range []struct {
		name   string
		tamper func(*TakeAnswer)
		msg    string
	}{
		{"a flipped bit", func(a *TakeAnswer) { a.Vectors[1][2] = -a.Vectors[1][2] }, "peer take: row 0 element 2"},
		{"a row twice", func(a *TakeAnswer) { a.IDs[1] = a.IDs[0] }, "peer take returned row 3, which was not asked for or came twice"},
		{"a row missing", func(a *TakeAnswer) { a.IDs, a.Vectors = a.IDs[1:], a.Vectors[1:] }, "peer take of 3 rows returned 2 ids and 2 vectors"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := run(tt.tamper); err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %v; want %q", err, tt.msg)
			}
		})
	}
}

// TestRunEnginesFloorEngine: a FloorEngine's search is timed in turn with
// the memory floor and its own floor, run after run, and its floor ratio
// is to the memory floor measured beside it; other engines are timed alone
// and keep the run's first floor.
func TestRunEnginesFloorEngine(t *testing.T) {
	ctx := context.Background()
	var log []string
	floored := &fakeFloorEngine{fakeEngine: fake("lab", "single", false, true), ownMS: 3}
	floored.totals = []float64{5, 2, 4}
	plain := fake("lab", "batch", true, true)
	floored.log, plain.log = &log, &log
	cfg := twinsConfig(floored, plain)
	cfg.SearchRuns = 3
	if err := cfg.defaults(); err != nil {
		t.Fatal(err)
	}
	// The order of the calls, with a memory floor that notes its reads.
	floor := func() error {
		log = append(log, "memory floor")
		time.Sleep(time.Millisecond)
		return nil
	}
	_, run, err := prepareAndSearch(ctx, &cfg, floor, floored)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lab single: prepare"}
	for range 3 {
		want = append(want, "lab single: search", "memory floor", "lab single: own floor")
	}
	if !slices.Equal(log, want) {
		t.Errorf("calls %q, want %q", log, want)
	}
	if run.TotalMS != 2 || run.FloorMS < 1 || run.OwnFloorMS < 3 {
		t.Errorf("search %v ms, memory floor %v ms, own floor %v ms; want the fastest search, 2 ms, and floors of at least 1 and 3 ms", run.TotalMS, run.FloorMS, run.OwnFloorMS)
	}
	log = nil
	if _, run, err = prepareAndSearch(ctx, &cfg, floor, plain); err != nil {
		t.Fatal(err)
	}
	if want := []string{"lab batch: prepare", "lab batch: search", "lab batch: search", "lab batch: search"}; !slices.Equal(log, want) {
		t.Errorf("calls %q, want %q", log, want)
	}
	if run.FloorMS != 0 || run.OwnFloorMS != 0 {
		t.Errorf("an engine without floors got floors %v and %v ms", run.FloorMS, run.OwnFloorMS)
	}

	// Through the runner, with the probe's floor: the ratios.
	floored = &fakeFloorEngine{fakeEngine: fake("lab", "single", false, true), ownMS: 3}
	plain = fake("lab", "batch", true, true)
	cfg = twinsConfig(floored, plain)
	cfg.SearchRuns = 3
	res, err := RunEngines(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if floored.owns != 3 || floored.searches != 3 {
		t.Errorf("%d own floors for %d searches, want 3 and 3", floored.owns, floored.searches)
	}
	f, p := res.Search[0], res.Search[1]
	if !(f.FloorMS > 0) || f.OwnFloorMS < 3 || !near(f.FloorRatio, f.MedianMS/f.FloorMS) {
		t.Errorf("floored: memory floor %v ms, own %v ms, ×floor %v; want the ratio to the floor beside it", f.FloorMS, f.OwnFloorMS, f.FloorRatio)
	}
	if p.FloorMS != 0 || !near(p.FloorRatio, p.MedianMS/(res.Floor.Seconds*1e3)) {
		t.Errorf("plain: floor %v ms, ×floor %v; want the ratio to the run's floor", p.FloorMS, p.FloorRatio)
	}
}

// TestRunEnginesBruteForce: with the reference BruteForce every run is
// compared with float64 brute force, the single-query engines over the
// first SingleQueries queries; a tie swapped is accepted, every wrong run
// is named, and the errors are joined.
func TestRunEnginesBruteForce(t *testing.T) {
	ctx := context.Background()
	swapTwins := func(h []peers.Hits) []peers.Hits {
		h[0].IDs[0], h[0].IDs[1] = h[0].IDs[1], h[0].IDs[0]
		return h
	}
	single, batch := fake("lab", "single", false, true), fake("lab", "batch", true, true)
	swapped := fake("peer", "swapped", true, false)
	swapped.tamper = swapTwins
	cfg := twinsConfig(single, batch, swapped)
	cfg.Reference, cfg.SingleQueries = BruteForce, 1
	res, err := RunEngines(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(single.asked, []int{1}) || !slices.Equal(batch.asked, []int{3}) {
		t.Errorf("the single-query engine was asked %v queries, the batch %v; want [1] and [3]", single.asked, batch.asked)
	}
	for i, want := range []Agreement{{Queries: 1, SameIDs: 1}, {Queries: 3, SameIDs: 3}, {Queries: 3, SameIDs: 2, TieSwaps: 2}} {
		r := res.Search[i]
		if got := r.Agreement; got.Queries != want.Queries || got.SameIDs != want.SameIDs || got.TieSwaps != want.TieSwaps {
			t.Errorf("%s: agreement %+v, want %+v", r.Name(), got, want)
		}
		if r.Recall != 1 || r.LabRatio != 0 {
			t.Errorf("%s: recall %v, ×lab %v; want 1 and no ratio without a reference engine", r.Name(), r.Recall, r.LabRatio)
		}
	}

	notTie := fake("peer", "one", false, false)
	notTie.tamper = func(h []peers.Hits) []peers.Hits { h[0].IDs[0] = 4; return h }
	lower := fake("peer", "two", true, false)
	lower.tamper = func(h []peers.Hits) []peers.Hits { h[2].Scores[1] -= 0.01; return h }
	cfg = twinsConfig(fake("lab", "single", false, true), notTie, lower)
	cfg.Reference, cfg.SingleQueries = BruteForce, 1
	_, err = RunEngines(ctx, cfg)
	for _, want := range []string{
		"peer one disagrees with the brute force on query 0: rank 0: id 4 instead of the brute force's 2",
		"peer two disagrees with the brute force on query 2: rank 1",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v; want it to contain %q", err, want)
		}
	}
}

// TestRunEnginesCheckData: with CheckData the run holds no data while it
// times: the engines are prepared with the empty Data, the data comes
// once, after every search, and the checks compare with it.
func TestRunEnginesCheckData(t *testing.T) {
	ctx := context.Background()
	data, queries := twinsWorkload()
	var single, batch *fakeEngine
	calls := 0
	run := func(checkData func() (vector.Matrix, error)) (*RunResult, error) {
		single, batch = fake("lab", "single", false, true), fake("lab", "batch", true, true)
		single.own, batch.own = data, data
		calls = 0
		return RunEngines(ctx, RunConfig{Queries: queries, Metric: vector.MetricCosine, K: 3, Engines: []Engine{single, batch},
			Reference: BruteForce, Recall: true, SearchRuns: 2, FloorRuns: 1, FloorBytes: 64,
			CheckData: func() (vector.Matrix, error) {
				calls++
				if single.searches != 2 || batch.searches != 2 {
					t.Errorf("the data came after %d and %d searches, want after all 2 and 2", single.searches, batch.searches)
				}
				return checkData()
			}})
	}
	res, err := run(func() (vector.Matrix, error) { return data, nil })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || single.given.Data != nil || batch.given.Data != nil {
		t.Errorf("CheckData called %d times, engines given %d and %d values; want once, and no data", calls, len(single.given.Data), len(batch.given.Data))
	}
	for _, r := range res.Search {
		if r.Agreement.Queries != 3 || r.Recall != 1 {
			t.Errorf("%s: agreement %+v, recall %v", r.Name(), r.Agreement, r.Recall)
		}
	}

	// Row 0 turned away from query 0: the brute force of that data has row
	// 1 third, which the engines, reading the real data, do not.
	other := vector.Matrix{Dim: data.Dim, Data: slices.Clone(data.Data)}
	other.Data[0] = -1
	if _, err := run(func() (vector.Matrix, error) { return other, nil }); err == nil || !strings.Contains(err.Error(), "lab single disagrees with the brute force on query 0: rank 2") {
		t.Errorf("checked against other data: %v", err)
	}
	if _, err := run(func() (vector.Matrix, error) { return vector.Matrix{Dim: 2, Data: data.Data}, nil }); err == nil || !strings.Contains(err.Error(), "dimension 2, the queries of 4") {
		t.Errorf("data of another dimension: %v", err)
	}
	boom := errors.New("boom")
	if _, err := run(func() (vector.Matrix, error) { return vector.Matrix{}, boom }); !errors.Is(err, boom) {
		t.Errorf("CheckData's error: %v", err)
	}
}

// TestRunEnginesLifecycle: BeforeSearch sees each engine prepared, before
// its searches; an engine is closed right after its searches unless it
// takes, and a taker stays open for the takes.
func TestRunEnginesLifecycle(t *testing.T) {
	var log []string
	taker := &fakeTaker{fakeEngine: *fake("lab", "single", false, true), takeMS: []float64{1}}
	other := fake("peer", "batch", true, false)
	taker.log, other.log = &log, &log
	cfg := twinsConfig(taker, other)
	cfg.Takers, cfg.TakeRows, cfg.TakeRuns = []Taker{taker}, []int64{1}, 1
	cfg.BeforeSearch = func(e Engine) error {
		log = append(log, e.Info().Name()+": before search")
		return nil
	}
	if _, err := RunEngines(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"lab single: prepare", "lab single: before search", "lab single: search",
		"peer batch: prepare", "peer batch: before search", "peer batch: search", "peer batch: close",
		"lab single: close",
	}
	if !slices.Equal(log, want) {
		t.Errorf("calls %q\nwant %q", log, want)
	}

	boom := errors.New("boom")
	after := fake("peer", "after", true, false)
	cfg = twinsConfig(fake("lab", "single", false, true), after)
	cfg.BeforeSearch = func(e Engine) error {
		if e == after {
			return boom
		}
		return nil
	}
	if _, err := RunEngines(context.Background(), cfg); !errors.Is(err, boom) || after.searches != 0 || after.closed != 1 {
		t.Errorf("BeforeSearch failing: error %v, %d searches, closed %d times; want its error, no search, closed once", err, after.searches, after.closed)
	}
}

func TestDistinctRows(t *testing.T) {
	rows := DistinctRows(50, 60, 1)
	seen := map[int64]bool{}
	for _, r := range rows {
		if r < 0 || r >= 60 || seen[r] {
			t.Fatalf("rows %v: %d out of range or repeated", rows, r)
		}
		seen[r] = true
	}
	if len(rows) != 50 || !slices.Equal(rows, DistinctRows(50, 60, 1)) {
		t.Errorf("%d rows, or not deterministic for a seed", len(rows))
	}
	if got := len(DistinctRows(10, 4, 1)); got != 4 {
		t.Errorf("10 distinct rows of 4: got %d, want 4", got)
	}
}
