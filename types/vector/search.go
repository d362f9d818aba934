package vector

import (
	"fmt"
	"io"
	"math"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Matrix is a row-major block of vectors, Dim elements per row.
type Matrix struct {
	Dim  int
	Data []float32
}

// NewMatrix checks that data holds whole rows of dim elements.
func NewMatrix(dim int, data []float32) (Matrix, error) {
	if err := CheckDim(dim); err != nil {
		return Matrix{}, err
	}
	if len(data)%dim != 0 {
		return Matrix{}, fmt.Errorf("vector: %d elements is not a multiple of dimension %d", len(data), dim)
	}
	return Matrix{Dim: dim, Data: data}, nil
}

// Rows is the number of vectors.
func (m Matrix) Rows() int {
	if m.Dim <= 0 {
		return 0
	}
	return len(m.Data) / m.Dim
}

// Row returns row i, aliasing the matrix.
func (m Matrix) Row(i int) []float32 { return m.Data[i*m.Dim : (i+1)*m.Dim : (i+1)*m.Dim] }

func (m Matrix) check(what string) error {
	if m.Dim < 1 {
		return fmt.Errorf("vector: %s dimension %d, want ≥ 1", what, m.Dim)
	}
	if len(m.Data)%m.Dim != 0 {
		return fmt.Errorf("vector: %s: %d elements is not a multiple of dimension %d", what, len(m.Data), m.Dim)
	}
	return nil
}

// Block is a run of consecutive column values handed to a search.
type Block struct {
	// FirstRow is the id of the first vector when IDs is nil; the others
	// follow consecutively.
	FirstRow int64
	// IDs, when not nil, holds one id per vector.
	IDs []int64
	// Vectors holds the rows, row-major, dim elements each.
	Vectors []float32
	// Dim is the dimension of the column the block comes from; 0 leaves it
	// to the reader (a search checks it against its queries when set).
	Dim int
	// OnRelease, when set, tells the source that the block is scored and its
	// memory may be reused (a file scan recycles its decompression buffers).
	// Consumers call Release, not this.
	OnRelease func()
}

// Release tells the block's source that nothing uses the block any more, so
// the memory behind Vectors may be reused. Searches call it once a block is
// scored; other consumers of FileBlocks may call it when done with a block.
// It is a no-op for blocks that hold no reusable memory.
func (b Block) Release() {
	if b.OnRelease != nil {
		b.OnRelease()
	}
}

// BlockSource yields the blocks of a column in order and returns io.EOF after
// the last one. A search calls Next from one goroutine and scores a block on
// another, so the source must not reuse a returned block's slices; the search
// drops its reference once the block is scored, and at most 2×workers+1
// blocks are alive at once.
type BlockSource interface {
	Next() (Block, error)
}

// MatrixBlocks serves m in blocks of rowsPerBlock rows (the last may be
// shorter), without copying; ids are row numbers starting at 0.
func MatrixBlocks(m Matrix, rowsPerBlock int) BlockSource {
	return &matrixBlocks{m: m, rows: max(rowsPerBlock, 1)}
}

type matrixBlocks struct {
	m    Matrix
	rows int
	next int
}

func (s *matrixBlocks) Next() (Block, error) {
	n := s.m.Rows()
	if s.next >= n {
		return Block{}, io.EOF
	}
	end := min(s.next+s.rows, n)
	b := Block{FirstRow: int64(s.next), Vectors: s.m.Data[s.next*s.m.Dim : end*s.m.Dim], Dim: s.m.Dim}
	s.next = end
	return b, nil
}

// defaultBlockBytes sizes the blocks an in-memory search cuts a matrix into:
// small enough to stay in a core's L2 cache while the queries sweep it,
// large enough that handing blocks to workers costs nothing measurable.
const defaultBlockBytes = 256 << 10

func defaultBlockRows(dim int) int { return max(defaultBlockBytes/(4*dim), 64) }

// Search returns the k rows of data best matching query under metric, best
// first, using every core. Scores equal metric.Score(query, row) computed on
// 16-byte aligned copies (see alignFloats): bit for bit, wherever data lives.
func Search(metric Metric, data Matrix, query []float32, k int) ([]Result, error) {
	if err := data.check("data"); err != nil {
		return nil, err
	}
	if len(query) != data.Dim {
		return nil, DimMismatchError(len(query), data.Dim)
	}
	res, err := SearchStream(metric, data.Dim, MatrixBlocks(data, defaultBlockRows(data.Dim)), Matrix{Dim: data.Dim, Data: query}, k, 0)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// SearchBatch is Search for every row of queries; result i belongs to query i.
func SearchBatch(metric Metric, data Matrix, queries Matrix, k int) ([][]Result, error) {
	if err := data.check("data"); err != nil {
		return nil, err
	}
	return SearchStream(metric, data.Dim, MatrixBlocks(data, defaultBlockRows(data.Dim)), queries, k, 0)
}

// DimMismatchError is the error for a query whose dimension is not the column's.
func DimMismatchError(query, column int) error {
	return fmt.Errorf("vector: query dimension %d ≠ column dimension %d", query, column)
}

// SearchStream finds, for each row of queries, the k best vectors of a column
// of dimension dim read block by block from src. It reads on the calling
// goroutine and scores on workers goroutines (0 means one per core,
// runtime.GOMAXPROCS), each with its own top-k per query; the heaps are merged
// at the end. Memory is bounded by the blocks in flight (see BlockSource) plus
// O(workers × queries × k).
//
// A single query is scored row by row, in place, with the default (SIMD)
// kernels: its scores are bit for bit metric.Score(query, row). Several
// queries are scored through a matrix product, gemmNT of Q (m×d) by Xᵀ per
// tile of rows read in place; it sums in another order, and L2 uses
// ‖q‖² + ‖x‖² − 2q·x, so batched scores may differ from single-query ones in
// the last bits. Either way a score depends only on the values, not on how
// src cuts the column into blocks nor on where the blocks sit in memory, so
// results are reproducible across sources and worker counts.
//
// k = 0 or an empty source gives empty results, not an error.
func SearchStream(metric Metric, dim int, src BlockSource, queries Matrix, k int, workers int) ([][]Result, error) {
	sc, err := NewScanScorer(metric, dim, queries, k, workers)
	if err != nil {
		return nil, err
	}
	if sc.Idle() {
		// Nothing can be found; the source is not read.
		return sc.Results(), nil
	}

	blocks := make(chan Block, sc.Workers())
	var wg sync.WaitGroup
	for _, s := range sc.scorers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range blocks {
				s.score(b)
				b.Release()
			}
		}()
	}

	var readErr error
	for blockIndex := 0; ; blockIndex++ {
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = fmt.Errorf("vector: reading block %d: %w", blockIndex, err)
			break
		}
		if b.Dim != 0 && b.Dim != dim {
			readErr = DimMismatchError(queries.Dim, b.Dim)
			break
		}
		if len(b.Vectors)%dim != 0 {
			readErr = fmt.Errorf("vector: block %d (first row %d): %d elements is not a multiple of column dimension %d", blockIndex, b.FirstRow, len(b.Vectors), dim)
			break
		}
		if b.IDs != nil && len(b.IDs) != len(b.Vectors)/dim {
			readErr = fmt.Errorf("vector: block %d (first row %d): %d ids for %d vectors", blockIndex, b.FirstRow, len(b.IDs), len(b.Vectors)/dim)
			break
		}
		blocks <- b
	}
	close(blocks)
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	return sc.Results(), nil
}

// Tile sizes of the batched path: gemmNT scores tileQueries queries against
// tileRows rows of a block at a time into a tileQueries × tileRows product,
// which is then pushed into the queries' top-k. gemmNT sums every entry in
// an order fixed by the dimension alone (see gemm.go), so any tile sizes give
// the same scores; these were chosen by measurement (BenchmarkSearchBatch,
// dim 768: the product stays in L1 and a tile of rows in L2).
const (
	tileQueries = 64
	tileRows    = 96
)

// The former path, kept to be measured against (scoreWithGonum): gonum's
// Gemm stays serial, computing each entry as one full-length dot (its
// DotUnitary, the same as DotBLAS), as long as ⌈m/64⌉·⌈n/64⌉ < 4; beyond
// that it splits the inner dimension into blocks of 64 and changes the
// rounding. Tiles of 64 queries × 192 rows keep it on the serial path.
const (
	gonumTileQueries = 64
	gonumTileRows    = 192
)

// scoreWithGonum makes batched searches score through blas32.Gemm on aligned
// copies of each tile, as before gemmNT (benchmarks compare the two). Its
// scores differ from gemmNT's in the last bits.
var scoreWithGonum = false

// gonum's SSE dot first sums, one by one, the elements that precede the
// 16-byte boundary of its second operand, so the rounding of a score depends
// on where the vectors sit in memory. The gonum path therefore copies queries
// and each tile of rows into 16-byte aligned buffers whose row stride is a
// multiple of four floats: every score then depends only on the values,
// identically for a zero-copy view of a Parquet page, a decoded copy, or a
// Go matrix. (gemmNT needs no copies; the queries are still held aligned.)
const alignFloats = 4

func paddedStride(dim int) int { return (dim + alignFloats - 1) / alignFloats * alignFloats }

// alignedFloat32s returns n zeroed float32s starting on a 16-byte boundary.
func alignedFloat32s(n int) []float32 {
	buf := make([]float32, n+alignFloats-1)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%(4*alignFloats) != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}

type scorer struct {
	metric Metric
	dim    int
	stride int       // padded row stride of q and buf
	m      int       // number of queries
	q      []float32 // queries, aligned and padded
	qq     []float32 // ‖q‖²
	qn     []float64 // ‖q‖, as cosineFrom computes it
	tops   []*TopK
	// tile holds the current rows at stride tileStride: on the gemmNT path
	// a view of the block being scored (nil between blocks, so that no
	// reference outlives it), on the gonum path buf.
	tile       []float32
	tileStride int
	buf        []float32 // aligned, padded rows for the gonum path
	xx         []float32 // ‖x‖² of the tile's rows
	xn         []float64 // ‖x‖ of the tile's rows (cosine)
	prod       []float32 // the current tile of Q·Xᵀ, row stride prodStride
	prodStride int
	gonum      bool
}

func newScorer(metric Metric, queries Matrix, k int) *scorer {
	dim, m := queries.Dim, queries.Rows()
	st := paddedStride(dim)
	s := &scorer{
		metric: metric, dim: dim, stride: st, m: m,
		q:    alignedFloat32s(m * st),
		qq:   make([]float32, m),
		tops: make([]*TopK, m),
	}
	for i := range m {
		q := s.q[i*st : i*st+dim]
		copy(q, queries.Row(i))
		s.qq[i] = Dot(q, q)
		s.tops[i] = NewTopK(k, metric)
	}
	if m > 1 {
		// Only the tiled path uses these; one query is scored in place
		// (scoreOne).
		s.gonum = scoreWithGonum
		rows, queries := tileRows, tileQueries
		if s.gonum {
			rows, queries = gonumTileRows, gonumTileQueries
		}
		// buf backs the gonum path; the gemmNT path scores blocks in
		// place, but starts on buf too so that a caller may fill s.tile
		// and call scoreMany directly (BenchmarkBatchScoring).
		s.buf = alignedFloat32s(rows * st)
		s.tile, s.tileStride = s.buf, st
		s.xx = make([]float32, rows)
		s.prod = make([]float32, queries*rows)
		s.prodStride = rows
		if metric == MetricCosine {
			s.qn = make([]float64, m)
			for i, qq := range s.qq {
				s.qn[i] = math.Sqrt(float64(qq))
			}
			s.xn = make([]float64, rows)
		}
	}
	return s
}

func (s *scorer) score(b Block) {
	dim, st := s.dim, s.stride
	rows := len(b.Vectors) / dim
	if rows == 0 || s.m == 0 || s.tops[0].K() == 0 {
		return
	}
	if s.m == 1 {
		s.scoreOne(b, rows)
		return
	}
	id := func(j int) int64 {
		if b.IDs != nil {
			return b.IDs[j]
		}
		return b.FirstRow + int64(j)
	}
	nt := s.prodStride
	for j0 := 0; j0 < rows; j0 += nt {
		nj := min(nt, rows-j0)
		if s.gonum {
			for j := range nj {
				copy(s.tile[j*st:j*st+dim], b.Vectors[(j0+j)*dim:(j0+j+1)*dim])
			}
		} else {
			// gemmNT reads the rows where they lie: its sums do not
			// depend on alignment, so there is nothing to copy.
			s.tile, s.tileStride = b.Vectors[j0*dim:(j0+nj)*dim], dim
		}
		if s.metric != MetricDot {
			for j := range nj {
				x := s.tile[j*s.tileStride : j*s.tileStride+dim]
				s.xx[j] = Dot(x, x)
			}
			if s.metric == MetricCosine {
				for j, xx := range s.xx[:nj] {
					s.xn[j] = math.Sqrt(float64(xx))
				}
			}
		}
		s.scoreMany(nj, func(j int) int64 { return id(j0 + j) })
	}
	if !s.gonum {
		s.tile = nil
	}
}

// scoreOne scores a block against a single query row by row, in place: the
// SIMD kernels load unaligned, so the rows are read once, where they lie
// (for an uncompressed page, in the file's mapping), with no copy. Cosine
// takes q·x and ‖x‖² from one pass over x (DotNorm), ‖q‖² once per search.
// The scores are bit for bit metric.Score(query, row).
func (s *scorer) scoreOne(b Block, rows int) {
	dim := s.dim
	q, top, qq := s.q[:dim], s.tops[0], s.qq[0]
	data := b.Vectors
	for j := range rows {
		x := data[j*dim : (j+1)*dim : (j+1)*dim]
		var sc float32
		switch s.metric {
		case MetricDot:
			sc = dotSIMD(q, x)
		case MetricCosine:
			ab, xx := dotNormSIMD(q, x)
			sc = cosineFrom(ab, qq, xx)
		case MetricL2:
			sc = squaredL2SIMD(q, x)
		}
		id := b.FirstRow + int64(j)
		if b.IDs != nil {
			id = b.IDs[j]
		}
		top.Push(id, sc)
	}
}

// scoreMany scores the tile's first nj rows against every query through
// Q·Xᵀ, tileQueries queries at a time, and offers the scores to the
// queries' top-k. A score that cannot enter a full top-k (strictly worse
// than its worst kept one) is dropped before the call to Push.
func (s *scorer) scoreMany(nj int, id func(int) int64) {
	st := s.stride
	nq := len(s.prod) / s.prodStride
	for i0 := 0; i0 < s.m; i0 += nq {
		ni := min(nq, s.m-i0)
		if s.gonum {
			blas32.Gemm(blas.NoTrans, blas.Trans, 1,
				blas32.General{Rows: ni, Cols: s.dim, Stride: st, Data: s.q[i0*st : (i0+ni-1)*st+s.dim]},
				blas32.General{Rows: nj, Cols: s.dim, Stride: st, Data: s.tile[:(nj-1)*st+s.dim]},
				0,
				blas32.General{Rows: ni, Cols: nj, Stride: s.prodStride, Data: s.prod})
		} else {
			gemmNT(s.prod, s.prodStride, s.q[i0*st:], st, s.tile, s.tileStride, ni, nj, s.dim)
		}
		for i := range ni {
			s.push(i0+i, s.prod[i*s.prodStride:i*s.prodStride+nj], id)
		}
	}
}

// push offers query i the scores of the tile's rows, whose products with
// it are prod. The scores are those of cosineFrom and the ‖q‖²+‖x‖²−2q·x
// form of L2, bit for bit.
func (s *scorer) push(i int, prod []float32, id func(int) int64) {
	top := s.tops[i]
	full := top.Len() == top.K()
	var worst float32
	if full {
		worst = top.heap[0].Score
	}
	offer := func(j int, sc float32) {
		top.Push(id(j), sc)
		if full = top.Len() == top.K(); full {
			worst = top.heap[0].Score
		}
	}
	// A NaN worst compares false, so every score goes to Push, which
	// ranks it; a NaN score likewise.
	switch s.metric {
	case MetricDot:
		for j, p := range prod {
			if full && p < worst {
				continue
			}
			offer(j, p)
		}
	case MetricCosine:
		qn, xn := s.qn[i], s.xn[:len(prod)]
		for j, p := range prod {
			var sc float32
			if den := qn * xn[j]; den == 0 {
				sc = float32(math.NaN())
			} else {
				sc = float32(float64(p) / den)
			}
			if full && sc < worst {
				continue
			}
			offer(j, sc)
		}
	case MetricL2:
		qq, xx := s.qq[i], s.xx[:len(prod)]
		for j, p := range prod {
			sc := max(qq+xx[j]-2*p, 0)
			if full && sc > worst {
				continue
			}
			offer(j, sc)
		}
	}
}
