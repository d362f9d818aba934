package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

const defaultRecordsPerBatch = 1024

// recordReader reads *data.Record rows of the projection from the row
// groups a split and a filter leave.
type recordReader struct {
	file       *openedFile
	location   string
	projection *iceberg.Schema
	root       *rnode
	cursors    []*cursor // one per file column read, in column order
	groups     []int     // row groups to read
	group      int       // index into groups of the current row group
	left       int64     // rows left in the current row group
	reuse      bool
	last       *data.Record
	// variantPolicy is the read.variant.invalid property; invalid holds
	// the values it read as null, row the number of the current row.
	variantPolicy variant.Policy
	invalid       []InvalidValue
	row           int64
	// filterWarnings say which predicates were not pushed down and why
	// (FilterWarnings).
	filterWarnings []string
	// filter prunes row groups (selectRowGroups) and, inside them, the
	// row ranges whose pages cannot match (keptRanges); ranges are the
	// current group's kept rows (nil: all), ri the one being read.
	filter *rowGroupFilter
	ranges []rowRange
	ri     int
	// pos is the current row's position in the file (_pos); firstRows the
	// position of each row group's first row.
	pos       int64
	firstRows []int64
	done      bool
	closed    bool
	err       error
	// ahead is the check of the next row group's chunks, running while
	// this one is read (check_ahead.go); nil when none is.
	ahead *checkAhead
	// settableOnly is set when every projected field is a primitive read
	// through its typed setter (readFields' fast case); see Next.
	settableOnly bool
}

func newRecordReader(in registry.InputFile, opts registry.ReadOptions) (r *recordReader, err error) {
	f, err := openParquet(in)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	r = &recordReader{file: f, location: in.Location, reuse: opts.ReuseContainers, group: -1}
	err = guard(in.Location, "plan read of", func() error { return r.plan(opts) })
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (r *recordReader) plan(opts registry.ReadOptions) error {
	loc := r.location
	tree, root, fileSch, err := r.file.view(opts)
	if err != nil {
		return fmt.Errorf("read %s: %w", loc, err)
	}
	if r.variantPolicy, err = variant.ParsePolicy(opts.Properties[variant.ReadPolicyKey]); err != nil {
		return fmt.Errorf("read %s: %w", loc, err)
	}
	r.projection = opts.Projection
	if r.projection == nil {
		r.projection = fileSch
	}
	batch := opts.RecordsPerBatch
	if batch <= 0 {
		batch = defaultRecordsPerBatch
	}
	paths, err := parseVariantPaths(opts.Properties[VariantPathsKey])
	if err != nil {
		return fmt.Errorf("read %s: %w", loc, err)
	}
	p := &readPlanner{location: loc, constants: opts.IDToConstant, cursors: map[int]*cursor{}, batch: batch,
		bound: r.file.boundGroups(tree), tree: tree, pqRoot: r.file.file.Schema(), paths: paths, meta: r.file.meta}
	st := r.projection.AsStruct()
	if r.root, err = p.structNode(&st, root, ""); err != nil {
		return err
	}
	r.settableOnly = settable(r.root)
	for _, col := range slices.Sorted(maps.Keys(p.cursors)) {
		r.cursors = append(r.cursors, p.cursors[col])
	}
	shareBuffers(r.cursors)
	if r.groups, err = r.selectRowGroups(opts, fileSch, root); err != nil {
		return err
	}
	return nil
}

// view is the file's schema as a read with opts sees it: the parsed tree,
// its view with field ids (the file's own, the name mapping's, or derived
// from the names as Iceberg reads an imported file), and the Iceberg schema
// of what can be read (pruned of what cannot when opts projects).
func (o *openedFile) view(opts registry.ReadOptions) (*fnode, *fview, *iceberg.Schema, error) {
	tree, err := parseFileSchema(o.meta.Schema, o.fieldIDs)
	if err != nil {
		return nil, nil, nil, err
	}
	setVectorLengths(tree, o.vectorLengths)
	root := viewOf(tree, false)
	markVectorLists(root, o.annotations)
	mode := strictSchema
	switch {
	case hasFieldIDs(root.node):
		// Ids in the file win over any mapping, as in Iceberg.
		fillElementIDs(root)
	case opts.NameMapping != nil:
		applyNameMapping(root, opts.NameMapping)
		mode = pruneUnmapped
	default:
		deriveFieldIDs(root)
	}
	if opts.Projection != nil {
		mode = pruneUnreadable
	}
	fileSch, err := fileSchema(root, mode)
	return tree, root, fileSch, err
}

// selectRowGroups keeps the row groups whose start lies in the split and
// whose statistics do not rule out the filter.
func (r *recordReader) selectRowGroups(opts registry.ReadOptions, fileSch *iceberg.Schema, root *fview) ([]int, error) {
	var filter *rowGroupFilter
	if opts.Filter != nil {
		var err error
		if filter, err = newRowGroupFilter(r.location, opts.Filter, r.projection, fileSch, opts.CaseSensitive, root, r.file.meta, opts.IDToConstant); err != nil {
			return nil, err
		}
		defer func() { r.filterWarnings = filter.warnings }()
		r.filter = filter
	}
	var out []int
	r.firstRows = make([]int64, len(r.file.meta.RowGroups))
	var first int64
	for i := range r.file.meta.RowGroups {
		rg := &r.file.meta.RowGroups[i]
		r.firstRows[i] = first
		first += rg.NumRows
		if opts.Split != nil {
			start, ok := rowGroupStart(rg)
			if !ok || start < opts.Split.Start || start >= opts.Split.Start+opts.Split.Length {
				continue
			}
		}
		if rg.NumRows == 0 {
			continue
		}
		if filter != nil {
			might, err := filter.mightMatch(rg)
			if err != nil {
				return nil, err
			}
			if !might {
				continue
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// Next returns the next record, or io.EOF after the last.
func (r *recordReader) Next() (rec *data.Record, err error) {
	switch {
	case r.closed:
		return nil, fmt.Errorf("read %s: reader is closed", r.location)
	case r.err != nil:
		return nil, r.err
	case r.done:
		return nil, io.EOF
	}
	if r.settableOnly {
		// Every field is a primitive stored through its typed setter: a
		// row is this reader's index arithmetic over the cursors' buffers,
		// and what could panic on a hostile file (parquet-go decoding pages,
		// the row-group step) recovers on its own (cursor.fill, next's
		// nextGroup). The deferred recover cost a tenth of a one-column
		// read, in a throwaway A/B of a shredded path's projection.
		rec, err = r.next()
		if err != nil && !errors.Is(err, io.EOF) {
			r.err = err
		}
		return rec, err
	}
	// recover is asked only on the way out of a panic: asked on every
	// row, it cost a tenth of a one-column read.
	returned := false
	defer func() {
		if !returned {
			if p := recover(); p != nil {
				err = fmt.Errorf("read %s: parquet: %v", r.location, p)
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			r.err = err
		}
	}()
	rec, err = r.next()
	returned = true
	return rec, err
}

// next is Next past its checks.
func (r *recordReader) next() (rec *data.Record, err error) {
	for r.left == 0 {
		if err := guard(r.location, "read", r.nextGroup); err != nil {
			return nil, err
		}
	}
	if r.reuse && r.last != nil {
		rec = r.last
	} else {
		rec = data.NewStructRecord(r.root.st)
	}
	if err := r.readFields(r.root, rec); err != nil {
		return nil, err
	}
	r.left--
	r.row++
	r.pos++
	if r.ranges != nil && r.left > 0 && r.pos == r.firstRows[r.groups[r.group]]+r.ranges[r.ri].end {
		r.ri++
		r.pos = r.firstRows[r.groups[r.group]] + r.ranges[r.ri].start
	}
	if r.reuse && r.last != rec {
		r.last = rec // only on change: a pointer store per row costs a write barrier
	}
	return rec, nil
}

// nextGroup moves every cursor to the next selected row group, after
// checking that the current one was consumed exactly.
func (r *recordReader) nextGroup() error {
	if r.group >= 0 {
		for _, c := range r.cursors {
			if _, ok, err := c.peek(); err != nil {
				return r.columnError(c, err)
			} else if ok {
				return fmt.Errorf("read %s: column %q has more values than row group %d has rows", r.location, c.path, r.groups[r.group])
			}
		}
	}
	for {
		r.group++
		if r.group >= len(r.groups) {
			r.done = true
			return io.EOF
		}
		skip, err := r.startGroup(r.groups[r.group])
		if err != nil || !skip {
			return err
		}
	}
}

// startGroup moves every cursor to row group idx, the kept row ranges of
// its pages when the filter prunes some. skip says no row can match.
func (r *recordReader) startGroup(idx int) (skip bool, err error) {
	rg := &r.file.meta.RowGroups[idx]
	chunks := r.file.file.RowGroups()[idx].ColumnChunks()
	for _, c := range r.cursors {
		if c.col >= len(chunks) || c.col >= len(rg.Columns) {
			return false, fmt.Errorf("read %s: row group %d has no chunk for column %q", r.location, idx, c.path)
		}
		md := &rg.Columns[c.col].MetaData
		if rows := rg.NumRows; c.vectorSlots > 0 && md.NumValues != rows*c.vectorSlots {
			return false, fmt.Errorf("read %s: column %q in row group %d: %d values for %d rows of vector_length %d: the VECTOR repetition disagrees with the data, which is not PR #592's layout", r.location, c.path, idx, md.NumValues, rows, c.vectorSlots)
		}
	}
	ranges, chunkPages, err := r.pageRanges(rg, idx)
	if err != nil {
		return false, err
	}
	if ranges != nil && len(ranges) == 0 {
		return true, nil
	}
	if ranges == nil {
		if err := r.checkedChunks(idx); err != nil {
			return false, err
		}
	}
	for i, c := range r.cursors {
		md := &rg.Columns[c.col].MetaData
		if ranges == nil {
			c.reset(r.file.src, md, chunks[c.col])
			continue
		}
		if err := checkRangePages(r.file.src, md, chunkPages[i], ranges, c.leaf.rep, c.leaf.def); err != nil {
			return false, fmt.Errorf("read %s: column %q in row group %d: %w", r.location, c.path, idx, err)
		}
		fc, ok := chunks[c.col].(*pq.FileColumnChunk)
		if !ok {
			return false, fmt.Errorf("read %s: column %q in row group %d: not a file column chunk", r.location, c.path, idx)
		}
		// Loaded, the offset index is what parquet-go seeks by; its bytes
		// are the ones verifiedPages decoded and checked.
		if _, err := fc.OffsetIndex(); err != nil {
			return false, fmt.Errorf("read %s: column %q in row group %d: offset index: %w", r.location, c.path, idx, err)
		}
		c.resetRanges(&rangePages{pages: fc.Pages(), chunk: chunkPages[i], ranges: ranges, path: c.path})
	}
	r.ranges, r.ri = ranges, 0
	r.left = rg.NumRows
	r.pos = r.firstRows[idx]
	if ranges != nil {
		r.left = rowsIn(ranges)
		r.pos += ranges[0].start
	}
	return false, nil
}

// checkChunks runs pages.CheckChunk on the chunks of row group idx that
// the cursors read, on every core: the check inflates each page as far as
// its levels reach, and for a shredded variant's thirty-odd small chunks
// that was a tenth of a full read on the reading goroutine alone. Of the
// chunks that fail, the first in cursor order names the error.
func (r *recordReader) checkChunks(rg *format.RowGroup, idx int) error {
	weights := make([]int64, len(r.cursors))
	var total int64
	for i, c := range r.cursors {
		weights[i] = rg.Columns[c.col].MetaData.TotalCompressedSize
		total += max(weights[i], 0)
	}
	name := func(i int) string { return strconv.Quote(r.cursors[i].path) }
	return forEachColumn(len(r.cursors), columnWorkers(len(r.cursors), total), func() []int { return heaviestFirst(weights) }, name, func(i int) error {
		c := r.cursors[i]
		if err := pages.CheckChunk(r.file.src, &rg.Columns[c.col].MetaData, c.leaf.rep, c.leaf.def); err != nil {
			return fmt.Errorf("read %s: column %q in row group %d: %w", r.location, c.path, idx, err)
		}
		return nil
	})
}

// pageRanges are the row ranges of row group idx the filter keeps by its
// pages' statistics, with each cursor's verified pages; nil when the whole
// group is read: no filter, nothing pruned, or a column whose pages
// cannot be sought safely (verifiedPages), which the lab's own decoders
// (VECTOR repetition, int32Chunk) do not read by pages.
func (r *recordReader) pageRanges(rg *format.RowGroup, idx int) ([]rowRange, []*chunkPages, error) {
	if r.filter == nil || len(r.filter.touched) == 0 {
		return nil, nil, nil
	}
	// Chunks the lab decodes itself are not read by pages.
	for _, c := range r.cursors {
		if c.vectorSlots > 0 || usesOwnInt32Decoder(&rg.Columns[c.col].MetaData) {
			return nil, nil, nil
		}
	}
	walked := map[int]*chunkPages{}
	verified := func(col, maxRep int) (*chunkPages, bool, error) {
		if cp, ok := walked[col]; ok {
			return cp, true, nil
		}
		cp, ok, err := verifiedPages(r.file.src, r.file.size, &rg.Columns[col], maxRep, rg.NumRows)
		if err != nil {
			return nil, false, fmt.Errorf("read %s: column %d in row group %d: %w", r.location, col, idx, err)
		}
		if ok {
			walked[col] = cp
		}
		return cp, ok, nil
	}
	// The filter's columns first: when their pages prune nothing, the
	// columns read are not walked at all.
	ranges, err := r.filter.keptRanges(r.file.src, r.file.size, rg, verified)
	if err != nil || len(ranges) == 0 {
		return ranges, nil, err
	}
	out := make([]*chunkPages, len(r.cursors))
	for _, repeated := range []bool{true, false} { // the likelier misfits first
		for i, c := range r.cursors {
			if (c.leaf.rep > 0) != repeated {
				continue
			}
			cp, ok, err := verified(c.col, c.leaf.rep)
			if err != nil || !ok {
				return nil, nil, err
			}
			out[i] = cp
		}
	}
	return ranges, out, nil
}

func (r *recordReader) columnError(c *cursor, err error) error {
	if errors.Is(err, io.EOF) {
		err = errors.New("values end before the row group's rows do")
	}
	return fmt.Errorf("read %s: column %q: %w", r.location, c.path, err)
}

// settable reports whether every field of the struct node n is a
// primitive read through its typed setter: readFields' fast case, and a
// row that needs no recover of its own (Next).
func settable(n *rnode) bool {
	return !slices.ContainsFunc(n.children, func(c *rnode) bool { return c.set == nil || c.discard })
}

func (r *recordReader) readFields(n *rnode, rec *data.Record) error {
	for i, c := range n.children {
		if c.set != nil && !c.discard && i < rec.Len() {
			if err := r.setPrimitive(c, rec, i); err != nil {
				return err
			}
			continue
		}
		v, err := r.read(c)
		if err != nil {
			return err
		}
		if i < rec.Len() {
			rec.Set(i, v)
		}
	}
	return nil
}

// setPrimitive reads the next value of the primitive field n into
// position pos of rec, unboxed (readSetter), reading it where it lies in
// the cursor's buffer instead of copying it out as next does.
func (r *recordReader) setPrimitive(n *rnode, rec *data.Record, pos int) error {
	v, err := n.col.nextInPlace()
	if err != nil {
		return r.columnError(n.col, err)
	}
	if v.DefinitionLevel() < n.def {
		rec.Set(pos, nil)
		return nil
	}
	if err := n.set(rec, pos, v); err != nil {
		return fmt.Errorf("read %s: column %q: %w", r.location, n.col.path, err)
	}
	return nil
}

// read assembles one value of n from its columns' levels. It is only
// called when n's parent is present.
func (r *recordReader) read(n *rnode) (any, error) {
	switch n.kind {
	case rConst:
		if b, ok := n.value.([]byte); ok {
			return bytes.Clone(b), nil
		}
		return n.value, nil
	case rVariant:
		return r.readVariant(n)
	case rVariantPath:
		return r.readVariantPath(n)
	case rPos:
		return r.pos, nil
	case rVector:
		return r.readVector(n)
	case rPrim:
		v, err := n.col.next()
		if err != nil {
			return nil, r.columnError(n.col, err)
		}
		if v.DefinitionLevel() < n.def || n.discard {
			return nil, nil
		}
		out, err := n.conv(v)
		if err != nil {
			return nil, fmt.Errorf("read %s: column %q: %w", r.location, n.col.path, err)
		}
		return out, nil
	}
	lv, ok, err := n.level.peek()
	if err != nil {
		return nil, r.columnError(n.level, err)
	}
	if !ok {
		return nil, r.columnError(n.level, io.EOF)
	}
	if def := lv.DefinitionLevel(); def < n.def || (n.kind != rStruct && def < n.repDef) {
		// A null, or an empty list or map: one value in every column below.
		for _, c := range n.cursors {
			if _, err := c.next(); err != nil {
				return nil, r.columnError(c, err)
			}
			if n.kind != rStruct {
				if err := r.skipNullContinuations(n, c); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case def < n.def || n.discard:
			return nil, nil
		case n.kind == rList:
			return []any{}, nil
		default:
			return data.Map{}, nil
		}
	}
	switch n.kind {
	case rStruct:
		if n.discard {
			for _, c := range n.children {
				if _, err := r.read(c); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
		rec := data.NewStructRecord(n.st)
		return rec, r.readFields(n, rec)
	case rList:
		var items []any
		for {
			v, err := r.read(n.children[0])
			if err != nil {
				return nil, err
			}
			if !n.discard {
				items = append(items, v)
			}
			if more, err := r.continues(n); err != nil || !more {
				if n.discard {
					return nil, err
				}
				return items, err
			}
		}
	default: // rMap
		var entries data.Map
		for {
			k, err := r.read(n.children[0])
			if err != nil {
				return nil, err
			}
			v, err := r.read(n.children[1])
			if err != nil {
				return nil, err
			}
			if !n.discard {
				entries = append(entries, data.MapEntry{Key: k, Value: v})
			}
			if more, err := r.continues(n); err != nil || !more {
				if n.discard {
					return nil, err
				}
				return entries, err
			}
		}
	}
}

// skipNullContinuations consumes the values a null or empty list or map
// was written with after its one value. DuckDB writes a null FLOAT[N] as N
// level entries, the first at the row's repetition level and the rest
// repeating inside the list, all below the level of a present element.
// No element can follow a null or empty list, so these entries can mean
// nothing else; one at a present element's level is left for the caller
// to refuse.
func (r *recordReader) skipNullContinuations(n *rnode, c *cursor) error {
	for {
		v, ok, err := c.peek()
		if err != nil {
			return r.columnError(c, err)
		}
		if !ok || v.RepetitionLevel() < n.rep || v.DefinitionLevel() >= n.repDef {
			return nil
		}
		c.pos++
	}
}

// continues reports whether the list or map n has another element: the
// next value repeats at n's own repetition level.
func (r *recordReader) continues(n *rnode) (bool, error) {
	lv, ok, err := n.level.peek()
	if err != nil {
		return false, r.columnError(n.level, err)
	}
	return ok && lv.RepetitionLevel() == n.rep, nil
}

func (r *recordReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.waitAhead()
	for _, c := range r.cursors {
		c.close()
	}
	return r.file.Close()
}

// Schema is the schema of the records the reader returns.
func (r *recordReader) Schema() *iceberg.Schema { return r.projection }

// Annotations are the file's extension annotations, as FileAnnotations
// returns them: a caller that needs both the schema and the annotations
// opens the file once.
func (r *recordReader) Annotations() []footer.Annotation { return slices.Clone(r.file.annotations) }

// cursor reads one column chunk's values, page by page.
type cursor struct {
	col    int
	path   string
	leaf   *fnode // for its levels
	batch  int    // values read at a time; buf is allocated on first use
	pages  pq.Pages
	values pq.ValueReader
	// page is the page values reads from. With release set it goes back to
	// parquet-go's buffer pool once its values are consumed, so the next
	// page reuses its buffers instead of allocating (and the GC collecting)
	// new ones; release is only set where a value is converted (copied)
	// before the cursor reads the next (primitive fields, and columns read
	// only for their levels). The variant reader keeps several values of a
	// row from one column, so its cursors keep their pages.
	page    pq.Page
	release bool
	// ranged is set while the cursor reads a page-pruned chunk
	// (rangePages): its pages are slices of parquet-go's, which it keeps
	// and releases itself, so the cursor releases none.
	ranged bool
	buf    []pq.Value
	pos, n int
	eof    bool
	// vectorSlots is the vector_length of a vector-repetition column: its
	// chunks hold that many values per row.
	vectorSlots int64
}

func newCursor(leaf *fnode, batch int) *cursor {
	return &cursor{col: leaf.col, path: leaf.path, leaf: leaf, batch: batch}
}

// cursorValueBudget bounds the values all of a reader's cursors buffer
// together (about 24 MB of parquet.Value): a file of 60,000 columns read
// a row at a time must not hold 60,000 full batches (it took 2.6 GB).
const cursorValueBudget = 1 << 20

// shareBuffers sizes each cursor's batch from the budget, between 16
// values and the requested batch.
func shareBuffers(cursors []*cursor) {
	if len(cursors) == 0 {
		return
	}
	per := max(cursorValueBudget/len(cursors), 16)
	for _, c := range cursors {
		c.batch = min(c.batch, per)
	}
}

// reset moves the cursor to a chunk, once pages.CheckChunk has passed it.
// The chunks parquet-go cannot decode exactly are read by the lab's own
// decoder (int32Chunk).
func (c *cursor) reset(src io.ReaderAt, md *format.ColumnMetaData, chunk pq.ColumnChunk) {
	c.close()
	c.values, c.pos, c.n, c.eof, c.ranged = nil, 0, 0, false, false
	if usesOwnInt32Decoder(md) {
		c.values = newInt32Chunk(src, md, c.col, c.leaf.rep, c.leaf.def)
		return
	}
	c.pages = readPagesAhead(chunk.Pages())
}

// resetRanges moves the cursor to a chunk read in the row ranges of p,
// once checkRangePages has passed their pages.
func (c *cursor) resetRanges(p *rangePages) {
	c.close()
	c.values, c.pos, c.n, c.eof, c.ranged = nil, 0, 0, false, true
	c.pages = p
}

func (c *cursor) close() {
	c.releasePage()
	if c.pages != nil {
		_ = c.pages.Close()
		c.pages = nil
	}
}

// releasePage is done with the current page: values read from it must not
// be used afterwards.
func (c *cursor) releasePage() {
	if c.page != nil && c.release && !c.ranged {
		pq.Release(c.page)
	}
	c.page = nil
}

// fill loads the next values; earlier values have all been consumed (and
// copied), so the page they point into may be recycled. A panic of
// parquet-go's page decoding on a hostile page is its error: a reader of
// primitive fields alone recovers nowhere else (recordReader.Next).
func (c *cursor) fill() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet: %v", p)
		}
	}()
	for !c.eof {
		if c.values != nil {
			if c.buf == nil {
				c.buf = make([]pq.Value, max(c.batch, 1))
			}
			n, err := c.values.ReadValues(c.buf)
			if n > 0 {
				c.pos, c.n = 0, n
				return nil
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			c.values = nil
			c.releasePage()
		}
		if c.pages == nil {
			c.eof = true
			break
		}
		page, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			c.eof = true
			break
		}
		if err != nil {
			return err
		}
		c.page, c.values = page, page.Values()
	}
	return io.EOF
}

// peek returns the next value without consuming it; ok is false at the
// end of the chunk.
func (c *cursor) peek() (v pq.Value, ok bool, err error) {
	if c.pos >= c.n {
		if err := c.fill(); err != nil {
			if errors.Is(err, io.EOF) {
				return pq.Value{}, false, nil
			}
			return pq.Value{}, false, err
		}
	}
	return c.buf[c.pos], true, nil
}

// nextInPlace is next without the copy: the value stays in the cursor's
// buffer, valid until the next call on the cursor.
func (c *cursor) nextInPlace() (*pq.Value, error) {
	if c.pos >= c.n {
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
	c.pos++
	return &c.buf[c.pos-1], nil
}

func (c *cursor) next() (pq.Value, error) {
	v, ok, err := c.peek()
	if err != nil {
		return v, err
	}
	if !ok {
		return v, io.EOF
	}
	c.pos++
	return v, nil
}
