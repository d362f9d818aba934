package peers

import (
	"context"
	"fmt"
)

// WriteColumn is one column of a Write request: its values in JSON, kind
// as the writer scripts document it (parquetwasm.mjs, hyparquetwriter.mjs).
type WriteColumn struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Dim    int    `json:"dim,omitempty"`
	Values []any  `json:"values"`
}

// Write asks a writer peer (ParquetWasm, HyparquetWriter) to write columns
// to a Parquet file with the options its script documents.
func Write(ctx context.Context, p Peer, file string, columns []WriteColumn, options map[string]any) error {
	req := struct {
		Op      string         `json:"op"`
		File    string         `json:"file"`
		Columns []WriteColumn  `json:"columns"`
		Options map[string]any `json:"options,omitempty"`
	}{"write", file, columns, options}
	var res struct {
		File string `json:"file"`
	}
	if err := Run(ctx, p, req, &res); err != nil {
		return err
	}
	if res.File != file {
		return fmt.Errorf("%s wrote %q, asked for %q", p.Name, res.File, file)
	}
	return nil
}

// WriteVectors asks parquet-wasm to write the n × dim float32 rows of a
// sidecar file (WriteSidecar) as one column emb, FixedSizeList<float32,
// dim>, with writer options as Write takes them (compression, version,
// bss_all: true for BYTE_STREAM_SPLIT, which a per-column bss_columns entry
// cannot give a nested leaf, ...). The values
// never pass through JSON: a 100k × 768 column would be gigabytes of it.
func WriteVectors(ctx context.Context, file, sidecar string, n, dim int, options map[string]any) error {
	req := struct {
		Op      string         `json:"op"`
		File    string         `json:"file"`
		Sidecar string         `json:"sidecar"`
		N       int            `json:"n"`
		Dim     int            `json:"dim"`
		Options map[string]any `json:"options,omitempty"`
	}{"write_vectors", file, sidecar, n, dim, options}
	var res struct {
		File string `json:"file"`
	}
	if err := Run(ctx, ParquetWasm, req, &res); err != nil {
		return err
	}
	if res.File != file {
		return fmt.Errorf("%s wrote %q, asked for %q", ParquetWasm.Name, res.File, file)
	}
	return nil
}
