package golden

import (
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/types/vector"
)

// VectorInfo describes a VECTOR golden file.
type VectorInfo struct {
	// Layout is a vectorcol.Layout name (flba, flba-raw, list,
	// vector-repetition, fixed-size-list).
	Layout string `json:"layout"`
	// Element is a vector.ElementType name; Dim the number of elements.
	Element string `json:"element"`
	Dim     int    `json:"dim"`
	// UnionID is the annotation's LogicalType union id, given for the cases
	// that exist to pin one: FIXED_SIZE_LIST (the lab's 21, PR #241's 19)
	// and VECTOR under 19 (PR #592's and arrow-go#854's). Absent, a VECTOR
	// annotation is under the lab's default, 20.
	UnionID int16 `json:"union_id,omitempty"`
}

// vectorDim is every golden vector's dimension: small enough to read.
const vectorDim = 3

// vectorRows are the golden vectors; nil is a null vector and NaN a null
// element. The values are exact in float16 and int8 as well, so that every
// element type holds the same numbers.
var (
	// vectorRowsNullElements is PR #592's example: [1,2,3], null, [4,null,6].
	vectorRowsNullElements = [][]float64{{1, 2, 3}, nil, {4, math.NaN(), 6}}
	// vectorRowsDense are for the FIXED_LEN_BYTE_ARRAY layouts, which
	// cannot hold a null element.
	vectorRowsDense = [][]float64{{1, 2, 3}, nil, {4, -5.5, 6}}
	vectorRowsInt8  = [][]float64{{1, 2, 3}, nil, {4, -5, 127}}
	// vectorRowsRequired is PR #592's first example, a required vector of
	// required elements: [1,2,3], [4,5,6]. arrow-go's prototype
	// (apache/arrow-go#854) reads only this form ("This implementation
	// supports required vectors with required fixed-width primitive
	// elements").
	vectorRowsRequired = [][]float64{{1, 2, 3}, {4, 5, 6}}
)

type vectorCase struct {
	name, description string
	layout            vectorcol.Layout
	element           vector.ElementType
	rows              [][]float64
	// required writes a required column (no row may be nil); id is the
	// union id (VECTOR or FIXED_SIZE_LIST), 0 for the lab's default, and
	// is recorded in the sidecar when set.
	required bool
	id       int16
}

func vectorCases() []vectorCase {
	return []vectorCase{
		{"flba", "FIXED_LEN_BYTE_ARRAY(12) annotated VECTOR (lab id 20) by a footer rewrite; a null vector",
			vectorcol.LayoutFLBA, vector.Float32, vectorRowsDense, false, 0},
		{"flba-raw", "the same FIXED_LEN_BYTE_ARRAY(12) bytes without any annotation (a baseline)",
			vectorcol.LayoutFLBARaw, vector.Float32, vectorRowsDense, false, 0},
		{"list", "the 3-level LIST<float> baseline, no VECTOR annotation; a null vector and a null element",
			vectorcol.LayoutList, vector.Float32, vectorRowsNullElements, false, 0},
		{"vector-repetition", "PR #592's layout: a VECTOR group over a group with repetition VECTOR (3) and vector_length 3; its example rows [1,2,3], null, [4,null,6]",
			vectorcol.LayoutVectorRepetition, vector.Float32, vectorRowsNullElements, false, 0},
		{"flba-float16", "FIXED_LEN_BYTE_ARRAY(6) of IEEE 754 binary16 elements annotated VECTOR, written by the record model",
			vectorcol.LayoutFLBA, vector.Float16, vectorRowsDense, false, 0},
		{"flba-int8", "FIXED_LEN_BYTE_ARRAY(3) of int8 elements annotated VECTOR, written by the record model",
			vectorcol.LayoutFLBA, vector.Int8, vectorRowsInt8, false, 0},
		{"vector-repetition-id19", "vector-repetition with the VECTOR annotation under union id 19, the id of PR #592 and of arrow-go's prototype (apache/arrow-go#854), which parquet-format 2.14.0 gives to FILE; its example rows [1,2,3], null, [4,null,6]",
			vectorcol.LayoutVectorRepetition, vector.Float32, vectorRowsNullElements, false, 19},
		{"vector-repetition-required", "PR #592's first example: required group emb (VECTOR) { vector group list [3] { required float element } }, rows [1,2,3], [4,5,6], no levels; VECTOR under the lab's id 20",
			vectorcol.LayoutVectorRepetition, vector.Float32, vectorRowsRequired, true, 0},
		{"vector-repetition-required-id19", "PR #592's first example (required vector, required elements) with VECTOR under union id 19: the form arrow-go's prototype (apache/arrow-go#854) writes and reads",
			vectorcol.LayoutVectorRepetition, vector.Float32, vectorRowsRequired, true, 19},
		{"fixed-size-list", "PR #241's layout: optional FIXED_LEN_BYTE_ARRAY(12) annotated FIXED_SIZE_LIST(type=FLOAT, num_values=3), the FixedSizeListType struct under the lab's union id 21; a null vector",
			vectorcol.LayoutFixedSizeList, vector.Float32, vectorRowsDense, false, 21},
		{"fixed-size-list-id19", "PR #241's layout under PR #241's own union id 19 (FILE's in parquet-format 2.14.0): FIXED_LEN_BYTE_ARRAY(12) annotated FIXED_SIZE_LIST(type=FLOAT, num_values=3); a null vector",
			vectorcol.LayoutFixedSizeList, vector.Float32, vectorRowsDense, false, 19},
	}
}

// generateVectorCases writes one file per layout with float32 elements
// through vectorcol.WriteFile (uncompressed PLAIN, the layouts exactly as the
// lab's benchmarks write them), and the other element types through the
// record model's VECTOR declaration.
func generateVectorCases(out, work string) error {
	for _, c := range vectorCases() {
		path := filepath.Join(out, c.name+".parquet")
		var err error
		if c.element == vector.Float32 {
			err = writeFloat32Layout(path, c)
		} else {
			err = writeElementVectors(path, filepath.Join(work, c.name+".parquet"), c)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		side, err := vectorSidecar(c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if err := writeSidecar(out, side); err != nil {
			return err
		}
	}
	return nil
}

func writeFloat32Layout(path string, c vectorCase) error {
	col := vectorcol.Column{Dim: vectorDim, Null: make([]bool, len(c.rows)), Nullable: !c.required}
	if c.required {
		col.Null = nil
	}
	nullElements := false
	for i, r := range c.rows {
		if r == nil {
			if c.required {
				return fmt.Errorf("row %d is null in a required column", i)
			}
			col.Null[i] = true
			r = make([]float64, vectorDim)
		}
		for _, x := range r {
			col.Data = append(col.Data, float32(x))
			col.ElementNull = append(col.ElementNull, math.IsNaN(x))
			nullElements = nullElements || math.IsNaN(x)
		}
	}
	if !nullElements {
		col.ElementNull = nil
	}
	// Zero a null element's slot rather than store NaN bits.
	for i, null := range col.ElementNull {
		if null {
			col.Data[i] = 0
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	opts := vectorcol.WriteOptions{Layout: c.layout}
	if c.layout == vectorcol.LayoutFixedSizeList {
		opts.FixedSizeListID = c.id
	} else {
		opts.VectorID = c.id
	}
	return vectorcol.WriteFile(path, col, opts)
}

// writeElementVectors writes emb as an optional fixed[dim × width] column
// declared VECTOR of c.element.
func writeElementVectors(path, tmp string, c vectorCase) error {
	width := c.element.Width()
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: vectorcol.ColumnName, Type: iceberg.FixedTypeOf(vectorDim * width)})
	var recs []*data.Record
	for i, r := range c.rows {
		var cell any
		if r != nil {
			b, err := c.element.EncodeAppend(nil, float32s(r))
			if err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			cell = b
		}
		recs = append(recs, data.Of(sc, cell))
	}
	props := map[string]string{
		parquet.PropCompressionCodec: "uncompressed",
		vectorcol.PropColumns:        fmt.Sprintf("%s:vector<%s,%d>", vectorcol.ColumnName, c.element, vectorDim),
	}
	if err := writeRecords(tmp, sc, props, recs...); err != nil {
		return err
	}
	return rewriteFooter(tmp, path, nil)
}

func float32s(r []float64) []float32 {
	out := make([]float32, len(r))
	vector.Float64sToFloat32(out, r)
	return out
}

// vectorSidecar gives the rows as numbers (the VECTOR meaning) and, for
// the FIXED_LEN_BYTE_ARRAY layouts, as the hex of each cell's bytes.
func vectorSidecar(c vectorCase) (Sidecar, error) {
	s := Sidecar{
		Case: c.name, Kind: KindVector, Description: c.description, File: c.name + ".parquet",
		Column: vectorcol.ColumnName, Annotation: "VECTOR",
		Vector: &VectorInfo{Layout: c.layout.String(), Element: c.element.String(), Dim: vectorDim, UnionID: c.id},
	}
	if c.layout == vectorcol.LayoutFixedSizeList {
		s.Annotation = "FIXED_SIZE_LIST"
	}
	flba := c.layout == vectorcol.LayoutFLBA || c.layout == vectorcol.LayoutFLBARaw || c.layout == vectorcol.LayoutFixedSizeList
	for i, r := range c.rows {
		var meaning, physical any
		if r != nil {
			nums := make([]any, len(r))
			for j, x := range r {
				if !math.IsNaN(x) {
					nums[j] = x
				}
			}
			meaning = nums
			if flba {
				b, err := c.element.EncodeAppend(nil, float32s(r))
				if err != nil {
					return s, fmt.Errorf("row %d: %w", i, err)
				}
				physical = hex.EncodeToString(b)
			}
		}
		s.Rows = append(s.Rows, map[string]any{vectorcol.ColumnName: meaning})
		if flba {
			s.PhysicalRows = append(s.PhysicalRows, map[string]any{vectorcol.ColumnName: physical})
		}
	}
	switch c.layout {
	case vectorcol.LayoutFLBARaw:
		// No annotation: the bytes are all the file says.
		s.Annotation, s.Rows, s.PhysicalRows = "", s.PhysicalRows, nil
	case vectorcol.LayoutList:
		s.Annotation = "" // LIST, a type every reader knows
	}
	return s, nil
}
