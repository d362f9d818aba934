package vectorcol

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

// A scan that reads pages into recycled buffers (ReadPages) returns what a
// scan of the mapping does, for every layout, encoding and codec, with
// null vectors and null elements, over pages small enough that buffers are
// recycled many times during one scan.
func TestReadPagesEqualsMapping(t *testing.T) {
	dir := t.TempDir()
	col := testColumn(2500, 24, true, true, 11)
	for i := 100 * 24; i < len(col.ElementNull); i++ {
		col.ElementNull[i] = false // null elements in the first 100 rows only: the rest score numbers
	}
	q := vector.Matrix{Dim: 24, Data: col.Data[24:48]}
	for _, layout := range Layouts() {
		for _, enc := range ValueEncodings() {
			for _, codec := range []Codec{CodecNone, CodecZstd} {
				name := layout.String() + "-" + enc.String() + "-" + codec.String()
				path := filepath.Join(dir, name+".parquet")
				c := col
				if layout == LayoutFLBA || layout == LayoutFLBARaw || layout == LayoutFixedSizeList {
					c.ElementNull = nil // no null elements in a fixed cell
				}
				if err := WriteFile(path, c, WriteOptions{Layout: layout, Encoding: enc, Codec: codec, PageBytes: 8 << 10}); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				read := func(noMap bool) (vector.Matrix, []bool, [][]vector.Result) {
					f, err := OpenFile(path)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					defer f.Close()
					f.ReadPages(noMap)
					m, nulls, err := f.ReadAll()
					if err != nil {
						t.Fatalf("%s (reads %v): %v", name, noMap, err)
					}
					m.Data = slices.Clone(m.Data)
					res, err := f.Search(0, vector.MetricL2, q, 25)
					if err != nil {
						t.Fatalf("%s (reads %v): %v", name, noMap, err)
					}
					if noMap && f.mapped != nil {
						t.Fatalf("%s: ReadPages(true), and the scan mapped the file", name)
					}
					return m, nulls, res
				}
				m1, n1, r1 := read(false)
				m2, n2, r2 := read(true)
				if !slices.Equal(n1, n2) || len(m1.Data) != len(m2.Data) {
					t.Fatalf("%s: %d values and %d nulls mapped, %d and %d read", name, len(m1.Data), len(n1), len(m2.Data), len(n2))
				}
				for i := range m1.Data {
					a, b := m1.Data[i], m2.Data[i]
					if a != b && !(math.IsNaN(float64(a)) && math.IsNaN(float64(b))) {
						t.Fatalf("%s: value %d is %v mapped, %v read", name, i, a, b)
					}
				}
				if !slices.EqualFunc(r1[0], r2[0], func(a, b vector.Result) bool {
					return a.ID == b.ID && (a.Score == b.Score || a.Score != a.Score && b.Score != b.Score)
				}) {
					t.Fatalf("%s: search %v mapped, %v read", name, r1[0], r2[0])
				}
			}
		}
	}
}
