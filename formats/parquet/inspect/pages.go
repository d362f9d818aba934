package inspect

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
)

// PagesReport is what `lab pages` prints, as parquet-cli's pages command
// does: every page header of every column chunk, and each chunk's column
// index and offset index. Unlike Report it reads past the footer, so every
// read is bounded by what the footer declares and the file holds.
type PagesReport struct {
	File      string      `json:"file"`
	Size      int64       `json:"size"`
	RowGroups []PageGroup `json:"row_groups"`
}

// PageGroup is one row group's column chunks.
type PageGroup struct {
	Index   int          `json:"index"`
	NumRows int64        `json:"num_rows"`
	Columns []ChunkPages `json:"columns"`
}

// ChunkPages is one column chunk: where its pages lie and their headers.
type ChunkPages struct {
	Path         []string       `json:"path"`
	PhysicalType string         `json:"physical_type"`
	Codec        string         `json:"codec"`
	Offset       int64          `json:"offset"` // the first page: the dictionary page if any
	Length       int64          `json:"length"` // total_compressed_size
	NumValues    int64          `json:"num_values"`
	Pages        []PageHeader   `json:"pages"`
	ColumnIndex  *ColumnIndex   `json:"column_index,omitempty"`
	OffsetIndex  []PageLocation `json:"offset_index,omitempty"`
	Encrypted    bool           `json:"encrypted,omitempty"` // no metadata to walk the pages by
	// leaf is the schema's leaf at Path, nil when there is none: its type
	// reads the bounds, as in Report's statistics.
	leaf *Node
}

// PageHeader is one page header. Fields a page type does not have are
// omitted: level encodings for DATA_PAGE, level lengths, nulls and rows for
// DATA_PAGE_V2, sorted for DICTIONARY_PAGE.
type PageHeader struct {
	Offset                     int64       `json:"offset"`
	HeaderLength               int64       `json:"header_length"`
	Type                       string      `json:"type"`
	CompressedSize             int32       `json:"compressed_size"`
	UncompressedSize           int32       `json:"uncompressed_size"`
	NumValues                  int32       `json:"num_values"`
	NumNulls                   *int32      `json:"num_nulls,omitempty"`
	NumRows                    *int32      `json:"num_rows,omitempty"`
	Encoding                   string      `json:"encoding,omitempty"`
	DefinitionLevelEncoding    string      `json:"definition_level_encoding,omitempty"`
	RepetitionLevelEncoding    string      `json:"repetition_level_encoding,omitempty"`
	DefinitionLevelsByteLength *int32      `json:"definition_levels_byte_length,omitempty"`
	RepetitionLevelsByteLength *int32      `json:"repetition_levels_byte_length,omitempty"`
	IsCompressed               *bool       `json:"is_compressed,omitempty"`
	IsSorted                   *bool       `json:"is_sorted,omitempty"`
	HasCRC                     bool        `json:"has_crc"`
	Statistics                 *Statistics `json:"statistics,omitempty"`
}

// ColumnIndex is a chunk's column index: per page whether it holds only
// nulls, its bounds and null count.
type ColumnIndex struct {
	BoundaryOrder string      `json:"boundary_order"`
	Pages         []PageBound `json:"pages"`
}

// PageBound is one page of a column index.
type PageBound struct {
	NullPage  bool   `json:"null_page"`
	Min       string `json:"min,omitempty"`
	Max       string `json:"max,omitempty"`
	NullCount *int64 `json:"null_count,omitempty"`
	minBytes  int
	maxBytes  int
	// minText and maxText are the bounds as the column's registered type
	// formats them, as Statistics' are.
	minText, maxText string
}

// PageLocation is one page of an offset index.
type PageLocation struct {
	Offset         int64 `json:"offset"`
	CompressedSize int32 `json:"compressed_size"`
	FirstRowIndex  int64 `json:"first_row_index"`
}

// MaxPageHeader bounds the bytes one page header may take: the page
// stack's bound (16 MiB, Arrow C++'s default).
const MaxPageHeader = pages.MaxHeaderBytes

// MaxPages bounds the page headers one report holds: each costs far more
// than the few bytes a hostile header takes in the file.
const MaxPages = 1 << 20

// pageHeader is parquet-format's PageHeader with the presence of the CRC
// and of the statistics kept (parquet-go's model drops both).
type pageHeader struct {
	Type                 format.PageType                          `thrift:"1,required"`
	UncompressedPageSize int32                                    `thrift:"2,required"`
	CompressedPageSize   int32                                    `thrift:"3,required"`
	CRC                  thrift.Null[int32]                       `thrift:"4,optional"`
	DataPageHeader       *dataPageHeader                          `thrift:"5,optional"`
	IndexPageHeader      thrift.Null[format.IndexPageHeader]      `thrift:"6,optional"`
	DictionaryPageHeader thrift.Null[format.DictionaryPageHeader] `thrift:"7,optional"`
	DataPageHeaderV2     *dataPageHeaderV2                        `thrift:"8,optional"`
}

type dataPageHeader struct {
	NumValues               int32              `thrift:"1,required"`
	Encoding                format.Encoding    `thrift:"2,required"`
	DefinitionLevelEncoding format.Encoding    `thrift:"3,required"`
	RepetitionLevelEncoding format.Encoding    `thrift:"4,required"`
	Statistics              *footer.Statistics `thrift:"5,optional"`
}

type dataPageHeaderV2 struct {
	NumValues                  int32              `thrift:"1,required"`
	NumNulls                   int32              `thrift:"2,required"`
	NumRows                    int32              `thrift:"3,required"`
	Encoding                   format.Encoding    `thrift:"4,required"`
	DefinitionLevelsByteLength int32              `thrift:"5,required"`
	RepetitionLevelsByteLength int32              `thrift:"6,required"`
	IsCompressed               thrift.Null[bool]  `thrift:"7,optional"`
	Statistics                 *footer.Statistics `thrift:"8,optional"`
}

// PagesFile is Pages on the file at path.
func PagesFile(path string, opts Options) (*PagesReport, error) { return onFile(path, opts, Pages) }

// Pages reads the footer of the size-byte Parquet file r, then every page
// header and page index it points at. A header that does not parse inside
// its chunk, a page that ends past the chunk, a chunk or index outside the
// file are errors naming the row group, the column and the byte offset.
// Options.FullStatistics keeps statistics whole, as in Inspect.
func Pages(r io.ReaderAt, size int64, opts Options) (_ *PagesReport, err error) {
	name := opts.Name
	if name == "" {
		name = "parquet file"
	}
	defer func() {
		// Every length is checked before it is used; should a path here
		// still trip on a hostile file, it is an error, never a crash.
		if p := recover(); p != nil {
			err = fmt.Errorf("pages %s: internal error on this input (please report): %v", name, p)
		}
	}()
	var fopts []footer.Option
	if opts.VectorID != 0 {
		fopts = append(fopts, footer.WithVectorID(opts.VectorID))
	}
	f, err := footer.ReadFooter(r, size, fopts...)
	if err != nil {
		return nil, fmt.Errorf("pages %s: %w", name, err)
	}
	if opts.MaxValueLen <= 0 {
		opts.MaxValueLen = DefaultMaxValueLen
	}
	if opts.FullStatistics {
		opts.MaxValueLen = math.MaxInt
	}
	// The mirror names a FIXED_LEN_BYTE_ARRAY VECTOR's element, which its
	// bounds' formatter needs; lab inspect reports a mirror that does not
	// parse, and without it those bounds show as hex.
	anns, _ := footer.ReadAnnotations(f.Meta)
	b, err := newBuilder(opts, f.Meta, anns)
	if err != nil {
		return nil, fmt.Errorf("pages %s: footer at offset %d: %w", name, f.Offset, err)
	}
	rep := &PagesReport{File: opts.Name, Size: size}
	pages := 0
	for gi := range f.Meta.RowGroups {
		rg := &f.Meta.RowGroups[gi]
		g := PageGroup{Index: gi, NumRows: rg.NumRows}
		for ci := range rg.Columns {
			cc := &rg.Columns[ci]
			c, err := b.chunkPages(r, f.Offset, cc, &pages)
			if err != nil {
				return nil, fmt.Errorf("pages %s: row group %d, column %s: %w", name, gi, chunkName(cc, ci), err)
			}
			g.Columns = append(g.Columns, c)
		}
		rep.RowGroups = append(rep.RowGroups, g)
	}
	return rep, nil
}

func chunkName(cc *footer.ColumnChunk, i int) string {
	if cc.MetaData != nil && len(cc.MetaData.PathInSchema) > 0 {
		return strings.Join(cc.MetaData.PathInSchema, ".")
	}
	return fmt.Sprintf("#%d", i)
}

// chunkPages walks one chunk's pages. dataEnd is the footer's offset: no
// page or index lies at or past it.
func (b *builder) chunkPages(r io.ReaderAt, dataEnd int64, cc *footer.ColumnChunk, seen *int) (ChunkPages, error) {
	md := cc.MetaData
	if md == nil {
		return ChunkPages{Encrypted: len(cc.EncryptedColumnMetadata) > 0}, nil
	}
	c := ChunkPages{Path: md.PathInSchema, PhysicalType: physicalName(md.Type), Codec: codecName(md.Codec),
		Offset: md.DataPageOffset, Length: md.TotalCompressedSize, NumValues: md.NumValues, Pages: []PageHeader{},
		leaf: b.leaves[pathKey(md.PathInSchema)]}
	if d := md.DictionaryPageOffset; d.Valid && d.V > 0 && d.V < c.Offset {
		c.Offset = d.V // pages start at the dictionary, as readers read them
	}
	if c.Offset < 0 || c.Length < 0 || c.Offset > dataEnd || c.Length > dataEnd-c.Offset {
		return c, fmt.Errorf("chunk of %d bytes at byte %d lies outside the file's data (bytes 0-%d)", c.Length, c.Offset, dataEnd)
	}
	end := c.Offset + c.Length
	for pos := c.Offset; pos < end; {
		if *seen >= MaxPages {
			return c, fmt.Errorf("page at byte %d: more than %d pages in the file; the report stops here", pos, MaxPages)
		}
		h := new(pageHeader)
		n, err := pages.ReadStruct(r, pos, end, h)
		if err != nil {
			return c, fmt.Errorf("page header at byte %d: %w", pos, err)
		}
		if left := end - pos - n; h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > left {
			return c, fmt.Errorf("page at byte %d: declares %d compressed bytes after its %d-byte header; the chunk has %d left (it ends at byte %d)",
				pos, h.CompressedPageSize, n, left, end)
		}
		c.Pages = append(c.Pages, b.pageReport(h, pos, n, md.Type, c.leaf))
		*seen++
		pos += n + int64(h.CompressedPageSize)
	}
	if cc.ColumnIndexOffset.Valid {
		raw, err := readIndex(r, dataEnd, "column index", cc.ColumnIndexOffset, cc.ColumnIndexLength)
		if err != nil {
			return c, err
		}
		var ci format.ColumnIndex
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw, &ci); err != nil {
			return c, fmt.Errorf("column index at byte %d: %w", cc.ColumnIndexOffset.V, err)
		}
		c.ColumnIndex = b.columnIndex(&ci, md.Type, c.leaf)
	}
	if cc.OffsetIndexOffset.Valid {
		raw, err := readIndex(r, dataEnd, "offset index", cc.OffsetIndexOffset, cc.OffsetIndexLength)
		if err != nil {
			return c, err
		}
		var oi format.OffsetIndex
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw, &oi); err != nil {
			return c, fmt.Errorf("offset index at byte %d: %w", cc.OffsetIndexOffset.V, err)
		}
		c.OffsetIndex = []PageLocation{}
		for _, l := range oi.PageLocations {
			c.OffsetIndex = append(c.OffsetIndex, PageLocation{Offset: l.Offset, CompressedSize: l.CompressedPageSize, FirstRowIndex: l.FirstRowIndex})
		}
	}
	return c, nil
}

// readIndex reads a page index the footer points at; it must lie in the
// file's data, before the footer.
func readIndex(r io.ReaderAt, dataEnd int64, what string, off thrift.Null[int64], length thrift.Null[int32]) ([]byte, error) {
	if !length.Valid {
		return nil, fmt.Errorf("%s at byte %d has no length", what, off.V)
	}
	if off.V < 0 || length.V <= 0 || off.V > dataEnd || int64(length.V) > dataEnd-off.V {
		return nil, fmt.Errorf("%s of %d bytes at byte %d lies outside the file's data (bytes 0-%d)", what, length.V, off.V, dataEnd)
	}
	raw := make([]byte, length.V)
	if _, err := r.ReadAt(raw, off.V); err != nil {
		return nil, fmt.Errorf("%s at byte %d: %w", what, off.V, err)
	}
	if n, err := footer.ScanStruct(raw); err != nil {
		return nil, fmt.Errorf("%s at byte %d: %w", what, off.V, err)
	} else if n != len(raw) {
		return nil, fmt.Errorf("%s at byte %d: the struct ends after %d of its %d bytes", what, off.V, n, len(raw))
	}
	return raw, nil
}

func (b *builder) pageReport(h *pageHeader, pos, n int64, phys format.Type, leaf *Node) PageHeader {
	p := PageHeader{Offset: pos, HeaderLength: n, Type: pageTypeName(h.Type), CompressedSize: h.CompressedPageSize,
		UncompressedSize: h.UncompressedPageSize, HasCRC: h.CRC.Valid}
	switch {
	case h.DataPageHeader != nil:
		d := h.DataPageHeader
		p.NumValues, p.Encoding = d.NumValues, encodingName(d.Encoding)
		p.DefinitionLevelEncoding, p.RepetitionLevelEncoding = encodingName(d.DefinitionLevelEncoding), encodingName(d.RepetitionLevelEncoding)
		if d.Statistics != nil {
			p.Statistics = b.statistics(d.Statistics, phys, leaf)
		}
	case h.DataPageHeaderV2 != nil:
		d := h.DataPageHeaderV2
		p.NumValues, p.Encoding = d.NumValues, encodingName(d.Encoding)
		p.NumNulls, p.NumRows = &d.NumNulls, &d.NumRows
		p.DefinitionLevelsByteLength, p.RepetitionLevelsByteLength = &d.DefinitionLevelsByteLength, &d.RepetitionLevelsByteLength
		p.IsCompressed = optional(d.IsCompressed)
		if d.Statistics != nil {
			p.Statistics = b.statistics(d.Statistics, phys, leaf)
		}
	case h.DictionaryPageHeader.Valid:
		d := h.DictionaryPageHeader.V
		p.NumValues, p.Encoding, p.IsSorted = d.NumValues, encodingName(d.Encoding), &d.IsSorted
	}
	return p
}

// columnIndex reports a chunk's column index; its bounds are read as the
// chunk's statistics are (bound).
func (b *builder) columnIndex(ci *format.ColumnIndex, phys format.Type, leaf *Node) *ColumnIndex {
	out := &ColumnIndex{BoundaryOrder: boundaryOrderName(ci.BoundaryOrder), Pages: []PageBound{}}
	el := leafElement(leaf, phys)
	for i, null := range ci.NullPages {
		pb := PageBound{NullPage: null}
		if !null {
			if i < len(ci.MinValues) {
				pb.Min, pb.minText, pb.minBytes = bound(leaf, el, ci.MinValues[i], b.opts.MaxValueLen)
			}
			if i < len(ci.MaxValues) {
				pb.Max, pb.maxText, pb.maxBytes = bound(leaf, el, ci.MaxValues[i], b.opts.MaxValueLen)
			}
		}
		if i < len(ci.NullCounts) {
			pb.NullCount = &ci.NullCounts[i]
		}
		out.Pages = append(out.Pages, pb)
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *PagesReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText renders the report for people: per column chunk a line saying
// where it lies, a table of its page headers and one of their statistics'
// bounds, then its column index and offset index, each a table. Bounds
// show as in Report.WriteText: as a registered type formats its values
// (a VECTOR's "[0.1, 0.2, …] 768×float32"), else cut to 36 columns.
func (r *PagesReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	fmt.Fprintf(ew, "file %s, %d bytes, %d row group%s\n", r.File, r.Size, len(r.RowGroups), plural(len(r.RowGroups)))
	for _, g := range r.RowGroups {
		for _, c := range g.Columns {
			if c.Path == nil {
				fmt.Fprintf(ew, "\nrow group %d, a column without metadata (encrypted: %v): no pages to walk\n", g.Index, c.Encrypted)
				continue
			}
			fmt.Fprintf(ew, "\nrow group %d, column %s: %s, %s, %d values, %d bytes at offset %d\n",
				g.Index, strings.Join(c.Path, "."), c.PhysicalType, c.Codec, c.NumValues, c.Length, c.Offset)
			// The bounds get a table of their own, as in lab inspect: two of
			// them on a page header's line made it 180 columns wide.
			tw := table(ew)
			fmt.Fprintf(tw, "  page\ttype\toffset\theader\tcompressed\tuncompressed\tvalues\tencoding\tlevels\tcrc\tnulls\n")
			var withBounds []int
			for i, p := range c.Pages {
				nulls := "-"
				if p.NumNulls != nil {
					nulls = strconv.Itoa(int(*p.NumNulls))
				}
				if s := p.Statistics; s != nil {
					if s.NullCount != nil && p.NumNulls == nil {
						nulls = strconv.FormatInt(*s.NullCount, 10)
					}
					if s.Min != "" || s.Max != "" {
						withBounds = append(withBounds, i)
					}
				}
				crc := "no"
				if p.HasCRC {
					crc = "yes"
				}
				fmt.Fprintf(tw, "  %d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", i, p.Type, p.Offset, p.HeaderLength,
					p.CompressedSize, p.UncompressedSize, p.NumValues, dash(p.Encoding), levels(p), crc, nulls)
			}
			tw.Flush()
			if len(withBounds) > 0 {
				fmt.Fprintf(ew, "  page statistics\n")
				tw = table(ew)
				fmt.Fprintf(tw, "    page\tmin\tmax\n")
				for _, i := range withBounds {
					minV, maxV := c.Pages[i].Statistics.textBounds()
					fmt.Fprintf(tw, "    %d\t%s\t%s\n", i, minV, maxV)
				}
				tw.Flush()
			}
			if ci := c.ColumnIndex; ci != nil {
				fmt.Fprintf(ew, "  column index: boundary order %s\n", ci.BoundaryOrder)
				tw = table(ew)
				fmt.Fprintf(tw, "    page\tnull page\tnulls\tmin\tmax\n")
				for i, pb := range ci.Pages {
					nulls := "-"
					if pb.NullCount != nil {
						nulls = strconv.FormatInt(*pb.NullCount, 10)
					}
					fmt.Fprintf(tw, "    %d\t%v\t%s\t%s\t%s\n", i, pb.NullPage, nulls,
						textBound(pb.Min, pb.minText, pb.minBytes), textBound(pb.Max, pb.maxText, pb.maxBytes))
				}
				tw.Flush()
			} else {
				fmt.Fprintf(ew, "  column index: none\n")
			}
			if c.OffsetIndex != nil {
				fmt.Fprintf(ew, "  offset index\n")
				tw = table(ew)
				fmt.Fprintf(tw, "    page\toffset\tcompressed\tfirst row\n")
				for i, l := range c.OffsetIndex {
					fmt.Fprintf(tw, "    %d\t%d\t%d\t%d\n", i, l.Offset, l.CompressedSize, l.FirstRowIndex)
				}
				tw.Flush()
			} else {
				fmt.Fprintf(ew, "  offset index: none\n")
			}
		}
	}
	if ew.err == nil {
		ew.err = bw.Flush()
	}
	return ew.err
}

// levels is how a data page stores its levels: v1 pages name the
// definition and repetition encodings, v2 pages give their byte lengths.
func levels(p PageHeader) string {
	switch {
	case p.DefinitionLevelEncoding != "":
		return "def " + p.DefinitionLevelEncoding + ", rep " + p.RepetitionLevelEncoding
	case p.DefinitionLevelsByteLength != nil:
		return fmt.Sprintf("def %dB, rep %dB", *p.DefinitionLevelsByteLength, *p.RepetitionLevelsByteLength)
	}
	return "-"
}

// pageTypeName names a page type, or gives the number of one
// parquet-format does not define.
func pageTypeName(t format.PageType) string {
	if s := t.String(); !strings.Contains(s, "?") {
		return s
	}
	return fmt.Sprintf("PageType(%d)", int32(t))
}

func boundaryOrderName(o format.BoundaryOrder) string {
	if s := o.String(); !strings.Contains(s, "?") {
		return s
	}
	return fmt.Sprintf("BoundaryOrder(%d)", int32(o))
}
