package bench

import (
	"fmt"
	"strings"
)

// Verdict is one of the benchmark's targets and whether this run met it.
type Verdict struct {
	Target string
	Met    bool
	Detail string
}

// verdicts judges the run against the benchmark's two targets.
func verdicts(rep *PeerBenchReport) []Verdict {
	var lab EngineRun
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
