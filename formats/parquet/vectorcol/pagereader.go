package vectorcol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/internal/safeopen"
	"github.com/coltype-lab/lab/types/vector"
)

// FileInfo describes the vector column of a layout file.
type FileInfo struct {
	Path   string
	Layout Layout
	// Dim is the column dimension; 0 for a list column without a single
	// non-null vector (nothing says its length).
	Dim  int
	Rows int64
	// Nullable vectors (optional outer field) and elements.
	Nullable, NullableElements bool
	MaxDef, MaxRep             int
	Codec                      format.CompressionCodec
	// Element is the element type stored; reads convert it to float32.
	Element vector.ElementType
}

// File is an open layout file: its footer, the vector column's chunks and
// their pages. It reads with ReadAt only, or from a read-only memory mapping
// of the file where the platform has one (OpenFile), so one File serves
// concurrent readers. With a mapping, uncompressed PLAIN pages are never
// copied: the blocks of a search and of Blocks are views of the mapping,
// valid until Close.
type File struct {
	info   FileInfo
	r      io.ReaderAt
	closer io.Closer
	chunks []chunk
	// leafPath is the vector column's leaf, for errors.
	leafPath []string
	// mapped is the whole file once a scan has memory-mapped it (nil
	// before, or when it cannot be mapped); unmap releases it.
	mapped  []byte
	unmap   func() error
	mapOnce sync.Once
	osFile  *os.File
	size    int64
	// checked and unchecked count the data pages decoded with and without
	// a page CRC to verify (Checksums).
	checked, unchecked atomic.Int64
	// skipCRC turns verification off (SkipChecksums).
	skipCRC bool
	// takeVerified holds the offsets of the uncompressed PLAIN pages whose
	// CRC a Take has verified: later takes read only their rows' bytes.
	// Parquet data files are immutable once written (Iceberg's contract),
	// so a page verified stays verified while the File is open.
	takeVerified sync.Map
	// noMap makes scans read pages into recycled buffers (ReadPages).
	noMap bool
	// skipGroup marks the row groups scans leave out (KeepRowGroups); nil
	// keeps them all.
	skipGroup []bool
}

// KeepRowGroups restricts scans (Blocks, Search) to the row groups keep
// accepts, by index in the footer; row ids stay the file's row positions.
// Call it before the file is scanned.
func (f *File) KeepRowGroups(keep func(group int) bool) {
	f.skipGroup = make([]bool, len(f.chunks))
	for i := range f.chunks {
		f.skipGroup[i] = !keep(i)
	}
}

// skipped reports whether scans leave row group i out.
func (f *File) skipped(i int) bool { return f.skipGroup != nil && f.skipGroup[i] }

// ReadPages makes scans read each page with ReadAt into a recycled buffer
// instead of mapping the file; call it before the file is scanned. A
// mapping costs its setup and a page-table entry per 4 KiB of the file
// (populated at map time, MAP_POPULATE), which a file opened for one search
// pays in full every time; reads copy each page once from the page cache
// into a buffer the scan reuses, which stays in cache while it is scored. A
// file searched many times is better mapped: no copy at all.
func (f *File) ReadPages(on bool) { f.noMap = on }

// SkipChecksums turns page CRC verification off or on (on by default).
// Verifying costs a pass over every page at CRC speed (the page stack's
// kernel checks about 20 GB/s a core, pages.CheckCRC) and makes take read whole
// pages; the benchmarks turn it off to measure the layouts' readers, and
// report the verified cost beside. Call it before the file is read.
func (f *File) SkipChecksums(skip bool) { f.skipCRC = skip }

// checkCRC verifies a page body against its header's CRC (pages.CheckCRC)
// and counts the read (Checksums).
func (f *File) checkCRC(h format.PageHeader, body []byte) error {
	if f.skipCRC {
		f.unchecked.Add(1)
		return nil
	}
	checked, err := pages.CheckCRC(&h, body)
	if !checked {
		f.unchecked.Add(1)
	} else if err == nil {
		f.checked.Add(1)
	}
	return err
}

// Checksums reports how many of the data pages read so far carried a CRC,
// which was verified, and how many had none to verify.
func (f *File) Checksums() (verified, without int64) {
	return f.checked.Load(), f.unchecked.Load()
}

// mapForScan maps the file for a scan (Blocks, hence Search and ReadAll).
// Only scans map: they touch every page, where a mapping saves the read
// copy and the buffer per page; Take touches a few rows, for which a pread
// each is cheaper than setting up, faulting in and tearing down a mapping of
// the whole file.
func (f *File) mapForScan() {
	f.mapOnce.Do(func() {
		if f.osFile != nil && !f.noMap {
			f.mapped, f.unmap, _ = mapFile(f.osFile, f.size)
		}
	})
}

type chunk struct {
	firstRow, rows int64
	meta           *footer.ColumnMetaData
	start, end     int64 // byte range of the pages
	// pages from the OffsetIndex, nil when the file has none.
	pages []format.PageLocation
	// dict is the chunk's dictionary, decoded (flba: dim elements per
	// entry); dictEntries its entry count. arrow-rs dictionary-encodes
	// every column by default, and DuckDB does when values repeat.
	dict        []float32
	dictEntries int
	dictAt      int64 // where the dictionary page is, -1 for none
}

// OpenFile opens a Parquet file written in one of the layouts (by WriteFile
// or any writer producing the same shape) and works out its layout from the
// schema: a FIXED_LEN_BYTE_ARRAY leaf is flba (with the VECTOR annotation,
// in the footer or its key/value mirror) or flba-raw; a group over a
// REPEATED group is list; over a VECTOR group, vector-repetition. The file
// must hold one top-level field, or one named emb. The element type comes
// from the VECTOR annotation (flba), the element leaf (list,
// vector-repetition: FLOAT, DOUBLE, FLOAT16, INT(8) on INT32) or the
// ElementKey entry (flba-raw, bfloat16), float32 when none says; reads
// convert it to float32.
func OpenFile(path string) (*File, error) { return OpenColumn(path, "") }

// OpenColumn is OpenFile for the top-level field named column; "" picks as
// OpenFile does (emb, or the only field).
func OpenColumn(path, column string) (*File, error) {
	// Not os.Open: a FIFO would block the open, a device could be endless.
	f, err := safeopen.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	vf, err := openReaderColumn(f, st.Size(), path, column)
	if err != nil {
		f.Close()
		return nil, err
	}
	vf.closer, vf.osFile, vf.size = f, f, st.Size()
	return vf, nil
}

// OpenReader is OpenColumn over an input already open: r holds size bytes
// and location names it in errors. The File does not close r. An *os.File
// may be mapped by scans, as OpenColumn's is; any other reader is read with
// ReadAt (ReadPages is then implied).
func OpenReader(r io.ReaderAt, size int64, location, column string) (*File, error) {
	vf, err := openReaderColumn(r, size, location, column)
	if err != nil {
		return nil, err
	}
	vf.size = size
	if f, ok := r.(*os.File); ok {
		vf.osFile = f
	}
	return vf, nil
}

// Close unmaps and closes the file. Blocks obtained from it must not be used
// afterwards: they may be views of the mapping.
func (f *File) Close() error {
	var err error
	if f.unmap != nil {
		err = f.unmap()
		f.unmap, f.mapped = nil, nil
	}
	if f.closer != nil {
		if cerr := f.closer.Close(); err == nil {
			err = cerr
		}
		f.closer = nil
	}
	return err
}

// bytesAt returns n bytes of the file at off: a view of the mapping when
// there is one (the caller must not modify it), else a new buffer.
func (f *File) bytesAt(n int, off int64) ([]byte, error) {
	return f.bytesInto(nil, n, off)
}

// bytesInto is bytesAt reading into scratch when the file is not mapped and
// scratch holds n bytes, so that a loop reading many ranges allocates once.
func (f *File) bytesInto(scratch []byte, n int, off int64) ([]byte, error) {
	if f.mapped != nil {
		if off < 0 || off+int64(n) > int64(len(f.mapped)) {
			return nil, io.ErrUnexpectedEOF
		}
		return f.mapped[off : off+int64(n) : off+int64(n)], nil
	}
	buf := scratch[:0]
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if err := footer.ReadFull(f.r, buf, off); err != nil {
		return nil, err
	}
	return buf, nil
}

// Info describes the column.
func (f *File) Info() FileInfo { return f.info }

func openReader(r io.ReaderAt, size int64, path string) (*File, error) {
	return openReaderColumn(r, size, path, "")
}

func openReaderColumn(r io.ReaderAt, size int64, path, column string) (*File, error) {
	ft, err := footer.ReadFooter(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The mirror names the VECTOR id the writer used; decode again under it
	// when it is not the default, so that the annotation is recognised.
	if anns, err := footer.ReadAnnotations(ft.Meta); err == nil {
		for _, a := range anns {
			if a.Kind == footer.KindVector && a.ID != footer.DefaultVectorID && a.ID > 0 {
				if again, err := footer.ReadFooter(r, size, footer.WithVectorID(a.ID)); err == nil {
					ft = again
				}
				break
			}
		}
	}
	info, leafPath, err := detectLayout(ft.Meta, column)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	info.Path = path
	vf := &File{info: info, r: r, leafPath: leafPath}
	var row int64
	for gi, rg := range ft.Meta.RowGroups {
		var cc *footer.ColumnChunk
		for i := range rg.Columns {
			if m := rg.Columns[i].MetaData; m != nil && slices.Equal(m.PathInSchema, leafPath) {
				cc = &rg.Columns[i]
			}
		}
		where := fmt.Sprintf("%s: row group %d, column %v", path, gi, leafPath)
		if cc == nil {
			return nil, fmt.Errorf("%s: no column chunk with metadata", where)
		}
		m := cc.MetaData
		if !pages.Supported(m.Codec) {
			return nil, fmt.Errorf("%s: codec %v is not supported (want UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD or LZ4_RAW)", where, m.Codec)
		}
		if info.Layout == LayoutVectorRepetition && m.NumValues != rg.NumRows*int64(info.Dim) {
			return nil, fmt.Errorf("%s: num_values %d ≠ %d rows × vector_length %d: the declared vector_length disagrees with the data",
				where, m.NumValues, rg.NumRows, info.Dim)
		}
		c := chunk{firstRow: row, rows: rg.NumRows, meta: m, dictAt: -1,
			start: m.DataPageOffset, end: m.DataPageOffset + m.TotalCompressedSize}
		if d := m.DictionaryPageOffset; d.Valid && d.V > 0 && d.V < m.DataPageOffset {
			// The chunk starts at its dictionary page (ColumnMetaData:
			// total_compressed_size counts every page of the chunk).
			c.dictAt, c.start, c.end = d.V, d.V, d.V+m.TotalCompressedSize
		}
		if c.start < 4 || c.end > size || c.start > c.end {
			return nil, fmt.Errorf("%s: pages at bytes [%d, %d) lie outside the %d-byte file", where, c.start, c.end, size)
		}
		if err := vf.readDictionary(&c); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if cc.OffsetIndexOffset.Valid && cc.OffsetIndexLength.Valid {
			c.pages, err = readOffsetIndex(r, size, cc.OffsetIndexOffset.V, cc.OffsetIndexLength.V)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		}
		vf.chunks = append(vf.chunks, c)
		row += rg.NumRows
		vf.info.Codec = m.Codec
	}
	vf.info.Rows = row
	if row != ft.Meta.NumRows {
		return nil, fmt.Errorf("%s: row groups hold %d rows, the footer says %d", path, row, ft.Meta.NumRows)
	}
	if vf.info.Layout == LayoutList && vf.info.Dim == 0 {
		if err := vf.inferListDim(); err != nil {
			return nil, err
		}
	}
	return vf, nil
}

func readOffsetIndex(r io.ReaderAt, size, off int64, n int32) ([]format.PageLocation, error) {
	if off < 0 || n < 0 || off+int64(n) > size {
		return nil, fmt.Errorf("offset index at [%d, %d) lies outside the %d-byte file", off, off+int64(n), size)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && len(b) > 0) {
		return nil, fmt.Errorf("read offset index at %d: %w", off, err)
	}
	var oi format.OffsetIndex
	if err := thrift.Unmarshal(&compactProtocol, b, &oi); err != nil {
		return nil, fmt.Errorf("offset index at %d: %w", off, err)
	}
	return oi.PageLocations, nil
}

// detectLayout finds the vector column and its layout.
func detectLayout(meta *footer.FileMetaData, column string) (FileInfo, []string, error) {
	s := meta.Schema
	if len(s) < 2 {
		return FileInfo{}, nil, errors.New("the schema has no column")
	}
	// The footer's decoder has checked that the schema is one tree; a
	// footer built in memory gets the same check here.
	tree, err := footer.NewSchemaTree(s)
	if err != nil {
		return FileInfo{}, nil, err
	}
	tops := tree.Children(0)
	top := -1
	want := column
	if want == "" {
		want = ColumnName
	}
	for _, t := range tops {
		if s[t].Name == want {
			top = t
		}
	}
	if top < 0 && column != "" {
		return FileInfo{}, nil, fmt.Errorf("no top-level field %q", column)
	}
	if top < 0 {
		if len(tops) != 1 {
			return FileInfo{}, nil, fmt.Errorf("%d top-level fields and none named %q: which one is the vector column?", len(tops), ColumnName)
		}
		top = tops[0]
	}
	el := &s[top]
	name := el.Name
	anns, _ := footer.ReadAnnotations(meta)
	var ann, fsl *footer.Annotation
	for k := range anns {
		if !slices.Equal(anns[k].Path, []string{name}) {
			continue
		}
		switch anns[k].Kind {
		case footer.KindVector:
			ann = &anns[k]
		case footer.KindFixedSizeList:
			fsl = &anns[k]
		}
	}
	info := FileInfo{Nullable: el.RepetitionType.V == footer.Optional, Element: vector.Float32}
	var hint vector.ElementType
	if v, ok := meta.KeyValue(ElementKey); ok {
		t, err := vector.ParseElementType(v)
		if err != nil {
			return info, nil, fmt.Errorf("column %s: key/value %s: %w", name, ElementKey, err)
		}
		hint = t
	}
	if r := el.RepetitionType; r.Valid && r.V != footer.Optional && r.V != footer.Required {
		return info, nil, fmt.Errorf("column %s is %s; a vector column is optional or required", name, r.V)
	}
	if info.Nullable {
		info.MaxDef = 1
	}
	if !el.IsGroup() {
		if el.Type.V != format.FixedLenByteArray {
			return info, nil, fmt.Errorf("column %s is a %s leaf; a vector leaf is FIXED_LEN_BYTE_ARRAY", name, el.Type.V)
		}
		if fsl != nil {
			return fixedSizeListInfo(info, el, fsl, hint)
		}
		info.Layout = LayoutFLBARaw
		if _, ok := el.LogicalType.Value.(*footer.VectorType); ok || ann != nil {
			info.Layout = LayoutFLBA
		}
		if hint != 0 {
			info.Element = hint
		}
		if ann != nil && ann.Element != "" {
			t, ok := ElementFromParquetName(ann.Element)
			if !ok {
				return info, nil, fmt.Errorf("column %s: VECTOR element %q is not one of FLOAT, DOUBLE, FLOAT16, INT8", name, ann.Element)
			}
			if hint != 0 && hint != t {
				return info, nil, fmt.Errorf("column %s: VECTOR element %s disagrees with the %s entry %v", name, ann.Element, ElementKey, hint)
			}
			info.Element = t
		}
		w := info.Element.Width()
		n := int(el.TypeLength.V)
		if n <= 0 || n%w != 0 {
			return info, nil, fmt.Errorf("column %s: FIXED_LEN_BYTE_ARRAY(%d) is not a multiple of the %v width %d", name, n, info.Element, w)
		}
		info.Dim = n / w
		if ann != nil && ann.VectorLength != 0 && int(ann.VectorLength) != info.Dim {
			return info, nil, fmt.Errorf("column %s: declared vector_length %d disagrees with FIXED_LEN_BYTE_ARRAY(%d) = %d %v elements",
				name, ann.VectorLength, n, info.Dim, info.Element)
		}
		return info, []string{name}, nil
	}
	var under []int // the middle group's children
	if c := tree.Children(top); len(c) == 1 {
		under = tree.Children(c[0])
	}
	if len(under) != 1 || s[under[0]].IsGroup() {
		return info, nil, fmt.Errorf("column %s is a group but not a 3-level list or vector: outer group, middle group, element", name)
	}
	mid, elem := &s[tree.Parent(under[0])], &s[under[0]]
	path := []string{name, mid.Name, elem.Name}
	if mid.RepetitionType.V == footer.Vector {
		if err := checkVectorRepetitionSchema(el, mid, elem); err != nil {
			return info, nil, fmt.Errorf("column %s: %w", name, err)
		}
	}
	et, err := elementFromLeaf(elem, hint)
	if err != nil {
		return info, nil, fmt.Errorf("column %s: %w", name, err)
	}
	info.Element = et
	switch mid.RepetitionType.V {
	case footer.Repeated:
		info.Layout = LayoutList
		info.MaxDef++
		info.MaxRep = 1
		if ann != nil && ann.VectorLength > 0 {
			info.Dim = int(ann.VectorLength)
		}
	case footer.Vector:
		info.Layout = LayoutVectorRepetition
		if !mid.VectorLength.Valid || mid.VectorLength.V <= 0 {
			return info, nil, fmt.Errorf("column %s: VECTOR group %s has no positive vector_length", name, mid.Name)
		}
		info.Dim = int(mid.VectorLength.V)
		if ann != nil && ann.VectorLength > 0 && int(ann.VectorLength) != info.Dim {
			return info, nil, fmt.Errorf("column %s: vector_length %d in the schema disagrees with %d in the key/value mirror", name, info.Dim, ann.VectorLength)
		}
	default:
		return info, nil, fmt.Errorf("column %s: middle group %s is %s, want REPEATED (list) or VECTOR", name, mid.Name, mid.RepetitionType.V)
	}
	switch elem.RepetitionType.V {
	case footer.Optional:
		info.NullableElements = true
		info.MaxDef++
	case footer.Required:
	default:
		return info, nil, fmt.Errorf("column %s: element is %s, want optional or required", name, elem.RepetitionType.V)
	}
	return info, path, nil
}

// fixedSizeListInfo describes the fixed-size-list column el, annotated
// fsl (ReadAnnotations found FIXED_SIZE_LIST on it). PR #241: "Readers must
// treat violating metadata as invalid", so an annotation CheckFixedSizeList
// refuses is an error, as is an element type the lab has none for (INT32,
// INT64, FIXED_LEN_BYTE_ARRAY) and a key/value ElementKey entry that
// disagrees.
func fixedSizeListInfo(info FileInfo, el *footer.SchemaElement, fsl *footer.Annotation, hint vector.ElementType) (FileInfo, []string, error) {
	name := el.Name
	t, ok, err := footer.AsFixedSizeList(el.LogicalType.Value, fsl.ID)
	switch {
	case err != nil:
		return info, nil, fmt.Errorf("column %s: %w", name, err)
	case !ok && el.LogicalType.Value != nil:
		return info, nil, fmt.Errorf("column %s: the key/value mirror says FIXED_SIZE_LIST (id %d), the footer %s", name, fsl.ID, el.LogicalType.String())
	case !ok:
		// Only the mirror is left (a tool dropped the annotation): it
		// records the struct's fields.
		typ := map[string]format.Type{"FLOAT": format.Float, "DOUBLE": format.Double, "INT32": format.Int32,
			"INT64": format.Int64, "FIXED_LEN_BYTE_ARRAY": format.FixedLenByteArray}
		tt, known := typ[fsl.Element]
		if !known {
			return info, nil, fmt.Errorf("column %s: the key/value mirror's FIXED_SIZE_LIST element %q is not a type PR #241 allows", name, fsl.Element)
		}
		t = &footer.FixedSizeListType{ID: fsl.ID, Type: tt, NumValues: fsl.VectorLength}
	}
	if err := footer.CheckFixedSizeList(t, el); err != nil {
		return info, nil, fmt.Errorf("column %s: invalid FIXED_SIZE_LIST metadata (PR #241: \"Readers must treat violating metadata as invalid\"): %w", name, err)
	}
	switch t.Type {
	case format.Float:
		info.Element = vector.Float32
	case format.Double:
		info.Element = vector.Float64
	default:
		return info, nil, fmt.Errorf("column %s: FIXED_SIZE_LIST(type=%s): valid, but the lab's vector reader reads FLOAT and DOUBLE elements only", name, t.Type)
	}
	if hint != 0 && hint != info.Element {
		return info, nil, fmt.Errorf("column %s: FIXED_SIZE_LIST(type=%s) disagrees with the %s entry %v", name, t.Type, ElementKey, hint)
	}
	info.Layout = LayoutFixedSizeList
	info.Dim = int(t.NumValues)
	return info, []string{name}, nil
}

// checkVectorRepetitionSchema checks the names and types PR #592 (head
// 94d5ced, LogicalTypes.md "Vectors") requires of the vector-repetition
// layout: "The outer-most level must be a group annotated with
// `LogicalType.VECTOR` that contains a single field named `list`"; "The
// middle level, named `list`, must be a group with `repetition_type =
// VECTOR`, exactly one field named `element`, and a positive
// `SchemaElement.vector_length`. It must not have a logical type or
// converted type."; and of vector_length, "This must be set, and positive,
// when repetition_type is VECTOR and must not be set otherwise". The
// outer group's annotation is not required (a footer rewrite by a tool that
// drops unknown logical types leaves the VECTOR repetition, which says as
// much), but another known type there (LIST, MAP, a converted type) is refused.
func checkVectorRepetitionSchema(outer, mid, elem *footer.SchemaElement) error {
	const pr = "PR #592"
	switch {
	case mid.Name != "list":
		return fmt.Errorf("the VECTOR-repeated middle group is named %q; %s: \"The middle level, named `list`\"", mid.Name, pr)
	case elem.Name != "element":
		return fmt.Errorf("the vector element is named %q; %s: the middle group has \"exactly one field named `element`\"", elem.Name, pr)
	case mid.LogicalType.Value != nil:
		return fmt.Errorf("the VECTOR-repeated middle group %q has logical type %s; %s: \"It must not have a logical type or converted type.\"", mid.Name, mid.LogicalType.String(), pr)
	case mid.ConvertedType.Valid:
		return fmt.Errorf("the VECTOR-repeated middle group %q has converted type %d; %s: \"It must not have a logical type or converted type.\"", mid.Name, mid.ConvertedType.V, pr)
	case outer.ConvertedType.Valid:
		return fmt.Errorf("the VECTOR group %q has converted type %d; %s: \"The outer-most level must be a group annotated with `LogicalType.VECTOR`\"", outer.Name, outer.ConvertedType.V, pr)
	case outer.VectorLength.Valid || elem.VectorLength.Valid:
		return fmt.Errorf("vector_length is set on a field whose repetition is not VECTOR; %s: vector_length \"must not be set otherwise\"", pr)
	}
	switch outer.LogicalType.Value.(type) {
	case nil, *footer.VectorType, *footer.FileType, *footer.UnknownLogicalType:
		// VECTOR under the lab's id, 19 (PR #592's, read as FILE by the
		// codec), another id, or dropped.
	default:
		return fmt.Errorf("the VECTOR group %q has logical type %s; %s: \"The outer-most level must be a group annotated with `LogicalType.VECTOR`\"", outer.Name, outer.LogicalType.String(), pr)
	}
	return nil
}

// inferListDim takes a list column's dimension from its first non-null
// vector; every other vector must then have as many elements. When that
// vector is the last row of its page, the pages after it may continue it
// (a row crossing a page boundary): it ends where a page starts a new row
// or the chunk ends.
func (f *File) inferListDim() error {
	for ci := range f.chunks {
		refs, err := f.pageRefs(ci)
		if err != nil {
			return err
		}
		open := -1 // elements of the first vector so far, when it is open
		for _, ref := range refs {
			p, err := f.decodePage(ref, 0)
			if err != nil {
				return err
			}
			if open >= 0 {
				open += len(p.head)
				if p.rows > 0 {
					break
				}
				continue
			}
			if p.dim > 0 {
				f.info.Dim = p.dim
				return nil
			}
			if p.lastCount > 0 {
				open = p.lastCount
			}
		}
		if open > 0 {
			f.info.Dim = open
			return nil
		}
	}
	return nil
}

// pageRef locates one page: its file offset and total size (header
// included) when known (-1 otherwise: the header tells).
type pageRef struct {
	chunk    int
	offset   int64
	size     int64
	firstRow int64 // within the file; -1 when not known
}

// pageRefs lists a chunk's data pages: from the OffsetIndex when there is
// one, else by walking the page headers.
func (f *File) pageRefs(ci int) ([]pageRef, error) {
	c := &f.chunks[ci]
	if c.pages != nil {
		refs := make([]pageRef, len(c.pages))
		for i, p := range c.pages {
			if p.Offset < c.start || p.Offset+int64(p.CompressedPageSize) > c.end {
				return nil, fmt.Errorf("%s: offset index page %d at [%d, %d) lies outside the column chunk [%d, %d)",
					f.info.Path, i, p.Offset, p.Offset+int64(p.CompressedPageSize), c.start, c.end)
			}
			refs[i] = pageRef{chunk: ci, offset: p.Offset, size: int64(p.CompressedPageSize), firstRow: c.firstRow + p.FirstRowIndex}
		}
		return refs, nil
	}
	var refs []pageRef
	var scratch []byte // the probes of an unmapped file, one buffer for all
	if f.mapped == nil {
		scratch = make([]byte, headerProbe)
	}
	for off := c.start; off < c.end; {
		h, hlen, _, err := f.readHeaderInto(scratch, off, c.end)
		if err != nil {
			return nil, err
		}
		size := int64(hlen) + int64(h.CompressedPageSize)
		if h.Type == format.DataPage || h.Type == format.DataPageV2 {
			refs = append(refs, pageRef{chunk: ci, offset: off, size: size, firstRow: -1})
		} else if h.Type == format.DictionaryPage && off != c.dictAt {
			return nil, fmt.Errorf("%s: dictionary page at byte %d: a column chunk has one dictionary page, first (at byte %d)", f.info.Path, off, c.dictAt)
		}
		off += size
	}
	return refs, nil
}

const headerProbe = 1 << 10

// readDictionary decodes the chunk's dictionary page, when it starts with
// one: PLAIN values of the element type (flba: whole cells). A chunk
// whose metadata names no dictionary page but starts with one (some
// writers leave dictionary_page_offset unset) is read the same way.
func (f *File) readDictionary(c *chunk) error {
	h, hlen, _, err := f.readHeader(c.start, c.end)
	if err != nil {
		return err
	}
	if h.Type != format.DictionaryPage {
		if c.dictAt >= 0 {
			return fmt.Errorf("dictionary_page_offset %d holds a %v page", c.dictAt, h.Type)
		}
		return nil
	}
	c.dictAt = c.start
	where := fmt.Sprintf("dictionary page at byte %d", c.start)
	if !h.DictionaryPageHeader.Valid {
		return fmt.Errorf("%s: no dictionary_page_header", where)
	}
	d := h.DictionaryPageHeader.V
	if d.Encoding != format.Plain && d.Encoding != format.PlainDictionary {
		return fmt.Errorf("%s: values in %v; the spec says PLAIN", where, d.Encoding)
	}
	if d.NumValues < 0 || int64(d.NumValues) > int64(pages.MaxPageBytes) {
		return fmt.Errorf("%s: num_values %d is outside [0, %d]", where, d.NumValues, pages.MaxPageBytes)
	}
	body := make([]byte, h.CompressedPageSize)
	if err := footer.ReadFull(f.r, body, c.start+int64(hlen)); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	// A corrupt dictionary changes every value that points into it: its
	// CRC is checked as the data pages' are (the file is read at open,
	// before SkipChecksums can apply).
	if err := f.checkCRC(h, body); err != nil {
		return fmt.Errorf("%s, column %s: %w", where, strings.Join(f.leafPath, "."), err)
	}
	if c.meta.Codec != format.Uncompressed {
		if body, err = pages.Decompress(c.meta.Codec, body, int(h.UncompressedPageSize), (*pageBuffers)(nil).get); err != nil {
			return fmt.Errorf("%s: decompress: %w", where, err)
		}
	}
	flba := f.info.Layout.flat()
	vals, _, err := decodeFloats(body, int(d.NumValues), format.Plain, flba, f.info.Dim, f.info.Element)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	c.dict, c.dictEntries = slices.Clone(vals), int(d.NumValues)
	return nil
}

// dictionaryValues gathers n dictionary entries by the RLE/bit-packed
// indices of a dictionary-encoded data page (a bit-width byte, then the
// runs).
func dictionaryValues(c *chunk, src []byte, n, width int) ([]float32, error) {
	if c.dict == nil {
		return nil, errors.New("dictionary-encoded values without a dictionary page")
	}
	if n == 0 {
		return nil, nil
	}
	if len(src) < 1 || src[0] > 32 {
		return nil, fmt.Errorf("dictionary indices: no valid bit width")
	}
	e := rle.Encoding{BitWidth: int(src[0])}
	idx, err := e.DecodeInt32(make([]int32, 0, n+8), src[1:])
	if err != nil {
		return nil, fmt.Errorf("dictionary indices: %w", err)
	}
	if len(idx) < n {
		return nil, fmt.Errorf("dictionary indices: %d decoded, the page has %d values", len(idx), n)
	}
	out := make([]float32, 0, n*width)
	for i, j := range idx[:n] {
		if j < 0 || int(j) >= c.dictEntries {
			return nil, fmt.Errorf("dictionary index %d at value %d: the dictionary has %d entries", j, i, c.dictEntries)
		}
		out = append(out, c.dict[int(j)*width:int(j+1)*width]...)
	}
	return out, nil
}

// readHeader decodes the page header at off; prefix holds the bytes read,
// the header and whatever of the body followed it.
func (f *File) readHeader(off, end int64) (format.PageHeader, int, []byte, error) {
	return f.readHeaderInto(nil, off, end)
}

// readHeaderInto is readHeader reading into scratch when the file is not
// mapped and scratch is large enough, so that a loop over many headers
// (pageRefs without an offset index) allocates once.
func (f *File) readHeaderInto(scratch []byte, off, end int64) (format.PageHeader, int, []byte, error) {
	for probe := int64(headerProbe); ; probe *= 16 {
		n := min(probe, end-off)
		if n <= 0 {
			return format.PageHeader{}, 0, nil, fmt.Errorf("%s: page header at byte %d: past the end of the column chunk", f.info.Path, off)
		}
		buf, err := f.bytesInto(scratch, int(n), off)
		if err != nil {
			return format.PageHeader{}, 0, nil, fmt.Errorf("%s: page header at byte %d: %w", f.info.Path, off, err)
		}
		h, hlen, err := pages.DecodeHeader(buf)
		if err == nil {
			if off+int64(hlen)+int64(h.CompressedPageSize) > end {
				return h, 0, nil, fmt.Errorf("%s: page header at byte %d: page of %d bytes overruns the column chunk ending at %d",
					f.info.Path, off, h.CompressedPageSize, end)
			}
			return h, hlen, buf, nil
		}
		if n == end-off || probe > 1<<24 {
			return h, 0, nil, fmt.Errorf("%s: page header at byte %d: %w", f.info.Path, off, err)
		}
	}
}

// decodedPage is one data page turned into float32 rows.
type decodedPage struct {
	rows int
	// present marks the non-null rows; nil when every row is present.
	present []bool
	// vectors holds the present rows, dim elements each, contiguous. Null
	// elements are NaN. It may alias the page buffer (zero copy).
	vectors []float32
	dim     int
	// zeroCopy reports that vectors aliases the bytes read from the file.
	zeroCopy bool
	// bss, when not nil, holds the present rows still BYTE_STREAM_SPLIT
	// encoded, vectors being nil: only a fused scan's decoders
	// (pageBuffers.deferBSS) leave them so, to decode them in row tiles.
	bss *bssRows
	// buf is the pooled decompression buffer vectors may alias (nil when
	// none): it goes back to its pool once the page's block is scored;
	// bufRead says it is a read buffer (File.ReadPages), which has a pool
	// of its own.
	buf     []byte
	bufRead bool

	// Rows crossing pages (LIST pages only; see assembleList). head holds
	// the values that continue the previous page's last row (NaN for null
	// elements) out of headEntries level entries, headNulls of which
	// continue a null row. tail > 0: the last row is cut after tail
	// elements (the last tail of vectors). lastNull: the last row is null,
	// so the next page may continue it with null entries. lastCount: the
	// last row's elements on this page.
	head        []float32
	headEntries int
	headNulls   int
	tail        int
	lastNull    bool
	lastCount   int
}

// pageLayout is where the parts of a page sit.
type pageLayout struct {
	h          format.PageHeader
	hlen       int
	numValues  int
	encoding   format.Encoding
	v2         bool
	compressed bool // the values (v2) or the whole body (v1) are compressed
}

func (f *File) parseHeader(h format.PageHeader, hlen int, c *chunk) (pageLayout, error) {
	pl := pageLayout{h: h, hlen: hlen, compressed: c.meta.Codec != format.Uncompressed}
	switch h.Type {
	case format.DataPage:
		if !h.DataPageHeader.Valid {
			return pl, errors.New("DATA_PAGE without its data_page_header")
		}
		d := h.DataPageHeader.V
		pl.numValues, pl.encoding = int(d.NumValues), d.Encoding
		if f.info.MaxDef > 0 && d.DefinitionLevelEncoding != format.RLE {
			return pl, fmt.Errorf("definition levels in %v; only RLE is supported", d.DefinitionLevelEncoding)
		}
		if f.info.MaxRep > 0 && d.RepetitionLevelEncoding != format.RLE {
			return pl, fmt.Errorf("repetition levels in %v; only RLE is supported", d.RepetitionLevelEncoding)
		}
	case format.DataPageV2:
		if !h.DataPageHeaderV2.Valid {
			return pl, errors.New("DATA_PAGE_V2 without its data_page_header_v2")
		}
		d := h.DataPageHeaderV2.V
		pl.v2 = true
		pl.numValues, pl.encoding = int(d.NumValues), d.Encoding
		if d.IsCompressed.Valid && !d.IsCompressed.V {
			pl.compressed = false
		}
		if d.DefinitionLevelsByteLength < 0 || d.RepetitionLevelsByteLength < 0 ||
			int64(d.DefinitionLevelsByteLength)+int64(d.RepetitionLevelsByteLength) > int64(h.CompressedPageSize) {
			return pl, errors.New("DATA_PAGE_V2 level lengths exceed the page")
		}
	default:
		return pl, fmt.Errorf("page type %v where a data page was expected", h.Type)
	}
	if pl.numValues < 0 || pl.numValues > pages.MaxPageBytes {
		return pl, fmt.Errorf("num_values %d is outside [0, %d]", pl.numValues, pages.MaxPageBytes)
	}
	switch pl.encoding {
	case format.Plain, format.ByteStreamSplit:
	case format.RLEDictionary, format.PlainDictionary:
		if c.dict == nil {
			return pl, fmt.Errorf("values in %v, and the column chunk has no dictionary page", pl.encoding)
		}
	default:
		return pl, fmt.Errorf("values in %v; this reader decodes PLAIN, BYTE_STREAM_SPLIT and dictionary indices", pl.encoding)
	}
	return pl, nil
}

// valuesOffset is where the values start in the body as stored, when it can
// be known from the header and the probe (-1 otherwise).
func (f *File) valuesOffset(pl pageLayout, probe []byte) int {
	if pl.v2 {
		d := pl.h.DataPageHeaderV2.V
		return int(d.DefinitionLevelsByteLength + d.RepetitionLevelsByteLength)
	}
	if pl.compressed || f.info.MaxRep > 0 {
		return -1
	}
	if f.info.MaxDef == 0 {
		return 0
	}
	body := probe[pl.hlen:]
	if len(body) < 4 {
		return -1
	}
	return 4 + int(binary.LittleEndian.Uint32(body))
}

// alignedBody returns a buffer of n bytes placed so that byte at of it sits
// on a 4-byte boundary (at < 0: no preference).
func alignedBody(n, at int) []byte {
	buf := make([]byte, n+3)
	if at < 0 {
		return buf[:n:n]
	}
	s := 0
	for (uintptr(unsafe.Pointer(unsafe.SliceData(buf)))+uintptr(s+at))%4 != 0 {
		s++
	}
	return buf[s : s+n : s+n]
}

// decodePage reads and decodes the page at ref. wantDim is the expected
// dimension (0: take it from the page, list only).
func (f *File) decodePage(ref pageRef, wantDim int) (decodedPage, error) {
	return f.decodePageWith(ref, wantDim, nil)
}

// decodePageWith is decodePage taking its decompression buffer from bufs
// (nil: a new one); the page then holds it in buf.
func (f *File) decodePageWith(ref pageRef, wantDim int, bufs *pageBuffers) (decodedPage, error) {
	if f.mapped == nil && f.noMap && bufs != nil && ref.size > 0 {
		return f.readAndDecode(ref, wantDim, bufs)
	}
	c := &f.chunks[ref.chunk]
	h, hlen, probe, err := f.readHeader(ref.offset, c.end)
	if err != nil {
		return decodedPage{}, err
	}
	where := func() string { return fmt.Sprintf("%s: page at byte %d", f.info.Path, ref.offset) }
	pl, err := f.parseHeader(h, hlen, c)
	if err != nil {
		return decodedPage{}, fmt.Errorf("%s: %w", where(), err)
	}
	body, err := f.pageBody(ref, h, hlen, probe, f.valuesOffset(pl, probe))
	if err != nil {
		return decodedPage{}, fmt.Errorf("%s: %w", where(), err)
	}
	return f.checkAndDecode(h, pl, c, body, wantDim, bufs, where)
}

// pageBody is the body of the page at ref, whose header (h, hlen bytes)
// came with probe: in place in the mapping, compressed or not, or read
// into a new buffer placed so that byte valuesAt sits on a 4-byte boundary
// (valuesAt < 0: no preference).
func (f *File) pageBody(ref pageRef, h format.PageHeader, hlen int, probe []byte, valuesAt int) ([]byte, error) {
	n := int(h.CompressedPageSize)
	if f.mapped != nil {
		at := ref.offset + int64(hlen)
		return f.mapped[at : at+int64(n) : at+int64(n)], nil
	}
	body := alignedBody(n, valuesAt)
	have := copy(body, probe[min(hlen, len(probe)):])
	if have < n {
		if err := footer.ReadFull(f.r, body[have:], ref.offset+int64(hlen)+int64(have)); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// readAndDecode is decodePageWith for File.ReadPages: the whole page,
// header and body, comes with one ReadAt into a recycled buffer, which the
// page then holds while its vectors may view it.
func (f *File) readAndDecode(ref pageRef, wantDim int, bufs *pageBuffers) (decodedPage, error) {
	c := &f.chunks[ref.chunk]
	where := func() string { return fmt.Sprintf("%s: page at byte %d", f.info.Path, ref.offset) }
	if ref.size > int64(pages.MaxPageBytes)+headerProbe<<8 {
		return decodedPage{}, fmt.Errorf("%s: a page of %d bytes is over the %d this reader takes", where(), ref.size, pages.MaxPageBytes)
	}
	read := bufs.getRead(int(ref.size))
	raw := read[:ref.size:ref.size]
	if err := footer.ReadFull(f.r, raw, ref.offset); err != nil {
		bufs.putRead(read)
		return decodedPage{}, fmt.Errorf("%s: %w", where(), err)
	}
	p, compressed, err := f.decodeRaw(c, raw, wantDim, bufs, where)
	switch {
	case err != nil:
		bufs.putRead(read)
	case !compressed && p.buf == nil:
		// The vectors may view the read buffer (PLAIN values, in place):
		// it returns to the pool with the block.
		p.buf, p.bufRead = read, true
	default:
		// Decompressed, or decoded into a buffer of their own: nothing
		// views the page as read.
		bufs.putRead(read)
	}
	return p, err
}

// decodeRaw decodes a page read whole: raw holds its header and body.
func (f *File) decodeRaw(c *chunk, raw []byte, wantDim int, bufs *pageBuffers, where func() string) (decodedPage, bool, error) {
	h, hlen, err := pages.DecodeHeader(raw)
	if err != nil {
		return decodedPage{}, false, fmt.Errorf("%s: page header: %w", where(), err)
	}
	n := int64(h.CompressedPageSize)
	if n > int64(len(raw)-hlen) {
		return decodedPage{}, false, fmt.Errorf("%s: page of %d bytes overruns the %d its offset index gives it", where(), hlen+int(n), len(raw))
	}
	pl, err := f.parseHeader(h, hlen, c)
	if err != nil {
		return decodedPage{}, false, fmt.Errorf("%s: %w", where(), err)
	}
	p, err := f.checkAndDecode(h, pl, c, raw[hlen:int64(hlen)+n:int64(hlen)+n], wantDim, bufs, where)
	return p, pl.compressed, err
}

// checkAndDecode verifies the page's CRC and decodes its body.
func (f *File) checkAndDecode(h format.PageHeader, pl pageLayout, c *chunk, body []byte, wantDim int, bufs *pageBuffers, where func() string) (decodedPage, error) {
	if err := f.checkCRC(h, body); err != nil {
		return decodedPage{}, fmt.Errorf("%s, column %s: %w", where(), strings.Join(f.leafPath, "."), err)
	}
	p, err := f.decodeBody(pl, c, body, wantDim, bufs)
	if err != nil {
		return decodedPage{}, fmt.Errorf("%s: %w", where(), err)
	}
	return p, nil
}

// decodeBody turns a page body into rows. The body is the page as stored
// (compressed or not); the result may alias it.
func (f *File) decodeBody(pl pageLayout, c *chunk, body []byte, wantDim int, bufs *pageBuffers) (p decodedPage, err error) {
	info := &f.info
	var buf []byte // the decompression buffer, from bufs
	defer func() {
		if err != nil {
			bufs.put(buf)
		} else {
			p.buf = buf
		}
	}()
	var repBytes, defBytes, vals []byte
	if pl.v2 {
		d := pl.h.DataPageHeaderV2.V
		repBytes = body[:d.RepetitionLevelsByteLength]
		defBytes = body[d.RepetitionLevelsByteLength : d.RepetitionLevelsByteLength+d.DefinitionLevelsByteLength]
		vals = body[d.RepetitionLevelsByteLength+d.DefinitionLevelsByteLength:]
		if pl.compressed {
			out, err := pages.Decompress(c.meta.Codec, vals, int(pl.h.UncompressedPageSize)-len(repBytes)-len(defBytes), bufs.get)
			if err != nil {
				return decodedPage{}, fmt.Errorf("decompress: %w", err)
			}
			vals, buf = out, out
		}
	} else {
		raw := body
		if pl.compressed {
			out, err := pages.Decompress(c.meta.Codec, body, int(pl.h.UncompressedPageSize), bufs.get)
			if err != nil {
				return decodedPage{}, fmt.Errorf("decompress: %w", err)
			}
			raw, buf = out, out
		}
		var err error
		if info.MaxRep > 0 {
			repBytes, raw, err = pages.LengthPrefixed(raw, "repetition")
			if err != nil {
				return decodedPage{}, err
			}
		}
		if info.MaxDef > 0 {
			defBytes, raw, err = pages.LengthPrefixed(raw, "definition")
			if err != nil {
				return decodedPage{}, err
			}
		}
		// After a level prefix the values may not start on a 4-byte
		// boundary; decodeFloats views them unaligned where the CPU allows
		// and copies them where it does not.
		vals = raw
	}
	nv := pl.numValues
	if p, ok, err := f.fixedRowsPage(pl, c, repBytes, defBytes, vals, wantDim, bufs, &buf); ok || err != nil {
		return p, err
	}
	var reps, defs []byte
	if info.MaxRep > 0 {
		if reps, err = pages.DecodeLevels(repBytes, info.MaxRep, nv, "repetition"); err != nil {
			return decodedPage{}, err
		}
	}
	if info.MaxDef > 0 {
		if defs, err = pages.DecodeLevels(defBytes, info.MaxDef, nv, "definition"); err != nil {
			return decodedPage{}, err
		}
	}
	nonNull := nv
	if defs != nil {
		nonNull = 0
		for _, d := range defs {
			if int(d) == info.MaxDef {
				nonNull++
			}
		}
	}
	flba := info.Layout.flat()
	var elems []float32
	var zero bool
	var deferred *bssRows
	if pl.encoding == format.RLEDictionary || pl.encoding == format.PlainDictionary {
		width := 1
		if flba {
			width = info.Dim
		}
		elems, err = dictionaryValues(c, vals, nonNull, width)
	} else {
		elems, zero, deferred, err = decodeFloatsOrDefer(vals, nonNull, pl.encoding, flba, info.Dim, info.Element, bufs, &buf)
	}
	if err != nil {
		return decodedPage{}, err
	}
	if deferred != nil && !flba && (info.Layout != LayoutVectorRepetition || defs != nil) {
		// The general paths read the values one by one.
		if elems, err = deferred.decode(bufs, &buf); err != nil {
			return decodedPage{}, err
		}
		deferred = nil
	}
	zero = zero && !pl.compressed
	switch info.Layout {
	case LayoutFLBA, LayoutFLBARaw, LayoutFixedSizeList:
		p := decodedPage{rows: nv, vectors: elems, dim: info.Dim, zeroCopy: zero, bss: deferred}
		if defs != nil && nonNull != nv {
			p.present = make([]bool, nv)
			for i, d := range defs {
				p.present[i] = d == 1
			}
		}
		return p, nil
	case LayoutVectorRepetition:
		p, err := assembleFixed(info, nv, defs, elems, zero)
		p.bss = deferred
		return p, err
	default:
		return assembleList(info, nv, reps, defs, elems, wantDim)
	}
}

// fixedRowsFastPath turns fixedRowsPage on; tests turn it off to compare
// it with the general path.
var fixedRowsFastPath = true

// fixedRowsPage is the fast path for a LIST or vector-repetition page of
// whole vectors without nulls, the common case of every writer: when the
// levels verify as that pattern (see levels.go), the values are the rows'
// matrix as they stand and no level is expanded. ok is false when the page
// is anything else; decodeBody then takes the general path.
func (f *File) fixedRowsPage(pl pageLayout, c *chunk, repBytes, defBytes, vals []byte, wantDim int, bufs *pageBuffers, hold *[]byte) (p decodedPage, ok bool, err error) {
	if !fixedRowsFastPath {
		return p, false, nil
	}
	info := &f.info
	dim := info.Dim
	if wantDim != 0 {
		dim = wantDim
	}
	nv := pl.numValues
	// head is how many entries continue the previous page's last row: a
	// writer that cuts pages by size (DuckDB) lets rows cross them, and the
	// page then starts with them and may end inside a row too.
	head := 0
	switch {
	case dim <= 0:
		return p, false, nil
	case info.Layout == LayoutList:
		if info.MaxRep != 1 {
			return p, false, nil
		}
		var ok bool
		if head, ok = pages.LeadingRepetitions(repBytes, nv, dim); !ok || !pages.RowPatternLevels(repBytes, nv, dim, (dim-head)%dim) {
			return p, false, nil
		}
	case info.Layout == LayoutVectorRepetition:
		if info.MaxRep != 0 || nv%dim != 0 {
			return p, false, nil
		}
	default:
		return p, false, nil
	}
	if info.MaxDef > 0 && !pages.ConstantLevels(defBytes, nv, pages.LevelWidth(info.MaxDef), uint64(info.MaxDef)) {
		return p, false, nil
	}
	var elems []float32
	zero := false
	var deferred *bssRows
	if pl.encoding == format.RLEDictionary || pl.encoding == format.PlainDictionary {
		elems, err = dictionaryValues(c, vals, nv, 1)
	} else {
		elems, zero, deferred, err = decodeFloatsOrDefer(vals, nv, pl.encoding, false, dim, info.Element, bufs, hold)
	}
	if err != nil {
		return p, false, err
	}
	if deferred != nil {
		if head == 0 && nv%dim == 0 {
			// Whole rows from the first value on: the scan decodes them
			// in row tiles.
			return decodedPage{rows: nv / dim, dim: dim, lastCount: dim, bss: deferred}, true, nil
		}
		if elems, err = deferred.decode(bufs, hold); err != nil {
			return p, false, err
		}
	}
	if len(elems) != nv {
		return p, false, fmt.Errorf("%d values decoded, the levels define %d", len(elems), nv)
	}
	rowEntries := nv - head
	p = decodedPage{rows: (rowEntries + dim - 1) / dim, vectors: elems[head:], dim: dim, zeroCopy: zero && !pl.compressed,
		tail: rowEntries % dim, lastCount: dim}
	if head > 0 {
		p.head, p.headEntries = elems[:head], head
	}
	if p.tail > 0 {
		p.lastCount = p.tail
	}
	return p, true, nil
}

// decodeFloats decodes n values into float32: elements of type elem, or
// FIXED_LEN_BYTE_ARRAY cells of dim elements (flba). PLAIN float32 bytes are
// aliased when aligned; every other element type is converted.
func decodeFloats(src []byte, n int, enc format.Encoding, flba bool, dim int, elem vector.ElementType) ([]float32, bool, error) {
	return decodeFloatsInto(src, n, enc, flba, dim, elem, nil, nil)
}

// decodeFloatsInto is decodeFloats taking the buffer BYTE_STREAM_SPLIT
// decodes into from bufs: a fresh allocation per page costs as much as the
// transpose (zeroing a page's worth of memory, then collecting it). hold is
// the buffer the page keeps until its block is scored: the BSS output
// replaces it (the decompressed bytes are done with) and goes back to bufs
// with the block.
func decodeFloatsInto(src []byte, n int, enc format.Encoding, flba bool, dim int, elem vector.ElementType, bufs *pageBuffers, hold *[]byte) ([]float32, bool, error) {
	size := storedWidth(elem) // bytes per value
	if flba {
		size = elem.VectorBytes(dim)
	}
	if want := n * size; len(src) != want {
		if flba {
			return nil, false, fmt.Errorf("%d value bytes for %d FIXED_LEN_BYTE_ARRAY(%d) cells (%d bytes): the cell length is not dim × %d or the page is corrupt", len(src), n, size, want, elem.Width())
		}
		return nil, false, fmt.Errorf("%d value bytes for %d %v values of %d bytes (%d bytes)", len(src), n, elem, size, want)
	}
	if enc == format.ByteStreamSplit {
		// The lab's own transpose (bss.go): parquet-go's decoder runs at
		// about 1 GB/s, a tenth of what a scan needs.
		var b []byte
		if hold != nil {
			b = bufs.get(len(src))
		} else {
			b = alignedBody(len(src), 0)
		}
		if err := pages.DecodeBSS(b, src, size); err != nil {
			bufs.put(b)
			return nil, false, err
		}
		if hold != nil {
			bufs.put(*hold)
			*hold = b
		}
		if elem == vector.Float32 {
			v, _ := vector.Float32s(b)
			return v, false, nil
		}
		src = b
	} else if elem == vector.Float32 {
		if v, ok := vector.Float32ViewUnaligned(src); ok {
			return v, true, nil
		}
	}
	if flba {
		v, err := elem.DecodeAppend(make([]float32, 0, n*dim), src)
		return v, false, err
	}
	v, err := decodeStored(elem, make([]float32, 0, n), src)
	return v, false, err
}

// assembleFixed builds the rows of a vector-repetition page: num_values is
// rows × N, a null vector has level 0 in all its N slots.
func assembleFixed(info *FileInfo, nv int, defs []byte, elems []float32, zero bool) (decodedPage, error) {
	dim := info.Dim
	if nv%dim != 0 {
		return decodedPage{}, fmt.Errorf("num_values %d is not a multiple of the declared vector_length %d", nv, dim)
	}
	rows := nv / dim
	p := decodedPage{rows: rows, dim: dim}
	if defs == nil {
		p.vectors, p.zeroCopy = elems, zero
		return p, nil
	}
	present := 0
	elemNulls := false
	for r := range rows {
		lv := defs[r*dim : (r+1)*dim]
		isNull := info.Nullable && lv[0] == 0
		for j, l := range lv {
			if info.Nullable && (l == 0) != isNull {
				return decodedPage{}, fmt.Errorf("row %d of the page: slot %d has definition level %d while slot 0 has %d: a vector is null in all its slots or none", r, j, l, lv[0])
			}
			if !isNull && int(l) != info.MaxDef {
				elemNulls = true
			}
		}
		if isNull {
			if p.present == nil {
				p.present = make([]bool, rows)
				for k := range r {
					p.present[k] = true
				}
			}
			continue
		}
		if p.present != nil {
			p.present[r] = true
		}
		present++
	}
	if !elemNulls {
		// The values of the present rows are contiguous already.
		p.vectors, p.zeroCopy = elems, zero
		return p, nil
	}
	out := make([]float32, 0, present*dim)
	k := 0
	for r := range rows {
		if p.present != nil && !p.present[r] {
			continue
		}
		for _, l := range defs[r*dim : (r+1)*dim] {
			if int(l) == info.MaxDef {
				out = append(out, elems[k])
				k++
			} else {
				out = append(out, float32(math.NaN()))
			}
		}
	}
	p.vectors = out
	return p, nil
}

// assembleList builds the rows of a LIST page. Levels: 0 = null vector
// (when nullable), the list level = empty list, maxDef−1 = null element
// (when elements are nullable), maxDef = a value.
//
// A writer may let a row cross a page boundary (DuckDB does in V1 pages,
// as the format allows: only V2 pages and pages under a page index must
// start at a row). Entries before the page's first repetition level 0
// continue the previous page's last row and go to head; a last row that
// holds fewer than dim elements is cut, its elements so far sitting at the
// end of vectors, counted by tail. Rows are counted where they start.
// With dim unknown (0, as inferListDim asks) the last row's count cannot
// tell a cut row from a whole one: dim is then taken from an earlier row,
// or left 0 with lastCount giving the last row's elements on this page.
func assembleList(info *FileInfo, nv int, reps, defs []byte, elems []float32, dim int) (decodedPage, error) {
	nullDef := -1
	if info.Nullable {
		nullDef = 0
	}
	emptyDef := info.MaxDef - 1
	if info.NullableElements {
		emptyDef--
	}
	if dim == 0 {
		dim = info.Dim
	}
	var p decodedPage
	var present []bool
	anyNull := false
	var out []float32 // the present rows' elements, once a copy is needed
	copied := false
	base := 0                // elements of the head, which the rows' vectors leave out
	rows, k, cur := 0, 0, -1 // cur counts the current row's elements
	finish := func() error {
		if cur < 0 || !present[rows-1] {
			return nil
		}
		if dim == 0 {
			dim = cur
		}
		if cur != dim {
			return fmt.Errorf("row %d of the page has %d elements, the column dimension is %d", rows-1, cur, dim)
		}
		return nil
	}
	for i := range nv {
		d := int(defs[i])
		if reps[i] == 0 {
			if err := finish(); err != nil {
				return decodedPage{}, err
			}
			if rows == 0 {
				base = k
			}
			rows++
			present = append(present, true)
			cur = 0
			if d == nullDef {
				present[rows-1] = false
				anyNull = true
				cur = -1
				continue
			}
			if d == emptyDef {
				continue // an empty list: finish reports 0 elements
			}
		} else if rows == 0 {
			// Before the first row: the previous page's last row goes on.
			p.headEntries++
			switch {
			case d == info.MaxDef:
				p.head = append(p.head, elems[k])
				k++
			case info.NullableElements && d == info.MaxDef-1:
				p.head = append(p.head, float32(math.NaN()))
			case d <= emptyDef && (nullDef < 0 || d == nullDef):
				p.headNulls++ // continues a null FLOAT[N] (see below)
			default:
				return decodedPage{}, fmt.Errorf("value %d: definition level %d continuing the previous page's row", i, d)
			}
			continue
		} else if cur < 0 {
			// DuckDB writes a null FLOAT[N] as N entries, the rest
			// repeating inside the null list below any present level:
			// nothing can follow a null list, so they mean nothing else.
			if d <= emptyDef && (nullDef < 0 || d == nullDef) {
				continue
			}
			return decodedPage{}, fmt.Errorf("value %d continues a null vector", i)
		}
		switch {
		case d == info.MaxDef:
			if copied {
				out = append(out, elems[k])
			}
			k++
		case info.NullableElements && d == info.MaxDef-1:
			if !copied {
				// First null element: from here on build a copy.
				out = append(make([]float32, 0, len(elems)+nv), elems[base:k]...)
				copied = true
			}
			out = append(out, float32(math.NaN()))
		default:
			return decodedPage{}, fmt.Errorf("value %d: definition level %d inside a vector", i, d)
		}
		cur++
	}
	if k != len(elems) {
		return decodedPage{}, fmt.Errorf("%d values decoded, the levels define %d", len(elems), k)
	}
	if !copied {
		out = elems[base:]
	}
	// The last row: whole, cut by the page end, or (dim unknown) either.
	if rows > 0 && cur >= 0 && present[rows-1] {
		p.lastCount = cur
		switch {
		case dim == 0:
			// Nothing earlier fixed the dimension: the caller decides.
		case cur > dim:
			return decodedPage{}, fmt.Errorf("row %d of the page has %d elements, the column dimension is %d", rows-1, cur, dim)
		case cur < dim && cur > 0:
			p.tail = cur
		case cur == 0 && dim > 0:
			// An empty list is a whole row of 0 elements, not a cut one.
			return decodedPage{}, fmt.Errorf("row %d of the page has 0 elements, the column dimension is %d", rows-1, dim)
		}
	}
	p.rows, p.vectors, p.dim = rows, out, dim
	if anyNull {
		p.present = present
	}
	p.lastNull = rows > 0 && !present[rows-1]
	return p, nil
}
