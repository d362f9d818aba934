package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
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

// The benchmarks below are what the profiles in the variant work come
// from: go test ./bench/ -run '^$' -bench Variant -cpuprofile cpu.out.
func benchVariantValues(b *testing.B) []pvariant.Value {
	b.Helper()
	values, err := EventLogVariants(20_000, 7)
	if err != nil {
		b.Fatal(err)
	}
	return values
}

func benchVariantWrite(b *testing.B, props map[string]string) {
	values := benchVariantValues(b)
	path := filepath.Join(b.TempDir(), "v.parquet")
	b.ResetTimer()
	for range b.N {
		if err := WriteVariantFile(path, values, props); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVariantWriteUnshredded(b *testing.B) { benchVariantWrite(b, nil) }
func BenchmarkVariantWriteShredded(b *testing.B) {
	benchVariantWrite(b, map[string]string{lparquet.PropShredVariants: "true"})
}

func benchVariantRead(b *testing.B, props map[string]string) {
	values := benchVariantValues(b)
	path := filepath.Join(b.TempDir(), "v.parquet")
	if err := WriteVariantFile(path, values, props); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := readAllVariants(path, len(values)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVariantReadUnshredded(b *testing.B) { benchVariantRead(b, nil) }
func BenchmarkVariantReadShredded(b *testing.B) {
	benchVariantRead(b, map[string]string{lparquet.PropShredVariants: "true"})
}

func BenchmarkVariantPathShredded(b *testing.B) {
	values := benchVariantValues(b)
	path := filepath.Join(b.TempDir(), "v.parquet")
	if err := WriteVariantFile(path, values, map[string]string{lparquet.PropShredVariants: "true"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := lparquet.ReadVariantPath(registry.LocalInput(path), "v", VariantBenchPath); err != nil {
			b.Fatal(err)
		}
	}
}
