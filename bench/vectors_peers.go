package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/types/vector"
)

// peerFileTimeout bounds each peer's write of the benchmark's vectors.
const peerFileTimeout = 10 * time.Minute

// writeOtherWriters has DuckDB and parquet-wasm write col, as they write
// vectors at the settings users pick for size: DuckDB's FLOAT[dim] array
// with V2 pages and zstd (COPY from the lab's list file, which DuckDB
// reads as LIST<FLOAT> and casts), parquet-wasm's FixedSizeList<float32>
// with BYTE_STREAM_SPLIT and zstd (from a raw sidecar). raw is the
// vectors' float32 size, for the size ratio.
func writeOtherWriters(dir string, col vectorcol.Column, raw float64, progress func(string, ...any)) ([]vectorFile, error) {
	for _, p := range []peers.Peer{peers.DuckDB, peers.ParquetWasm} {
		if err := p.Available(); err != nil {
			return nil, fmt.Errorf("bench: peer files: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), peerFileTimeout)
	defer cancel()
	n := col.Rows()
	var out []vectorFile
	add := func(writer, path, enc, codec string, sec float64) error {
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		f, err := vectorcol.OpenFile(path)
		if err != nil {
			return fmt.Errorf("bench: the lab cannot open %s's file: %w", writer, err)
		}
		info := f.Info()
		f.Close()
		if info.Rows != int64(n) || info.Dim != col.Dim {
			return fmt.Errorf("bench: %s's file %s holds %d × %d, want %d × %d", writer, path, info.Rows, info.Dim, n, col.Dim)
		}
		out = append(out, vectorFile{path, VectorBenchResult{Writer: writer, Layout: info.Layout.String(), Encoding: enc, Codec: codec,
			WriteMBps: raw / sec / 1e6, FileBytes: st.Size(), SizeRatio: float64(st.Size()) / raw}})
		return nil
	}

	progress("writing the vectors with duckdb (V2 pages, zstd)")
	src := filepath.Join(dir, "duckdb-source-list.parquet")
	if err := vectorcol.WriteFile(src, col, vectorcol.WriteOptions{Layout: vectorcol.LayoutList, Encoding: vectorcol.EncodingPlain, Codec: vectorcol.CodecNone}); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", src, err)
	}
	duck := filepath.Join(dir, "duckdb-v2-zstd.parquet")
	start := time.Now()
	if _, err := peers.DuckDBExec(ctx, fmt.Sprintf("COPY (SELECT emb::FLOAT[%d] AS emb FROM read_parquet(%s)) TO %s (FORMAT parquet, PARQUET_VERSION V2, COMPRESSION zstd)",
		col.Dim, sqlQuote(src), sqlQuote(duck))); err != nil {
		return nil, fmt.Errorf("bench: duckdb write: %w", err)
	}
	// The time includes DuckDB reading the source: an upper bound.
	if err := add("duckdb", duck, "plain", "zstd", time.Since(start).Seconds()); err != nil {
		return nil, err
	}
	os.Remove(src)

	progress("writing the vectors with parquet-wasm (BYTE_STREAM_SPLIT, zstd)")
	sidecar := filepath.Join(dir, "vectors.f32")
	if err := peers.WriteSidecar(sidecar, vector.Matrix{Dim: col.Dim, Data: col.Data}); err != nil {
		return nil, err
	}
	wasm := filepath.Join(dir, "parquet-wasm-bss-zstd.parquet")
	start = time.Now()
	if err := peers.WriteVectors(ctx, wasm, sidecar, n, col.Dim, map[string]any{
		"compression": "ZSTD", "dictionary": false, "bss_columns": []string{"emb.list.item"}}); err != nil {
		return nil, fmt.Errorf("bench: parquet-wasm write: %w", err)
	}
	// Includes reading the sidecar and starting node: an upper bound.
	if err := add("parquet-wasm", wasm, "bss", "zstd", time.Since(start).Seconds()); err != nil {
		return nil, err
	}
	os.Remove(sidecar)
	return out, nil
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
