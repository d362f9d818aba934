package vectorcol

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/types/vector"
)

// fusedScanOn turns the fused search on (File.Search); tests turn it off to
// compare it with the block stream it replaces.
var fusedScanOn = true

// Row tiles of the fused scan's BYTE_STREAM_SPLIT decode, where a page is
// not scored by stripes (scoreStripes). A page's float32 rows are decoded
// scanTileBytes at a time into one buffer per decoder and scored at once,
// so the decoded values are read back from L1/L2 instead of from memory.
// FIXED_LEN_BYTE_ARRAY cells (one stream per byte of the vector, 3072 of
// them at 768 dimensions) go scanWideTileBytes at a time: a tile there
// reads every stream, and tiles much smaller than a page turn the page's
// sequential read into a strided one the prefetchers do not follow
// (BenchmarkDecodeBSSRowsScan: whole 1 MiB pages into one reused buffer
// beat 64- and 128-row tiles).
var (
	scanTileBytes     = 96 << 10
	scanWideTileBytes = 1 << 20
)

// bssRows is a page's BYTE_STREAM_SPLIT float32 values left encoded:
// src holds the streams of len(src)/width values of width bytes, perRow
// values to a row (1 for FIXED_LEN_BYTE_ARRAY cells, dim for elements),
// the rows whole from the first value on.
type bssRows struct {
	src    []byte
	width  int
	perRow int
	dim    int
	flba   bool
}

// rows is the number of rows the values hold.
func (d *bssRows) rows() int { return len(d.src) / (d.width * d.perRow) }

// decode decodes the values whole, as decodeFloatsInto does: for a path
// that reads them one by one after all.
func (d *bssRows) decode(bufs *pageBuffers, hold *[]byte) ([]float32, error) {
	v, _, err := decodeFloatsInto(d.src, len(d.src)/d.width, format.ByteStreamSplit, d.flba, d.dim, vector.Float32, bufs, hold)
	return v, err
}

// littleEndianFloats: decoded BYTE_STREAM_SPLIT bytes are float32s in
// memory only on a little-endian host.
var littleEndianFloats = func() bool {
	x := []float32{1}
	_, ok := vector.Float32View(unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4))
	return ok
}()

// decodeFloatsOrDefer is decodeFloatsInto, except that for a fused scan's
// buffers (deferBSS) BYTE_STREAM_SPLIT float32 values of the right length
// are left encoded and returned as deferred.
func decodeFloatsOrDefer(src []byte, n int, enc format.Encoding, flba bool, dim int, elem vector.ElementType, bufs *pageBuffers, hold *[]byte) ([]float32, bool, *bssRows, error) {
	if bufs != nil && bufs.deferBSS && enc == format.ByteStreamSplit && elem == vector.Float32 && littleEndianFloats && dim > 0 {
		width, perRow := 4, dim
		if flba {
			width, perRow = 4*dim, 1
		}
		if len(src) == n*width && n%perRow == 0 {
			return nil, false, &bssRows{src: src, width: width, perRow: perRow, dim: dim, flba: flba}, nil
		}
	}
	v, zero, err := decodeFloatsInto(src, n, enc, flba, dim, elem, bufs, hold)
	return v, zero, nil, err
}

// scanTiles keeps the fused scans' tile buffers between searches.
var scanTiles sync.Pool

// scanPage is what the ordered pass after a fused scan needs of a page:
// its row count, its error, and the pieces of rows cut at its edges
// (decodedPage's head and tail fields, copied).
type scanPage struct {
	err                          error
	rows                         int
	headEntries, headNulls, tail int
	lastNull                     bool
	head, tailVals               []float32
}

// searchFused is File.Search scoring every page on the goroutine that
// decodes it, right after decoding it (BYTE_STREAM_SPLIT rows tile by
// tile, or stripe by stripe), while it is in that core's cache:
// FileBlocks hands decoded pages to the search's scorers on other
// goroutines, which read them back from memory or the shared cache. Each decoder keeps its own few buffers,
// reused page after page, so they stay hot, and nothing is allocated per
// page. Decoders take the pages in file order; a pass over them in that
// order afterwards makes FileBlocks.Next's checks (rows by the offset
// index and by the pages, row group row counts) and joins rows a writer
// cut at page boundaries, so a file gives the results a block stream
// gives, and fails where it fails, at the same page. It needs a page's first row before the pages before
// it are decoded, so it takes files whose column chunks all have an offset
// index (ok false otherwise: the caller streams blocks).
func (f *File) searchFused(metric vector.Metric, queries vector.Matrix, k int) (res [][]vector.Result, ok bool, err error) {
	if !fusedScanOn {
		return nil, false, nil
	}
	for ci := range f.chunks {
		if !f.skipped(ci) && f.chunks[ci].pages == nil {
			return nil, false, nil
		}
	}
	dim := f.info.Dim
	sc, err := vector.NewScanScorer(metric, dim, queries, k, 0)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", f.info.Path, err)
	}
	if sc.Idle() {
		return sc.Results(), true, nil
	}
	f.mapForScan()
	var refs []pageRef
	var refsErr error // after the pages listed, as the block stream meets it
	for ci := range f.chunks {
		if f.skipped(ci) {
			continue
		}
		r, err := f.pageRefs(ci)
		if err != nil {
			refsErr = err
			break
		}
		refs = append(refs, r...)
	}
	states := make([]scanPage, len(refs))
	// A file of fewer pages than cores (DuckDB writes a row group's column
	// as one page) leaves scorer slots without a decoder: those go to the
	// decoders, to score a large page's rows on several cores
	// (scanDecoder.split).
	decoders := min(sc.Workers(), len(refs))
	spare := make(chan int, sc.Workers())
	for w := decoders; w < sc.Workers(); w++ {
		spare <- w
	}
	var next atomic.Int64
	var stop atomic.Int64 // pages after the first that failed are not decoded
	stop.Store(math.MaxInt64)
	var wg sync.WaitGroup
	for w := range decoders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := scanDecoder{f: f, sc: sc, worker: w, bufs: newPageBuffers(2), spare: spare}
			d.bufs.deferBSS = true
			defer d.close()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(refs)) || i > stop.Load() {
					return
				}
				if err := d.page(refs[i], &states[i]); err != nil {
					states[i].err = err
					for s := stop.Load(); i < s && !stop.CompareAndSwap(s, i); s = stop.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	joined, err := f.checkScan(refs, states, refsErr)
	if err != nil {
		return nil, true, err
	}
	for _, b := range joined {
		if err := sc.Score(0, b); err != nil {
			return nil, true, err
		}
	}
	return sc.Results(), true, nil
}

// checkScan goes over a fused scan's pages in file order, as FileBlocks.Next
// takes them, with its checks and errors, and returns the rows cut at page
// boundaries, joined, for the caller to score.
func (f *File) checkScan(refs []pageRef, states []scanPage, refsErr error) ([]vector.Block, error) {
	dim := f.info.Dim
	rows := make([]int64, len(f.chunks))
	join := rowJoin{dim: dim}
	chunk := -1
	var joined []vector.Block
	endChunk := func() error {
		if chunk < 0 {
			return nil
		}
		row, vals, ok, err := join.close(fmt.Sprintf("%s: row group %d", f.info.Path, chunk))
		if ok {
			joined = append(joined, vector.Block{FirstRow: row, IDs: []int64{row}, Vectors: vals, Dim: dim})
		}
		return err
	}
	for i, ref := range refs {
		st := &states[i]
		if st.err != nil {
			return nil, st.err
		}
		if ref.chunk != chunk {
			if err := endChunk(); err != nil {
				return nil, err
			}
			chunk = ref.chunk
		}
		c := &f.chunks[ref.chunk]
		first := c.firstRow + rows[ref.chunk]
		if ref.firstRow >= 0 && ref.firstRow != first {
			return nil, fmt.Errorf("%s: page at byte %d starts at row %d by the offset index, at row %d by the pages before it",
				f.info.Path, ref.offset, ref.firstRow, first)
		}
		rows[ref.chunk] += int64(st.rows)
		if rows[ref.chunk] > c.rows {
			return nil, fmt.Errorf("%s: the pages of row group %d hold more than its %d rows", f.info.Path, ref.chunk, c.rows)
		}
		if st.headEntries == 0 && st.tail == 0 && !join.cut {
			// Whole rows after a whole row, the common case: join.page's
			// outcome, without formatting the page's name for it.
			if st.rows > 0 {
				join = rowJoin{dim: dim, open: true, row: first + int64(st.rows) - 1, null: st.lastNull}
			}
			continue
		}
		p := decodedPage{rows: st.rows, headEntries: st.headEntries, headNulls: st.headNulls, head: st.head,
			tail: st.tail, lastNull: st.lastNull, vectors: st.tailVals}
		row, vals, done, err := join.page(&p, first, fmt.Sprintf("%s: page at byte %d", f.info.Path, ref.offset))
		if err != nil {
			return nil, err
		}
		if done {
			joined = append(joined, vector.Block{FirstRow: row, IDs: []int64{row}, Vectors: vals, Dim: dim})
		}
	}
	if refsErr != nil {
		return nil, refsErr
	}
	err := endChunk()
	for ci, c := range f.chunks {
		if rows[ci] != c.rows && !f.skipped(ci) {
			err = fmt.Errorf("%s: the pages of row group %d hold %d rows, its metadata says %d", f.info.Path, ci, rows[ci], c.rows)
		}
	}
	return joined, err
}

// scanDecoder is one goroutine of a fused scan: it decodes pages into its
// own buffers and scores them as worker of the scorer.
type scanDecoder struct {
	f      *File
	sc     *vector.ScanScorer
	worker int
	bufs   *pageBuffers
	tile   *[]float32 // from scanTiles; nil until a page needs one
	// stripes scores FIXED_LEN_BYTE_ARRAY pages by stripes (nil: not
	// asked yet, or the search cannot: see vector.ScanScorer.Stripes).
	stripes      *vector.StripeScorer
	stripesAsked bool
	// spare holds the scorer slots no decoder uses, for split.
	spare chan int
}

// splitRows is the fewest rows each part of a page split scores: below it
// a goroutine costs more than it saves. Tests lower it.
var splitRows = 4096

// splitSeen, when set (by tests), is told how many parts each split page
// was scored in.
var splitSeen func(parts int)

// scanStripesOn lets a fused scan score BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY
// pages stripe by stripe; tests turn it off to cover the row tiles.
var scanStripesOn = true

// scanSplitOn lets a fused scan score stripes from the page's byte planes
// in place (vector.StripeScorer.ScoreSplit) rather than through decoded
// planes (pages.DecodeBSSStripes); tests and benchmarks turn it off to
// cover and compare the decoded ones, which pages of fewer than
// vector.SplitMinRows rows always take.
var scanSplitOn = true

// scanStripeRows is how many rows a page is scored by stripes at a time:
// their accumulators (128 bytes a row, 256 for cosine) and one stripe of
// them (64 bytes a row) stay in L2. The lab's 1 MiB pages of 768-dim rows
// hold 341, scored whole; scoring them 64 to 192 rows at a time measured
// 1.3-2x slower, the planes then being read in short strided runs.
const scanStripeRows = 512

func (d *scanDecoder) stripeScorer() *vector.StripeScorer {
	if !d.stripesAsked {
		d.stripesAsked = true
		if scanStripesOn {
			d.stripes = d.sc.Stripes(d.worker)
		}
	}
	return d.stripes
}

// scoreStripes scores the deferred FIXED_LEN_BYTE_ARRAY rows of a page by
// stripes of 64 of their bytes (16 float32 elements), scanStripeRows rows
// at a time: the page's streams are read once, in order, and the rows are
// never whole in memory (pages.DecodeBSSStripes, vector.StripeScorer).
func (d *scanDecoder) scoreStripes(p *vector.StripeScorer, b *bssRows, first int64, ids []int64, offset int64) error {
	rows := b.rows()
	// The assembly kernels take 32 rows at least: the last block takes
	// the rest when fewer would be left after it.
	blockRows := min(scanStripeRows, rows)
	// Each block gets its rows' ids and the page's context on errors.
	eachBlock := func(score func(r0, nr int, ids []int64) error) error {
		for r0, nr := 0, 0; r0 < rows; r0 += nr {
			nr = blockRows
			if rows-(r0+nr) < vector.SplitMinRows {
				nr = rows - r0
			}
			var blockIDs []int64
			if ids != nil {
				blockIDs = ids[r0 : r0+nr]
			}
			if err := score(r0, nr, blockIDs); err != nil {
				return fmt.Errorf("%s: page at byte %d: %w", d.f.info.Path, offset, err)
			}
		}
		return nil
	}
	if rows >= vector.SplitMinRows && scanSplitOn {
		// The scorer reads the page's byte planes where they lie and
		// stores no decoded value (vector.StripeScorer.ScoreSplit).
		n := len(b.src) / b.width
		return eachBlock(func(r0, nr int, blockIDs []int64) error {
			return p.ScoreSplit(b.src, n, r0, nr, first+int64(r0), blockIDs)
		})
	}
	buf := d.tileOf(8 * vector.StripePlane(blockRows+31))
	bb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), 4*len(buf))
	var planes []float32
	add := func(k0 int, _ []byte) error { return p.Add(k0/4, planes) }
	return eachBlock(func(r0, nr int, blockIDs []int64) error {
		p.Begin(nr)
		planes = buf[:8*vector.StripePlane(nr)]
		if err := pages.DecodeBSSStripes(bb[:8*pages.BSSStripePlane(nr)], b.src, b.width, r0, nr, add); err != nil {
			return err
		}
		return p.Finish(first+int64(r0), blockIDs)
	})
}

func (d *scanDecoder) close() {
	d.bufs.handOver()
	if d.tile != nil {
		scanTiles.Put(d.tile)
	}
}

// tileOf returns the tile buffer with room for n float32s.
func (d *scanDecoder) tileOf(n int) []float32 {
	if d.tile == nil {
		if t, ok := scanTiles.Get().(*[]float32); ok {
			d.tile = t
		} else {
			d.tile = new([]float32)
		}
	}
	if cap(*d.tile) < n {
		*d.tile = make([]float32, n)
	}
	return (*d.tile)[:n]
}

// page decodes and scores the page at ref, recording in st what the
// ordered pass needs.
func (d *scanDecoder) page(ref pageRef, st *scanPage) error {
	f := d.f
	dim := f.info.Dim
	p, err := f.decodePageWith(ref, dim, d.bufs)
	if err != nil {
		return err
	}
	defer d.bufs.release(&p)
	st.rows, st.headEntries, st.headNulls, st.tail, st.lastNull = p.rows, p.headEntries, p.headNulls, p.tail, p.lastNull
	if len(p.head) > 0 {
		st.head = slices.Clone(p.head)
	}
	if p.tail > 0 {
		st.tailVals = slices.Clone(p.vectors[len(p.vectors)-p.tail:])
	}
	if p.rows == 0 {
		return nil
	}
	// The offset index gives the first row; the ordered pass checks it
	// against the pages before (a wrong one fails the search).
	first := ref.firstRow
	vectors, ids := p.withoutTail(first)
	if p.bss == nil {
		if len(vectors) == 0 {
			return nil
		}
		return d.split(len(vectors)/dim, 1, func(worker int, _ *[]float32, from, to int) error {
			blk := vector.Block{FirstRow: first + int64(from), Vectors: vectors[from*dim : to*dim], Dim: dim}
			if ids != nil {
				blk.IDs = ids[from:to]
			}
			return d.sc.Score(worker, blk)
		})
	}
	return d.scoreTiles(p.bss, first, ids, ref.offset)
}

// scoreTiles decodes the deferred rows of a page tile by tile, scoring each
// tile as soon as it is decoded.
func (d *scanDecoder) scoreTiles(b *bssRows, first int64, ids []int64, offset int64) error {
	dim := d.f.info.Dim
	rows := b.rows()
	if ids != nil && len(ids) != rows {
		return fmt.Errorf("%s: page at byte %d: %d present rows for %d vectors", d.f.info.Path, offset, len(ids), rows)
	}
	if b.flba && b.width%pages.BSSStripeBytes == 0 {
		if p := d.stripeScorer(); p != nil {
			return d.scoreStripes(p, b, first, ids, offset)
		}
	}
	rowBytes := 4 * dim
	tileBytes := scanTileBytes
	if b.flba {
		tileBytes = scanWideTileBytes
	}
	// The assembly kernels take 32 values at least: a tile of fewer
	// goes to the Go ones, so the last tile takes the rest when less than
	// that would be left after it.
	minRows := 1
	if b.perRow == 1 {
		minRows = 32
	}
	tileRows := min(max(tileBytes/rowBytes, minRows), rows)
	return d.split(rows, minRows, func(worker int, tile *[]float32, from, to int) error {
		if cap(*tile) < (tileRows+minRows-1)*dim {
			*tile = make([]float32, (tileRows+minRows-1)*dim)
		}
		tb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(*tile))), 4*cap(*tile))
		for r0 := from; r0 < to; {
			nr := min(tileRows, to-r0)
			if to-(r0+nr) < minRows {
				nr = to - r0
			}
			if err := pages.DecodeBSSRows(tb[:nr*rowBytes], b.src, b.width, r0*b.perRow, nr*b.perRow); err != nil {
				return fmt.Errorf("%s: page at byte %d: %w", d.f.info.Path, offset, err)
			}
			blk := vector.Block{FirstRow: first + int64(r0), Vectors: (*tile)[:nr*dim], Dim: dim}
			if ids != nil {
				blk.IDs = ids[r0 : r0+nr]
			}
			if err := d.sc.Score(worker, blk); err != nil {
				return err
			}
			r0 += nr
		}
		return nil
	})
}

// split scores rows [0, rows) of a page with score, on this decoder's slot
// and on as many spare slots as it can take (each with a tile of its own),
// in parts of at least splitRows rows and minRows at the end. Without a
// spare slot it is one call on the decoder's own.
func (d *scanDecoder) split(rows, minRows int, score func(worker int, tile *[]float32, from, to int) error) error {
	d.tileOf(0) // the decoder's own tile, for its part
	var slots []int
	for len(slots)+1 < rows/splitRows {
		select {
		case w := <-d.spare:
			slots = append(slots, w)
			continue
		default:
		}
		break
	}
	if len(slots) == 0 {
		return score(d.worker, d.tile, 0, rows)
	}
	parts := len(slots) + 1
	if splitSeen != nil {
		splitSeen(parts)
	}
	bound := func(i int) int { return rows * i / parts }
	errs := make([]error, len(slots))
	var wg sync.WaitGroup
	for i, w := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tile, _ := scanTiles.Get().(*[]float32)
			if tile == nil {
				tile = new([]float32)
			}
			errs[i] = score(w, tile, bound(i+1), bound(i+2))
			scanTiles.Put(tile)
		}()
	}
	err := score(d.worker, d.tile, 0, bound(1))
	wg.Wait()
	for _, w := range slots {
		d.spare <- w
	}
	// The first error in row order, as the block stream meets it.
	if err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
