package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
)

func TestBenchPeersCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()

	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"bad size", []string{"--size", "100x"}, `--size "100x"`},
		{"bad metric", []string{"--quick", "--metric", "hamming"}, "--metric"},
		{"bad dataset", []string{"--quick", "--dataset", "gaussian"}, `--dataset "gaussian"`},
		{"zero queries", []string{"--quick", "--queries", "0"}, "--queries 0"},
		{"negative k", []string{"--quick", "--k", "-1"}, "--k -1"},
		{"k beyond the rows", []string{"--size", "5x4", "--k", "6"}, "--k 6: the dataset has only 5 rows"},
		{"bad timeout", []string{"--quick", "--peer-timeout", "soon"}, "--peer-timeout"},
		{"zero timeout", []string{"--quick", "--peer-timeout", "0s"}, "--peer-timeout 0s"},
		{"extra argument", []string{"--quick", "x"}, `unknown command "x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, bin, work, append([]string{"bench", "peers"}, tt.args...)...)
			if code != 2 || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit 2 with %q", code, errOut, tt.msg)
			}
		})
	}

	t.Run("help", func(t *testing.T) {
		out, _, code := run(t, bin, work, "bench", "peers", "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--peer-timeout") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})

	for _, p := range []peers.Peer{peers.DuckDB, peers.LanceDB, peers.FAISS} {
		if err := p.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
	// One end-to-end run (the bench package's test checks the Markdown):
	// every peer process costs seconds, so the CLI test keeps to one.
	t.Run("quick json", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "bench", "peers", "--quick", "--queries", "4", "--k", "5", "--metric", "l2", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep struct {
			Metric   string
			K        int
			Queries  int
			Search   []struct{ Engine, Mode string }
			Take     []struct{ Engine string }
			Verdicts []struct {
				Target string
				Met    bool
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		var runs []string
		for _, r := range rep.Search {
			runs = append(runs, r.Engine+" "+r.Mode)
		}
		for _, want := range []string{"lab single", "lab batch", "duckdb parquet", "duckdb memory", "lancedb flat", "faiss single", "faiss batch"} {
			if !slices.Contains(runs, want) {
				t.Errorf("runs %v lack %q", runs, want)
			}
		}
		if rep.Metric != "l2" || rep.K != 5 || rep.Queries != 4 || len(rep.Take) != 2 || len(rep.Verdicts) != 4 {
			t.Errorf("report %+v", rep)
		}
		for _, want := range []string{"peers: lab:", "peers: duckdb:", "peers: lancedb:", "peers: faiss:"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks progress %q:\n%s", want, errOut)
			}
		}
	})
	t.Run("missing peer", func(t *testing.T) {
		cmd := []string{"bench", "peers", "--quick"}
		t.Setenv(peers.DirEnv, t.TempDir()) // the child inherits it: no scripts there
		_, errOut, code := run(t, bin, work, cmd...)
		if code != 1 || !strings.Contains(errOut, "peer duckdb not installed") {
			t.Fatalf("exit %d, stderr %q; want exit 1 naming duckdb", code, errOut)
		}
	})
}
