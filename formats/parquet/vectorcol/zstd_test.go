package vectorcol_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// embeddings are rows × dim float32 values with a scale falling along the
// dimensions, as in real embeddings: skewed exponent bytes, near-uniform
// low mantissa bytes.
func embeddings(rows, dim int) [][]float32 {
	r := rand.New(rand.NewPCG(5, 5))
	out := make([][]float32, rows)
	for i := range out {
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = float32(r.NormFloat64() * math.Exp(-2*float64(j)/float64(dim)))
		}
	}
	return out
}

func writeVectors(t *testing.T, path string, vecs [][]float32, props map[string]string) {
	t.Helper()
	dim := len(vecs[0])
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(dim * 4), Required: true})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	props[vectorcol.PropColumns] = fmt.Sprintf("emb:vector<float32,%d>", dim)
	w, err := b.Schema(sc).SetAll(props).Build()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		cell, err := vector.Float32.EncodeAppend(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(data.Of(sc, int64(i), cell)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// zstd without a level writes split pages as literal-only frames
// (vectorcol.Zstd): smaller than zstd at level 1 or 3, which the
// properties still choose when set, and read back exactly by the lab,
// DuckDB and parquet-wasm (both libzstd). The peers are skipped without
// them unless LAB_REQUIRE_PEERS=1.
func TestZstdSplitPages(t *testing.T) {
	const rows, dim = 3000, 128
	vecs := embeddings(rows, dim)
	dir := t.TempDir()
	size := func(name string) int64 {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	for _, layout := range []string{"list", "vector-repetition"} {
		base := func() map[string]string {
			return map[string]string{
				vectorcol.PropLayoutDefault:   layout,
				vectorcol.PropEncodingDefault: "byte-stream-split",
				parquet.PropCompressionCodec:  "zstd",
			}
		}
		lit := layout + "-literals.parquet"
		writeVectors(t, filepath.Join(dir, lit), vecs, base())
		for _, level := range []string{"1", "3"} {
			name := layout + "-level" + level + ".parquet"
			props := base()
			props[parquet.PropCompressionLevel] = level
			writeVectors(t, filepath.Join(dir, name), vecs, props)
			if size(lit) >= size(name) {
				t.Errorf("%s: %d bytes, not smaller than zstd level %s's %d", layout, size(lit), level, size(name))
			}
		}
		t.Logf("%s: literal frames %d bytes; zstd level 1 %d, level 3 %d", layout, size(lit), size(layout+"-level1.parquet"), size(layout+"-level3.parquet"))
		f, err := vectorcol.OpenColumn(filepath.Join(dir, lit), "emb")
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := f.ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vecs {
			for j, x := range v {
				if m.Data[i*dim+j] != x {
					t.Fatalf("%s: row %d element %d reads %v, want %v", layout, i, j, m.Data[i*dim+j], x)
				}
			}
		}
	}
	// DuckDB and parquet-wasm read the list layout (neither knows
	// vector-repetition: spec/COMPAT.md).
	path := filepath.Join(dir, "list-literals.parquet")
	for _, p := range []peers.Peer{peers.DuckDB, peers.ParquetWasm} {
		t.Run(p.Name, func(t *testing.T) {
			if err := p.Available(); err != nil {
				testenv.MissingPeer(t, err.Error())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := peers.Read(ctx, p, path, -1)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != rows {
				t.Fatalf("%d rows, want %d", len(res.Rows), rows)
			}
			for i, row := range res.Rows {
				got, ok := row["emb"].([]any)
				if !ok || len(got) != dim {
					t.Fatalf("row %d: emb reads %T %v", i, row["emb"], row["emb"])
				}
				for j, x := range got {
					if f, ok := x.(float64); !ok || float32(f) != vecs[i][j] {
						t.Fatalf("row %d element %d: %v, want %v", i, j, x, vecs[i][j])
					}
				}
			}
		})
	}
}
