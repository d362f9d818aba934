package vectorcol

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/coltype-lab/lab/types/vector"
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
	// decoders counts the page decoders in flight: Close waits for them, so
	// that none reads the file's mapping after the caller closes the File.
	decoders sync.WaitGroup
	err      error
	rows     []int64 // running row count per chunk
	bufs     *pageBuffers
	// join carries a row cut at a page boundary; chunk is the chunk of the
	// last page seen (-1 before the first), pending blocks ready to hand out.
	join    rowJoin
	chunk   int
	pending []vector.Block
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
			if f.skipped(ci) {
				continue
			}
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
				b.decoders.Add(1)
				go func() {
					defer b.decoders.Done()
					defer func() { <-sem }()
					p, err := f.decodePageWith(ref, f.info.Dim, b.bufs)
					ch <- pageResult{ref: ref, p: p, err: err}
				}()
			}
		}
	}()
	b.rows = make([]int64, len(f.chunks))
	b.join = rowJoin{dim: f.info.Dim}
	b.chunk = -1
	return b
}

// Next returns the next page's non-null vectors. A row cut at a page
// boundary comes as a block of its own once its last page is read.
func (b *FileBlocks) Next() (vector.Block, error) {
	for {
		if b.err != nil {
			return vector.Block{}, b.err
		}
		if len(b.pending) > 0 {
			blk := b.pending[0]
			b.pending = b.pending[1:]
			return blk, nil
		}
		ch, ok := <-b.results
		if !ok {
			b.err = io.EOF
			if err := b.endChunk(); err != nil {
				b.err = err
			}
			for ci, c := range b.f.chunks {
				if b.rows[ci] != c.rows && !b.f.skipped(ci) {
					b.err = fmt.Errorf("%s: the pages of row group %d hold %d rows, its metadata says %d", b.f.info.Path, ci, b.rows[ci], c.rows)
				}
			}
			if b.err == io.EOF && len(b.pending) > 0 {
				b.err = nil
				continue
			}
			return vector.Block{}, b.err
		}
		r := <-ch
		if r.err != nil {
			b.err = r.err
			return vector.Block{}, r.err
		}
		if r.ref.chunk != b.chunk {
			if b.err = b.endChunk(); b.err != nil {
				return vector.Block{}, b.err
			}
			b.chunk = r.ref.chunk
		}
		c := &b.f.chunks[r.ref.chunk]
		first := c.firstRow + b.rows[r.ref.chunk]
		if r.ref.firstRow >= 0 && r.ref.firstRow != first {
			b.err = fmt.Errorf("%s: page at byte %d starts at row %d by the offset index, at row %d by the pages before it",
				b.f.info.Path, r.ref.offset, r.ref.firstRow, first)
			return vector.Block{}, b.err
		}
		b.rows[r.ref.chunk] += int64(r.p.rows)
		if b.rows[r.ref.chunk] > c.rows {
			b.err = fmt.Errorf("%s: the pages of row group %d hold more than its %d rows", b.f.info.Path, r.ref.chunk, c.rows)
			return vector.Block{}, b.err
		}
		where := fmt.Sprintf("%s: page at byte %d", b.f.info.Path, r.ref.offset)
		if row, vals, done, err := b.join.page(&r.p, first, where); err != nil {
			b.err = err
			b.bufs.release(&r.p)
			return vector.Block{}, err
		} else if done {
			b.pending = append(b.pending, vector.Block{FirstRow: row, IDs: []int64{row}, Vectors: vals, Dim: b.f.info.Dim})
		}
		vectors, ids := r.p.withoutTail(first)
		if r.p.rows == 0 || len(vectors) == 0 {
			b.bufs.release(&r.p)
			continue
		}
		blk := vector.Block{FirstRow: first, Vectors: vectors, IDs: ids, Dim: b.f.info.Dim}
		if buf, read := r.p.buf, r.p.bufRead; buf != nil {
			blk.OnRelease = func() { b.bufs.putTo(buf, read) }
		}
		b.pending = append(b.pending, blk)
	}
}

// endChunk closes the row a chunk's last page left open, queueing it.
func (b *FileBlocks) endChunk() error {
	if b.chunk < 0 {
		return nil
	}
	row, vals, ok, err := b.join.close(fmt.Sprintf("%s: row group %d", b.f.info.Path, b.chunk))
	if ok {
		b.pending = append(b.pending, vector.Block{FirstRow: row, IDs: []int64{row}, Vectors: vals, Dim: b.f.info.Dim})
	}
	return err
}

// Close stops the decoders and waits for those still decoding a page: a
// decoder reads the File's memory mapping, which File.Close unmaps, so a
// decoder outliving Close (a search that stopped at a bad page while later
// pages were being decoded) would fault.
func (b *FileBlocks) Close() {
	b.once.Do(func() {
		close(b.done)
		// Drain so no decoder is left blocked on its result channel (they
		// are buffered, so only the dispatcher needs waking).
		for range b.results {
		}
		b.decoders.Wait()
		b.bufs.handOver()
	})
}

// Search is SearchFile on an open file. A file whose column chunks all have
// an offset index (every file the lab writes) is searched by the fused scan
// (searchFused: each page scored on the goroutine that decodes it,
// BYTE_STREAM_SPLIT rows in cache-sized tiles or stripes); any other by the
// block stream of Blocks. Both give the same results and fail on the same
// page.
func (f *File) Search(layout Layout, metric vector.Metric, queries vector.Matrix, k int) ([][]vector.Result, error) {
	info := f.info
	if layout != 0 && layout != info.Layout {
		return nil, fmt.Errorf("%s: the file is in layout %v, not %v", info.Path, info.Layout, layout)
	}
	if info.Dim == 0 || info.Rows == 0 {
		if info.Dim != 0 && queries.Dim != info.Dim {
			return nil, fmt.Errorf("%s: %w", info.Path, vector.DimMismatchError(queries.Dim, info.Dim))
		}
		out := make([][]vector.Result, queries.Rows())
		for i := range out {
			out[i] = []vector.Result{}
		}
		return out, nil
	}
	if queries.Dim != info.Dim {
		return nil, fmt.Errorf("%s: %w", info.Path, vector.DimMismatchError(queries.Dim, info.Dim))
	}
	if res, ok, err := f.searchFused(metric, queries, k); ok {
		return res, err
	}
	src := f.Blocks(0)
	defer src.Close()
	res, err := vector.SearchStream(metric, info.Dim, src, queries, k, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", info.Path, err)
	}
	return res, nil
}

// ReadAll decodes the whole column: the vectors of the non-null rows in a
// Matrix, and the null flags (nil when no row is null).
func (f *File) ReadAll() (vector.Matrix, []bool, error) {
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
			return vector.Matrix{}, nil, err
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
	return vector.Matrix{Dim: dim, Data: data}, null, nil
}
