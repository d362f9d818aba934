package vectorcol

import "fmt"

// rowJoin carries a LIST row that a writer let cross page boundaries from
// one page to the next, taking the pages of one column chunk in order.
// Rows are counted on the page where they start, as Parquet counts them,
// so a cut row belongs to the page before the cut and is handed out whole
// once the pages after it have supplied the rest of its elements.
type rowJoin struct {
	dim  int
	open bool  // the last page's last row may go on
	row  int64 // that row
	null bool  // it is null: only null entries may continue it
	cut  bool  // it is present and short of dim elements
	vals []float32
}

// page takes the next page of the chunk, whose first row is first, and
// returns the row it completes (ok), if any: the row before first, whose
// elements are vals. where names the page for errors.
func (j *rowJoin) page(p *decodedPage, first int64, where string) (row int64, vals []float32, ok bool, err error) {
	if p.headEntries > 0 {
		switch {
		case !j.open:
			return 0, nil, false, fmt.Errorf("%s starts inside a row, and no row is open before it (the first page of a column chunk starts at a row)", where)
		case j.null:
			if len(p.head) > 0 {
				return 0, nil, false, fmt.Errorf("%s continues null row %d with %d values", where, j.row, len(p.head))
			}
		case !j.cut:
			return 0, nil, false, fmt.Errorf("%s continues row %d, which already has its %d elements", where, j.row, j.dim)
		case p.headNulls > 0:
			return 0, nil, false, fmt.Errorf("%s continues row %d with %d null-list entries", where, j.row, p.headNulls)
		default:
			j.vals = append(j.vals, p.head...)
			if len(j.vals) > j.dim {
				return 0, nil, false, fmt.Errorf("%s: row %d has more than %d elements once continued", where, j.row, j.dim)
			}
		}
	}
	if p.rows == 0 {
		return 0, nil, false, nil // the open row goes on past this page
	}
	row, vals, ok, err = j.close(where)
	if err != nil {
		return 0, nil, false, err
	}
	j.open, j.row, j.null, j.cut = true, first+int64(p.rows)-1, p.lastNull, p.tail > 0
	j.vals = nil
	if j.cut {
		j.vals = append(make([]float32, 0, j.dim), p.vectors[len(p.vectors)-p.tail:]...)
	}
	return row, vals, ok, nil
}

// close ends the open row, at a page that starts a new row or at the end of
// the chunk: a cut row must have its elements by then.
func (j *rowJoin) close(where string) (row int64, vals []float32, ok bool, err error) {
	if j.open && j.cut {
		if len(j.vals) != j.dim {
			return 0, nil, false, fmt.Errorf("%s: row %d has %d elements, the column dimension is %d (the row is cut at a page boundary and not continued)", where, j.row, len(j.vals), j.dim)
		}
		row, vals, ok = j.row, j.vals, true
	}
	*j = rowJoin{dim: j.dim}
	return row, vals, ok, nil
}

// withoutTail returns the page's present vectors and their row ids without
// a cut last row, which rowJoin hands out whole later. ids is nil when the
// rows are contiguous from first.
func (p *decodedPage) withoutTail(first int64) (vectors []float32, ids []int64) {
	vectors = p.vectors
	if p.tail > 0 {
		vectors = vectors[:len(vectors)-p.tail]
	}
	if p.present != nil {
		ids = make([]int64, 0, len(p.present))
		for i, ok := range p.present {
			if ok {
				ids = append(ids, first+int64(i))
			}
		}
		if p.tail > 0 {
			ids = ids[:len(ids)-1]
		}
	}
	return vectors, ids
}
