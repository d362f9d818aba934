package main

import (
	"context"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/notebooks/notebook"
)

var sections = []string{"Results"}

func generate(t *testing.T) string {
	t.Helper()
	page, err := notebook.GenerateQuick(t.TempDir(), "vector-search", run, sections...)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// TestQuickWithPeers compares the lab with every peer; recall must be exact
// for all of them.
func TestQuickWithPeers(t *testing.T) {
	for _, p := range []peers.Peer{peers.DuckDB, peers.LanceDB, peers.FAISS} {
		if err := p.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
	page := generate(t)
	for _, w := range []string{"| lab ", "| duckdb ", "| lancedb ", "| faiss ", "Every engine and mode returned the true top-10", "(per-query.svg)"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(page, "Peers missing") {
		t.Error("page says peers are missing")
	}
}

// TestQuickPeersMissing points the peers at an empty directory: the page says
// they are missing and shows the lab alone, unless LAB_REQUIRE_PEERS=1, which
// makes the run fail.
func TestQuickPeersMissing(t *testing.T) {
	t.Setenv(peers.DirEnv, t.TempDir())
	t.Setenv("LAB_REQUIRE_PEERS", "")
	page := generate(t)
	for _, w := range []string{"**Peers missing here**", "duckdb (", "| lab ", "Not compared here"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(page, "| duckdb ") {
		t.Error("page has a duckdb row without DuckDB")
	}

	t.Setenv("LAB_REQUIRE_PEERS", "1")
	err := notebook.Generate(context.Background(), "vector-search", notebook.Options{Quick: true, Out: t.TempDir()}, run)
	if err == nil || !strings.Contains(err.Error(), "LAB_REQUIRE_PEERS=1") || !strings.Contains(err.Error(), "duckdb") {
		t.Fatalf("Generate with missing peers under LAB_REQUIRE_PEERS=1: %v", err)
	}
}
