package bench

import (
	"errors"
	"fmt"
	"hash/crc32"
	"unsafe"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// The vector benchmark's check (issue 18): every configuration's timed
// searches must return the top K that float64 brute force over the
// in-memory data returns, compared as the peer runner compares engines
// (compareTopK: ids equal, or a different id only as an equally scored
// row), so that no layout gets a speed figure for wrong neighbours.

// vectorSearchMetric is the metric every search of the vector benchmark
// scores by.
const vectorSearchMetric = vector.MetricDot

// vectorAnswers are one configuration's answers, kept from its timed
// searches (the last run of each) and checked after all the timing.
type vectorAnswers struct {
	Single   [][]vector.Result // one query, page CRCs unchecked
	Batch    [][]vector.Result // the batch, page CRCs unchecked
	Verified [][]vector.Result // one query, every page CRC verified
}

// vectorAnswersHook, when set (by tests), sees and may change each
// configuration's answers before they are checked, to stand in for a reader
// that returns wrong neighbours.
var vectorAnswersHook func(config string, a *vectorAnswers)

// vectorConfigName names a configuration in errors and figures as the
// verdicts do: "flba/plain/none", a peer's file prefixed by its writer.
func vectorConfigName(x *VectorBenchResult) string {
	s := fmt.Sprintf("%s/%s/%s", x.Layout, x.Encoding, x.Codec)
	if x.Writer != "lab" {
		s = x.Writer + " " + s
	}
	return s
}

// datasetChecksum identifies the dataset's bytes, so that the copy the
// check regenerates is known to be the one written.
func datasetChecksum(data []float32) uint32 {
	if len(data) == 0 {
		return 0
	}
	return crc32.Checksum(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data)), crc32.MakeTable(crc32.Castagnoli))
}

// checkVectorAnswers checks every configuration's answers (answers[i] is
// results[i]'s) against brute force and fills in their Agreement and
// Recall. The timing drops the dataset (a live one would inflate the
// sampled heap), so the check regenerates it from the seed, verified
// against the checksum of the one written, and computes the brute-force
// neighbours once (vector.ComputeGroundTruth, float64) for batch; the
// single query is its first row. Every disagreement is an error naming
// the configuration and the search; they are joined.
func checkVectorAnswers(cfg VectorBenchConfig, sum uint32, batch vector.Matrix, results []VectorBenchResult, answers []vectorAnswers) error {
	if len(answers) != len(results) {
		return fmt.Errorf("bench: %d configurations' answers for %d results", len(answers), len(results))
	}
	values, _, err := Dataset(cfg.Dataset, cfg.Size.N, cfg.Size.Dim, cfg.Clusters, 0, cfg.Seed)
	if err != nil {
		return err
	}
	if got := datasetChecksum(values); got != sum {
		return fmt.Errorf("bench: the regenerated %s dataset (crc32c %08x) is not the one written (%08x)", cfg.Dataset, got, sum)
	}
	data := vector.Matrix{Dim: cfg.Size.Dim, Data: values}
	judge, err := newRecallJudge(vectorSearchMetric, data, batch, cfg.K)
	if err != nil {
		return err
	}
	one := vector.Matrix{Dim: batch.Dim, Data: batch.Row(0)}
	oneJudge := &recallJudge{
		truth: &vector.GroundTruth{Metric: judge.truth.Metric, K: judge.truth.K, IDs: judge.truth.IDs[:1], Distances: judge.truth.Distances[:1]},
		data:  data, queries: one,
	}
	ref := truthHits(judge.truth, data, batch)
	var errs []error
	for i := range results {
		x := &results[i]
		name := vectorConfigName(x)
		a := answers[i]
		if vectorAnswersHook != nil {
			vectorAnswersHook(name, &a)
		}
		var sumA Agreement
		recall := 1.0
		for _, s := range []struct {
			search  string
			queries vector.Matrix
			judge   *recallJudge
			want    []peers.Hits
			got     [][]vector.Result
		}{
			{"single-query search", one, oneJudge, ref[:1], a.Single},
			{"batch search", batch, judge, ref, a.Batch},
			{"verified single-query search", one, oneJudge, ref[:1], a.Verified},
		} {
			got := resultHits(s.got)
			ag, err := compareTopK(name+" "+s.search, "brute force", vectorSearchMetric, data, s.queries, s.want, got)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			r, err := s.judge.meanRecall(got)
			if err != nil {
				errs = append(errs, fmt.Errorf("bench: %s %s: %w", name, s.search, err))
				continue
			}
			sumA.Queries += ag.Queries
			sumA.SameIDs += ag.SameIDs
			sumA.TieSwaps += ag.TieSwaps
			sumA.MaxScoreDiff = max(sumA.MaxScoreDiff, ag.MaxScoreDiff)
			recall = min(recall, r)
		}
		x.Agreement, x.Recall = sumA, recall
	}
	return errors.Join(errs...)
}

// truthHits is the brute-force neighbours as an answer, each scored as
// vector.Metric scores it, the form compareTopK compares.
func truthHits(gt *vector.GroundTruth, data, queries vector.Matrix) []peers.Hits {
	out := make([]peers.Hits, len(gt.IDs))
	for qi, ids := range gt.IDs {
		q := queries.Row(qi)
		out[qi].IDs = ids
		out[qi].Scores = make([]float64, len(ids))
		for r, id := range ids {
			out[qi].Scores[r] = float64(gt.Metric.Score(q, data.Row(int(id))))
		}
	}
	return out
}

// checkedQueries is how many queries each configuration's check compared.
func (r *VectorBenchReport) checkedQueries() int {
	if len(r.Results) == 0 {
		return 0
	}
	return r.Results[0].Agreement.Queries
}
