package jsonrow

import (
	"strconv"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data/schemaspec"
	_ "github.com/coltype-lab/lab/types/vector"
)

// BenchmarkDecodeVectorRow decodes a row with a 768-dim VECTOR: its numbers
// are scanned once, by VECTOR's codec, and parse without allocating.
func BenchmarkDecodeVectorRow(b *testing.B) {
	spec, err := schemaspec.Parse("id:long!,emb:vector<float32,768>")
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(spec)
	if err != nil {
		b.Fatal(err)
	}
	nums := make([]string, 768)
	for i := range nums {
		nums[i] = strconv.FormatFloat(float64(i)/7, 'g', 8, 32)
	}
	line := []byte(`{"id":1,"emb":[` + strings.Join(nums, ",") + `]}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := c.DecodeJSON(line); err != nil {
			b.Fatal(err)
		}
	}
}
