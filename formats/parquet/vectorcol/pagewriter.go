package vectorcol

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/types/vector"
)

// ColumnName is the name of the single vector column of a layout file.
const ColumnName = "emb"

var parquetCodecs = map[format.CompressionCodec]compress.Codec{
	format.Uncompressed: &parquet.Uncompressed,
	format.Snappy:       &parquet.Snappy,
	format.Zstd:         &parquet.Zstd,
	format.Lz4Raw:       &parquet.Lz4Raw,
}

var compactProtocol thrift.CompactProtocol

// WriteFile writes col to path as a single-column Parquet file (column emb)
// in the layout opts.Layout. flba, flba-raw, fixed-size-list and list are
// written by parquet-go; flba then gets the lab's VECTOR annotation, and
// fixed-size-list PR #241's FIXED_SIZE_LIST, by a footer rewrite.
// vector-repetition, which parquet-go cannot express, is written page by page
// (writeVectorRepetition).
//
// Statistics are off for the vector column in every layout: the min and
// max of a FIXED_LEN_BYTE_ARRAY are byte-wise comparisons of little-endian
// floats, meaningless as bounds, and the min/max of a list's elements mix
// every dimension, so no reader can prune with them; computing them costs a
// pass over the data and page-header bytes for nothing.
func WriteFile(path string, col Column, opts WriteOptions) (err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return err
	}
	if err := col.check(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if col.nullableElements() && opts.Layout.flat() {
		return fmt.Errorf("write %s: layout %v cannot hold null elements (a FIXED_LEN_BYTE_ARRAY cell is all or nothing)", path, opts.Layout)
	}
	// A temporary sibling published when whole (internal/publish): a
	// failed write leaves whatever was at path as it was.
	pf, err := publish.Create(path, true)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = pf.Abort()
			return
		}
		err = pf.Commit()
	}()
	f := pf.File
	switch opts.Layout {
	case LayoutVectorRepetition:
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := writeVectorRepetition(bw, col, opts); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return bw.Flush()
	default:
		// parquet-go writes the file; the footer rewrite, in place, fixes
		// what it cannot: the ColumnIndex (unlinked), the VECTOR annotation
		// (flba), FIXED_SIZE_LIST (fixed-size-list), the FLOAT16 logical
		// type (list).
		if err := writeParquetGo(f, col, opts); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		id := opts.VectorID
		if id == 0 {
			id = footer.DefaultVectorID
		}
		err = footer.RewriteFooterInPlace(f, func(m *footer.FileMetaData) error {
			unlinkColumnIndexes(m)
			switch {
			case opts.Layout == LayoutList && opts.Element == vector.Float16:
				return setFloat16(m)
			case opts.Layout == LayoutFLBA:
				element, _ := opts.Element.ParquetElement() // withDefaults refused bfloat16
				return footer.Annotate(m, []string{ColumnName}, footer.Annotation{
					Kind: footer.KindVector, ID: id, VectorLength: int32(col.Dim), Element: element})
			case opts.Layout == LayoutFixedSizeList:
				// PR #241: "type: the primitive physical type of each
				// element"; withDefaults allowed float32 and float64 only.
				return footer.Annotate(m, []string{ColumnName}, footer.Annotation{
					Kind: footer.KindFixedSizeList, ID: opts.FixedSizeListID,
					VectorLength: int32(col.Dim), Element: physicalType(opts.Element).String()})
			}
			return nil
		}, footer.WithVectorID(id), footer.AllowUnlinkingColumnIndexes())
		if err != nil {
			return fmt.Errorf("write %s: footer: %w", path, err)
		}
		return nil
	}
}

// unlinkColumnIndexes removes the ColumnIndex references of every chunk.
// The vector column is written with page bounds skipped (see WriteFile),
// and parquet-go writes a ColumnIndex for it all the same, with made-up
// bounds: for a FIXED_LEN_BYTE_ARRAY column no min or max at all beside
// one null_pages entry per page, which readers that check it refuse
// (arrow-rs: "ColumnIndex min/max length mismatch") and parquet-go itself
// panics on; for FLOAT, DOUBLE and INT32 leaves min = max = 0 on every
// page, on which a reader that skips pages by the index would drop rows.
// The index is optional (PageIndex.md); its bytes stay in the file,
// unreferenced. The OffsetIndex, which search and take use, stays.
func unlinkColumnIndexes(m *footer.FileMetaData) {
	for g := range m.RowGroups {
		for c := range m.RowGroups[g].Columns {
			cc := &m.RowGroups[g].Columns[c]
			cc.ColumnIndexOffset = thrift.Null[int64]{}
			cc.ColumnIndexLength = thrift.Null[int32]{}
		}
	}
}

// setFloat16 gives the list element the FLOAT16 logical type, which
// parquet-go cannot write.
func setFloat16(m *footer.FileMetaData) error {
	for i := range m.Schema {
		e := &m.Schema[i]
		if e.Name == "element" && !e.IsGroup() && e.Type.V == format.FixedLenByteArray && e.TypeLength.V == 2 {
			e.LogicalType = footer.LogicalType{Value: &format.Float16Type{}}
			return nil
		}
	}
	return errors.New("no FIXED_LEN_BYTE_ARRAY(2) element to annotate FLOAT16")
}

// writeParquetGo writes the flba (unannotated) and list layouts with
// parquet-go.
func writeParquetGo(w io.Writer, col Column, opts WriteOptions) error {
	codec, err := opts.Codec.codec()
	if err != nil {
		return err
	}
	var node parquet.Node
	var leafPath []string
	flba := opts.Layout != LayoutList
	if flba {
		node = parquet.Leaf(parquet.FixedLenByteArrayType(opts.Element.VectorBytes(col.Dim)))
		if opts.Encoding == EncodingByteStreamSplit {
			node = parquet.Encoded(node, &parquet.ByteStreamSplit)
		}
		node = parquet.Compressed(node, codec)
		leafPath = []string{ColumnName}
	} else {
		elem := leafNode(opts.Element)
		if opts.Encoding == EncodingByteStreamSplit {
			elem = parquet.Encoded(elem, &parquet.ByteStreamSplit)
		}
		elem = parquet.Compressed(elem, codec)
		if col.nullableElements() {
			elem = parquet.Optional(elem)
		}
		node = parquet.List(elem)
		leafPath = []string{ColumnName, "list", "element"}
	}
	if col.nullable() {
		node = parquet.Optional(node)
	}
	schema := parquet.NewSchema("schema", parquet.Group{ColumnName: node})
	wopts := []parquet.WriterOption{
		schema,
		parquet.PageBufferSize(opts.PageBytes),
		parquet.DataPageStatistics(false),
		parquet.SkipPageBounds(leafPath...), // and WriteFile unlinks the ColumnIndex
		parquet.CreatedBy("coltype-lab", "vector", "parquet-go"),
	}
	if opts.Element != vector.Float32 {
		wopts = append(wopts, parquet.KeyValueMetadata(ElementKey, opts.Element.String()))
	}
	pw := parquet.NewWriter(w, wopts...)
	n, dim := col.Rows(), col.Dim
	const batch = 1024
	rows := make([]parquet.Row, 0, batch)
	var cells []byte // a batch's encoded values, aliased by its rows
	nullable := col.nullable()
	var def0 int // definition level of a present vector at the outer level
	if nullable {
		def0 = 1
	}
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		rows = rows[:0]
		cells = make([]byte, 0, (end-start)*dim*storedWidth(opts.Element))
		for i := start; i < end; i++ {
			if col.isNull(i) {
				rows = append(rows, parquet.Row{parquet.NullValue().Level(0, 0, 0)})
				continue
			}
			at := len(cells)
			if flba {
				if cells, err = opts.Element.EncodeAppend(cells, col.Data[i*dim:(i+1)*dim]); err != nil {
					return fmt.Errorf("row %d: %w", i, err)
				}
				rows = append(rows, parquet.Row{parquet.FixedLenByteArrayValue(cells[at:]).Level(0, def0, 0)})
				continue
			}
			row := make(parquet.Row, dim)
			maxDef := def0 + 1 // the repeated list level
			if col.nullableElements() {
				maxDef++
			}
			for j := range dim {
				rep := 1
				if j == 0 {
					rep = 0
				}
				if col.elemNull(i*dim + j) {
					row[j] = parquet.NullValue().Level(rep, maxDef-1, 0)
					continue
				}
				switch opts.Element {
				case vector.Float32:
					row[j] = parquet.FloatValue(col.Data[i*dim+j]).Level(rep, maxDef, 0)
					continue
				case vector.Float64:
					row[j] = parquet.DoubleValue(float64(col.Data[i*dim+j])).Level(rep, maxDef, 0)
					continue
				}
				// The rest go through their stored bytes: FIXED_LEN_BYTE_ARRAY
				// values alias them, and int8 is range-checked on the way.
				at := len(cells)
				if cells, err = appendStored(opts.Element, cells, col.Data[i*dim+j]); err != nil {
					return fmt.Errorf("row %d, element %d: %w", i, j, err)
				}
				row[j] = leafValue(opts.Element, cells[at:]).Level(rep, maxDef, 0)
			}
			rows = append(rows, row)
		}
		if _, err := pw.WriteRows(rows); err != nil {
			return fmt.Errorf("parquet-go: %w", err)
		}
	}
	return pw.Close()
}

// vrLevels computes the maximum definition level of the vector-repetition
// layout: the outer group adds one when optional, the VECTOR middle group
// adds nothing (every slot exists when the vector does), the element one
// when optional. The maximum repetition level is always 0.
func vrMaxDef(nullable, nullableElements bool) int {
	d := 0
	if nullable {
		d++
	}
	if nullableElements {
		d++
	}
	return d
}

// writeVectorRepetition writes PR #592's layout: data pages v1 whose
// num_values is rows × N (one level slot per element slot, null vectors
// included), definition levels (RLE/bit-packed hybrid, only when the
// maximum definition level is above 0), no repetition levels, then the
// OffsetIndex and the footer. The pages come from the ChunkWriter, the
// page writer the Parquet record writer's VECTOR columns use too.
func writeVectorRepetition(w io.Writer, col Column, opts WriteOptions) error {
	codec, err := opts.Codec.codec()
	if err != nil {
		return err
	}
	dim, n := col.Dim, col.Rows()
	cw := &countingWriter{w: w}
	if _, err := cw.Write([]byte("PAR1")); err != nil {
		return err
	}
	co := ChunkOptions{Layout: LayoutVectorRepetition, Element: opts.Element, Dim: dim, Encoding: opts.Encoding,
		Codec: codec, PageBytes: opts.PageBytes, Nullable: col.nullable(), NullableElements: col.nullableElements()}
	chunks, err := NewChunkWriter(cw, co)
	if err != nil {
		return err
	}
	firstPage := cw.n
	var vec []byte
	for i := range n {
		if col.isNull(i) {
			if err := chunks.Append(nil, nil); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			continue
		}
		var elemNull []bool
		if col.ElementNull != nil {
			elemNull = col.ElementNull[i*dim : (i+1)*dim]
		}
		if vec, err = encodeRow(vec[:0], opts.Element, col.Data[i*dim:(i+1)*dim], elemNull); err != nil {
			return fmt.Errorf("row %d, %w", i, err)
		}
		if err := chunks.Append(vec, elemNull); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	info, err := chunks.Finish(nil)
	if err != nil {
		return err
	}
	id := opts.VectorID
	if id == 0 {
		id = footer.DefaultVectorID
	}
	meta := &footer.FileMetaData{
		Version: 2,
		Schema: append([]footer.SchemaElement{{Name: "schema", NumChildren: thrift.New(int32(1))}},
			SchemaElements(ColumnName, co, thrift.Null[int32]{}, thrift.Null[int32]{})...),
		NumRows:   int64(n),
		CreatedBy: thrift.New("coltype-lab vector page writer"),
	}
	if n > 0 {
		oi, err := EncodeIndex(ptr(info.OffsetIndex(firstPage)))
		if err != nil {
			return fmt.Errorf("offset index: %w", err)
		}
		oiOffset := cw.n
		if _, err := cw.Write(oi); err != nil {
			return err
		}
		md := info.ColumnMetaData(ColumnName, firstPage)
		md.Statistics = nil // this file's chunks never carried statistics
		meta.RowGroups = []footer.RowGroup{{
			Columns: []footer.ColumnChunk{{
				FileOffset:        firstPage,
				MetaData:          md,
				OffsetIndexOffset: thrift.New(oiOffset),
				OffsetIndexLength: thrift.New(int32(len(oi))),
			}},
			TotalByteSize:       info.Uncompressed,
			NumRows:             int64(n),
			FileOffset:          thrift.New(firstPage),
			TotalCompressedSize: thrift.New(info.Compressed),
			Ordinal:             thrift.New(int16(0)),
		}}
	}
	if opts.Element != vector.Float32 {
		meta.SetKeyValue(ElementKey, opts.Element.String())
	}
	if err := footer.Annotate(meta, []string{ColumnName}, footer.Annotation{
		Kind: footer.KindVector, ID: id, VectorLength: int32(dim), VectorRepetition: true}); err != nil {
		return err
	}
	fb, err := footer.Encode(meta)
	if err != nil {
		return err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], uint32(len(fb)))
	copy(trailer[4:], "PAR1")
	if _, err := cw.Write(fb); err != nil {
		return err
	}
	_, err = cw.Write(trailer[:])
	return err
}

func ptr[T any](v T) *T { return &v }

// encodeRow appends a row of float32 data as the element type's bytes
// (EncodeAppend's), a null element as zero bytes: its value is not
// written, so it must not fail the conversion (an int8 out of range).
func encodeRow(dst []byte, t vector.ElementType, row []float32, elemNull []bool) ([]byte, error) {
	if elemNull != nil {
		row = slices.Clone(row)
		for j, null := range elemNull {
			if null {
				row[j] = 0
			}
		}
	}
	return t.EncodeAppend(dst, row)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err == nil && n != len(p) {
		err = io.ErrShortWrite
	}
	return n, err
}
