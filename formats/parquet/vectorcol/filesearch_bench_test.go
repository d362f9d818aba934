package vectorcol

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

// BenchmarkFile measures the page-level paths over a file in the page cache:
// full decode and single-query search of an uncompressed flba PLAIN file.
// The memory-bandwidth floor to compare with is bench.Floor at the same byte
// count (lab bench vectors reports both in one run).
func BenchmarkFile(b *testing.B) {
	const rows, dim = 20_000, 768
	data := randomMatrix(31, rows, dim)
	path := filepath.Join(b.TempDir(), "flba.parquet")
	if err := WriteFile(path, Column{Dim: dim, Data: data.Data}, WriteOptions{Layout: LayoutFLBA}); err != nil {
		b.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	q := vector.Matrix{Dim: dim, Data: data.Row(7)}
	raw := int64(rows * dim * 4)
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(raw)
		for b.Loop() {
			src := f.Blocks(0)
			for {
				if _, err := src.Next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
			src.Close()
		}
	})
	for _, m := range metrics {
		b.Run(fmt.Sprintf("search/%v", m), func(b *testing.B) {
			b.SetBytes(raw)
			for b.Loop() {
				if _, err := f.Search(0, m, q, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
