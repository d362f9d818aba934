package golden_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coltype-lab/lab/spec/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// dir is the checked-in golden directory, relative to this package.
const dir = "."

// TestGoldenRegenerate regenerates every golden file and fails on any
// byte difference from the checked-in ones; -update writes them instead.
func TestGoldenRegenerate(t *testing.T) {
	if *update {
		if err := golden.Generate(dir); err != nil {
			t.Fatal(err)
		}
	}
	diffs, err := golden.Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("%s; run go test ./spec/golden -update (or lab spec golden --dir spec/golden) and review the diff", d)
	}
}

// TestCheckFindsChanges edits a copy of the golden files three ways and
// expects Check to name each change.
func TestCheckFindsChanges(t *testing.T) {
	tmp := t.TempDir()
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	flip := filepath.Join(tmp, "vector", "flba.parquet")
	b, err := os.ReadFile(flip)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(flip, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(tmp, "file", "range.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "variant", "stray.parquet"), []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	diffs, err := golden.Check(tmp)
	if err != nil {
		t.Fatal(err)
	}
	want := []golden.Difference{
		{Path: "file/range.json", Problem: "missing"},
		{Path: "vector/flba.parquet", Problem: "bytes differ"},
		{Path: "variant/stray.parquet", Problem: "unexpected"},
	}
	if !slices.Equal(diffs, want) {
		t.Errorf("Check found %v, want %v", diffs, want)
	}
}

// TestLoad reads every sidecar back and checks what each kind promises.
func TestLoad(t *testing.T) {
	cases, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[golden.Kind]int{}
	for _, c := range cases {
		count[c.Kind]++
		if len(c.Rows) == 0 {
			t.Errorf("%s: no rows", c.ID())
		}
		if c.PhysicalRows != nil && len(c.PhysicalRows) != len(c.Rows) {
			t.Errorf("%s: %d physical rows, %d rows", c.ID(), len(c.PhysicalRows), len(c.Rows))
		}
		switch c.Kind {
		case golden.KindFile:
			if c.Expect == nil || c.Value == nil || c.Annotation != "FILE" {
				t.Errorf("%s: FILE sidecar without value, expectation or annotation", c.ID())
			}
		case golden.KindVector:
			if c.Vector == nil || c.Vector.Dim <= 0 {
				t.Errorf("%s: VECTOR sidecar without its layout", c.ID())
			}
		case golden.KindVariant:
			if len(c.Shredding) == 0 || c.PhysicalRows == nil {
				t.Errorf("%s: VARIANT sidecar without shredding or physical rows", c.ID())
			}
		}
	}
	if count[golden.KindFile] != golden.FileCaseCount() || count[golden.KindVector] < 4 || count[golden.KindVariant] < 1 {
		t.Errorf("cases per kind %v; want %d file, at least 4 vector and 1 variant", count, golden.FileCaseCount())
	}
}
