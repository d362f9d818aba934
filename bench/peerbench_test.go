package bench

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
)

// needSearchPeers skips (or, with LAB_REQUIRE_PEERS=1, fails) unless
// DuckDB, LanceDB and FAISS are installed.
func needSearchPeers(t *testing.T) {
	t.Helper()
	for _, p := range []peers.Peer{peers.DuckDB, peers.LanceDB, peers.FAISS} {
		if err := p.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
}

func TestRunPeerBenchQuick(t *testing.T) {
	needSearchPeers(t)
	dir := t.TempDir()
	var progress strings.Builder
	rep, err := RunPeerBench(context.Background(), PeerBenchConfig{Size: Quick, Queries: 16, Dir: dir, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if rep.N != Quick.N || rep.Dim != Quick.Dim || rep.Metric != "cosine" || rep.K != 10 || rep.Queries != 16 {
		t.Errorf("report setting %+v", rep)
	}
	wantRuns := []string{"lab single", "lab batch", "duckdb parquet", "duckdb memory", "lancedb flat", "faiss single", "faiss batch"}
	var got []string
	for _, r := range rep.Search {
		got = append(got, r.Engine+" "+r.Mode)
		if r.Agreement.Queries != 16 {
			t.Errorf("%s %s: agreement over %d queries, want 16", r.Engine, r.Mode, r.Agreement.Queries)
		}
		if !(r.MedianMS > 0 && r.QPS > 0 && r.FloorRatio > 0 && r.LabRatio > 0) {
			t.Errorf("%s %s: figures %+v", r.Engine, r.Mode, r)
		}
		if r.Engine != "lab" && (r.ProcessMS < r.TotalMS || r.Computes == "") {
			t.Errorf("%s %s: process %.1f ms < queries %.1f ms, or no description", r.Engine, r.Mode, r.ProcessMS, r.TotalMS)
		}
		// Cosine scores of the same float32 data agree far closer than the tolerance.
		if r.Agreement.MaxScoreDiff > 1e-5 {
			t.Errorf("%s %s: scores differ from the lab's by %g", r.Engine, r.Mode, r.Agreement.MaxScoreDiff)
		}
	}
	for _, w := range wantRuns {
		if !strings.Contains(strings.Join(got, ","), w) {
			t.Errorf("runs %v lack %q", got, w)
		}
	}
	if len(rep.Take) != 2 || rep.Take[0].Engine != "lab" || rep.Take[1].Engine != "lancedb" || rep.Take[1].TakeMS <= 0 {
		t.Errorf("take %+v", rep.Take)
	}
	if len(rep.Verdicts) != 4 || rep.LoadAvgStart == "" || rep.LoadAvgEnd == "" || rep.Floor.GBps <= 0 {
		t.Errorf("verdicts %+v, load average %q/%q, floor %v", rep.Verdicts, rep.LoadAvgStart, rep.LoadAvgEnd, rep.Floor)
	}
	for _, v := range []string{"duckdb", "lancedb", "faiss"} {
		if rep.Versions[v] == "" {
			t.Errorf("no %s version in %v", v, rep.Versions)
		}
	}
	md := rep.Markdown()
	for _, want := range []string{"| lab | single |", "| duckdb | parquet |", "| lancedb | flat |", "| faiss | batch |",
		"Verdicts:", "single-query search from a file", "takeOffsets", "load average"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
	if !strings.Contains(progress.String(), "peers: duckdb") {
		t.Errorf("progress:\n%s", progress.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "vectors-flba.parquet")); err != nil {
		t.Errorf("the flba file is not in --dir: %v", err)
	}
}

// TestRunPeerBenchMissingPeer: a peer that is not installed fails the run
// with an error naming it, before any work.
func TestRunPeerBenchMissingPeer(t *testing.T) {
	t.Setenv(peers.DirEnv, t.TempDir()) // a peers directory without scripts
	_, err := RunPeerBench(context.Background(), PeerBenchConfig{Size: Quick})
	var pe *peers.Error
	if !errors.As(err, &pe) || !errors.Is(err, peers.ErrMissing) || !strings.Contains(err.Error(), "peer duckdb not installed") {
		t.Fatalf("error %v; want duckdb not installed", err)
	}
}

func TestPeerBenchConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  PeerBenchConfig
		msg  string
	}{
		{"no size", PeerBenchConfig{}, "has no rows"},
		{"k beyond rows", PeerBenchConfig{Size: Size{Name: "tiny", N: 5, Dim: 4}, K: 6}, "k 6 exceeds the 5 rows"},
		{"bad dataset", PeerBenchConfig{Size: Quick, Dataset: "gaussian"}, `unknown dataset "gaussian"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunPeerBench(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %v; want %q", err, tt.msg)
			}
		})
	}
}

// TestRunPeerBenchPeerTimeout: the time limit reaches the peer processes; a
// peer that does not answer within it is killed and named.
func TestRunPeerBenchPeerTimeout(t *testing.T) {
	needSearchPeers(t)
	_, err := RunPeerBench(context.Background(), PeerBenchConfig{Size: Quick, Queries: 2, PeerTimeout: time.Millisecond})
	if !errors.Is(err, peers.ErrHang) || !strings.Contains(err.Error(), "peer duckdb timed out") {
		t.Fatalf("error %v; want duckdb timed out", err)
	}
}
