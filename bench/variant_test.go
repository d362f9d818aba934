package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/registry"
)

// TestRunVariantBench runs at 5,000 rows; LAB_VARIANT_BENCH_ROWS=200000
// (with -v) reproduces the reported figures.
func TestRunVariantBench(t *testing.T) {
	// Pages of 2 KiB, so that 5000 rows of the filtered column fill
	// several.
	cfg := VariantBenchConfig{Rows: 5000, Seed: 7, Dir: t.TempDir(), Runs: 1, PageBytes: 2 << 10}
	if n, err := strconv.Atoi(os.Getenv("LAB_VARIANT_BENCH_ROWS")); err == nil && n > 0 {
		cfg.Rows, cfg.Runs, cfg.PageBytes = n, 3, 0
	}
	// LAB_VARIANT_BENCH_NODUCKDB=1 leaves DuckDB out, for quick reruns.
	cfg.NoDuckDB = os.Getenv("LAB_VARIANT_BENCH_NODUCKDB") == "1"
	rep, err := RunVariantBench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results", len(rep.Results))
	}
	un, sh := rep.Results[0], rep.Results[1]
	if un.Layout != "unshredded" || sh.Layout != "shredded" {
		t.Fatalf("layouts %q, %q", un.Layout, sh.Layout)
	}
	if un.PathShredded || !sh.PathShredded {
		t.Errorf("path reads: unshredded took the typed path %v, shredded %v", un.PathShredded, sh.PathShredded)
	}
	if sh.PathChunks >= un.PathChunks {
		t.Errorf("shredded path read %d chunks, unshredded %d", sh.PathChunks, un.PathChunks)
	}
	if !strings.Contains(rep.Layout, "user:{") || !strings.Contains(rep.Layout, "id:int32") {
		t.Errorf("layout %s does not shred user.id as int32", rep.Layout)
	}
	// RunVariantBench has checked every value it read (both path reads and
	// the full read against the values written); these are the figures.
	groups := (cfg.Rows + variantRowGroupRows - 1) / variantRowGroupRows
	wantCount := cfg.Rows - int(float64(cfg.Rows)*(1-VariantBenchFilterShare))
	if rep.FilterWant < wantCount-wantCount/2 || rep.FilterWant > wantCount+wantCount/2 {
		t.Errorf("the filter keeps %d of %d rows, want about %d", rep.FilterWant, cfg.Rows, wantCount)
	}
	for _, x := range rep.Results {
		for name, s := range map[string]float64{"write": x.WriteSeconds, "read": x.ReadSeconds, "path": x.PathSeconds, "projection": x.ProjSeconds, "filter": x.FilterSeconds} {
			if !(s > 0) {
				t.Errorf("%s: %s time %v", x.Layout, name, s)
			}
		}
		if x.FileBytes <= 0 || x.FullBytes <= 0 || x.FilterBytes <= 0 || x.FilterBytes > x.FullBytes {
			t.Errorf("%s: file %d bytes, full read %d, filtered %d", x.Layout, x.FileBytes, x.FullBytes, x.FilterBytes)
		}
		if x.FilterCount != rep.FilterWant {
			t.Errorf("%s: filtered count %d, want %d", x.Layout, x.FilterCount, rep.FilterWant)
		}
	}
	if !(sh.FloorSeconds > 0) || un.FloorSeconds != 0 {
		t.Errorf("floor: shredded %v s, unshredded %v s (only the shredded file has one)", sh.FloorSeconds, un.FloorSeconds)
	}
	// The filter is pushed into the shredded ts column: the last row group
	// alone, no warning; the unshredded file has no statistics for it.
	if sh.FilterGroups != 1 || len(sh.Warnings) != 0 {
		t.Errorf("shredded filtered count read %d row groups (want 1), warnings %q", sh.FilterGroups, sh.Warnings)
	}
	// One row group of small pages: the page index prunes inside it.
	if sh.PageIndexGroups != 1 || sh.PageFilterRows <= 0 || sh.PageFilterRows >= cfg.Rows/2 || sh.PageFilterBytes >= sh.PageFullBytes/2 {
		t.Errorf("page-index file: %d row groups, filtered count read %d of %d rows and %d of %d bytes", sh.PageIndexGroups, sh.PageFilterRows, cfg.Rows, sh.PageFilterBytes, sh.PageFullBytes)
	}
	if un.FilterGroups != groups {
		t.Errorf("unshredded filtered count read %d row groups, want all %d", un.FilterGroups, groups)
	}
	if sh.FileBytes >= un.FileBytes {
		t.Errorf("shredded file %d bytes, unshredded %d", sh.FileBytes, un.FileBytes)
	}
	switch d := rep.DuckDB; {
	case cfg.NoDuckDB:
		t.Log("DuckDB left out: LAB_VARIANT_BENCH_NODUCKDB=1")
	case d.Missing:
		t.Logf("DuckDB left out: %s", d.Error)
	case d.Error != "":
		t.Errorf("DuckDB: %s", d.Error)
	case len(d.Files) != 3:
		t.Errorf("DuckDB measured %d files, want its own and the lab's two", len(d.Files))
	default:
		// RunVariantBench has compared DuckDB's answers with the lab's.
		for _, f := range d.Files {
			if f.Error != "" {
				t.Logf("DuckDB cannot read %s: %s", filepath.Base(f.File), f.Error)
			} else if !(f.FullMS > 0 && f.PathMS > 0 && f.CountMS > 0) {
				t.Errorf("DuckDB on %s: times %v %v %v ms", filepath.Base(f.File), f.FullMS, f.PathMS, f.CountMS)
			}
		}
	}
	md := rep.Markdown()
	for _, want := range []string{"| unshredded |", "| shredded |", "faster", "| shredded write ≥ 0.8×", "| one shredded path ≤ 2×"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	t.Log("\n" + md)
	// The report's DuckDB section must reach the test's failure when
	// LAB_REQUIRE_PEERS=1, after the lab's figures were checked and shown.
	if rep.DuckDB.Missing {
		testenv.MissingPeer(t, rep.DuckDB.Error)
	}
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
		pr, err := lparquet.ReadVariantPath(registry.LocalInput(path), "v", VariantBenchPath)
		if err != nil {
			b.Fatal(err)
		}
		if len(pr.Values) != len(values) {
			b.Fatalf("%d values, want %d", len(pr.Values), len(values))
		}
	}
}

func benchShreddedFile(b *testing.B) (string, int) {
	b.Helper()
	values := benchVariantValues(b)
	path := filepath.Join(b.TempDir(), "v.parquet")
	props := map[string]string{lparquet.PropShredVariants: "true", lparquet.PropRowGroupRows: strconv.Itoa(variantRowGroupRows)}
	if err := WriteVariantFile(path, values, props); err != nil {
		b.Fatal(err)
	}
	return path, len(values)
}

func BenchmarkVariantProjectShredded(b *testing.B) {
	path, n := benchShreddedFile(b)
	b.ResetTimer()
	for range b.N {
		var sum int64
		got, err := readProjectedPath(path, func(x int32) { sum += int64(x) })
		if err != nil {
			b.Fatal(err)
		}
		if got != n || sum == 0 {
			b.Fatalf("%d values summing to %d, want %d", got, sum, n)
		}
	}
}

func BenchmarkVariantPathFloor(b *testing.B) {
	path, n := benchShreddedFile(b)
	b.ResetTimer()
	for range b.N {
		if err := readTypedColumn(path, n); err != nil {
			b.Fatal(err)
		}
	}
}
