package parquet

import (
	"fmt"
	"io"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
)

// rangePages serves the pages of one column chunk cut to the row ranges a
// reader keeps (keptRanges): it seeks to each range's first row through
// the chunk's offset index, which parquet-go follows, so the pages between
// ranges are never read. Every column of a read is served the same ranges,
// so a row is the same row in every column.
type rangePages struct {
	pages  pq.Pages
	chunk  *chunkPages // verified against the offset index parquet-go seeks by
	ranges []rowRange
	path   string
	ri     int
	next   int64   // the row the next page parquet-go returns starts at
	pend   pq.Page // the page being served, from row pendAt
	pendAt int64
}

func (p *rangePages) ReadPage() (pq.Page, error) {
	for p.ri < len(p.ranges) {
		r := p.ranges[p.ri]
		if p.pend == nil {
			if p.next < r.start {
				if err := p.pages.SeekToRow(r.start); err != nil {
					return nil, fmt.Errorf("seek to row %d: %w", r.start, err)
				}
				p.next = r.start
			}
			page, err := p.pages.ReadPage()
			if err != nil {
				return nil, err
			}
			// The page must be the rest of the page the index puts
			// next, starting a row: otherwise this column's rows are not
			// the other columns'.
			k := p.chunk.pageOf(p.next)
			if want := p.chunk.firstRows[k+1] - p.next; page.NumRows() != want {
				return nil, fmt.Errorf("page %d from row %d: %d rows, the offset index says %d", k, p.next, page.NumRows(), want)
			}
			if rl := page.RepetitionLevels(); len(rl) > 0 && rl[0] != 0 {
				return nil, fmt.Errorf("page %d from row %d does not start a row", k, p.next)
			}
			p.pend, p.pendAt = page, p.next
			p.next += page.NumRows()
		}
		end := p.pendAt + p.pend.NumRows()
		if end <= r.start {
			p.pend = nil
			continue
		}
		lo, hi := max(r.start, p.pendAt), min(r.end, end)
		out := p.pend.Slice(lo-p.pendAt, hi-p.pendAt)
		if hi == end {
			p.pend = nil
		}
		if hi == r.end {
			p.ri++
		}
		return out, nil
	}
	return nil, io.EOF
}

func (p *rangePages) SeekToRow(int64) error {
	return fmt.Errorf("column %q: a page-pruned chunk is read once, forward", p.path)
}

func (p *rangePages) Close() error {
	p.pend = nil
	return p.pages.Close()
}

// checkRangePages checks, before parquet-go reads them, the pages of a
// chunk that rangePages will read: its dictionary page and the data pages
// the ranges overlap. pages.CheckChunk checks the same of every page.
func checkRangePages(src io.ReaderAt, md *format.ColumnMetaData, cp *chunkPages, ranges []rowRange, maxRep, maxDef int) error {
	var scratch []byte
	if cp.dict != nil {
		if err := pages.CheckPage(src, md, *cp.dict, maxRep, maxDef, &scratch); err != nil {
			return err
		}
	}
	last := -1
	for _, r := range ranges {
		for k := max(cp.pageOf(r.start), last+1); k <= cp.pageOf(r.end-1); k++ {
			if err := pages.CheckPage(src, md, cp.data[k], maxRep, maxDef, &scratch); err != nil {
				return err
			}
			last = k
		}
	}
	return nil
}

// rowsIn counts the rows of ranges.
func rowsIn(ranges []rowRange) int64 {
	var n int64
	for _, r := range ranges {
		n += r.end - r.start
	}
	return n
}
