package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

// vectorAgreeConfig is a small run over two layouts, uncompressed PLAIN.
func vectorAgreeConfig() VectorBenchConfig {
	return VectorBenchConfig{Size: Size{Name: "2000x64", N: 2000, Dim: 64}, Runs: 1, Batch: 8, PageBytes: 64 << 10,
		Layouts:   []vectorcol.Layout{vectorcol.LayoutFLBA, vectorcol.LayoutList},
		Encodings: []vectorcol.ValueEncoding{vectorcol.EncodingPlain}, Codecs: []vectorcol.Codec{vectorcol.CodecNone}}
}

// TestRunVectorBenchAgreement: every configuration's searches are checked
// against brute force and the figures reach the report.
func TestRunVectorBenchAgreement(t *testing.T) {
	cfg := vectorAgreeConfig()
	rep, err := RunVectorBench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 || rep.K != 10 {
		t.Fatalf("%d results, k %d", len(rep.Results), rep.K)
	}
	for _, x := range rep.Results {
		a := x.Agreement
		if a.Queries != 1+cfg.Batch+1 || a.SameIDs+a.TieSwaps < a.Queries || x.Recall != 1 {
			t.Errorf("%s: agreement %+v, recall %v", vectorConfigName(&x), a, x.Recall)
		}
	}
	md := rep.Markdown()
	for _, want := range []string{"| same ids (tie swaps) | recall |", "| 10/10 (0) | 1.000 |", "top-10 of float64 brute force"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// TestRunVectorBenchWrongNeighbours: a reader that returns a wrong
// neighbour (the hook stands in for it) fails the run with an error naming
// the configuration, the search and the query; the other configurations
// and searches are left alone.
func TestRunVectorBenchWrongNeighbours(t *testing.T) {
	// wrongID puts, at rank 0 of query qi, the row ranked last, keeping
	// rank 0's score: a different id whose own score is not the truth's.
	wrongID := func(hits []peers.Hits, qi int) {
		ids := hits[qi].IDs
		ids[0] = ids[len(ids)-1]
		ids[len(ids)-1] = ids[0] + 1 // no repeat: the check must reach the score
	}
	tests := []struct {
		name, run string
		spoil     func([]peers.Hits)
		want      []string
	}{
		{"single", "flba/plain/none single-query search", func(h []peers.Hits) { wrongID(h, 0) },
			[]string{"flba/plain/none single-query search disagrees with the brute force on query 0: rank 0"}},
		{"batch", "list/plain/none batch search", func(h []peers.Hits) { wrongID(h, 5) },
			[]string{"list/plain/none batch search disagrees with the brute force on query 5"}},
		{"verified", "list/plain/none verified single-query search", func(h []peers.Hits) { wrongID(h, 0) },
			[]string{"list/plain/none verified single-query search disagrees"}},
		{"missing hit", "flba/plain/none batch search", func(h []peers.Hits) { h[2].IDs, h[2].Scores = h[2].IDs[:3], h[2].Scores[:3] },
			[]string{"flba/plain/none batch search disagrees with the brute force on query 2: 3 ids"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spoiled := 0
			vectorAnswersHook = func(run string, hits []peers.Hits) {
				if run == tt.run {
					spoiled++
					tt.spoil(hits)
				}
			}
			defer func() { vectorAnswersHook = nil }()
			rep, err := RunVectorBench(vectorAgreeConfig())
			if spoiled != 1 {
				t.Fatalf("the hook saw %s %d times, want once", tt.run, spoiled)
			}
			if err == nil {
				t.Fatalf("a wrong neighbour in %s passed: %+v", tt.run, rep.Results)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// One configuration and one search at fault: the error names
			// only it.
			if n := strings.Count(err.Error(), "disagrees"); n != 1 {
				t.Errorf("%d disagreements reported, want 1: %v", n, err)
			}
		})
	}
}

// TestVectorCheckData: the data the check compares with is the dataset
// regenerated from the seed, refused when it is not the one written.
func TestVectorCheckData(t *testing.T) {
	cfg := vectorAgreeConfig()
	cfg.Dataset, cfg.Clusters, cfg.Seed = "clustered", 64, 1
	want, _, err := Dataset(cfg.Dataset, cfg.Size.N, cfg.Size.Dim, cfg.Clusters, 0, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	data, err := vectorCheckData(cfg, datasetChecksum(want))()
	if err != nil || data.Dim != cfg.Size.Dim || !slices.Equal(data.Data, want) {
		t.Fatalf("regenerated %d × %d, %v", data.Rows(), data.Dim, err)
	}
	want[7]++ // the dataset written differed
	if _, err := vectorCheckData(cfg, datasetChecksum(want))(); err == nil || !strings.Contains(err.Error(), "is not the one written") {
		t.Errorf("a different dataset: %v", err)
	}
}
