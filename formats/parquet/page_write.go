package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// The record writer's columns of a PageBinding (VECTOR's) are written by
// the binding's page writer (vectorcol.ChunkWriter, the one behind
// vectorcol.WriteFile's vector-repetition files), not by parquet-go:
// parquet-go cannot express PR #592's VECTOR repetition, and its value path
// (one parquet.Value per element, 24 bytes each) writes list and
// vector-repetition columns at well under 0.1 GB/s. parquet-go writes every
// other column; the two are spliced into one file, which is this file's
// part, Parquet's and not the binding's:
//
//   - The file starts with the lab's "PAR1"; parquet-go writes through
//     pqSink, which drops parquet-go's own magic, counts the bytes
//     parquet-go believes it wrote, and buffers them (parquet-go's own
//     write buffer is off: the lab must know when its bytes reach the
//     file).
//   - While a row group fills, the first paged column's pages go straight
//     to the file as each page fills; the others' pages wait in memory
//     (parquet-go buffers its own columns' pages the same way).
//   - When the row group ends, the paged chunks are finished (the waiting
//     ones copied out), and then parquet-go flushes its chunks. A row
//     group's bytes stay contiguous; parquet-go's offsets in it are short
//     by the paged bytes written before, its shift.
//   - On Close parquet-go's page index and footer go to memory instead of
//     the file. The lab then writes the page index itself (parquet-go's
//     column indexes as they are, its offset indexes with their page
//     offsets shifted, the paged chunks' own) and one footer: parquet-go's
//     schema with the paged columns' elements in their places, each row
//     group's chunks merged in leaf order with parquet-go's offsets
//     shifted, and the annotations. Nothing is copied or rewritten after.
//
// The names say "vector" because VECTOR is the binding that needs this;
// nothing below knows what a vector is.

// vectorWriter writes the paged columns of one record file.
type vectorWriter struct {
	location string
	file     *registry.PendingFile
	// out is where the lab writes: the file, after parquet-go's buffered
	// bytes.
	out   labOut
	cols  []*pagedColWriter // in schema order
	byPos map[int]*pagedColWriter
	sink  *pqSink // parquet-go's output; nil without other columns

	groups     []vectorGroup // the finished row groups
	groupRows  int64         // rows of the row group being filled
	groupBytes int64         // their paged bytes, uncompressed
}

// vectorGroup is one finished row group's VECTOR chunks.
type vectorGroup struct {
	rows int64
	// shift is how many bytes of paged pages precede parquet-go's chunks
	// of this row group beyond what parquet-go counts: what its offsets
	// lack.
	shift  int64
	chunks []placedChunk // one per paged column
}

type placedChunk struct {
	info PageChunk
	at   int64
}

// pagedColWriter is one paged column.
type pagedColWriter struct {
	name   string
	pos    int // among the top-level fields
	pw     PageWriter
	stream bool         // pages go straight to the file
	buf    bytes.Buffer // the waiting pages otherwise
	start  int64        // where the streamed chunk begins
}

// pagedColumnNames are the declared paged columns.
func (p *annotationPlan) pagedColumnNames() map[string]bool {
	if len(p.paged) == 0 {
		return nil
	}
	out := make(map[string]bool, len(p.paged))
	for _, pc := range p.paged {
		out[pc.Name()] = true
	}
	return out
}

// newVectorWriter prepares the declared paged columns of plan.
func newVectorWriter(location string, out *registry.PendingFile, annot *annotationPlan, props map[string]string, pageBytes int) (*vectorWriter, error) {
	vw := &vectorWriter{location: location, file: out, byPos: map[int]*pagedColWriter{}}
	vw.out = labOut{vw}
	// In schema order: finish merges each row group's chunks in the order
	// of the merged schema's leaves, and takes them from vw.cols in turn.
	// (In declaration order, "b:...,a:..." for columns a, b put a's chunk
	// metadata on b's leaf: an unreadable file.)
	paged := slices.Clone(annot.paged)
	slices.SortStableFunc(paged, func(x, y pagedColumn) int { return x.pos - y.pos })
	for _, pc := range paged {
		c := &pagedColWriter{name: pc.Name(), pos: pc.pos, stream: len(vw.cols) == 0}
		var sink io.Writer = &c.buf
		if c.stream {
			sink = vw.out
		}
		pw, err := pc.NewWriter(sink, props, pageBytes)
		if err != nil {
			return nil, err
		}
		c.pw = pw
		vw.cols = append(vw.cols, c)
		vw.byPos[pc.pos] = c
	}
	return vw, nil
}

// begin starts the file: the lab's magic, then parquet-go's output (w is
// where parquet-go is to write, nil without other columns).
func (vw *vectorWriter) begin(parquetGo bool) (io.Writer, error) {
	if _, err := vw.out.Write([]byte("PAR1")); err != nil {
		return nil, err
	}
	if parquetGo {
		vw.sink = &pqSink{out: vw.file}
	}
	vw.beginGroup()
	if vw.sink == nil {
		return nil, nil
	}
	return vw.sink, nil
}

// labOut writes the lab's bytes to the file, after parquet-go's.
type labOut struct{ vw *vectorWriter }

func (o labOut) Write(b []byte) (int, error) {
	if s := o.vw.sink; s != nil {
		if err := s.flush(); err != nil {
			return 0, err
		}
	}
	return o.vw.file.Write(b)
}

// Written is the file offset the next byte goes to.
func (o labOut) Written() int64 {
	n := o.vw.file.Written()
	if s := o.vw.sink; s != nil {
		n += int64(len(s.buf))
	}
	return n
}

func (vw *vectorWriter) beginGroup() {
	for _, c := range vw.cols {
		if c.stream {
			c.start = vw.out.Written()
		}
	}
	vw.groupRows, vw.groupBytes = 0, 0
}

// stage converts the value of the paged field at pos for commit, or says
// why the record is refused.
func (vw *vectorWriter) stage(pos int, v any) error {
	c := vw.byPos[pos]
	if c == nil {
		return fmt.Errorf("no paged column at position %d", pos)
	}
	return c.pw.Stage(v)
}

// validate stages every paged field of rec, for its error only.
func (vw *vectorWriter) validate(get func(int) any) error {
	for _, c := range vw.cols {
		if err := c.pw.Stage(get(c.pos)); err != nil {
			return err
		}
	}
	return nil
}

// commit appends the staged row of every paged column.
func (vw *vectorWriter) commit() error {
	for _, c := range vw.cols {
		if err := c.pw.Commit(); err != nil {
			return err
		}
		vw.groupBytes += int64(c.pw.RowBytes())
	}
	vw.groupRows++
	return nil
}

// endGroup finishes the row group's paged chunks; parquet-go flushes its
// own next, then beginGroup starts the next row group.
func (vw *vectorWriter) endGroup() error {
	if vw.groupRows == 0 {
		return nil
	}
	g := vectorGroup{rows: vw.groupRows}
	for _, c := range vw.cols {
		info, err := c.pw.Finish()
		if err != nil {
			return err
		}
		at := c.start
		if !c.stream {
			at = vw.out.Written()
			if _, err := vw.out.Write(c.buf.Bytes()); err != nil {
				return err
			}
			c.buf.Reset()
		}
		if info.Rows() != vw.groupRows {
			return fmt.Errorf("column %q: %d vectors in a row group of %d rows", c.name, info.Rows(), vw.groupRows)
		}
		g.chunks = append(g.chunks, placedChunk{info: info, at: at})
	}
	if vw.sink != nil {
		// parquet-go's next byte lands at out.Written() and it counts it
		// as sink.n (past its dropped magic): the difference is the shift
		// of the chunks it flushes next.
		g.shift = vw.out.Written() - max(vw.sink.n, 4)
	}
	vw.groups = append(vw.groups, g)
	return nil
}

// pqSink is where parquet-go writes: the file, less parquet-go's magic
// (the lab wrote it), or memory once capture is set (its page index and
// footer, which the lab rewrites).
type pqSink struct {
	out io.Writer
	// n counts what parquet-go wrote: its own file offsets.
	n            int64
	buf          []byte // written, not yet in the file
	capture      *bytes.Buffer
	captureStart int64
}

const pqSinkBuffer = 64 << 10

func (s *pqSink) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	_, err := writeFullTo(s.out, s.buf)
	s.buf = s.buf[:0]
	return err
}

func writeFullTo(w io.Writer, b []byte) (int, error) {
	n, err := w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	return n, err
}

func (s *pqSink) Write(b []byte) (int, error) {
	total := len(b)
	if s.n < 4 {
		k := min(int64(len(b)), 4-s.n)
		if string(b[:k]) != "PAR1"[s.n:s.n+k] {
			return 0, fmt.Errorf("parquet-go's output does not start with PAR1")
		}
		s.n += k
		b = b[k:]
	}
	if len(b) == 0 {
		return total, nil
	}
	if s.capture != nil {
		s.capture.Write(b)
		s.n += int64(len(b))
		return total, nil
	}
	s.n += int64(len(b))
	if len(s.buf)+len(b) > pqSinkBuffer {
		if err := s.flush(); err != nil {
			return 0, err
		}
		if len(b) >= pqSinkBuffer {
			if _, err := writeFullTo(s.out, b); err != nil {
				return 0, err
			}
			return total, nil
		}
	}
	s.buf = append(s.buf, b...)
	return total, nil
}

// startCapture sends parquet-go's next bytes to memory, the ones before
// to the file.
func (s *pqSink) startCapture() error {
	s.capture = &bytes.Buffer{}
	s.captureStart = s.n
	return s.flush()
}

// captured is the part of parquet-go's captured output at its offset off.
func (s *pqSink) captured(off int64, n int32) ([]byte, error) {
	lo := off - s.captureStart
	if lo < 0 || n < 0 || lo+int64(n) > int64(s.capture.Len()) {
		return nil, fmt.Errorf("parquet-go's page index entry at %d (%d bytes) lies outside its captured output [%d, %d)", off, n, s.captureStart, s.captureStart+int64(s.capture.Len()))
	}
	return s.capture.Bytes()[lo : lo+int64(n)], nil
}

// capturedFooter decodes the footer parquet-go wrote to the capture.
func (s *pqSink) capturedFooter() (*footer.FileMetaData, error) {
	b := s.capture.Bytes()
	if len(b) < 8 || string(b[len(b)-4:]) != "PAR1" {
		return nil, errors.New("parquet-go's footer was not captured")
	}
	n := int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n > int64(len(b))-8 {
		return nil, fmt.Errorf("parquet-go's footer length %d exceeds its %d captured bytes", n, len(b))
	}
	raw := b[int64(len(b))-8-n : len(b)-8]
	meta, err := footer.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("parquet-go's footer: %w", err)
	}
	// The lab's model must hold every field parquet-go wrote, or the merged
	// footer would lose them.
	again, err := footer.Encode(meta)
	if err != nil {
		return nil, fmt.Errorf("parquet-go's footer: %w", err)
	}
	if !bytes.Equal(again, raw) {
		return nil, errors.New("parquet-go's footer does not re-encode byte-identically in the lab's footer model")
	}
	return meta, nil
}

// topEntry is one top-level field of the merged schema.
type topEntry struct {
	vec    *pagedColWriter // a paged column
	lo, hi int             // else: its elements in parquet-go's schema
	leaves int
}

// finish writes the page index and the merged footer after parquet-go
// has closed (its page index and footer captured), and returns the footer.
// kv and createdBy serve a file without parquet-go columns.
func (vw *vectorWriter) finish(plan *writePlan, annot *annotationPlan, kv map[string]string, kvOrder []string) (*footer.FileMetaData, []byte, error) {
	var pqMeta *footer.FileMetaData
	if vw.sink != nil {
		var err error
		if pqMeta, err = vw.sink.capturedFooter(); err != nil {
			return nil, nil, err
		}
		if len(pqMeta.RowGroups) != len(vw.groups) {
			return nil, nil, fmt.Errorf("parquet-go wrote %d row groups, the VECTOR columns %d", len(pqMeta.RowGroups), len(vw.groups))
		}
	}
	entries, schema, err := vw.mergedSchema(plan, pqMeta)
	if err != nil {
		return nil, nil, err
	}
	meta := &footer.FileMetaData{Version: 1, Schema: schema}
	if pqMeta != nil {
		meta.Version, meta.KeyValueMetadata, meta.CreatedBy = pqMeta.Version, pqMeta.KeyValueMetadata, pqMeta.CreatedBy
	} else {
		meta.CreatedBy = thrift.New("coltype-lab record writer (VECTOR page writer)")
		for _, k := range kvOrder {
			meta.SetKeyValue(k, kv[k])
		}
	}
	// Which merged leaf each chunk is, and where parquet-go's leaves went.
	var pqLeaf []int // merged leaf → parquet-go leaf, -1 for VECTOR leaves
	pqLeaves := 0
	for _, e := range entries {
		if e.vec != nil {
			pqLeaf = append(pqLeaf, -1)
			continue
		}
		for range e.leaves {
			pqLeaf = append(pqLeaf, pqLeaves)
			pqLeaves++
		}
	}
	if pqMeta != nil && pqMeta.ColumnOrders != nil {
		for _, l := range pqLeaf {
			if l < 0 {
				meta.ColumnOrders = append(meta.ColumnOrders, footer.ColumnOrder{Value: &format.TypeDefinedOrder{}})
			} else if l < len(pqMeta.ColumnOrders) {
				meta.ColumnOrders = append(meta.ColumnOrders, pqMeta.ColumnOrders[l])
			} else {
				return nil, nil, fmt.Errorf("parquet-go's footer has %d column orders for more leaves", len(pqMeta.ColumnOrders))
			}
		}
	} else if pqMeta == nil {
		for range pqLeaf {
			meta.ColumnOrders = append(meta.ColumnOrders, footer.ColumnOrder{Value: &format.TypeDefinedOrder{}})
		}
	}
	// source says where each merged chunk came from, for the page index.
	type source struct {
		vec   *placedChunk
		shift int64
	}
	sources := make([][]source, len(vw.groups))
	for k, g := range vw.groups {
		rg := footer.RowGroup{NumRows: g.rows, Ordinal: thrift.New(int16(k))}
		var pqRG *footer.RowGroup
		if pqMeta != nil {
			pqRG = &pqMeta.RowGroups[k]
			if pqRG.NumRows != g.rows {
				return nil, nil, fmt.Errorf("row group %d: parquet-go wrote %d rows, the VECTOR columns %d", k, pqRG.NumRows, g.rows)
			}
			rg = *pqRG
			rg.Columns = nil
		}
		var byteSize, compressed int64
		first := int64(math.MaxInt64)
		vi, pi := 0, 0
		for _, e := range entries {
			if e.vec != nil {
				pc := &g.chunks[vi]
				vi++
				cc := footer.ColumnChunk{FileOffset: pc.at, MetaData: pc.info.MetaData(pc.at)}
				rg.Columns = append(rg.Columns, cc)
				sources[k] = append(sources[k], source{vec: pc})
				u, z := pc.info.Size()
				byteSize += u
				compressed += z
				first = min(first, pc.at)
				continue
			}
			for range e.leaves {
				cc := pqRG.Columns[pi]
				pi++
				shiftChunk(&cc, g.shift)
				rg.Columns = append(rg.Columns, cc)
				sources[k] = append(sources[k], source{shift: g.shift})
				if md := cc.MetaData; md != nil {
					start := md.DataPageOffset
					if d := md.DictionaryPageOffset; d.Valid && d.V > 0 && d.V < start {
						start = d.V
					}
					first = min(first, start)
				}
			}
		}
		if pqRG != nil {
			rg.TotalByteSize += byteSize
			if rg.TotalCompressedSize.Valid {
				rg.TotalCompressedSize.V += compressed
			}
			for i := range rg.SortingColumns {
				sc := &rg.SortingColumns[i]
				sc.ColumnIdx = int32(slices.Index(pqLeaf, int(sc.ColumnIdx)))
			}
		} else {
			rg.TotalByteSize = byteSize
			rg.TotalCompressedSize = thrift.New(compressed)
		}
		if first != math.MaxInt64 {
			rg.FileOffset = thrift.New(first)
		}
		meta.NumRows += g.rows
		meta.RowGroups = append(meta.RowGroups, rg)
	}
	// The page index: every column index, then every offset index.
	write := func(b []byte) (int64, error) {
		at := vw.out.Written()
		_, err := vw.out.Write(b)
		return at, err
	}
	for k := range meta.RowGroups {
		for c := range meta.RowGroups[k].Columns {
			cc := &meta.RowGroups[k].Columns[c]
			var b []byte
			switch src := sources[k][c]; {
			case src.vec != nil:
				if b, err = src.vec.info.ColumnIndex(); err != nil {
					return nil, nil, err
				}
				if b == nil {
					continue
				}
			case cc.ColumnIndexOffset.Valid:
				if b, err = vw.sink.captured(cc.ColumnIndexOffset.V, cc.ColumnIndexLength.V); err != nil {
					return nil, nil, err
				}
			default:
				continue
			}
			at, err := write(b)
			if err != nil {
				return nil, nil, err
			}
			cc.ColumnIndexOffset, cc.ColumnIndexLength = thrift.New(at), thrift.New(int32(len(b)))
		}
	}
	for k := range meta.RowGroups {
		for c := range meta.RowGroups[k].Columns {
			cc := &meta.RowGroups[k].Columns[c]
			var b []byte
			switch src := sources[k][c]; {
			case src.vec != nil:
				if b, err = src.vec.info.OffsetIndex(src.vec.at); err != nil {
					return nil, nil, err
				}
			case cc.OffsetIndexOffset.Valid:
				if b, err = vw.sink.captured(cc.OffsetIndexOffset.V, cc.OffsetIndexLength.V); err != nil {
					return nil, nil, err
				}
				if src.shift != 0 {
					if b, err = shiftOffsetIndex(b, src.shift); err != nil {
						return nil, nil, err
					}
				}
			default:
				continue
			}
			at, err := write(b)
			if err != nil {
				return nil, nil, err
			}
			cc.OffsetIndexOffset, cc.OffsetIndexLength = thrift.New(at), thrift.New(int32(len(b)))
		}
	}
	if err := annot.annotate(meta); err != nil {
		return nil, nil, err
	}
	fb, err := footer.Encode(meta)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(fb)) > math.MaxUint32 {
		return nil, nil, fmt.Errorf("footer of %d bytes is too large", len(fb))
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], uint32(len(fb)))
	copy(trailer[4:], "PAR1")
	if _, err := vw.out.Write(fb); err != nil {
		return nil, nil, err
	}
	if _, err := vw.out.Write(trailer[:]); err != nil {
		return nil, nil, err
	}
	return meta, fb, nil
}

// mergedSchema is the file's schema: parquet-go's, with every VECTOR
// column's elements in its place among the top-level fields.
func (vw *vectorWriter) mergedSchema(plan *writePlan, pqMeta *footer.FileMetaData) ([]topEntry, []footer.SchemaElement, error) {
	var pqTops []topEntry
	root := footer.SchemaElement{Name: rootName}
	if pqMeta != nil {
		s := pqMeta.Schema
		if len(s) == 0 {
			return nil, nil, errors.New("parquet-go's footer has no schema")
		}
		root = s[0]
		tree, err := footer.NewSchemaTree(s)
		if err != nil {
			return nil, nil, fmt.Errorf("parquet-go's schema: %w", err)
		}
		for _, i := range tree.Children(0) {
			j, leaves := tree.Subtree(i)
			pqTops = append(pqTops, topEntry{lo: i, hi: j, leaves: leaves})
		}
	}
	var entries []topEntry
	schema := []footer.SchemaElement{root}
	next := 0
	for pos, n := range plan.root.children {
		switch {
		case n.kind == wVector:
			c := vw.byPos[pos]
			if c == nil {
				return nil, nil, fmt.Errorf("column %q has no page writer", n.path)
			}
			schema = append(schema, c.pw.SchemaElements()...)
			entries = append(entries, topEntry{vec: c, leaves: 1})
		case n.kind == wUnknown:
			// No column, as parquet-go's schema has none.
		default:
			if next >= len(pqTops) {
				return nil, nil, fmt.Errorf("column %q is missing from parquet-go's schema", n.path)
			}
			e := pqTops[next]
			next++
			if got := pqMeta.Schema[e.lo].Name; got != n.path {
				return nil, nil, fmt.Errorf("parquet-go's schema has %q where %q belongs", got, n.path)
			}
			schema = append(schema, pqMeta.Schema[e.lo:e.hi]...)
			entries = append(entries, e)
		}
	}
	if next != len(pqTops) {
		return nil, nil, fmt.Errorf("parquet-go's schema has %d top-level fields, the plan %d", len(pqTops), next)
	}
	schema[0].NumChildren = thrift.New(int32(len(entries)))
	return entries, schema, nil
}

// shiftChunk moves a parquet-go chunk's byte offsets by shift; its page
// index is relinked later.
func shiftChunk(cc *footer.ColumnChunk, shift int64) {
	if shift == 0 {
		return
	}
	cc.FileOffset += shift
	md := cc.MetaData
	if md == nil {
		return
	}
	md.DataPageOffset += shift
	if md.DictionaryPageOffset.Valid && md.DictionaryPageOffset.V > 0 {
		md.DictionaryPageOffset.V += shift
	}
	if md.IndexPageOffset.Valid && md.IndexPageOffset.V > 0 {
		md.IndexPageOffset.V += shift
	}
	if md.BloomFilterOffset.Valid && md.BloomFilterOffset.V > 0 {
		md.BloomFilterOffset.V += shift
	}
}

// shiftOffsetIndex re-encodes an OffsetIndex with its pages moved by shift.
func shiftOffsetIndex(b []byte, shift int64) ([]byte, error) {
	var oi format.OffsetIndex
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b, &oi); err != nil {
		return nil, fmt.Errorf("parquet-go's offset index: %w", err)
	}
	for i := range oi.PageLocations {
		oi.PageLocations[i].Offset += shift
	}
	return thrift.Marshal(new(thrift.CompactProtocol), &oi)
}

// parquetGoFooter decodes footer bytes into parquet-go's model, which the
// metrics collector and split offsets read.
func parquetGoFooter(fb []byte) (*format.FileMetaData, error) {
	var m format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), fb, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// metricsFooter is the footer as the metrics collector should see it: a
// paged column whose leaf is not the one its Iceberg type maps to (a
// fixed[L] VECTOR column stored as list or vector-repetition) becomes that
// one leaf (PageWriter.MetricsLeaf), carrying the field id, with a value
// per row and a null per null row, as parquet-go's chunk of it would count
// them.
func (vw *vectorWriter) metricsFooter(meta *footer.FileMetaData) (*format.FileMetaData, error) {
	type regrouped struct {
		ci     int // in vw.cols
		leaf   []footer.SchemaElement
		schema []footer.SchemaElement
	}
	var grouped []regrouped
	for ci, c := range vw.cols {
		if leaf := c.pw.MetricsLeaf(); leaf != nil {
			grouped = append(grouped, regrouped{ci: ci, leaf: leaf, schema: c.pw.SchemaElements()})
		}
	}
	if len(grouped) > 0 {
		fb, err := footer.Encode(meta)
		if err != nil {
			return nil, err
		}
		m, err := footer.Decode(fb) // a copy
		if err != nil {
			return nil, err
		}
		for _, g := range grouped {
			name := vw.cols[g.ci].name
			i := topLevelElement(m.Schema, name)
			n := len(g.schema)
			if i < 0 || i+n > len(m.Schema) || !m.Schema[i].IsGroup() {
				return nil, fmt.Errorf("column %q not found in the footer", name)
			}
			m.Schema = slices.Replace(m.Schema, i, i+n, g.leaf...)
			// The written leaf's path: the chain of elements' names.
			path := make([]string, n)
			for k, el := range g.schema {
				path[k] = el.Name
			}
			for k := range m.RowGroups {
				for j := range m.RowGroups[k].Columns {
					md := m.RowGroups[k].Columns[j].MetaData
					if md == nil || !slices.Equal(md.PathInSchema, path) {
						continue
					}
					rg := vw.groups[k]
					md.PathInSchema = []string{name}
					md.Type = g.leaf[len(g.leaf)-1].Type.V
					md.NumValues = rg.rows
					md.Statistics = &footer.Statistics{NullCount: thrift.New(rg.chunks[g.ci].info.NullRows())}
				}
			}
		}
		meta = m
	}
	fb, err := footer.Encode(meta)
	if err != nil {
		return nil, err
	}
	return parquetGoFooter(fb)
}

// icebergSchemaKV is the key/value metadata of a file without parquet-go
// columns, in the order parquet-go would have written it.
func icebergSchemaKV(schemaJSON string, fileMeta map[string]string) (map[string]string, []string) {
	kv := map[string]string{IcebergSchemaKey: schemaJSON}
	order := []string{IcebergSchemaKey}
	for _, k := range slices.Sorted(maps.Keys(fileMeta)) {
		if _, dup := kv[k]; !dup {
			order = append(order, k)
		}
		kv[k] = fileMeta[k]
	}
	return kv, order
}

// vectorSplitOffsets are the row groups' first bytes, whatever chunk lies
// there: a row group's first column may follow its VECTOR chunks. Each row
// group's bytes are contiguous, so a split from one offset to the next
// holds the row group whose first column's start (rowGroupStart, what the
// reader and Iceberg Java select row groups by) lies in it.
func vectorSplitOffsets(meta *footer.FileMetaData) []int64 {
	out := make([]int64, 0, len(meta.RowGroups))
	for _, rg := range meta.RowGroups {
		if rg.FileOffset.Valid {
			out = append(out, rg.FileOffset.V)
		}
	}
	slices.Sort(out)
	return out
}

// topLevelElement is the index of the top-level field name in a footer's
// flattened schema, -1 when there is none (or the schema is no tree).
func topLevelElement(s []footer.SchemaElement, name string) int {
	tree, err := footer.NewSchemaTree(s)
	if err != nil {
		return -1
	}
	for _, i := range tree.Children(0) {
		if s[i].Name == name {
			return i
		}
	}
	return -1
}
