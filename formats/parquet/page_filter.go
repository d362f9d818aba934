package parquet

import (
	"fmt"
	"io"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
)

// Page-level pruning: inside a row group the filter survived, the page
// index (ColumnIndex and OffsetIndex, parquet-format PageIndex.md) of the
// columns the filter reads says which rows each page's statistics cover,
// and the reader reads only the row ranges whose pages might match. The
// row-group evaluation is reused as it is: a row range that lies inside
// one page of every filter column is judged on a row group made of those
// pages' statistics (pageStatsGroup), so a variant path is pruned by its
// typed_value pages only where the residual proofs of pathStops hold for
// the same rows.
//
// A page index is trusted only where the page headers confirm it. Every
// page location of a column read or filtered must be where the header
// chain puts the page, and its first row must be the sum of the rows the
// headers before it declare: a non-repeated column's data page v1 holds
// one value a row, a v2 page states its rows. A column whose rows a v1
// header cannot tell (a repeated column: V1 rows may span pages) leaves
// the row group unpruned. A wrong index would otherwise skip rows of
// one column and not another, and give rows whose values belong to
// different rows.

// rowRange is the rows [start, end) of a row group.
type rowRange struct{ start, end int64 }

// maxPageIndexBytes bounds one column's ColumnIndex or OffsetIndex.
const maxPageIndexBytes = 16 << 20

// chunkPages is a column chunk's header chain, checked against its
// offset index: the data pages in order, the row each starts at, and the
// dictionary page when there is one.
type chunkPages struct {
	dict      *pages.PageAt
	data      []pages.PageAt
	firstRows []int64 // of each data page, then the chunk's row count
}

// pageOf is the data page holding row.
func (c *chunkPages) pageOf(row int64) int {
	i, _ := slices.BinarySearch(c.firstRows, row+1)
	return i - 1
}

// verifiedPages walks the chunk's page headers and checks its offset index
// against them. ok is false when the chunk has no offset index, the index
// is malformed or disagrees with the headers, or the headers cannot tell a
// page's rows: the row group is then read without page pruning. An error
// is a page header that cannot be read, which a full read would also meet.
func verifiedPages(src io.ReaderAt, size int64, cc *format.ColumnChunk, maxRep int, numRows int64) (*chunkPages, bool, error) {
	if cc.OffsetIndexOffset <= 0 || cc.OffsetIndexLength <= 0 || cc.OffsetIndexLength > maxPageIndexBytes || cc.OffsetIndexOffset+int64(cc.OffsetIndexLength) > size {
		return nil, false, nil
	}
	var oi format.OffsetIndex
	if _, err := pages.ReadStruct(src, cc.OffsetIndexOffset, cc.OffsetIndexOffset+int64(cc.OffsetIndexLength), &oi); err != nil {
		return nil, false, nil
	}
	md := &cc.MetaData
	start, end := pages.ChunkBounds(md)
	if start < 0 || end > size || len(oi.PageLocations) == 0 {
		return nil, false, nil
	}
	out := &chunkPages{}
	var rows int64
	for pos := start; pos < end; {
		p, err := pages.ReadPageAt(src, md, pos, end)
		if err != nil {
			return nil, false, err
		}
		pos = p.End()
		h := p.Header
		if h.DictionaryPageHeader.Valid {
			if out.dict != nil || len(out.data) > 0 {
				return nil, false, nil // parquet-go reads one dictionary, first
			}
			out.dict = &p
			continue
		}
		var n int64
		switch {
		case h.DataPageHeaderV2.Valid:
			n = int64(h.DataPageHeaderV2.V.NumRows)
		case h.DataPageHeader.Valid && maxRep == 0:
			n = int64(h.DataPageHeader.V.NumValues)
		default:
			return nil, false, nil
		}
		i := len(out.data)
		if i >= len(oi.PageLocations) {
			return nil, false, nil
		}
		loc := oi.PageLocations[i]
		if loc.Offset != p.Offset || int64(loc.CompressedPageSize) != p.HeaderLen+int64(h.CompressedPageSize) || loc.FirstRowIndex != rows || n < 0 {
			return nil, false, nil
		}
		out.data = append(out.data, p)
		out.firstRows = append(out.firstRows, rows)
		rows += n
	}
	if len(out.data) != len(oi.PageLocations) || rows != numRows {
		return nil, false, nil
	}
	out.firstRows = append(out.firstRows, rows)
	return out, true, nil
}

// pageStats is one filter column's page index, checked: a page each of
// null flag, bounds and null count, and its definition-level histogram
// when the writer kept one.
type pageStats struct {
	pages *chunkPages
	index format.ColumnIndex
	hist  int // levels per page in index.DefinitionLevelHistogram; 0: none
}

// pagesOf gives a column's verified pages in the row group at hand
// (verifiedPages), each walked once.
type pagesOf func(col, maxRep int) (*chunkPages, bool, error)

// loadPageStats reads column col's ColumnIndex for the row group rg and
// checks it against its verified pages. maxDef is the column's maximum
// definition level, or -1 when its histogram is not needed.
func loadPageStats(src io.ReaderAt, size int64, rg *format.RowGroup, col, maxDef int, verified pagesOf) (*pageStats, bool, error) {
	if col >= len(rg.Columns) {
		return nil, false, nil
	}
	cc := &rg.Columns[col]
	cp, ok, err := verified(col, 0)
	if err != nil || !ok {
		return nil, false, err
	}
	if cc.ColumnIndexOffset <= 0 || cc.ColumnIndexLength <= 0 || cc.ColumnIndexLength > maxPageIndexBytes || cc.ColumnIndexOffset+int64(cc.ColumnIndexLength) > size {
		return nil, false, nil
	}
	ps := &pageStats{pages: cp}
	if _, err := pages.ReadStruct(src, cc.ColumnIndexOffset, cc.ColumnIndexOffset+int64(cc.ColumnIndexLength), &ps.index); err != nil {
		return nil, false, nil
	}
	ci, n := &ps.index, len(cp.data)
	// Null counts are optional in the index; without them a page's bounds
	// would seem to say it has no nulls.
	if len(ci.NullPages) != n || len(ci.MinValues) != n || len(ci.MaxValues) != n || len(ci.NullCounts) != n {
		return nil, false, nil
	}
	for i := range n {
		rows := cp.firstRows[i+1] - cp.firstRows[i]
		if nc := ci.NullCounts[i]; nc < 0 || nc > rows || (ci.NullPages[i] && nc != rows) {
			return nil, false, nil
		}
	}
	if maxDef >= 0 && len(ci.DefinitionLevelHistogram) == n*(maxDef+1) {
		ps.hist = maxDef + 1
	}
	return ps, true, nil
}

// pageColumn is a column the filter reads statistics of, with the maximum
// definition level of its histogram (-1: not read).
type pageColumn struct {
	col, maxDef int
}

// keptRanges are the row ranges of row group rg that the page index of
// the filter's columns cannot rule out, or nil when every row is kept or
// the index cannot be used.
func (f *rowGroupFilter) keptRanges(src io.ReaderAt, size int64, rg *format.RowGroup, verified pagesOf) ([]rowRange, error) {
	if len(f.touched) == 0 || rg.NumRows <= 0 {
		return nil, nil
	}
	stats := make(map[int]*pageStats, len(f.touched))
	var bounds []int64
	for _, c := range slices.SortedFunc(func(yield func(pageColumn) bool) {
		for col, def := range f.touched {
			if !yield(pageColumn{col, def}) {
				return
			}
		}
	}, func(a, b pageColumn) int { return a.col - b.col }) {
		ps, ok, err := loadPageStats(src, size, rg, c.col, c.maxDef, verified)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
		stats[c.col] = ps
		bounds = append(bounds, ps.pages.firstRows...)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	group := *rg
	group.Columns = slices.Clone(rg.Columns)
	var kept []rowRange
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := bounds[i], bounds[i+1]
		for col, ps := range stats {
			pageStatsGroup(&group.Columns[col].MetaData, ps, ps.pages.pageOf(lo))
		}
		group.NumRows = hi - lo
		ev := &statsEvaluator{f: f, rg: &group}
		might, err := iceberg.VisitExpr(f.expr, iceberg.BooleanExprVisitor[bool](ev))
		if err != nil {
			return nil, fmt.Errorf("read %s: evaluate filter on page statistics: %w", f.location, err)
		}
		if !might {
			continue
		}
		if n := len(kept); n > 0 && kept[n-1].end == lo {
			kept[n-1].end = hi
		} else {
			kept = append(kept, rowRange{lo, hi})
		}
	}
	if len(kept) == 1 && kept[0] == (rowRange{0, rg.NumRows}) {
		return nil, nil
	}
	if kept == nil {
		kept = []rowRange{} // no row might match
	}
	return kept, nil
}

// pageStatsGroup makes md describe page i of ps alone, as the row-group
// evaluation reads a chunk: its values (a row each: the column is not
// repeated), null count, bounds and definition-level histogram.
func pageStatsGroup(md *format.ColumnMetaData, ps *pageStats, i int) {
	ci := &ps.index
	md.NumValues = ps.pages.firstRows[i+1] - ps.pages.firstRows[i]
	md.Statistics = format.Statistics{NullCount: ci.NullCounts[i]}
	if !ci.NullPages[i] {
		md.Statistics.MinValue, md.Statistics.MaxValue = ci.MinValues[i], ci.MaxValues[i]
	}
	md.SizeStatistics = format.SizeStatistics{}
	if ps.hist > 0 {
		md.SizeStatistics.DefinitionLevelHistogram = ci.DefinitionLevelHistogram[i*ps.hist : (i+1)*ps.hist]
	}
}
