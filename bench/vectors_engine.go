package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/types/vector"
)

// vectorFileEngine is one of the vector benchmark's searches of one
// configuration's file (RunVectorBench): the file opened once by Prepare
// and searched by File.Search as the layout's reader, single query or
// batch, page CRCs skipped or verified. Its row is named by the
// configuration ("flba/plain/none single-query search"), so that the
// runner's errors name the configuration and the search.
type vectorFileEngine struct {
	path   string
	config string // vectorConfigName
	// batch answers all queries in one File.Search; otherwise each query
	// is its own, timed alone.
	batch bool
	// verify checks every page CRC, as lab vector search does by default;
	// otherwise SkipChecksums measures the layout's reader alone.
	verify bool

	f      *vectorcol.File
	metric vector.Metric
}

// vectorAnswersHook, when set (by tests), sees and may change each search's
// answer (the run named as EngineRun.Name names it) before the runner
// checks it, to stand in for a reader that returns wrong neighbours.
var vectorAnswersHook func(run string, hits []peers.Hits)

func (e *vectorFileEngine) Info() EngineInfo {
	info := EngineInfo{Engine: e.config, Mode: "single-query search", Batch: e.batch,
		Reads: "the configuration's Parquet file, opened once, page CRCs unchecked", Computes: labComputes(e.metric), InProcess: true}
	if e.batch {
		info.Mode = "batch search"
	}
	if e.verify {
		info.Mode = "verified " + info.Mode
		info.Reads = "the configuration's Parquet file, opened once, every page CRC verified"
	}
	return info
}

func (e *vectorFileEngine) Available() error { return nil }

// Prepare opens the file; the data is in it.
func (e *vectorFileEngine) Prepare(_ context.Context, _ vector.Matrix, metric vector.Metric) error {
	f, err := vectorcol.OpenFile(e.path)
	if err != nil {
		return err
	}
	f.SkipChecksums(!e.verify)
	e.f, e.metric = f, metric
	return nil
}

func (e *vectorFileEngine) Search(_ context.Context, queries vector.Matrix, k int) (*Answer, error) {
	ans := &Answer{}
	search := func(q vector.Matrix) error {
		start := time.Now()
		res, err := e.f.Search(0, e.metric, q, k)
		ms := msSince(start)
		if err != nil {
			return fmt.Errorf("bench: %s: %w", e.Info().Name(), err)
		}
		hits := resultHits(res)
		if !e.batch {
			hits[0].MS = ms
		}
		ans.Hits = append(ans.Hits, hits...)
		ans.TotalMS += ms
		return nil
	}
	if e.batch {
		if err := search(queries); err != nil {
			return nil, err
		}
	} else {
		for i := range queries.Rows() {
			if err := search(vector.Matrix{Dim: queries.Dim, Data: queries.Row(i)}); err != nil {
				return nil, err
			}
		}
	}
	if vectorAnswersHook != nil {
		vectorAnswersHook(e.Info().Name(), ans.Hits)
	}
	return ans, nil
}

func (e *vectorFileEngine) Close() error {
	if e.f == nil {
		return nil
	}
	err := e.f.Close()
	e.f = nil
	return err
}

// vectorFloorEngine is a configuration's single-query search timed in turn
// with the memory floor and the file's decompression floor, run after run
// (FloorEngine): the row's floors (VectorBenchResult.FloorMs,
// DecompressMs), which all its ratios divide by.
type vectorFloorEngine struct{ *vectorFileEngine }

// OwnFloor inflates every page on every core into recycled buffers and
// does nothing else (File.DecompressPages); for an uncompressed file, one
// touch of each page.
func (e vectorFloorEngine) OwnFloor() error {
	_, _, err := e.f.DecompressPages(0)
	return err
}
