package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

func TestRunVectorBenchQuick(t *testing.T) {
	rep, err := RunVectorBench(VectorBenchConfig{Size: Quick, Runs: 1, PageBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	want := len(vector.Layouts()) * len(vector.ValueEncodings()) * len(vector.Codecs())
	if len(rep.Results) != want {
		t.Fatalf("%d results, want %d", len(rep.Results), want)
	}
	md := rep.Markdown()
	for _, l := range vector.Layouts() {
		for _, e := range vector.ValueEncodings() {
			for _, c := range vector.Codecs() {
				row := fmt.Sprintf("| %s | %s | %s |", l, e, c)
				if !strings.Contains(md, row) {
					t.Errorf("the table has no row %s", row)
				}
			}
		}
	}
	for _, x := range rep.Results {
		pos := []float64{x.WriteMBps, x.SizeRatio, x.DecodeGBps, x.DecodeFloorRatio, x.SearchMs, x.SearchFloorRatio, x.BatchQPS, x.BatchFloorRatio, x.TakeMs}
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
