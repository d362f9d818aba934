package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/types/vector"
)

func TestRunVectorBenchQuick(t *testing.T) {
	rep, err := RunVectorBench(VectorBenchConfig{Size: Quick, Runs: 1, PageBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	want := len(vectorcol.Layouts()) * len(vectorcol.ValueEncodings()) * len(vectorcol.Codecs())
	if len(rep.Results) != want {
		t.Fatalf("%d results, want %d", len(rep.Results), want)
	}
	md := rep.Markdown()
	for _, l := range vectorcol.Layouts() {
		for _, e := range vectorcol.ValueEncodings() {
			for _, c := range vectorcol.Codecs() {
				row := fmt.Sprintf("| lab | %s | %s | %s |", l, e, c)
				if !strings.Contains(md, row) {
					t.Errorf("the table has no row %s", row)
				}
			}
		}
	}
	if !(rep.WriteFloorMBps > 0) {
		t.Errorf("durable-write floor %v", rep.WriteFloorMBps)
	}
	// The machine's load is part of the result: at the start and the end.
	if strings.Count(rep.Load, " / ") != 1 || !strings.Contains(md, "Load average at the start and the end: "+rep.Load) {
		t.Errorf("load %q is not in the report", rep.Load)
	}
	for _, x := range rep.Results {
		// The writer's own rate includes less work than the durable one.
		if x.Writer == "lab" && !(x.EncodeMBps >= x.WriteMBps) {
			t.Errorf("%s/%s/%s: write %.0f MB/s below durable %.0f MB/s", x.Layout, x.Encoding, x.Codec, x.EncodeMBps, x.WriteMBps)
		}
		pos := []float64{x.WriteMBps, x.SizeRatio, x.DecodeGBps, x.FloorMs, x.DecodeFloorRatio, x.SearchMs, x.SearchFloorRatio, x.BatchQPS, x.BatchFloorRatio, x.TakeMs}
		// The row's ratios are to the floor timed beside its search.
		if r := x.SearchMs / x.FloorMs; math.Abs(r-x.SearchFloorRatio) > 1e-9*r {
			t.Errorf("%s/%s/%s: top-10/floor %v, but %v ms over the row's floor %v ms is %v", x.Layout, x.Encoding, x.Codec, x.SearchFloorRatio, x.SearchMs, x.FloorMs, r)
		}
		for i, v := range pos {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s/%s/%s: measure %d = %v", x.Layout, x.Encoding, x.Codec, i, v)
			}
		}
		// Uncompressed files hold the raw bytes plus a little framing;
		// nothing compresses float noise below a third.
		if x.Codec == "none" && (x.SizeRatio < 1 || x.SizeRatio > 1.2) || x.SizeRatio < 0.33 || x.SizeRatio > 1.3 {
			t.Errorf("%s/%s/%s: size ratio %v", x.Layout, x.Encoding, x.Codec, x.SizeRatio)
		}
		if x.SearchPeakHeapMB < 0 {
			t.Errorf("negative peak heap %v", x.SearchPeakHeapMB)
		}
	}
	if len(rep.Verdicts) != 8 {
		t.Errorf("%d verdicts, want one per target (8): %+v", len(rep.Verdicts), rep.Verdicts)
	}
	for _, x := range rep.Results {
		if x.DecompressMs <= 0 || x.OwnFloorRatio <= 0 || x.OwnFloorRatio > x.SearchFloorRatio*1.0001 {
			t.Errorf("%s/%s/%s: decompression floor %v ms, search over its own floor %v (over the memory floor %v)",
				x.Layout, x.Encoding, x.Codec, x.DecompressMs, x.OwnFloorRatio, x.SearchFloorRatio)
		}
	}
	for _, v := range rep.Verdicts {
		if !v.Measured || v.Figure == "" {
			t.Errorf("target %q not measured by a full run: %+v", v.Target, v)
		}
		if !strings.Contains(md, v.Target) {
			t.Errorf("the report does not state the target %q", v.Target)
		}
	}
	if len(rep.Peak) != len(vectorcol.Layouts()) {
		t.Errorf("%d peak scalings, want one per layout", len(rep.Peak))
	}
	for _, p := range rep.Peak {
		if p.QuarterRows != Quick.N/4 || p.Rows != Quick.N || p.QuarterPeakMB < 0 {
			t.Errorf("peak scaling %+v", p)
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LAB_VECTOR_BENCH_PRINT") != "" {
		t.Log("\n" + md)
	}
}

// TestVectorBenchReport prints the table at the size in LAB_VECTOR_BENCH
// ("100000x128"); it is not a timed test, just a way to run the harness:
//
//	LAB_VECTOR_BENCH=100000x128 go test ./bench/ -run TestVectorBenchReport -v -timeout 60m
func TestVectorBenchReport(t *testing.T) {
	spec := os.Getenv("LAB_VECTOR_BENCH")
	if spec == "" {
		t.Skip("set LAB_VECTOR_BENCH=<rows>x<dim> to run the vector layout benchmark")
	}
	var n, dim int
	if _, err := fmt.Sscanf(spec, "%dx%d", &n, &dim); err != nil {
		t.Fatalf("LAB_VECTOR_BENCH=%q: want <rows>x<dim>", spec)
	}
	rep, err := RunVectorBench(VectorBenchConfig{Size: Size{Name: spec, N: n, Dim: dim}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.Markdown())
}

// BenchmarkVectorFile times the page-level paths over an uncompressed flba
// PLAIN file in the page cache at the 100k×768 reference size (-short: the
// quick size), each next to the floor for the same bytes measured in the
// same run: full decode (every element read once), single-query top-10 and
// a 64-query batch, reported as ×floor.
//
//	go test ./bench/ -run '^$' -bench VectorFile -benchtime 10x
func BenchmarkVectorFile(b *testing.B) {
	size := Reference768
	if testing.Short() {
		size = Quick
	}
	path := b.TempDir() + "/flba.parquet"
	col := vectorcol.Column{Dim: size.Dim, Data: Clustered(size.N, size.Dim, 64, 1)}
	if err := vectorcol.WriteFile(path, col, vectorcol.WriteOptions{Layout: vectorcol.LayoutFLBA}); err != nil {
		b.Fatal(err)
	}
	col = vectorcol.Column{}
	queries := vector.Matrix{Dim: size.Dim, Data: ClusteredQueries(64, size.Dim, 64, 1)}
	f, err := vectorcol.OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	floor, err := Floor(size.Bytes(), 5)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"decode", func() error { return drain(f) }},
		{"search-1", func() error {
			_, err := f.Search(0, vector.MetricDot, vector.Matrix{Dim: size.Dim, Data: queries.Row(0)}, 10)
			return err
		}},
		{"search-64", func() error { _, err := f.Search(0, vector.MetricDot, queries, 10); return err }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(size.Bytes())
			for b.Loop() {
				if err := tc.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/floor.Seconds, "×floor")
			b.ReportMetric(floor.GBps, "floor-GB/s")
		})
	}
}

// With PeerFiles, DuckDB and parquet-wasm write the same vectors and the
// lab's reader is measured on their files, with the two verdicts on them.
func TestRunVectorBenchPeerFiles(t *testing.T) {
	for _, p := range []peers.Peer{peers.DuckDB, peers.ParquetWasm} {
		if err := p.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
	rep, err := RunVectorBench(VectorBenchConfig{Size: Quick, Runs: 1, PeerFiles: true,
		Layouts: []vectorcol.Layout{vectorcol.LayoutFLBA}, Encodings: []vectorcol.ValueEncoding{vectorcol.EncodingByteStreamSplit}, Codecs: []vectorcol.Codec{vectorcol.CodecZstd}})
	if err != nil {
		t.Fatal(err)
	}
	writers := map[string]VectorBenchResult{}
	for _, x := range rep.Results {
		writers[x.Writer] = x
	}
	duck, wasm := writers["duckdb"], writers["parquet-wasm"]
	if len(rep.Results) != 3 || duck.Codec != "zstd" || wasm.Encoding != "bss" || duck.SearchMs <= 0 || wasm.SearchMs <= 0 ||
		duck.DecompressMs <= 0 || wasm.OwnFloorRatio <= 0 {
		t.Fatalf("results %+v", rep.Results)
	}
	// The peers' files are checked against brute force like the lab's.
	for _, x := range []VectorBenchResult{duck, wasm} {
		if x.Agreement.Queries == 0 || x.Agreement.SameIDs+x.Agreement.TieSwaps < x.Agreement.Queries || x.Recall != 1 {
			t.Errorf("%s: agreement %+v, recall %v", x.Writer, x.Agreement, x.Recall)
		}
	}
	// The lab reads the peers' files as the layouts they are.
	if duck.Layout != "list" || wasm.Layout != "list" && wasm.Layout != "fixed-size-list" {
		t.Errorf("layouts detected: duckdb %s, parquet-wasm %s", duck.Layout, wasm.Layout)
	}
	md := rep.Markdown()
	// The encodings are read back from the files: parquet-wasm's must
	// really be BYTE_STREAM_SPLIT (it drops a per-column setting on a
	// nested leaf), and the pinned DuckDB 1.5.6 picks it itself under V2.
	for _, want := range []string{"| duckdb | list | bss | zstd |", "| parquet-wasm | list | bss | zstd |", "DuckDB's and parquet-wasm's files", "no larger than the smaller"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
