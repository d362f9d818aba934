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

// targetOpenedPerQuery is issue 14's bound on a search of a file opened per
// query: within 1.5× the memory floor of the same run.
const targetOpenedPerQuery = 1.5

// verdicts judges the run against the benchmark's targets: the lab ahead of
// every peer searching from a file, a file opened per query near the floor,
// the lab's batch no slower per query than FAISS's (issue 14), and take.
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
	opened := Verdict{
		Target: fmt.Sprintf("a search of a file opened per query within %.1f× the memory floor", targetOpenedPerQuery),
		Met:    lab.FloorRatio <= targetOpenedPerQuery,
		Detail: fmt.Sprintf("lab %s ms per query (median), %.2f× the floor's %s ms", fmtMS(lab.MedianMS), lab.FloorRatio, fmtMS(rep.Floor.Seconds*1e3)),
	}
	if pc := rep.PageCache; pc.Seconds > 0 && pc.MemorySeconds > 0 {
		opened.Detail += fmt.Sprintf("; the page cache alone (%s) takes %s ms, %.2f× the memory floor timed in turn with it (%s ms)",
			pc.how(), fmtMS(pc.Seconds*1e3), pc.Ratio, fmtMS(pc.MemorySeconds*1e3))
		if pc.Ratio > targetOpenedPerQuery {
			opened.Detail += ", so no reader that opens the file per query can meet the bound on this machine"
		}
	}
	out := []Verdict{search, opened}
	if batch, faiss, ok := labAndFAISSBatch(rep.Search); ok {
		out = append(out, Verdict{
			Target: fmt.Sprintf("a batch of %d queries: ms per query no more than FAISS IndexFlatIP's (same threads, same run)", rep.Queries),
			Met:    batch.MeanMS <= faiss.MeanMS,
			Detail: fmt.Sprintf("lab %s ms per query from the file, FAISS %s ms from memory (×%.2f)", fmtMS(batch.MeanMS), fmtMS(faiss.MeanMS), faiss.MeanMS/max(batch.MeanMS, 1e-9)),
		})
	}
	return append(out, take)
}

// labAndFAISSBatch finds the lab's and FAISS's batch runs.
func labAndFAISSBatch(runs []EngineRun) (lab, faiss EngineRun, ok bool) {
	var haveLab, haveFAISS bool
	for _, r := range runs {
		switch {
		case r.Engine == "lab" && r.Mode == "batch":
			lab, haveLab = r, true
		case r.Engine == "faiss" && r.Mode == "batch":
			faiss, haveFAISS = r, true
		}
	}
	return lab, faiss, haveLab && haveFAISS
}
