package bench

import (
	"fmt"
	"strings"
)

// Markdown renders the report: the setting, one table of searches, one of
// takes, the agreement and the verdicts.
func (r *PeerBenchReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Peer benchmark: %s %s (%d × %d float32, %.1f MB raw), %d queries, top-%d %s, seed %d.\n",
		r.Dataset, r.Size, r.N, r.Dim, float64(r.RawBytes)/1e6, r.Queries, r.K, r.Metric, r.Seed)
	fmt.Fprintf(&b, "Floor %.2f GB/s (%.3f ms for the dataset) on %d cores; load average %s at start, %s at end; %.0f s in all.\n",
		r.Floor.GBps, r.Floor.Seconds*1e3, r.Cores, r.LoadAvgStart, r.LoadAvgEnd, r.DurationSeconds)
	if pc := r.PageCache; pc.Seconds > 0 {
		fmt.Fprintf(&b, "Page cache: %s, %.3f ms (%.2f GB/s, %.2f× the memory floor timed in turn with it, %.3f ms).\n",
			pc.how(), pc.Seconds*1e3, pc.GBps, pc.Ratio, pc.MemorySeconds*1e3)
	}
	var vs []string
	for _, k := range []string{"duckdb", "lancedb", "faiss", "go"} {
		if v := r.Versions[k]; v != "" && k == "go" {
			vs = append(vs, v) // runtime.Version says "go1.x"
		} else if v != "" {
			vs = append(vs, k+" "+v)
		}
	}
	fmt.Fprintf(&b, "Versions: %s.\n\n", strings.Join(vs, ", "))

	b.WriteString("| file | MB | format | read by |\n|---|--:|---|---|\n")
	for _, f := range r.Files {
		fmt.Fprintf(&b, "| %s | %.1f | %s | %s |\n", f.Name, float64(f.Bytes)/1e6, f.Format, strings.Join(f.ReadBy, ", "))
	}
	b.WriteString("\nSearch. ms/query is the engine's own in-process time: the median single query, or a batch's time per query; " +
		"load is before the queries and not in them; ×floor is ms/query over the floor's time; ×lab is ms/query over the lab's " +
		"(single-query rows against the lab's single query on the flba file, batches against the lab's batch); " +
		"process is the peer process's wall time seen from Go, and outside the part of it that is neither load nor queries (start-up, imports, JSON); " +
		"same ids counts queries whose ids equal the lab's in order, tie swaps the ranks where an equally scored row stands instead.\n\n")
	b.WriteString("| engine | mode | reads | load ms | ms/query | q/s | ×floor | ×lab | process s | outside s | same ids | tie swaps |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Search {
		load, proc, outside := "–", "–", "–"
		if x.Engine != "lab" {
			load = fmt.Sprintf("%.1f", x.LoadMS)
		}
		if x.ProcessMS > 0 {
			proc, outside = fmt.Sprintf("%.2f", x.ProcessMS/1e3), fmt.Sprintf("%.2f", x.OutsideMS/1e3)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f | %.1f | %.2f | %.2f | %s | %s | %d/%d | %d |\n",
			x.Engine, x.Mode, x.Reads, load, x.MedianMS, x.QPS, x.FloorRatio, x.LabRatio, proc, outside,
			x.Agreement.SameIDs, x.Agreement.Queries, x.Agreement.TieSwaps)
	}
	if r.LanceDBBuildMS > 0 {
		fmt.Fprintf(&b, "\nLanceDB table build from the sidecar: %.0f ms (not in any row above).\n", r.LanceDBBuildMS)
	}
	fmt.Fprintf(&b, "\nTake of %d distinct random rows with their vectors (both checked bit for bit against the dataset):\n\n", r.TakeRows)
	b.WriteString("| engine | open ms | take ms (best) | take ms (first) | open+take ms | ×lab |\n|---|--:|--:|--:|--:|--:|\n")
	for _, t := range r.Take {
		openTake := t.OpenTakeMS
		if openTake == 0 {
			openTake = t.OpenMS + t.TakeMS
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", t.Engine, t.OpenMS, t.TakeMS, t.FirstTakeMS, openTake, t.LabRatio)
	}
	b.WriteString("\nWhat each engine computes:\n\n")
	done := map[string]bool{}
	for _, x := range r.Search {
		if !done[x.Engine] {
			done[x.Engine] = true
			fmt.Fprintf(&b, "- %s: %s\n", x.Engine, x.Computes)
		}
	}
	fmt.Fprintf(&b, "\nAgreement: every run returned the lab's top-%d for every query (ids identical, or a different id only where its score equals the lab's within %.0e).\n",
		r.K, r.ScoreTolerance)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	b.WriteString("\nVerdicts:\n\n")
	for _, v := range r.Verdicts {
		mark := "MISSED"
		if v.Met {
			mark = "MET"
		}
		fmt.Fprintf(&b, "- %s: %s. %s.\n", mark, v.Target, v.Detail)
	}
	return b.String()
}

// fmtMS prints milliseconds with three significant digits, without
// switching to an exponent.
func fmtMS(ms float64) string {
	if ms >= 100 {
		return fmt.Sprintf("%.0f", ms)
	}
	return fmt.Sprintf("%.3g", ms)
}
