package vectorcol

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"time"
	"unsafe"

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
// in the layout opts.Layout, every layout with the lab's page writer
// (ChunkWriter; writeChunked): data pages v1, one row group, an
// OffsetIndex, page CRCs, and the footer built in the lab's footer model
// with the layout's annotation: VECTOR on flba (an empty struct, the element
// and dimension in the key/value mirror) and vector-repetition (PR #592),
// FIXED_SIZE_LIST on fixed-size-list (PR #241), the FLOAT16 logical type on
// a list's float16 elements, none on flba-raw. The file is published whole
// (internal/publish: written to a temporary sibling, fsynced, renamed), so
// a failed write leaves whatever was at path as it was.
//
// flba and list used to go through parquet-go's row writer and a footer
// rewrite, which ran at 42 MB/s (list) to 160 MB/s (flba) on 768-dimension
// vectors, the fsync included; the page writer hands a column without
// nulls to the file a page at a time with no copy (AppendBatch), so the
// write is bound by the page cache and the disk (see WriteStats).
//
// Statistics are off for the vector column in every layout, and so is the
// ColumnIndex: the min and max of a FIXED_LEN_BYTE_ARRAY are byte-wise
// comparisons of little-endian floats, meaningless as bounds, and the
// min/max of a list's elements mix every dimension, so no reader can prune
// with them; computing them costs a pass over the data and page-header
// bytes for nothing.
func WriteFile(path string, col Column, opts WriteOptions) error {
	_, err := WriteFileStats(path, col, opts)
	return err
}

// WriteStats says where the time of a WriteFile went, for benchmarks that
// tell the writer's cost from the disk's.
type WriteStats struct {
	// Bytes is the size of the file written.
	Bytes int64
	// Encode is the time to encode the pages and footer and hand every
	// byte to the operating system (write(2) into the page cache).
	Encode time.Duration
	// Publish is the time of internal/publish's commit: fsync of the file,
	// the rename into place and the fsync of its directory. It is what
	// makes the file durable, and is bounded by the disk's write
	// bandwidth, not by the writer.
	Publish time.Duration
}

// WriteFileStats is WriteFile, also reporting how long encoding and
// publishing (fsync, rename) took. The file is as durable as WriteFile's:
// the split is measured, nothing is skipped.
func WriteFileStats(path string, col Column, opts WriteOptions) (st WriteStats, err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return st, err
	}
	if err := col.check(); err != nil {
		return st, fmt.Errorf("write %s: %w", path, err)
	}
	if col.nullableElements() && opts.Layout.flat() {
		return st, fmt.Errorf("write %s: layout %v cannot hold null elements (a FIXED_LEN_BYTE_ARRAY cell is all or nothing)", path, opts.Layout)
	}
	start := time.Now()
	pf, err := publish.Create(path, true)
	if err != nil {
		return st, err
	}
	sink := &fileSink{w: pf.File, buf: make([]byte, 0, sinkBuffer)}
	err = writeChunked(sink, col, opts)
	if err == nil {
		err = sink.flush()
	}
	if err != nil {
		_ = pf.Abort()
		return st, fmt.Errorf("write %s: %w", path, err)
	}
	st.Bytes = sink.n
	st.Encode = time.Since(start)
	start = time.Now()
	if err := pf.Commit(); err != nil {
		return st, err
	}
	st.Publish = time.Since(start)
	return st, nil
}

// sinkBuffer is the size below which fileSink gathers writes: page headers,
// level sections, the index and footer. Values of a page, far larger, go
// to the file as they are, so no page is copied on its way out.
const sinkBuffer = 64 << 10

// fileSink writes to w, gathering small writes and passing large ones
// straight through, and counts the bytes.
type fileSink struct {
	w   io.Writer
	buf []byte
	n   int64
}

func (s *fileSink) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if len(s.buf)+len(p) <= cap(s.buf) {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if err := s.flush(); err != nil {
		return 0, err
	}
	if len(p) < cap(s.buf) {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if _, err := writeFull(s.w, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *fileSink) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	_, err := writeFull(s.w, s.buf)
	s.buf = s.buf[:0]
	return err
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

// writeChunked writes a whole layout file to w: "PAR1", the column's one
// chunk from the ChunkWriter (in PR #592's vector-repetition layout: data
// pages whose num_values is rows × N, one level slot per element slot, null
// vectors included, definition levels only when the maximum definition
// level is above 0, no repetition levels), its OffsetIndex, the footer.
func writeChunked(w io.Writer, col Column, opts WriteOptions) error {
	codec, err := opts.Codec.codec()
	if err != nil {
		return err
	}
	dim, n := col.Dim, col.Rows()
	cw := &countingWriter{w: w}
	if _, err := cw.Write([]byte("PAR1")); err != nil {
		return err
	}
	co := ChunkOptions{Layout: opts.Layout, Element: opts.Element, Dim: dim, Encoding: opts.Encoding,
		Codec: codec, PageBytes: opts.PageBytes, Nullable: col.nullable(), NullableElements: col.nullableElements()}
	chunks, err := NewChunkWriter(cw, co)
	if err != nil {
		return err
	}
	firstPage := cw.n
	if col.Null == nil && col.ElementNull == nil {
		err = appendDense(chunks, col, opts.Element)
	} else {
		err = appendRows(chunks, col, opts.Element)
	}
	if err != nil {
		return err
	}
	info, err := chunks.Finish(nil)
	if err != nil {
		return err
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
	if err := annotateLayout(meta, opts, dim); err != nil {
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

// annotateLayout gives the column its layout's logical type: VECTOR on
// flba (with the element's name) and vector-repetition, FIXED_SIZE_LIST on
// fixed-size-list. list and flba-raw carry none (a list's float16 element
// has its FLOAT16 from SchemaElements).
func annotateLayout(meta *footer.FileMetaData, opts WriteOptions, dim int) error {
	id := opts.VectorID
	if id == 0 {
		id = footer.DefaultVectorID
	}
	path := []string{ColumnName}
	switch opts.Layout {
	case LayoutFLBA:
		element, _ := opts.Element.ParquetElement() // withDefaults refused bfloat16
		return footer.Annotate(meta, path, footer.Annotation{
			Kind: footer.KindVector, ID: id, VectorLength: int32(dim), Element: element})
	case LayoutVectorRepetition:
		return footer.Annotate(meta, path, footer.Annotation{
			Kind: footer.KindVector, ID: id, VectorLength: int32(dim), VectorRepetition: true})
	case LayoutFixedSizeList:
		// PR #241: "type: the primitive physical type of each element";
		// withDefaults allowed float32 and float64 only.
		return footer.Annotate(meta, path, footer.Annotation{
			Kind: footer.KindFixedSizeList, ID: opts.FixedSizeListID,
			VectorLength: int32(dim), Element: physicalType(opts.Element).String()})
	}
	return nil
}

// appendDense gives a column without null vectors or elements to the chunk
// writer a page at a time. float32 elements on a little-endian host are
// their own stored bytes, so each page is written from col.Data itself;
// other element types are converted a page at a time.
func appendDense(chunks *ChunkWriter, col Column, t vector.ElementType) error {
	dim, n := col.Dim, col.Rows()
	step := chunks.RowsPerPage()
	var scratch []byte
	for start := 0; start < n; start += step {
		end := min(start+step, n)
		rows := col.Data[start*dim : end*dim]
		var b []byte
		if t == vector.Float32 && hostLittleEndian {
			b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(rows))), len(rows)*4)
		} else {
			var err error
			if scratch, err = t.EncodeAppend(scratch[:0], rows); err != nil {
				return firstBadRow(t, col, start, end, err)
			}
			b = scratch
		}
		if err := chunks.AppendBatch(b); err != nil {
			return fmt.Errorf("rows %d to %d: %w", start, end-1, err)
		}
	}
	return nil
}

// firstBadRow names the row among [start, end) whose conversion fails (an
// int8 out of range), as the row-at-a-time path would.
func firstBadRow(t vector.ElementType, col Column, start, end int, batchErr error) error {
	dim := col.Dim
	for i := start; i < end; i++ {
		if _, err := t.EncodeAppend(nil, col.Data[i*dim:(i+1)*dim]); err != nil {
			return fmt.Errorf("row %d, %w", i, err)
		}
	}
	return batchErr
}

// appendRows gives a column with null vectors or elements to the chunk
// writer a row at a time.
func appendRows(chunks *ChunkWriter, col Column, t vector.ElementType) error {
	dim, n := col.Dim, col.Rows()
	var vec []byte
	var err error
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
		if vec, err = encodeRow(vec[:0], t, col.Data[i*dim:(i+1)*dim], elemNull); err != nil {
			return fmt.Errorf("row %d, %w", i, err)
		}
		if err := chunks.Append(vec, elemNull); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil
}

// hostLittleEndian: float32 memory is its little-endian file bytes only on
// a little-endian host.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

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
