package vectorcol

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/registry/registrytest"
	"github.com/coltype-lab/lab/types/vector"
)

// The registry's conformance suite on the (PARQUET, vector.Block) model.
// The model only reads (registrytest.Case.WriteSample), so the suite's
// sample files are written as the model's files are: records through the
// record model, the VECTOR column declared by PropColumns, in every layout
// the record writer writes. 300 rows (every 7th vector null) in row groups
// of 32 and pages of about 12 vectors, so the split checks cut through ten
// row groups and a row group gives several blocks.

const (
	conformanceRows = 300
	conformanceDim  = 6
	conformanceFill = 50 // vectors per sample block
)

var conformanceSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(conformanceDim * 4)},
)

// conformanceBlocks are the sample rows as blocks of conformanceFill rows,
// the null vectors left out as a file's blocks leave them (IDs).
func conformanceBlocks() []vector.Block {
	r := rand.New(rand.NewPCG(18, 592))
	var out []vector.Block
	for first := 0; first < conformanceRows; first += conformanceFill {
		b := vector.Block{FirstRow: int64(first), IDs: []int64{}, Dim: conformanceDim}
		for i := first; i < min(first+conformanceFill, conformanceRows); i++ {
			if i%7 == 3 {
				continue
			}
			b.IDs = append(b.IDs, int64(i))
			for range conformanceDim {
				b.Vectors = append(b.Vectors, float32(r.NormFloat64()))
			}
		}
		out = append(out, b)
	}
	out[0].Vectors[conformanceDim] = float32(math.Copysign(0, -1)) // row 1's first element: a signed zero survives
	return out
}

// renderBlock is a block's logical rows: row id and vector, one string each.
func renderBlock(b vector.Block) []string {
	var out []string
	if b.Dim != 0 && b.Dim != conformanceDim {
		out = append(out, fmt.Sprintf("a block of dimension %d", b.Dim))
	}
	for i := range len(b.Vectors) / conformanceDim {
		id := b.FirstRow + int64(i)
		if b.IDs != nil {
			id = b.IDs[i]
		}
		out = append(out, fmt.Sprintf("%d: %v", id, b.Vectors[i*conformanceDim:(i+1)*conformanceDim]))
	}
	if len(b.Vectors)%conformanceDim != 0 {
		out = append(out, fmt.Sprintf("%d elements left over", len(b.Vectors)%conformanceDim))
	}
	return out
}

// writeConformanceSample writes blocks as the records of a file with
// conformanceSchema, the rows they leave out null, its VECTOR column in
// layout.
func writeConformanceSample(layout Layout, loc string, blocks []vector.Block) error {
	var rows int64
	vecs := map[int64][]float32{}
	for _, b := range blocks {
		for i := range len(b.Vectors) / conformanceDim {
			id := b.FirstRow + int64(i)
			if b.IDs != nil {
				id = b.IDs[i]
			}
			vecs[id] = b.Vectors[i*conformanceDim : (i+1)*conformanceDim]
			rows = max(rows, id+1)
		}
	}
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(loc))
	if err != nil {
		return err
	}
	w, err := b.Schema(conformanceSchema).SetAll(map[string]string{
		PropColumns:              fmt.Sprintf("emb:vector<float32,%d>", conformanceDim),
		PropLayoutColumn + "emb": layout.String(),
		parquet.PropRowGroupRows: "32",
		parquet.PropPageBytes:    "300",
	}).Build()
	if err != nil {
		return err
	}
	for i := range rows {
		var cell any
		if v, ok := vecs[i]; ok {
			if cell, err = vector.Float32.EncodeAppend(nil, v); err != nil {
				w.Abort()
				return err
			}
		}
		if err := w.Write(data.Of(conformanceSchema, i, cell)); err != nil {
			w.Abort()
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return w.Close()
}

func TestRegistryConformanceVectorBlocks(t *testing.T) {
	var want []string
	for _, b := range conformanceBlocks() {
		want = append(want, renderBlock(b)...)
	}
	emb := iceberg.NewSchema(0, conformanceSchema.Field(1))
	for _, layout := range Layouts() {
		if layout == LayoutFLBARaw {
			continue // not a layout of the record writer, which annotates its VECTOR columns
		}
		t.Run(layout.String(), func(t *testing.T) {
			checkConformanceSample(t, layout)
			registrytest.Run(t, registrytest.Case[vector.Block]{
				Model:       VectorBlockModel{},
				Schema:      conformanceSchema,
				Rows:        conformanceBlocks,
				Render:      renderBlock,
				Release:     func(b vector.Block) { b.Release() },
				Projections: []registrytest.Projection{{Name: "emb", Schema: emb, Want: want}},
				WriteSample: func(loc string, blocks []vector.Block) error {
					return writeConformanceSample(layout, loc, blocks)
				},
			})
		})
	}
}

// checkConformanceSample checks that the sample is what the suite needs to
// cut: the layout asked for, ten row groups, several blocks in each.
func checkConformanceSample(t *testing.T, layout Layout) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sample.parquet")
	if err := writeConformanceSample(layout, path, conformanceBlocks()); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if info := f.Info(); info.Layout != layout || info.Rows != conformanceRows || info.Dim != conformanceDim {
		t.Fatalf("the sample file is %+v, want layout %v, %d rows of dimension %d", info, layout, conformanceRows, conformanceDim)
	}
	blocks := f.Blocks(1)
	defer blocks.Close()
	n := 0
	for {
		b, err := blocks.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		n++
	}
	if groups := len(f.chunks); groups != 10 || n < 2*groups {
		t.Fatalf("the sample file has %d row groups and %d blocks, want 10 row groups of several blocks", groups, n)
	}
}
