package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/types/vector"
	"github.com/parquet-go/parquet-go/format"
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
	add := func(writer, path, codec string, sec float64) error {
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
		var enc string
		if info.Rows != int64(n) || info.Dim != col.Dim {
			return fmt.Errorf("bench: %s's file %s holds %d × %d, want %d × %d", writer, path, info.Rows, info.Dim, n, col.Dim)
		}
		// The encoding the writer chose, not the one asked for: DuckDB
		// 1.5 writes floats with BYTE_STREAM_SPLIT under V2 pages.
		if enc, err = valueEncoding(path); err != nil {
			return fmt.Errorf("bench: %s's file %s: %w", writer, path, err)
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
	if err := add("duckdb", duck, "zstd", time.Since(start).Seconds()); err != nil {
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
		// bss_all: parquet-wasm drops a per-column encoding on a nested
		// leaf such as emb.list.item (bench/peers/parquetwasm.mjs), and the
		// file read back says which encoding it got (valueEncoding).
		"compression": "ZSTD", "dictionary": false, "bss_all": true}); err != nil {
		return nil, fmt.Errorf("bench: parquet-wasm write: %w", err)
	}
	// Includes reading the sidecar and starting node: an upper bound.
	if err := add("parquet-wasm", wasm, "zstd", time.Since(start).Seconds()); err != nil {
		return nil, err
	}
	os.Remove(sidecar)
	return out, nil
}

// valueEncoding names the values' encoding of a one-column vector file as
// the report does (plain, bss, dictionary), from the column chunks'
// encodings in its footer.
func valueEncoding(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	ft, err := footer.ReadFooter(f, st.Size())
	if err != nil {
		return "", err
	}
	names := map[string]bool{}
	for _, rg := range ft.Meta.RowGroups {
		for _, cc := range rg.Columns {
			if cc.MetaData == nil {
				continue
			}
			for _, e := range cc.MetaData.Encoding {
				switch e {
				case format.ByteStreamSplit:
					names["bss"] = true
				case format.PlainDictionary, format.RLEDictionary:
					names["dictionary"] = true
				}
			}
		}
	}
	switch {
	case len(names) > 1:
		return "", fmt.Errorf("its pages mix encodings %v", names)
	case names["bss"]:
		return "bss", nil
	case names["dictionary"]:
		return "dictionary", nil
	}
	return "plain", nil
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
