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

// meanRecall is ann-benchmarks' k-nn recall of the answers, averaged over
// the queries, with its default ε for ties at the k-th distance.
func (j *recallJudge) meanRecall(hits []peers.Hits) (float64, error) {
	ids := make([][]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.IDs
	}
	st, err := j.truth.KNNRecall(j.data, j.queries, ids, vector.DefaultRecallEpsilon)
	return st.Mean, err
}
