package vector

import (
	"fmt"
	"io"
	"runtime"
	"sync"
)

// FileBlocks is a BlockSource over a layout file: one Block per data page,
// in row order, each decoded straight from the page bytes into a contiguous
// float32 slice (aliasing the page buffer for uncompressed PLAIN float
// pages). Null vectors are left out (the Block then carries IDs); null
// elements are NaN, so such a vector scores NaN and ranks last (TopK).
//
// Pages are decoded ahead by up to `workers` goroutines while the search
// scores earlier ones, so decompression and BYTE_STREAM_SPLIT decoding use
// every core too. Memory is bounded by the pages in flight: the search's
// 2×workers+1 blocks plus workers pages being decoded, independent of the
// file size. Decompression buffers are recycled once a block is released
// (Block.Release; the searches do it), so a scan of compressed pages
// allocates a bounded number of them rather than one per page. Close stops the decoders; call it when the search is done
// (SearchFile does).
type FileBlocks struct {
	f       *File
	results chan chan pageResult
	done    chan struct{}
	once    sync.Once
	err     error
	rows    []int64 // running row count per chunk
	bufs    *pageBuffers
}

type pageResult struct {
	ref pageRef
	p   decodedPage
	err error
}

// Blocks returns a BlockSource over the file's pages; workers ≤ 0 means
// runtime.GOMAXPROCS.
func (f *File) Blocks(workers int) *FileBlocks {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	f.mapForScan()
	// Pages in flight: workers queued, workers decoding, and the search's
	// 2×workers+1 blocks; a few more buffers cover the hand-over.
	b := &FileBlocks{f: f, results: make(chan chan pageResult, workers), done: make(chan struct{}),
		bufs: newPageBuffers(4*workers + 4)}
	sem := make(chan struct{}, workers)
	go func() {
		defer close(b.results)
		for ci := range f.chunks {
			refs, err := f.pageRefs(ci)
			if err != nil {
				ch := make(chan pageResult, 1)
				ch <- pageResult{err: err}
				select {
				case b.results <- ch:
				case <-b.done:
				}
				return
			}
			for _, ref := range refs {
				ch := make(chan pageResult, 1)
				select {
				case b.results <- ch:
				case <-b.done:
					return
				}
				select {
				case sem <- struct{}{}:
				case <-b.done:
					return
				}
				go func() {
					defer func() { <-sem }()
					p, err := f.decodePageWith(ref, f.info.Dim, b.bufs)
					ch <- pageResult{ref: ref, p: p, err: err}
				}()
			}
		}
	}()
	b.rows = make([]int64, len(f.chunks))
	return b
}

// Next returns the next page's non-null vectors.
func (b *FileBlocks) Next() (Block, error) {
	for {
		if b.err != nil {
			return Block{}, b.err
		}
		ch, ok := <-b.results
		if !ok {
			b.err = io.EOF
			for ci, c := range b.f.chunks {
				if b.rows[ci] != c.rows {
					b.err = fmt.Errorf("%s: the pages of row group %d hold %d rows, its metadata says %d", b.f.info.Path, ci, b.rows[ci], c.rows)
				}
			}
			return Block{}, b.err
		}
		r := <-ch
		if r.err != nil {
			b.err = r.err
			return Block{}, r.err
		}
		c := &b.f.chunks[r.ref.chunk]
		first := c.firstRow + b.rows[r.ref.chunk]
		if r.ref.firstRow >= 0 && r.ref.firstRow != first {
			b.err = fmt.Errorf("%s: page at byte %d starts at row %d by the offset index, at row %d by the pages before it",
				b.f.info.Path, r.ref.offset, r.ref.firstRow, first)
			return Block{}, b.err
		}
		b.rows[r.ref.chunk] += int64(r.p.rows)
		if b.rows[r.ref.chunk] > c.rows {
			b.err = fmt.Errorf("%s: the pages of row group %d hold more than its %d rows", b.f.info.Path, r.ref.chunk, c.rows)
			return Block{}, b.err
		}
		if r.p.rows == 0 || len(r.p.vectors) == 0 {
			b.bufs.put(r.p.buf)
			continue
		}
		blk := Block{FirstRow: first, Vectors: r.p.vectors}
		if buf := r.p.buf; buf != nil {
			blk.release = func() { b.bufs.put(buf) }
		}
		if r.p.present != nil {
			blk.IDs = make([]int64, 0, len(r.p.vectors)/max(r.p.dim, 1))
			for i, ok := range r.p.present {
				if ok {
					blk.IDs = append(blk.IDs, first+int64(i))
				}
			}
		}
		return blk, nil
	}
}

// Close stops the decoders.
func (b *FileBlocks) Close() {
	b.once.Do(func() {
		close(b.done)
		// Drain so no decoder is left blocked on its result channel (they
		// are buffered, so only the dispatcher needs waking).
		for range b.results {
		}
	})
}

// SearchFile searches the vector column of the Parquet file at path (any
// layout; layout 0 detects it, otherwise it must match) for the k best rows
// of each query under metric, in bounded memory, using every core. Ids are
// row numbers. A query dimension other than the column's is an error naming
// both; a file of 0 rows gives empty results.
func SearchFile(path string, layout Layout, metric Metric, queries Matrix, k int) ([][]Result, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Search(layout, metric, queries, k)
}

// Search is SearchFile on an open file.
func (f *File) Search(layout Layout, metric Metric, queries Matrix, k int) ([][]Result, error) {
	info := f.info
	if layout != 0 && layout != info.Layout {
		return nil, fmt.Errorf("%s: the file is in layout %v, not %v", info.Path, info.Layout, layout)
	}
	if info.Dim == 0 || info.Rows == 0 {
		if info.Dim != 0 && queries.Dim != info.Dim {
			return nil, fmt.Errorf("%s: %w", info.Path, dimMismatch(queries.Dim, info.Dim))
		}
		out := make([][]Result, queries.Rows())
		for i := range out {
			out[i] = []Result{}
		}
		return out, nil
	}
	if queries.Dim != info.Dim {
		return nil, fmt.Errorf("%s: %w", info.Path, dimMismatch(queries.Dim, info.Dim))
	}
	src := f.Blocks(0)
	defer src.Close()
	res, err := SearchStream(metric, info.Dim, src, queries, k, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", info.Path, err)
	}
	return res, nil
}

// ReadAll decodes the whole column: the vectors of the non-null rows in a
// Matrix, and the null flags (nil when no row is null).
func (f *File) ReadAll() (Matrix, []bool, error) {
	src := f.Blocks(0)
	defer src.Close()
	dim := max(f.info.Dim, 1)
	// The row count comes from the footer: trust it for a capacity hint
	// only up to a bound, and let append grow past it.
	data := make([]float32, 0, min(f.info.Rows*int64(f.info.Dim), 1<<24))
	var null []bool
	markNull := func(from, to int64) { // rows [from, to) are null
		if from >= to {
			return
		}
		if null == nil {
			null = make([]bool, f.info.Rows)
		}
		for r := from; r < to; r++ {
			null[r] = true
		}
	}
	var next int64 // the row after the last one seen
	for {
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Matrix{}, nil, err
		}
		data = append(data, b.Vectors...)
		b.Release()
		if b.IDs == nil {
			markNull(next, b.FirstRow)
			next = b.FirstRow + int64(len(b.Vectors)/dim)
			continue
		}
		for _, id := range b.IDs {
			markNull(next, id)
			next = id + 1
		}
	}
	markNull(next, f.info.Rows)
	return Matrix{Dim: dim, Data: data}, null, nil
}
