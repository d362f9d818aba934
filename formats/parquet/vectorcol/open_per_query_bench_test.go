package vectorcol

import (
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/types/vector"
)

// BenchmarkOpenPerQuery is a single-query top-10 on a file opened for that
// query, as a one-off search (vector.SearchFile) makes it, by the two ways
// a scan gets at the pages: mapped (MAP_POPULATE, every page table entry
// set up per open), and read page by page into recycled buffers
// (ReadPages). open-once is the same search on a file opened and mapped
// before the timer. floor-x is the ratio to the memory floor of the same
// bytes in the same run.
func BenchmarkOpenPerQuery(b *testing.B) {
	const rows, dim = 40_000, 768
	m := randomMatrix(9, rows, dim)
	path := filepath.Join(b.TempDir(), "flba.parquet")
	if err := WriteFile(path, Column{Dim: dim, Data: m.Data}, WriteOptions{Layout: LayoutFLBA}); err != nil {
		b.Fatal(err)
	}
	q := vector.Matrix{Dim: dim, Data: m.Row(3)}
	raw := int64(rows * dim * 4)
	floor := readFloor(raw, 5)
	search := func(b *testing.B, f *File) {
		if _, err := f.Search(0, vector.MetricDot, q, 10); err != nil {
			b.Fatal(err)
		}
	}
	report := func(b *testing.B) {
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/floor.Seconds(), "floor-x")
	}
	for _, readPages := range []bool{false, true} {
		name := "mapped"
		if readPages {
			name = "read-pages"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(raw)
			for b.Loop() {
				f, err := OpenFile(path)
				if err != nil {
					b.Fatal(err)
				}
				f.ReadPages(readPages)
				f.SkipChecksums(true)
				search(b, f)
				f.Close()
			}
			report(b)
		})
	}
	b.Run("open-once", func(b *testing.B) {
		f, err := OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		f.SkipChecksums(true)
		search(b, f)
		b.SetBytes(raw)
		b.ResetTimer()
		for b.Loop() {
			search(b, f)
		}
		report(b)
	})
}
