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
			MedianMS: ms, MeanMS: ms, QPS: 1e3 / ms, LabRatio: ms / labMS, Agreement: Agreement{Queries: 4, SameIDs: 4}}
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
		ScoreTolerance: scoreTolerance,
	}
}

// TestPeerBenchVerdicts: the search target compares the lab only with the
// peers that read files per query; those searching memory are information.
func TestPeerBenchVerdicts(t *testing.T) {
	for _, tt := range []struct {
		labMS float64
		met   bool
	}{{2, true}, {3.5, false}} {
		v := verdicts(samplePeerReport(tt.labMS))
		if len(v) != 2 || v[0].Met != tt.met || !v[1].Met {
			t.Errorf("lab at %v ms: verdicts %+v; want search met %v, take met", tt.labMS, v, tt.met)
		}
		if !strings.Contains(v[0].Detail, "vs duckdb parquet 3 ms (×") || !strings.Contains(v[0].Detail, "memory loaded beforehand: duckdb memory 1 ms") {
			t.Errorf("search verdict detail %q", v[0].Detail)
		}
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
