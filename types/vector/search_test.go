package vector

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

func randomMatrix(seed uint64, rows, dim int) Matrix {
	r := rand.New(rand.NewPCG(seed, 99))
	data := make([]float32, rows*dim)
	for i := range data {
		data[i] = r.Float32()*2 - 1
	}
	return Matrix{Dim: dim, Data: data}
}

// bruteForce is the obviously correct search: score every row with
// metric.Score and keep the best k.
func bruteForce(metric Metric, data Matrix, q []float32, k int) []Result {
	top := NewTopK(k, metric)
	for j := range data.Rows() {
		top.Push(int64(j), metric.Score(q, data.Row(j)))
	}
	return top.Results()
}

var metrics = []Metric{MetricDot, MetricCosine, MetricL2}

func TestSearchMatchesBruteForce(t *testing.T) {
	data := randomMatrix(1, 5000, 24)
	queries := randomMatrix(2, 5, 24)
	for _, metric := range metrics {
		for _, k := range []int{1, 10, 100} {
			t.Run(fmt.Sprintf("%v/k=%d", metric, k), func(t *testing.T) {
				for i := range queries.Rows() {
					got, err := Search(metric, data, queries.Row(i), k)
					if err != nil {
						t.Fatal(err)
					}
					if want := bruteForce(metric, data, queries.Row(i), k); !sameResults(got, want) {
						t.Fatalf("query %d: Search = %v\nwant %v", i, got[:min(3, len(got))], want[:min(3, len(want))])
					}
				}
			})
		}
	}
}

func TestSearchBatchMatchesSingle(t *testing.T) {
	data := randomMatrix(3, 3000, 40)
	queries := randomMatrix(4, 70, 40) // more than one tile of 64 queries
	for _, metric := range metrics {
		t.Run(metric.String(), func(t *testing.T) {
			batch, err := SearchBatch(metric, data, queries, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(batch) != queries.Rows() {
				t.Fatalf("%d results for %d queries", len(batch), queries.Rows())
			}
			for i := range batch {
				single, err := Search(metric, data, queries.Row(i), 10)
				if err != nil {
					t.Fatal(err)
				}
				// Gemm sums in another order than the single-query SIMD
				// kernel (and L2 goes through ‖q‖²+‖x‖²−2q·x): same ids,
				// scores equal up to float32 rounding.
				if len(batch[i]) != len(single) {
					t.Fatalf("query %d: %d batch results, %d single", i, len(batch[i]), len(single))
				}
				for j := range single {
					if batch[i][j].ID != single[j].ID || absDiff(batch[i][j].Score, single[j].Score) > 1e-4 {
						t.Fatalf("query %d rank %d: batch %v, single %v", i, j, batch[i][j], single[j])
					}
				}
			}
		})
	}
}

func absDiff(a, b float32) float32 {
	if a > b {
		return a - b
	}
	return b - a
}

// uneven cuts a matrix into blocks of varying size with explicit ids, the way
// a Parquet reader would hand over pages.
type uneven struct {
	m     Matrix
	sizes []int
	next  int
	calls int
}

func (u *uneven) Next() (Block, error) {
	n := u.m.Rows()
	if u.next >= n {
		return Block{}, io.EOF
	}
	size := u.sizes[u.calls%len(u.sizes)]
	u.calls++
	end := min(u.next+size, n)
	b := Block{Vectors: append([]float32(nil), u.m.Data[u.next*u.m.Dim:end*u.m.Dim]...)}
	for j := u.next; j < end; j++ {
		b.IDs = append(b.IDs, int64(j))
	}
	u.next = end
	return b, nil
}

func TestSearchStreamEqualsInMemory(t *testing.T) {
	data := randomMatrix(5, 4321, 33)
	for _, m := range []int{1, 3, 65} {
		queries := randomMatrix(uint64(6+m), m, 33)
		for _, metric := range metrics {
			t.Run(fmt.Sprintf("%v/queries=%d", metric, m), func(t *testing.T) {
				want, err := SearchBatch(metric, data, queries, 25)
				if err != nil {
					t.Fatal(err)
				}
				for _, workers := range []int{1, 2, 5} {
					src := &uneven{m: data, sizes: []int{1, 700, 13, 2000, 191, 193}}
					got, err := SearchStream(metric, data.Dim, src, queries, 25, workers)
					if err != nil {
						t.Fatal(err)
					}
					for i := range want {
						if !sameResults(got[i], want[i]) {
							t.Fatalf("workers %d query %d: stream %v, in memory %v", workers, i, got[i][:3], want[i][:3])
						}
					}
				}
			})
		}
	}
}

func TestSearchEdgeCases(t *testing.T) {
	data := randomMatrix(8, 100, 4)
	q := []float32{1, 0, 0, 0}

	if _, err := Search(MetricDot, data, []float32{1, 2, 3}, 5); err == nil ||
		!strings.Contains(err.Error(), "query dimension 3 ≠ column dimension 4") {
		t.Errorf("dimension mismatch error = %v", err)
	}
	if _, err := SearchStream(MetricL2, 8, MatrixBlocks(data, 10), Matrix{Dim: 4, Data: q}, 5, 0); err == nil ||
		!strings.Contains(err.Error(), "query dimension 4 ≠ column dimension 8") {
		t.Errorf("stream dimension mismatch error = %v", err)
	}

	empty := Matrix{Dim: 4}
	got, err := Search(MetricCosine, empty, q, 5)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("search of empty data = %v, %v; want empty, no error", got, err)
	}
	got, err = Search(MetricDot, data, q, 0)
	if err != nil || len(got) != 0 {
		t.Errorf("k = 0: %v, %v; want empty, no error", got, err)
	}
	batch, err := SearchBatch(MetricDot, data, Matrix{Dim: 4}, 5)
	if err != nil || len(batch) != 0 {
		t.Errorf("no queries: %v, %v", batch, err)
	}
	if _, err := Search(MetricDot, data, q, -1); err == nil {
		t.Error("k = -1 accepted")
	}
	if _, err := Search(Metric(0), data, q, 1); err == nil {
		t.Error("invalid metric accepted")
	}
	if _, err := Search(MetricDot, Matrix{Dim: 4, Data: make([]float32, 7)}, q, 1); err == nil ||
		!strings.Contains(err.Error(), "7 elements is not a multiple of dimension 4") {
		t.Errorf("ragged data error = %v", err)
	}
	if _, err := NewMatrix(0, nil); err == nil {
		t.Error("NewMatrix accepted dimension 0")
	}
}

type failing struct{ after int }

func (f *failing) Next() (Block, error) {
	if f.after == 0 {
		return Block{}, errors.New("disk on fire")
	}
	f.after--
	return Block{Vectors: make([]float32, 8)}, nil
}

type ragged struct{ done bool }

func (r *ragged) Next() (Block, error) {
	if r.done {
		return Block{}, io.EOF
	}
	r.done = true
	return Block{FirstRow: 40, Vectors: make([]float32, 9)}, nil
}

func TestSearchStreamSourceErrors(t *testing.T) {
	q := Matrix{Dim: 4, Data: []float32{1, 2, 3, 4}}
	_, err := SearchStream(MetricDot, 4, &failing{after: 3}, q, 2, 2)
	if err == nil || !strings.Contains(err.Error(), "block 3") || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("source error = %v", err)
	}
	_, err = SearchStream(MetricDot, 4, &ragged{}, q, 2, 2)
	if err == nil || !strings.Contains(err.Error(), "first row 40") || !strings.Contains(err.Error(), "9 elements") {
		t.Errorf("ragged block error = %v", err)
	}
}

// encodedBlocks serves a matrix as encoded pages of one element type,
// decoded by DecodeBlock: the path a Parquet layout takes.
type encodedBlocks struct {
	et    ElementType
	pages [][]byte
	first []int64
	dim   int
	next  int
}

func (e *encodedBlocks) Next() (Block, error) {
	if e.next == len(e.pages) {
		return Block{}, io.EOF
	}
	i := e.next
	e.next++
	return e.et.DecodeBlock(e.first[i], e.dim, e.pages[i])
}

func TestSearchEncodedColumns(t *testing.T) {
	const dim, rows, perPage = 12, 1000, 128
	data := randomMatrix(31, rows, dim)
	q := randomMatrix(32, 2, dim)
	for _, et := range []ElementType{Float32, Float64, Float16, BFloat16} {
		t.Run(et.String(), func(t *testing.T) {
			src := &encodedBlocks{et: et, dim: dim}
			var decoded []float32
			for r0 := 0; r0 < rows; r0 += perPage {
				r1 := min(r0+perPage, rows)
				page, err := et.EncodeAppend(nil, data.Data[r0*dim:r1*dim])
				if err != nil {
					t.Fatal(err)
				}
				src.pages = append(src.pages, page)
				src.first = append(src.first, int64(r0))
				decoded, err = et.DecodeAppend(decoded, page)
				if err != nil {
					t.Fatal(err)
				}
			}
			got, err := SearchStream(MetricCosine, dim, src, q, 5, 2)
			if err != nil {
				t.Fatal(err)
			}
			want, err := SearchBatch(MetricCosine, Matrix{Dim: dim, Data: decoded}, q, 5)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !sameResults(got[i], want[i]) {
					t.Fatalf("query %d: encoded %v, decoded matrix %v", i, got[i], want[i])
				}
			}
		})
	}
	if _, err := Float16.DecodeBlock(256, 4, make([]byte, 10)); err == nil ||
		!strings.Contains(err.Error(), "block at row 256") || !strings.Contains(err.Error(), "10 bytes") {
		t.Errorf("DecodeBlock error = %v", err)
	}
}
