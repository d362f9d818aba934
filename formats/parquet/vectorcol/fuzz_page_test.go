package vectorcol

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/types/vector"
)

// FuzzPageDecoder feeds whole files, as untrusted bytes, to the page reader:
// giant declared lengths and counts, truncated pages, wrong num_values,
// levels that disagree with the values, corrupt compressed bodies. Opening,
// reading every page, searching and taking must return values or an error,
// never panic, hang or allocate without bound. The seeds are valid files of
// every layout, nullable and not, dense and with nulls, in both encodings
// and several codecs (the
// corpus under testdata/fuzz/FuzzPageDecoder adds hand-broken ones).
func FuzzPageDecoder(f *testing.F) {
	col := Column{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Null: []bool{false, true, false, false}}
	elemNull := col
	elemNull.ElementNull = make([]bool, 12)
	elemNull.ElementNull[7] = true
	addLayoutSeeds(f, []Codec{CodecNone, CodecSnappy, CodecZstd, CodecLZ4}, func(l Layout) []Column {
		// A column without nulls goes through AppendBatch, whose whole
		// pages are written from the data itself.
		cols := []Column{col, {Dim: 3, Data: col.Data}}
		if l == LayoutList || l == LayoutVectorRepetition {
			cols = append(cols, elemNull)
		}
		return cols
	})
	defer func(old int) { pages.MaxPageBytes = old }(pages.MaxPageBytes)
	pages.MaxPageBytes = 1 << 20 // keep hostile headers from allocating much per run
	f.Fuzz(func(t *testing.T, data []byte) {
		vf, err := openReader(bytes.NewReader(data), int64(len(data)), "fuzz.parquet")
		if err != nil {
			return
		}
		info := vf.Info()
		if info.Dim < 0 || info.Rows < 0 {
			t.Fatalf("negative shape %+v", info)
		}
		m, null, err := vf.ReadAll()
		if err == nil {
			present := info.Rows
			for _, n := range null {
				if n {
					present--
				}
			}
			if null != nil && int64(len(null)) != info.Rows {
				t.Fatalf("%d null flags for %d rows", len(null), info.Rows)
			}
			if info.Dim > 0 && int64(len(m.Data)) != present*int64(info.Dim) {
				t.Fatalf("%d elements for %d present rows of dim %d", len(m.Data), present, info.Dim)
			}
		}
		if info.Dim > 0 && info.Dim < 1<<16 {
			q := vector.Matrix{Dim: info.Dim, Data: make([]float32, info.Dim)}
			q.Data[0] = 1
			if res, err := vf.Search(0, vector.MetricDot, q, 3); err == nil && len(res) != 1 {
				t.Fatalf("%d result lists for one query", len(res))
			}
		}
		if info.Rows > 0 {
			if got, err := vf.Take([]int64{0, info.Rows - 1}); err == nil && len(got) != 2 {
				t.Fatalf("take of 2 rows gave %d", len(got))
			}
		}
	})
}

// TestPageDecoderRejectsBrokenPages: a vector-repetition file with a page
// cut short fails with an error, at open or on reading.
func TestPageDecoderRejectsBrokenPages(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "vr.parquet")
	col := Column{Dim: 4, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	if err := WriteFile(p, col, WriteOptions{Layout: LayoutVectorRepetition}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		cut  func([]byte) []byte
	}{
		{"truncated page", func(b []byte) []byte { return b[:len(b)/2] }},
		{"value bytes cut short", func(b []byte) []byte { // drop 4 value bytes, keep the footer
			c := append([]byte(nil), b...)
			return append(c[:20], c[24:]...)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.cut(good)
			vf, err := openReader(bytes.NewReader(b), int64(len(b)), "broken.parquet")
			if err != nil {
				return // rejected at open: fine
			}
			if _, _, err := vf.ReadAll(); err == nil {
				t.Fatal("a broken file read without error")
			}
		})
	}
}

// addLayoutSeeds adds to f a file of every layout, value encoding and
// codec of codecs for each column cols gives for the layout, in small pages.
func addLayoutSeeds(f *testing.F, codecs []Codec, cols func(Layout) []Column) {
	f.Helper()
	p := filepath.Join(f.TempDir(), "seed.parquet")
	for _, l := range Layouts() {
		for _, c := range codecs {
			for _, e := range ValueEncodings() {
				for _, cc := range cols(l) {
					if err := WriteFile(p, cc, WriteOptions{Layout: l, Codec: c, Encoding: e, PageBytes: 24}); err != nil {
						f.Fatal(err)
					}
					b, err := os.ReadFile(p)
					if err != nil {
						f.Fatal(err)
					}
					f.Add(b)
				}
			}
		}
	}
}
