package bench

import (
	"fmt"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// recallJudge scores answers against brute force: the exact neighbours in
// float64 (vector.ComputeGroundTruth), so that an engine is measured
// against the truth, not merely against another float32 engine.
type recallJudge struct {
	truth         *vector.GroundTruth
	data, queries vector.Matrix
}

func newRecallJudge(metric vector.Metric, data, queries vector.Matrix, k int) (*recallJudge, error) {
	gt, err := vector.ComputeGroundTruth(metric, data, queries, k)
	if err != nil {
		return nil, fmt.Errorf("bench: ground truth: %w", err)
	}
	return &recallJudge{truth: gt, data: data, queries: queries}, nil
}

// meanRecall is ann-benchmarks' k-nn recall of the answers to the first
// len(hits) queries (RunConfig.SingleQueries), averaged over them, with its
// default ε for ties at the k-th distance.
func (j *recallJudge) meanRecall(hits []peers.Hits) (float64, error) {
	ids := make([][]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.IDs
	}
	truth, queries := *j.truth, j.queries
	if n := len(hits); n < len(truth.IDs) {
		truth.IDs, truth.Distances, queries = truth.IDs[:n], truth.Distances[:n], firstQueries(queries, n)
	}
	st, err := truth.KNNRecall(j.data, queries, ids, vector.DefaultRecallEpsilon)
	return st.Mean, err
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
