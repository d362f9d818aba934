package bench

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRunVariantBench runs at 5,000 rows; LAB_VARIANT_BENCH_ROWS=200000
// (with -v) reproduces the reported figures.
func TestRunVariantBench(t *testing.T) {
	cfg := VariantBenchConfig{Rows: 5000, Seed: 7, Dir: t.TempDir(), Runs: 1}
	if n, err := strconv.Atoi(os.Getenv("LAB_VARIANT_BENCH_ROWS")); err == nil && n > 0 {
		cfg.Rows, cfg.Runs = n, 3
	}
	rep, err := RunVariantBench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results", len(rep.Results))
	}
	un, sh := rep.Results[0], rep.Results[1]
	if un.PathShredded || !sh.PathShredded {
		t.Errorf("path reads: unshredded took the typed path %v, shredded %v", un.PathShredded, sh.PathShredded)
	}
	if sh.PathChunks >= un.PathChunks {
		t.Errorf("shredded path read %d chunks, unshredded %d", sh.PathChunks, un.PathChunks)
	}
	if !strings.Contains(rep.Layout, "user:{") || !strings.Contains(rep.Layout, "id:int32") {
		t.Errorf("layout %s does not shred user.id as int32", rep.Layout)
	}
	md := rep.Markdown()
	for _, want := range []string{"| unshredded |", "| shredded |", "faster"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	t.Log("\n" + md)
}

func TestEventLogVariantsDeterministic(t *testing.T) {
	a, err := EventLogVariants(50, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EventLogVariants(50, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 50 || len(b) != 50 {
		t.Fatalf("%d and %d rows, want 50 each", len(a), len(b))
	}
	for i := range a {
		if string(a[i].Bytes()) != string(b[i].Bytes()) {
			t.Fatalf("row %d differs between runs", i)
		}
	}
}
