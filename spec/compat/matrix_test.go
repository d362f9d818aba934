package compat_test

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/spec/compat"
)

var update = flag.Bool("update", false, "rewrite expected.json from the computed matrix")

const (
	goldenDir    = "../golden"
	expectedPath = "expected.json"
)

// TestMatrix computes the whole matrix and fails, naming the cell, where a
// reader's outcome differs from expected.json; -update rewrites it.
func TestMatrix(t *testing.T) {
	readers := compat.Readers()
	for _, r := range readers {
		if err := r.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
	cases, err := compat.Cases(goldenDir, testenv.ParquetTestingDir(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	m, err := compat.Run(ctx, cases, readers)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases × %d readers in %v", len(m.Cases), len(m.Readers), time.Since(start).Round(time.Millisecond))
	if *update {
		if err := compat.WriteExpected(expectedPath, m); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + m.Markdown())
		return
	}
	want, err := compat.ReadExpected(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := compat.Diff(want, m); len(diffs) > 0 {
		t.Errorf("the matrix changed; if the change is intended run go test ./spec/compat -update and lab compat --write spec/COMPAT.md:\n%s",
			strings.Join(diffs, "\n"))
	}
}
