package compat

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/coltype-lab/lab/bench/peers"
)

// The JavaScript writers: parquet-wasm (arrow-rs) and hyparquet-writer,
// given the generator's data as JSON. Their families leave out what their
// JavaScript side cannot carry exactly (dates and timestamps, which
// apache-arrow's builders take in milliseconds; decimals; maps).

// jsWriter is one peer with its settings.
type jsWriter struct {
	peer     peers.Peer
	families []genFamily
	settings []jsSetting
}

type jsSetting struct {
	name    string
	options func(f genFamily) map[string]any
}

var jsPrimitives = genFamily{name: "primitives", rows: 3000, columns: []genColumn{
	{"id", "int64", 0}, {"i32", "int32", 0}, {"f32", "float32", 11}, {"f64", "float64", 0},
	{"s", "string", 5}, {"b", "binary", 0}, {"t", "bool", 0},
}}

var jsLists = genFamily{name: "lists", rows: 3000, columns: []genColumn{{"id", "int64", 0}, {"l", "list_int32", 9}}}

var jsWriters = []jsWriter{
	{peer: peers.ParquetWasm,
		families: []genFamily{jsPrimitives, genFamilies[1], jsLists,
			{name: "struct", rows: 3000, columns: []genColumn{{"id", "int64", 0}, {"st", "struct_ab", 6}}},
			{name: "fixed-size-list-16", rows: 3000, vector: "emb", dim: genDim, columns: []genColumn{{"id", "int64", 0}, {"emb", "fsl_float", 13}}},
			genFamilies[4]},
		settings: []jsSetting{
			{"default", func(genFamily) map[string]any { return nil }},
			{"v2-zstd-no-dictionary", func(genFamily) map[string]any {
				return map[string]any{"version": 2, "compression": "ZSTD", "dictionary": false}
			}},
			{"bss-snappy-small-pages", func(f genFamily) map[string]any {
				o := map[string]any{"compression": "SNAPPY", "dictionary": false, "page_size": 1024, "row_group_size": 700, "bss_columns": floatColumns(f, "item")}
				if f.vector != "" {
					// parquet-wasm drops a per-column encoding on a nested
					// leaf (emb.list.item) silently, so the vector family
					// sets the file's default: every leaf, its int64 id too.
					o["bss_all"] = true
				}
				return o
			}},
		}},
	{peer: peers.HyparquetWriter,
		families: []genFamily{jsPrimitives, genFamilies[1], jsLists, genFamilies[4]},
		settings: []jsSetting{
			{"default", func(genFamily) map[string]any { return nil }},
			{"uncompressed-small-pages", func(genFamily) map[string]any {
				return map[string]any{"codec": "UNCOMPRESSED", "page_size": 1024, "row_group_size": 700}
			}},
			{"delta-bss", func(f genFamily) map[string]any {
				enc := map[string]any{}
				for _, c := range f.columns {
					switch c.kind {
					case "int32", "int64":
						enc[c.name] = "DELTA_BINARY_PACKED"
					case "float32", "float64":
						enc[c.name] = "BYTE_STREAM_SPLIT"
					case "string":
						enc[c.name] = "DELTA_BYTE_ARRAY"
					}
				}
				return map[string]any{"encodings": enc}
			}},
		}},
}

// genJSValue is row i of a column as the writer scripts take it: 64-bit
// integers as decimal strings, bytes as hex, the rest as JSON has them.
func genJSValue(c genColumn, i int) any {
	switch v := genValue(c, i).(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float32:
		return float64(v)
	case []byte:
		return hex.EncodeToString(v)
	case genList:
		out := []any{}
		for _, e := range v {
			if e == nil {
				out = append(out, nil)
			} else {
				out = append(out, *e)
			}
		}
		return out
	case genStruct:
		return map[string]any{"a": v.a, "b": v.b}
	case []float32:
		out := make([]any, len(v))
		for j, f := range v {
			out[j] = float64(f)
		}
		return out
	case int32, uint8, uint16, uint32, float64, string, bool, nil:
		return v
	}
	panic("genJSValue: kind " + c.kind)
}

// JSCases writes every family of both JavaScript writers with each of
// their settings into dir.
func JSCases(ctx context.Context, dir string) ([]*WriterCase, error) {
	var out []*WriterCase
	for _, w := range jsWriters {
		for _, f := range w.families {
			for _, s := range w.settings {
				c := &WriterCase{Writer: w.peer.Name, Setting: s.name, Family: f.name, Vector: f.vector, Dim: f.dim,
					Path: filepath.Join(dir, w.peer.Name+"-"+s.name+"-"+f.name+".parquet")}
				var cols []peers.WriteColumn
				for _, col := range f.columns {
					c.Columns = append(c.Columns, col.name)
					wc := peers.WriteColumn{Name: col.name, Kind: col.kind, Values: make([]any, f.rows)}
					if col.kind == "fsl_float" {
						wc.Dim = genDim
					}
					for i := range f.rows {
						wc.Values[i] = genJSValue(col, i)
					}
					cols = append(cols, wc)
				}
				for i := range f.rows {
					row := map[string]any{}
					for _, col := range f.columns {
						row[col.name] = genExpected(col, i)
					}
					c.Rows = append(c.Rows, row)
				}
				if err := peers.Write(ctx, w.peer, c.Path, cols, s.options(f)); err != nil {
					return nil, fmt.Errorf("%s: %w", c.ID(), err)
				}
				out = append(out, c)
			}
		}
	}
	return out, nil
}
