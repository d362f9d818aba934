package vectorcol

import (
	"fmt"
	"sort"

	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/parquet-go/parquet-go/format"
)

// Take returns the vectors of the given rows of the layout file at path, in
// the order asked (repeats allowed); a null vector is nil, a null element
// NaN. A row outside [0, rows) is an error naming it.
func Take(path string, rows []int64) ([][]float32, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Take(rows)
}

// Take is the function Take on an open file. It finds each row's page
// through the OffsetIndex and reads only the pages that hold the rows. For
// uncompressed PLAIN pages of fixed-width vectors (flba, flba-raw, and
// vector-repetition without null elements) it reads no more than the page
// header, the definition levels when the column is nullable, and the row's
// dim × width bytes, found by offset arithmetic. Elements other than
// float32 are converted to float32. Other pages are decoded whole,
// once for all the rows they hold.
func (f *File) Take(rows []int64) ([][]float32, error) {
	out := make([][]float32, len(rows))
	type want struct {
		row int64
		at  int // index in out
	}
	byPage := map[pageRef][]want{}
	var order []pageRef
	refsOf := map[int][]pageRef{}
	for at, row := range rows {
		if row < 0 || row >= f.info.Rows {
			return nil, fmt.Errorf("%s: row %d is outside the file's %d rows", f.info.Path, row, f.info.Rows)
		}
		ci := sort.Search(len(f.chunks), func(i int) bool { return f.chunks[i].firstRow+f.chunks[i].rows > row })
		refs, ok := refsOf[ci]
		if !ok {
			var err error
			if refs, err = f.rowRefs(ci); err != nil {
				return nil, err
			}
			refsOf[ci] = refs
		}
		pi := sort.Search(len(refs), func(i int) bool { return refs[i].firstRow > row }) - 1
		if pi < 0 {
			return nil, fmt.Errorf("%s: no page holds row %d", f.info.Path, row)
		}
		if _, seen := byPage[refs[pi]]; !seen {
			order = append(order, refs[pi])
		}
		byPage[refs[pi]] = append(byPage[refs[pi]], want{row: row, at: at})
	}
	for _, ref := range order {
		ws := byPage[ref]
		local := make([]int, len(ws))
		for i, w := range ws {
			local[i] = int(w.row - ref.firstRow)
		}
		vecs, err := f.takeFromPage(refsOf[ref.chunk], ref, local)
		if err != nil {
			return nil, err
		}
		for i, w := range ws {
			out[w.at] = vecs[i]
		}
	}
	return out, nil
}

// rowRefs returns a chunk's pages with their first rows: from the
// OffsetIndex, or (without one) by decoding every page once to count rows.
func (f *File) rowRefs(ci int) ([]pageRef, error) {
	refs, err := f.pageRefs(ci)
	if err != nil {
		return nil, err
	}
	row := f.chunks[ci].firstRow
	for i := range refs {
		if refs[i].firstRow >= 0 {
			continue
		}
		refs[i].firstRow = row
		p, err := f.decodePage(refs[i], f.info.Dim)
		if err != nil {
			return nil, err
		}
		row += int64(p.rows)
	}
	return refs, nil
}

// takeFromPage returns the vectors of the page-relative rows local. refs
// are the pages of ref's chunk, for a last row that continues on them.
func (f *File) takeFromPage(refs []pageRef, ref pageRef, local []int) ([][]float32, error) {
	info := &f.info
	fixed := info.Layout != LayoutList && !info.NullableElements
	c := &f.chunks[ref.chunk]
	if fixed && c.meta.Codec == format.Uncompressed {
		h, hlen, probe, err := f.readHeader(ref.offset, c.end)
		if err != nil {
			return nil, err
		}
		pl, err := f.parseHeader(h, hlen, c)
		if err != nil {
			return nil, fmt.Errorf("%s: page at byte %d: %w", info.Path, ref.offset, err)
		}
		// Only the rows' bytes are read, so a page CRC cannot be checked
		// on them: a page that has one is read whole and verified once,
		// and later takes on this File read its rows alone.
		if pl.encoding == format.Plain {
			switch _, seen := f.takeVerified.Load(ref.offset); {
			case h.CRC == 0 || f.skipCRC:
				f.unchecked.Add(1)
			case seen:
				f.checked.Add(1)
			default:
				body, err := f.pageBody(ref, h, hlen, probe, -1)
				if err != nil {
					return nil, fmt.Errorf("%s: page at byte %d: %w", info.Path, ref.offset, err)
				}
				if err := f.checkCRC(h, body); err != nil {
					return nil, fmt.Errorf("%s: page at byte %d: %w", info.Path, ref.offset, err)
				}
				f.takeVerified.Store(ref.offset, struct{}{})
			}
			return f.takeFixed(ref, pl, local)
		}
	}
	p, err := f.decodePage(ref, info.Dim)
	if err != nil {
		return nil, err
	}
	// Index of each row among the present rows.
	idx := make([]int, p.rows)
	k := 0
	for r := range p.rows {
		if p.present != nil && !p.present[r] {
			idx[r] = -1
			continue
		}
		idx[r] = k
		k++
	}
	var cut []float32 // the last row, when the page cuts it
	out := make([][]float32, len(local))
	for i, r := range local {
		if r >= p.rows {
			return nil, fmt.Errorf("%s: page at byte %d has %d rows, row %d of it was asked", info.Path, ref.offset, p.rows, r)
		}
		j := idx[r]
		switch {
		case j < 0:
		case r == p.rows-1 && p.tail > 0:
			if cut == nil {
				if cut, err = f.finishCutRow(refs, ref, &p); err != nil {
					return nil, err
				}
			}
			out[i] = append([]float32(nil), cut...)
		default:
			out[i] = append([]float32(nil), p.vectors[j*p.dim:(j+1)*p.dim]...)
		}
	}
	return out, nil
}

// finishCutRow completes the last row of page p (at ref), which the page
// cuts, from the pages after it in the chunk.
func (f *File) finishCutRow(refs []pageRef, ref pageRef, p *decodedPage) ([]float32, error) {
	j := rowJoin{dim: f.info.Dim, open: true, row: ref.firstRow + int64(p.rows) - 1, cut: true,
		vals: append(make([]float32, 0, f.info.Dim), p.vectors[len(p.vectors)-p.tail:]...)}
	where := func(r pageRef) string { return fmt.Sprintf("%s: page at byte %d", f.info.Path, r.offset) }
	at := sort.Search(len(refs), func(i int) bool { return refs[i].offset > ref.offset })
	for _, next := range refs[at:] {
		q, err := f.decodePage(next, f.info.Dim)
		if err != nil {
			return nil, err
		}
		_, vals, ok, err := j.page(&q, next.firstRow, where(next))
		if err != nil || ok {
			return vals, err
		}
	}
	_, vals, _, err := j.close(fmt.Sprintf("%s: row group %d", f.info.Path, ref.chunk))
	return vals, err
}

// takeFixed reads rows of an uncompressed PLAIN fixed-width page by offset
// arithmetic: value j of the page sits at values start + j × the bytes of
// one stored vector (dim × the stored element width).
func (f *File) takeFixed(ref pageRef, pl pageLayout, local []int) ([][]float32, error) {
	info := &f.info
	dim := info.Dim
	vecBytes := info.Element.VectorBytes(dim)
	decode := info.Element.DecodeAppend
	if info.Layout == LayoutVectorRepetition {
		vecBytes = dim * storedWidth(info.Element)
		decode = func(dst []float32, src []byte) ([]float32, error) { return decodeStored(info.Element, dst, src) }
	}
	body := ref.offset + int64(pl.hlen)
	slots := 1 // level slots per row
	if info.Layout == LayoutVectorRepetition {
		slots = dim
	}
	rowsInPage := pl.numValues / slots
	valuesAt := body
	var defs []byte
	if pl.v2 {
		d := pl.h.DataPageHeaderV2.V
		valuesAt += int64(d.RepetitionLevelsByteLength + d.DefinitionLevelsByteLength)
		if info.MaxDef > 0 {
			lv, err := f.bytesAt(int(d.DefinitionLevelsByteLength), body+int64(d.RepetitionLevelsByteLength))
			if err != nil {
				return nil, fmt.Errorf("%s: page at byte %d: definition levels: %w", info.Path, ref.offset, err)
			}
			if defs, err = pages.DecodeLevels(lv, info.MaxDef, pl.numValues, "definition"); err != nil {
				return nil, fmt.Errorf("%s: page at byte %d: %w", info.Path, ref.offset, err)
			}
		}
	} else if info.MaxDef > 0 {
		var lenScratch [4]byte
		lenb, err := f.bytesInto(lenScratch[:], 4, body)
		if err != nil {
			return nil, fmt.Errorf("%s: page at byte %d: %w", info.Path, ref.offset, err)
		}
		n := int64(lenb[0]) | int64(lenb[1])<<8 | int64(lenb[2])<<16 | int64(lenb[3])<<24
		if n > int64(pl.h.CompressedPageSize)-4 {
			return nil, fmt.Errorf("%s: page at byte %d: definition levels of %d bytes overrun the page", info.Path, ref.offset, n)
		}
		lv, err := f.bytesAt(int(n), body+4)
		if err != nil {
			return nil, fmt.Errorf("%s: page at byte %d: definition levels: %w", info.Path, ref.offset, err)
		}
		if defs, err = pages.DecodeLevels(lv, info.MaxDef, pl.numValues, "definition"); err != nil {
			return nil, fmt.Errorf("%s: page at byte %d: %w", info.Path, ref.offset, err)
		}
		valuesAt += 4 + n
	}
	out := make([][]float32, len(local))
	var scratch []byte // one row's bytes when the file is not mapped
	// present-before counts, computed once when there are levels
	var before []int
	if defs != nil {
		before = make([]int, rowsInPage+1)
		for r := range rowsInPage {
			before[r+1] = before[r]
			if defs[r*slots] != 0 {
				before[r+1]++
			}
		}
	}
	for i, r := range local {
		if r >= rowsInPage {
			return nil, fmt.Errorf("%s: page at byte %d has %d rows, row %d of it was asked", info.Path, ref.offset, rowsInPage, r)
		}
		j := r
		if defs != nil {
			if defs[r*slots] == 0 {
				continue // null vector
			}
			j = before[r]
		}
		off := valuesAt + int64(j)*int64(vecBytes)
		if off+int64(vecBytes) > body+int64(pl.h.CompressedPageSize) {
			return nil, fmt.Errorf("%s: page at byte %d: value %d lies past the page end", info.Path, ref.offset, j)
		}
		buf, err := f.bytesInto(scratch, vecBytes, off)
		if err != nil {
			return nil, fmt.Errorf("%s: row at byte %d: %w", info.Path, off, err)
		}
		if f.mapped == nil {
			scratch = buf
		}
		v, err := decode(make([]float32, 0, dim), buf)
		if err != nil {
			return nil, fmt.Errorf("%s: row at byte %d: %w", info.Path, off, err)
		}
		out[i] = v
	}
	return out, nil
}
