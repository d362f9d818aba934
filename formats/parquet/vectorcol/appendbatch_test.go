package vectorcol

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/types/vector"
)

// TestAppendBatchMatchesAppend writes the same vectors through Append, a
// row at a time, and through AppendBatch in batches that start and end off
// page boundaries (and a batch of exactly a page, the no-copy path), and
// requires the same chunk bytes and ChunkInfo, for every layout, encoding,
// element type and a codec, required and optional.
func TestAppendBatchMatchesAppend(t *testing.T) {
	const rows, dim = 157, 10
	src := randomMatrix(41, rows, dim)
	codecs := []compress.Codec{nil, parquetCodecs[format.Zstd]}
	for _, layout := range Layouts() {
		for _, et := range vector.ElementTypes() {
			if layout == LayoutFLBA && et == vector.BFloat16 ||
				layout == LayoutFixedSizeList && et != vector.Float32 && et != vector.Float64 {
				continue
			}
			vecs, err := et.EncodeAppend(nil, src.Data)
			if err != nil {
				t.Fatal(err)
			}
			for _, enc := range ValueEncodings() {
				for ci, codec := range codecs {
					for _, nullable := range []bool{false, true} {
						o := ChunkOptions{Layout: layout, Element: et, Dim: dim, Encoding: enc, Codec: codec,
							PageBytes: 13 * dim * storedWidth(et), Nullable: nullable}
						name := layout.String() + "/" + et.String() + "/" + enc.String()
						t.Run(name, func(t *testing.T) {
							var one, many bytes.Buffer
							a, err := NewChunkWriter(&one, o)
							if err != nil {
								t.Fatal(err)
							}
							vb := a.VectorBytes()
							for i := range rows {
								if err := a.Append(vecs[i*vb:(i+1)*vb], nil); err != nil {
									t.Fatal(err)
								}
							}
							want, err := a.Finish(nil)
							if err != nil {
								t.Fatal(err)
							}
							b, err := NewChunkWriter(&many, o)
							if err != nil {
								t.Fatal(err)
							}
							per := b.RowsPerPage()
							// 5 rows, then the rest of the first page, one
							// whole page from a page boundary, then ragged
							// batches to the end.
							cuts := []int{5, per, 2 * per, 2*per + 7, 3*per + 20, rows}
							at := 0
							for _, c := range cuts {
								c = min(c, rows)
								if err := b.AppendBatch(vecs[at*vb : c*vb]); err != nil {
									t.Fatal(err)
								}
								at = c
							}
							got, err := b.Finish(nil)
							if err != nil {
								t.Fatal(err)
							}
							if !bytes.Equal(one.Bytes(), many.Bytes()) {
								t.Fatalf("codec %d, nullable %v: AppendBatch wrote %d bytes, Append %d, or different ones", ci, nullable, many.Len(), one.Len())
							}
							if !reflect.DeepEqual(got, want) {
								t.Fatalf("codec %d, nullable %v: ChunkInfo %+v, Append's %+v", ci, nullable, got, want)
							}
							if len(want.Pages) < 4 {
								t.Fatalf("only %d pages: the cuts do not cross page boundaries", len(want.Pages))
							}
						})
					}
				}
			}
		}
	}
}

// TestAppendBatchRefusesPartialVectors: a batch that is not whole vectors
// is an error, and nothing is added.
func TestAppendBatchRefusesPartialVectors(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewChunkWriter(&buf, ChunkOptions{Layout: LayoutFLBA, Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendBatch(make([]byte, 4*4*3+1)); err == nil {
		t.Fatal("no error for a batch of 3 vectors and a byte")
	}
	if w.Rows() != 0 {
		t.Fatalf("%d rows added by a refused batch", w.Rows())
	}
}

// TestWriteFileStats: the stats name the file's size, and both phases
// took time; the file reads back as written.
func TestWriteFileStats(t *testing.T) {
	m := randomMatrix(3, 300, 8)
	path := filepath.Join(t.TempDir(), "s.parquet")
	st, err := WriteFileStats(path, Column{Dim: 8, Data: m.Data}, WriteOptions{Layout: LayoutList})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != fi.Size() || st.Encode <= 0 || st.Publish <= 0 {
		t.Fatalf("stats %+v for a file of %d bytes", st, fi.Size())
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, nulls, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if nulls != nil || !reflect.DeepEqual(got.Data, m.Data) {
		t.Fatal("the file does not read back as written")
	}
}

// failAfter fails every write after the first n bytes.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

// TestAppendBatchWriteError: a page that cannot be written fails the batch
// with the writer's error, the rows of the pages written before it stay,
// and the page being filled is dropped (it may have viewed the batch).
func TestAppendBatchWriteError(t *testing.T) {
	const dim = 4
	w, err := NewChunkWriter(&failAfter{n: 1000}, ChunkOptions{Layout: LayoutFLBA, Dim: dim, PageBytes: 10 * dim * 4})
	if err != nil {
		t.Fatal(err)
	}
	m := randomMatrix(2, 100, dim)
	vecs, _ := vector.Float32.EncodeAppend(nil, m.Data)
	if err := w.AppendBatch(vecs); !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v, want %v", err, errDiskFull)
	}
	if got := w.Rows(); got == 0 || got%10 != 0 || got >= 100 {
		t.Fatalf("%d rows in the chunk after the failure, want the whole pages written before it", got)
	}
}
