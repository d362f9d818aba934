package golden_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/spec/golden"
)

// The LogicalType members the VECTOR golden files pin, as the proposals'
// thrift defines them (parquet-format refs/pull/241/head bc3df18 and
// refs/pull/592/head 94d5ced), decoded by parquet-go's thrift decoder
// against these test-only structs, not the lab's footer codec.
type member struct {
	// FixedSizeListType's fields; absent in VECTOR's empty VectorType.
	Type      thrift.Null[int32] `thrift:"1,optional"`
	NumValues thrift.Null[int32] `thrift:"2,optional"`
}

type logicalType struct {
	At19 *member `thrift:"19,optional"`
	At20 *member `thrift:"20,optional"`
	At21 *member `thrift:"21,optional"`
}

type schemaElement struct {
	TypeLength   thrift.Null[int32] `thrift:"2,optional"`
	Repetition   thrift.Null[int32] `thrift:"3,optional"`
	Name         string             `thrift:"4,required"`
	LogicalType  *logicalType       `thrift:"10,optional"`
	VectorLength thrift.Null[int32] `thrift:"11,optional"`
}

type fileMetaData struct {
	Schema []schemaElement `thrift:"2,required"`
}

func footerSchema(t *testing.T, path string) []schemaElement {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	var m fileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &m); err != nil {
		t.Fatal(err)
	}
	return m.Schema
}

// TestVectorGoldenUnionIDs checks the annotation of every VECTOR golden file
// that pins a union id: FIXED_SIZE_LIST(type=FLOAT=4, num_values=3) under 19
// or 21, VECTOR (an empty struct) under 19 over a VECTOR-repeated "list"
// group with vector_length 3, as the sidecar says.
func TestVectorGoldenUnionIDs(t *testing.T) {
	cases, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	pinned := 0
	for _, c := range cases {
		if c.Kind != golden.KindVector || c.Vector.UnionID == 0 {
			continue
		}
		pinned++
		t.Run(c.Case, func(t *testing.T) {
			s := footerSchema(t, c.Path)
			lt := s[1].LogicalType
			if s[1].Name != c.Column || lt == nil {
				t.Fatalf("column %+v", s[1])
			}
			at := map[int16]*member{19: lt.At19, 20: lt.At20, 21: lt.At21}
			for id, m := range at {
				if (m != nil) != (id == c.Vector.UnionID) {
					t.Errorf("member under %d: %+v; the sidecar says %d", id, m, c.Vector.UnionID)
				}
			}
			m := at[c.Vector.UnionID]
			if m == nil {
				t.Fatal("no member under the sidecar's id")
			}
			switch c.Vector.Layout {
			case vectorcol.LayoutFixedSizeList.String():
				if c.Annotation != "FIXED_SIZE_LIST" || m.Type.V != 4 || m.NumValues.V != int32(c.Vector.Dim) || s[1].TypeLength.V != int32(4*c.Vector.Dim) {
					t.Errorf("FIXED_SIZE_LIST %+v on %+v", m, s[1])
				}
			case vectorcol.LayoutVectorRepetition.String():
				if c.Annotation != "VECTOR" || m.Type.Valid || m.NumValues.Valid {
					t.Errorf("VECTOR's struct has fields: %+v", m)
				}
				if mid := s[2]; mid.Name != "list" || mid.Repetition.V != 3 || mid.VectorLength.V != int32(c.Vector.Dim) || mid.LogicalType != nil || s[3].Name != "element" {
					t.Errorf("middle %+v, element %+v", mid, s[3])
				}
			default:
				t.Errorf("layout %s pins a union id", c.Vector.Layout)
			}
		})
	}
	if pinned < 4 {
		t.Errorf("%d cases pin a union id, want 4: FIXED_SIZE_LIST under 19 and 21, VECTOR under 19 twice", pinned)
	}
}

// TestVectorGoldenLabReadsBack reads every VECTOR golden file with the lab's
// page reader (types/vector) and compares the vectors with the sidecar.
func TestVectorGoldenLabReadsBack(t *testing.T) {
	cases, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Kind != golden.KindVector {
			continue
		}
		t.Run(c.Case, func(t *testing.T) {
			f, err := vectorcol.OpenFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			info := f.Info()
			if info.Layout.String() != c.Vector.Layout || info.Element.String() != c.Vector.Element || info.Dim != c.Vector.Dim || int(info.Rows) != len(c.Rows) {
				t.Fatalf("info %+v, sidecar %+v with %d rows", info, *c.Vector, len(c.Rows))
			}
			rows := make([]int64, len(c.Rows))
			for i := range rows {
				rows[i] = int64(i)
			}
			got, err := f.Take(rows)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range c.Rows {
				want, _ := r[c.Column].([]any)
				if c.Vector.Layout == vectorcol.LayoutFLBARaw.String() {
					continue // the sidecar holds the bytes only
				}
				if (want == nil) != (got[i] == nil) || len(got[i]) != len(want) {
					t.Fatalf("row %d: got %v, want %v", i, got[i], want)
				}
				for j, w := range want {
					if w == nil {
						if !math.IsNaN(float64(got[i][j])) {
							t.Errorf("row %d element %d: %v, want a null (NaN)", i, j, got[i][j])
						}
						continue
					}
					x, err := w.(json.Number).Float64()
					if err != nil || float64(got[i][j]) != x {
						t.Errorf("row %d element %d: %v, want %v", i, j, got[i][j], w)
					}
				}
			}
		})
	}
}
