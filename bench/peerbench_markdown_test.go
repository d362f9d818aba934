package bench

import (
	"strings"
	"testing"
)

// samplePeerReport is a peer benchmark's report as a run fills it, without
// running one: the verdicts and the Markdown only read it.
func samplePeerReport(labMS float64) *PeerBenchReport {
	run := func(engine, mode string, batch bool, ms float64) EngineRun {
		return EngineRun{Engine: engine, Mode: mode, Batch: batch, Reads: "somewhere", Computes: engine + " scores",
			MedianMS: ms, MeanMS: ms, QPS: 1e3 / ms, LabRatio: ms / labMS, FloorRatio: ms / 1.0, Agreement: Agreement{Queries: 4, SameIDs: 4}}
	}
	return &PeerBenchReport{
		Size: "tiny", N: 10, Dim: 4, Dataset: "clustered", Seed: 1, Metric: "cosine", K: 3, Queries: 4, TakeRows: 5,
		Versions: map[string]string{"go": "go1.x", "duckdb": "v1"},
		Files:    []DatasetFile{{Name: "vectors-flba.parquet", Bytes: 2e6, Format: "flba", ReadBy: []string{"lab"}}},
		Search: []EngineRun{
			run("lab", "single", false, labMS), run("lab", "batch", true, 0.5),
			run("duckdb", "parquet", false, 3), run("duckdb", "memory", false, 1),
			run("lancedb", "flat", false, 4), run("faiss", "batch", true, 0.1),
		},
		Take: []TakeRun{
			{Engine: "lab", OpenMS: 0.1, TakeMS: 0.5, FirstTakeMS: 0.6, OpenTakeMS: 0.7, LabRatio: 1},
			{Engine: "lancedb", OpenMS: 2, TakeMS: 1, FirstTakeMS: 3, LabRatio: 2, ProcessMS: 900},
		},
		Floor:          FloorResult{Seconds: 1e-3}, // 1 ms
		ScoreTolerance: scoreTolerance,
	}
}

// TestPeerBenchVerdicts: the search target compares the lab only with the
// peers that read files per query; those searching memory are information.
// A file opened per query is judged against the floor (1 ms in the sample),
// the lab's batch against FAISS's (0.5 ms against 0.1: missed).
func TestPeerBenchVerdicts(t *testing.T) {
	for _, tt := range []struct {
		labMS          float64
		met, openedMet bool
	}{{1.2, true, true}, {2, true, false}, {3.5, false, false}} {
		v := verdicts(samplePeerReport(tt.labMS))
		if len(v) != 4 || v[0].Met != tt.met || v[1].Met != tt.openedMet || v[2].Met || !v[3].Met {
			t.Errorf("lab at %v ms: verdicts %+v; want search met %v, opened per query met %v, batch missed, take met", tt.labMS, v, tt.met, tt.openedMet)
		}
		if !strings.Contains(v[0].Detail, "vs duckdb parquet 3 ms (×") || !strings.Contains(v[0].Detail, "memory loaded beforehand: duckdb memory 1 ms") {
			t.Errorf("search verdict detail %q", v[0].Detail)
		}
		if !strings.Contains(v[2].Target, "a batch of 4 queries") || !strings.Contains(v[2].Detail, "lab 0.5 ms per query from the file, FAISS 0.1 ms") {
			t.Errorf("batch verdict %+v", v[2])
		}
	}
	// The page cache's own read, when measured, is named in the opened
	// verdict, and said to rule the bound out when it is above it.
	for _, tt := range []struct {
		pageCacheMS float64
		ruledOut    bool
	}{{1.2, false}, {2, true}} {
		rep := samplePeerReport(2)
		rep.PageCache = PageCacheFloor{Seconds: tt.pageCacheMS / 1e3, Workers: 2, ChunkBytes: pageCacheChunk,
			MemorySeconds: 1e-3, Ratio: tt.pageCacheMS}
		d := verdicts(rep)[1].Detail
		if !strings.Contains(d, "the page cache alone (the file read with pread into reused 1024 KiB buffers on 2 cores, nothing else) takes") ||
			strings.Contains(d, "no reader that opens the file per query can meet the bound") != tt.ruledOut {
			t.Errorf("page cache at %v ms: opened verdict detail %q", tt.pageCacheMS, d)
		}
	}
	// Without FAISS's batch there is nothing to judge the lab's against.
	rep := samplePeerReport(1)
	rep.Search = rep.Search[:len(rep.Search)-1]
	if v := verdicts(rep); len(v) != 3 {
		t.Errorf("without a FAISS batch: %d verdicts %+v", len(v), v)
	}
}

// TestPeerBenchMarkdown: the report keeps its tables' columns, so figures
// stay comparable from run to run.
func TestPeerBenchMarkdown(t *testing.T) {
	rep := samplePeerReport(2)
	rep.Verdicts = verdicts(rep)
	md := rep.Markdown()
	for _, want := range []string{
		"Peer benchmark: clustered tiny (10 × 4 float32",
		"Versions: duckdb v1, go1.x.",
		"| file | MB | format | read by |",
		"| vectors-flba.parquet | 2.0 | flba | lab |",
		"| engine | mode | reads | load ms | ms/query | q/s | ×floor | ×lab | process s | outside s | same ids | tie swaps |",
		"| lab | single | somewhere | – | 2.000 | 500.0 |",
		"| duckdb | parquet | somewhere | 0.0 | 3.000 |",
		"| engine | open ms | take ms (best) | take ms (first) | open+take ms | ×lab |",
		"| lab | 0.100 | 0.500 | 0.600 | 0.700 | 1.00 |",
		"| lancedb | 2.000 | 1.000 | 3.000 | 3.000 | 2.00 |", // open+take is open + best take without a one-call take
		"- faiss: faiss scores",
		"- MET: lab ahead of every peer on single-query search from a file.",
		"- MET: lab take of 5 random rows not slower than LanceDB's takeOffsets.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
