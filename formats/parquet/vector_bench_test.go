package parquet_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// The write benchmarks write clustered 768-dimension embeddings (bench's
// dataset, 64 clusters) with an id column through the registry's record
// writer, to a new file in the page cache, and report the raw vector bytes
// written per second and the ratio of the write time to two floors
// measured in the same run: a memory copy of the same bytes (x-copy, the
// least any writer of them does in user space) and a plain write of as
// many bytes to a new file (x-file, what the kernel costs on its own).
//
//	go test ./formats/parquet/ -run '^$' -bench VectorWrite -benchtime 5x
const (
	benchVectorRows = 20_000
	benchVectorDim  = 768
)

type vectorBenchData struct {
	sc   *iceberg.Schema
	recs []*data.Record
	raw  int64
}

var benchVectors *vectorBenchData

func vectorBench(b *testing.B) *vectorBenchData {
	if benchVectors != nil {
		return benchVectors
	}
	flat := bench.Clustered(benchVectorRows, benchVectorDim, 64, 1)
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(benchVectorDim * 4), Required: true})
	d := &vectorBenchData{sc: sc, raw: int64(len(flat)) * 4}
	for i := range benchVectorRows {
		cell, err := vector.Float32.EncodeAppend(nil, flat[i*benchVectorDim:(i+1)*benchVectorDim])
		if err != nil {
			b.Fatal(err)
		}
		d.recs = append(d.recs, data.Of(sc, int64(i), cell))
	}
	benchVectors = d
	return d
}

// copyFloor is the best of a few timed copies of n bytes, between two
// buffers touched once before.
func copyFloor(n int64) time.Duration {
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src)
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		copy(dst, src)
		best = min(best, time.Since(start))
	}
	runtime.KeepAlive(dst)
	return best
}

func writeVectorFile(b *testing.B, path string, d *vectorBenchData, props map[string]string) int64 {
	wb, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		b.Fatal(err)
	}
	w, err := wb.Schema(d.sc).SetAll(props).Overwrite().Build()
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range d.recs {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return w.DataFile().FileSizeBytes()
}

// fileFloor is the best of a few timed writes of n bytes to a new file in
// dir, in 1 MiB writes: what the kernel alone costs a writer of them.
func fileFloor(b *testing.B, dir string, n int64) time.Duration {
	buf := make([]byte, 1<<20)
	best := time.Duration(1 << 62)
	for i := range 3 {
		path := fmt.Sprintf("%s/floor-%d", dir, i)
		start := time.Now()
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		for left := n; left > 0; left -= int64(len(buf)) {
			if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(start))
		os.Remove(path)
	}
	return best
}

// runVectorWrite times writes of d with props, each to a new file (the
// previous one removed outside the timing); it reports GB/s of raw vector
// bytes, the ratio of the time to the copy floor and to the file floor of
// the same bytes (both measured in the same run), and the file's size
// over the raw bytes.
func runVectorWrite(b *testing.B, props map[string]string) {
	d := vectorBench(b)
	dir := b.TempDir()
	floor := copyFloor(d.raw)
	ffloor := fileFloor(b, dir, d.raw)
	var size int64
	var total time.Duration
	b.SetBytes(d.raw)
	b.ResetTimer()
	for i := range b.N {
		path := fmt.Sprintf("%s/w-%d.parquet", dir, i)
		start := time.Now()
		size = writeVectorFile(b, path, d, props)
		total += time.Since(start)
		b.StopTimer()
		os.Remove(path)
		b.StartTimer()
	}
	b.StopTimer()
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(d.raw)/per.Seconds()/1e9, "GB/s")
	b.ReportMetric(per.Seconds()/floor.Seconds(), "x-copy")
	b.ReportMetric(per.Seconds()/ffloor.Seconds(), "x-file")
	b.ReportMetric(float64(d.raw)/floor.Seconds()/1e9, "copy-GB/s")
	b.ReportMetric(float64(d.raw)/ffloor.Seconds()/1e9, "file-GB/s")
	b.ReportMetric(float64(size)/float64(d.raw), "size/raw")
}

// Every layout and encoding, uncompressed: the ≥ 1 GB/s target.
func BenchmarkVectorWrite(b *testing.B) {
	for _, layout := range []string{"flba", "fixed-size-list", "list", "vector-repetition"} {
		for _, enc := range []string{"plain", "byte-stream-split"} {
			b.Run(fmt.Sprintf("%s/%s", layout, enc), func(b *testing.B) {
				runVectorWrite(b, map[string]string{
					vectorcol.PropColumns: fmt.Sprintf("emb:float32:%d", benchVectorDim), vectorcol.PropLayoutDefault: layout,
					vectorcol.PropEncodingDefault: enc, parquet.PropCompressionCodec: "uncompressed",
				})
			})
		}
	}
}

// The zstd levels on the same data (each of klauspost's four encoder
// levels: 1-2 fastest, 3-5 default, 6-9 better, 10+ best), beside
// snappy and lz4: what vectorcol.ZstdLevel is chosen by.
func BenchmarkVectorWriteCodecs(b *testing.B) {
	type codec struct{ name, level string }
	for _, layout := range []string{"flba", "vector-repetition"} {
		for _, enc := range []string{"plain", "byte-stream-split"} {
			// zstd without a level: literal-only frames on split pages.
			for _, c := range []codec{{"zstd", ""}, {"zstd", "1"}, {"zstd", "3"}, {"zstd", "6"}, {"zstd", "10"}, {"snappy", ""}, {"lz4", ""}} {
				b.Run(fmt.Sprintf("%s/%s/%s%s", layout, enc, c.name, c.level), func(b *testing.B) {
					props := map[string]string{
						vectorcol.PropColumns: fmt.Sprintf("emb:float32:%d", benchVectorDim), vectorcol.PropLayoutDefault: layout,
						vectorcol.PropEncodingDefault: enc, parquet.PropCompressionCodec: c.name,
					}
					if c.level != "" {
						props[parquet.PropCompressionLevel] = c.level
					}
					runVectorWrite(b, props)
				})
			}
		}
	}
}
