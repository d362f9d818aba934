package bench

import (
	"fmt"
	"math"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/types/vector"
)

// Agreement is how one run's answers compare with the reference run's (in
// the peer benchmark, the lab's single-query search of the flba file).
type Agreement struct {
	Queries int // queries compared
	SameIDs int // queries whose ids equal the reference's, in order
	// TieSwaps counts ranks whose id differs from the reference's while
	// both scores are equal to the reference's within the tolerance.
	TieSwaps int
	// MaxScoreDiff is the largest |score − reference's score| at the same rank.
	MaxScoreDiff float64
}

// scoreTolerance is how far two engines' scores for the same rank may be
// apart: float32 sums in different orders differ in the last bits, and a
// different id at a rank is accepted only between scores this close (a tie).
const scoreTolerance = 1e-4

// compareTopK checks one engine's answers against the reference's (ref
// names it in errors, "lab"): for every query and rank, the engine's score
// must equal the reference's within the tolerance, and where the id
// differs, that id's own score (recomputed by the lab from the data) must
// too, so a different id is accepted only as an equally good row, a tie.
// Ids must be rows of the data and not repeat. The error names the engine
// and the query. Exact engines must agree: a mismatch is a bug to refuse,
// not a figure to report.
func compareTopK(engine, ref string, metric vector.Metric, data, queries vector.Matrix, want, got []peers.Hits) (Agreement, error) {
	var a Agreement
	if len(got) != len(want) {
		return a, fmt.Errorf("bench: %s answered %d queries, the %s %d", engine, len(got), ref, len(want))
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
			return a, fmt.Errorf("bench: %s disagrees with the %s on query %d: %s", engine, ref, qi, fmt.Sprintf(format, args...))
		}
		if len(w.Scores) != len(w.IDs) {
			return a, fmt.Errorf("bench: the reference %s has %d ids and %d scores on query %d", ref, len(w.IDs), len(w.Scores), qi)
		}
		if len(g.IDs) != len(w.IDs) || len(g.Scores) != len(g.IDs) {
			return fail("%d ids and %d scores, the %s has %d hits", len(g.IDs), len(g.Scores), ref, len(w.IDs))
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
			refScore := w.Scores[r]
			diff := math.Abs(g.Scores[r] - refScore)
			if !(diff <= tol(refScore)) { // also catches NaN
				return fail("rank %d: id %d score %.7g, the %s's id %d score %.7g (differ by %.2g > %.0e)",
					r, id, g.Scores[r], ref, w.IDs[r], refScore, diff, tol(refScore))
			}
			a.MaxScoreDiff = max(a.MaxScoreDiff, diff)
			if id == w.IDs[r] {
				continue
			}
			same = false
			own := float64(metric.Score(q, data.Row(int(id))))
			if d := math.Abs(own - refScore); !(d <= tol(refScore)) {
				return fail("rank %d: id %d instead of the %s's %d, and its score is %.7g, not the %s's %.7g",
					r, id, ref, w.IDs[r], own, ref, refScore)
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
