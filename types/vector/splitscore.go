package vector

import "fmt"

// SplitMinRows is the fewest rows ScoreSplit takes: its kernels read 32
// rows of every plane at a time.
const SplitMinRows = 32

// splitAhead is how many planes ahead ScoreSplit prefetches: 16
// elements' (one stripe's) bytes of the rows it scores. Without the
// prefetch the scan took a fifth longer; 8 to 256 planes ahead measured
// alike.
const splitAhead = 4 * StripeElems

// splitBlock is the rows of one block of the split kernels.
const splitBlock = 32

// ScoreSplit scores rows [first, first+count) of a byte-split matrix and
// pushes each to the worker's top k, as Begin, Add for every stripe and
// Finish would: ids[r] is row first+r's id when ids is not nil,
// firstRow + r otherwise. The matrix is 4·dim byte planes stride bytes
// apart in planes, plane 4e+b holding byte b (little-endian) of element e
// of every row, row r's at offset r: the layout of a BYTE_STREAM_SPLIT page
// of FIXED_LEN_BYTE_ARRAY vectors, scored where it lies. The kernels
// unpack each element's 4 planes into float32s in registers and fold them
// into the accumulators straight away, so no decoded value is ever stored;
// the scores are bit for bit SearchStream's, as Add's are. count must be at
// least SplitMinRows.
func (p *StripeScorer) ScoreSplit(planes []byte, stride, first, count int, firstRow int64, ids []int64) error {
	dim := p.s.dim
	switch {
	case count < SplitMinRows:
		return fmt.Errorf("vector: %d rows to score by byte planes, want at least %d", count, SplitMinRows)
	case first < 0 || stride < first+count:
		return fmt.Errorf("vector: rows [%d, %d) lie outside byte planes of %d rows", first, first+count, stride)
	case len(planes) < (4*dim-1)*stride+first+count:
		return fmt.Errorf("vector: %d bytes for %d byte planes of %d rows", len(planes), 4*dim, stride)
	case ids != nil && len(ids) != count:
		return fmt.Errorf("vector: %d ids for %d rows", len(ids), count)
	}
	// Blocks of 32 rows; when count is not a multiple of 32 a last block
	// is shifted back to end at the last row, and its rows that the block
	// before it scored are skipped in the fold.
	full := count / splitBlock
	blocks := (count + splitBlock - 1) / splitBlock
	blockFloats := p.quad * splitBlock / 4
	n := blocks * blockFloats
	if cap(p.acc) < n {
		p.acc = make([]float32, n)
	}
	p.acc = p.acc[:n]
	clear(p.acc)
	q := p.s.q
	metric := p.s.metric
	more := first+count < stride // rows of the page follow this call's
	for e := 0; e < dim; e += StripeElems {
		// The stripe's lanes in the 32-wide kernels: element e goes to
		// lane e mod 32 (8 floats a register, 4 registers a lane).
		acc := p.acc[(e%32)*32:]
		src := planes[4*e*stride+first:]
		// Prefetch the next stripe's planes, the same rows; in the last
		// stripe, the next rows' first planes (when the page has more).
		pf := splitAhead * stride
		if e+StripeElems >= dim {
			pf = 0
			if more {
				pf = (splitAhead-4*dim)*stride + count
			}
		}
		splitAdd(metric, acc, src, q[e:e+StripeElems], stride, StripeElems/2, full, pf)
		if full < blocks {
			splitAdd(metric, acc[full*blockFloats:], src[count-splitBlock:], q[e:e+StripeElems], stride, StripeElems/2, 1, pf)
		}
	}
	p.foldSplit(count, full, blocks, blockFloats, firstRow, ids)
	return nil
}

// foldSplit folds each row's accumulators (splitFoldBlocks: foldLanes's
// sums, in its order) and pushes the row; the rows of a shifted last block
// that the block before it scored are skipped.
func (p *StripeScorer) foldSplit(count, full, blocks, blockFloats int, firstRow int64, ids []int64) {
	n := blocks * splitBlock
	if cap(p.sums) < 2*n {
		p.sums = make([]float32, 2*n)
	}
	sums, norms := p.sums[:n], p.sums[n:2*n]
	splitFoldBlocks(p.acc, sums, blocks, blockFloats)
	cosine := p.s.metric == MetricCosine
	if cosine {
		// bb's accumulators follow ab's in each block.
		splitFoldBlocks(p.acc[blockFloats/2:], norms, blocks, blockFloats)
	}
	top, qq := p.s.tops[0], p.s.qq[0]
	for r := range count {
		i := r
		if r >= full*splitBlock {
			i = full*splitBlock + r - (count - splitBlock)
		}
		sc := sums[i]
		if cosine {
			sc = cosineFrom(sc, qq, norms[i])
		}
		id := firstRow + int64(r)
		if ids != nil {
			id = ids[r]
		}
		top.Push(id, sc)
	}
}
