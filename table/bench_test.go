package table

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// The commit and scan targets. Run with
//
//	go test ./table -run '^$' -bench . -benchtime 1x
//
// Each benchmark builds its table in a fresh embedded catalog.

// writeFiles writes n one-row data files into tbl without committing them.
func writeFiles(b *testing.B, tbl *Table, n int) []iceberg.DataFile {
	b.Helper()
	spec, _ := tbl.Spec()
	var out []iceberg.DataFile
	for i := range n {
		dfs, err := tbl.WriteRows(context.Background(), func(write func(*data.Record) error) error {
			return write(data.Of(spec.Schema, int64(i)))
		})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, dfs...)
	}
	return out
}

// BenchmarkCommit is one commit of 1 or 100 data files already on storage.
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			cat, _ := openTestCatalog(b)
			tbl := createTable(b, cat, "bench.commit", CreateOptions{Spec: mustSpec(b, "id:long!")})
			for b.Loop() {
				b.StopTimer()
				files := writeFiles(b, tbl, n)
				b.StartTimer()
				if _, err := tbl.CommitFiles(context.Background(), files, CommitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSequentialCommits is 100 appends of one file each, in sequence,
// with iceberg-go's duplicate-file check on and off: the check rereads
// every manifest of the snapshot, so its cost grows with the table.
func BenchmarkSequentialCommits(b *testing.B) {
	for _, check := range []bool{false, true} {
		b.Run(fmt.Sprintf("duplicate-check=%v", check), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				cat, _ := openTestCatalog(b)
				tbl := createTable(b, cat, "bench.seq", CreateOptions{Spec: mustSpec(b, "id:long!")})
				files := writeFiles(b, tbl, 100)
				b.StartTimer()
				var last time.Duration
				for i, df := range files {
					c, err := tbl.CommitFiles(context.Background(), []iceberg.DataFile{df}, CommitOptions{DuplicateCheck: check})
					if err != nil {
						b.Fatal(err)
					}
					if i == len(files)-1 {
						last = c.CommitTime
					}
				}
				b.ReportMetric(float64(last.Microseconds())/1000, "ms/100th-commit")
			}
		})
	}
}

// BenchmarkScan reads the same table through the lab's scan (planning plus
// one registry read per task) and through iceberg-go's ToArrowTable. The
// table: 4 files of 25,000 rows, a long, a string and a 128-dim float32
// VECTOR of random elements (52 MB of vectors).
func BenchmarkScan(b *testing.B) {
	const files, rows, dim = 4, 25_000, 128
	cat, _ := openTestCatalog(b)
	tbl := createTable(b, cat, "bench.scan", CreateOptions{Spec: mustSpec(b, fmt.Sprintf("id:long!,name:string,emb:vector<float32,%d>", dim))})
	spec, _ := tbl.Spec()
	var all []iceberg.DataFile
	for f := range files {
		rng := rand.New(rand.NewPCG(uint64(f), 1))
		dfs, err := tbl.WriteRows(context.Background(), func(write func(*data.Record) error) error {
			vec := make([]byte, dim*4)
			for i := range rows {
				id := int64(f*rows + i)
				for j := range dim {
					// Random elements: real embeddings do not compress.
					binary.LittleEndian.PutUint32(vec[j*4:], math.Float32bits(rng.Float32()*2-1))
				}
				if err := write(data.Of(spec.Schema, id, fmt.Sprintf("row-%d", id), vec)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, dfs...)
	}
	if _, err := tbl.CommitFiles(context.Background(), all, CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, df := range all {
		bytes += df.FileSizeBytes()
	}
	for _, workers := range []int{0, 1} {
		b.Run(fmt.Sprintf("lab/workers=%d", workers), func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				s, err := tbl.Scan(context.Background(), ScanOptions{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, err := range s.Rows(context.Background()) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != files*rows {
					b.Fatalf("%d rows", n)
				}
			}
			b.ReportMetric(float64(files*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
	// The target as a ratio: both scans alternate in one loop, so the load
	// of a shared machine falls on both alike.
	b.Run("lab/iceberg-go", func(b *testing.B) {
		var lab, ice time.Duration
		for b.Loop() {
			start := time.Now()
			s, err := tbl.Scan(context.Background(), ScanOptions{})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, err := range s.Rows(context.Background()) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			lab += time.Since(start)
			start = time.Now()
			at, err := tbl.Iceberg().Scan().ToArrowTable(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if n != files*rows || at.NumRows() != int64(n) {
				b.Fatalf("%d and %d rows", n, at.NumRows())
			}
			at.Release()
			ice += time.Since(start)
		}
		b.ReportMetric(float64(lab.Microseconds())/1000/float64(b.N), "lab-ms")
		b.ReportMetric(float64(ice.Microseconds())/1000/float64(b.N), "iceberg-go-ms")
		b.ReportMetric(float64(lab)/float64(ice), "lab/iceberg-go")
	})
	b.Run("iceberg-go", func(b *testing.B) {
		b.SetBytes(bytes)
		for b.Loop() {
			at, err := tbl.Iceberg().Scan().ToArrowTable(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if at.NumRows() != files*rows {
				b.Fatalf("%d rows", at.NumRows())
			}
			at.Release()
		}
		b.ReportMetric(float64(files*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkSearch is the table-search target: a vector search of a
// table against the sum of lab vector searches of its data files, one at a
// time, in the same loop (ratio: table ÷ sum, target ≤ 1.2). The table: 8
// files of 12,500 rows of 128-dim float32 random vectors, 10 queries, k 10.
func BenchmarkSearch(b *testing.B) {
	const files, rows, dim = 8, 12_500, 128
	ctx := context.Background()
	cat, _ := openTestCatalog(b)
	tbl := createTable(b, cat, "bench.search", CreateOptions{Spec: mustSpec(b, fmt.Sprintf("id:long!,emb:vector<float32,%d>", dim))})
	spec, _ := tbl.Spec()
	var all []iceberg.DataFile
	for f := range files {
		rng := rand.New(rand.NewPCG(uint64(f), 2))
		dfs, err := tbl.WriteRows(ctx, func(write func(*data.Record) error) error {
			vec := make([]byte, dim*4)
			for i := range rows {
				for j := range dim {
					binary.LittleEndian.PutUint32(vec[j*4:], math.Float32bits(rng.Float32()*2-1))
				}
				if err := write(data.Of(spec.Schema, int64(f*rows+i), vec)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, dfs...)
	}
	if _, err := tbl.CommitFiles(ctx, all, CommitOptions{}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	queries := vector.Matrix{Dim: dim}
	for range 10 * dim {
		queries.Data = append(queries.Data, rng.Float32()*2-1)
	}
	var tableTime, fileTime time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := tbl.Search(ctx, SearchOptions{Metric: vector.MetricCosine, Queries: queries, K: 10})
		if err != nil {
			b.Fatal(err)
		}
		tableTime += time.Since(start)
		if res.Paged != files || len(res.Hits[0]) != 10 {
			b.Fatalf("%d of %d files paged, %d hits", res.Paged, res.Files, len(res.Hits[0]))
		}
		start = time.Now()
		for _, df := range all {
			path := strings.TrimPrefix(df.FilePath(), "file://")
			if _, err := vector.SearchFile(registry.LocalInput(path), vector.MetricCosine, queries, 10, nil); err != nil {
				b.Fatal(err)
			}
		}
		fileTime += time.Since(start)
	}
	b.ReportMetric(float64(tableTime.Microseconds())/1000/float64(b.N), "table-ms")
	b.ReportMetric(float64(fileTime.Microseconds())/1000/float64(b.N), "files-ms")
	b.ReportMetric(float64(tableTime)/float64(fileTime), "table/files")
}
