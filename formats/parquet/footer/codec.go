package footer

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// Option configures decoding and rewriting.
type Option func(*config) error

type config struct {
	vectorID                  int16
	allowVectorRepetition     bool
	allowUnlinkingColumnIndex bool
}

// WithVectorID sets the LogicalType union id read and written as VECTOR
// (default DefaultVectorID = 20). It must be positive and outside 1-19, which
// parquet-format 2.14.0 assigns (19 is FILE, 9 is reserved). A footer's other
// unknown ids stay UnknownLogicalType; one decode recognises one VECTOR id.
func WithVectorID(id int16) Option {
	return func(c *config) error {
		if id <= 0 || isStandardID(id) {
			return fmt.Errorf("VECTOR union id %d is not usable: it must be positive and not one of parquet-format's ids 1-19", id)
		}
		c.vectorID = id
		return nil
	}
}

// AllowVectorRepetition lets a RewriteFooter edit switch schema elements
// between REPEATED and VECTOR repetition and set or clear vector_length.
// Without it any repetition change is refused: it changes how the data pages
// are read, so it is only right for data whose levels were written in the
// VECTOR layout, and the caller has to say so.
func AllowVectorRepetition() Option {
	return func(c *config) error {
		c.allowVectorRepetition = true
		return nil
	}
}

// AllowUnlinkingColumnIndexes lets a RewriteFooter edit clear a column
// chunk's column_index_offset and column_index_length, so that readers no
// longer find a ColumnIndex the writer got wrong. The index is optional
// (PageIndex.md) and its bytes stay in the file. Setting or moving an
// index is still refused, as is any other change to a chunk.
func AllowUnlinkingColumnIndexes() Option {
	return func(c *config) error {
		c.allowUnlinkingColumnIndex = true
		return nil
	}
}

func newConfig(opts []Option) (*config, error) {
	c := &config{vectorID: DefaultVectorID}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// DecodeError reports where decoding a footer failed.
type DecodeError struct {
	// Offset is the byte offset within the footer, -1 when not known.
	Offset int64
	// FileOffset is the same position in the file, -1 when not known
	// (Decode does not know where the footer sits; ReadFooter does).
	FileOffset int64
	Err        error
}

func (e *DecodeError) Error() string {
	switch {
	case e.Offset < 0:
		return fmt.Sprintf("parquet footer: %v", e.Err)
	case e.FileOffset < 0:
		return fmt.Sprintf("parquet footer: at footer byte %d: %v", e.Offset, e.Err)
	default:
		return fmt.Sprintf("parquet footer: at footer byte %d (file offset %d): %v", e.Offset, e.FileOffset, e.Err)
	}
}

func (e *DecodeError) Unwrap() error { return e.Err }

// footerReader is the thrift reader Decode hands to parquet-go's decoder.
// Going through it lets the LogicalType codec see the bytes (to keep unknown
// members verbatim) and the configuration (the VECTOR id).
type footerReader struct {
	thrift.BytesReader
	data []byte
	cfg  *config
	// window, when set, is the row groups to decode (ReadFooterRowGroups).
	window *RowGroupWindow
	// groupEnds are where the row groups end, when the scan was shaped
	// (a strict window).
	groupEnds []int
	nextEnd   int
}

// skipRowGroup steps over the row group the reader is at, which the
// shaped scan has checked: it ends at the first of groupEnds past the
// reader (the ends ascend; a footer that repeats row_groups has them all).
func (r *footerReader) skipRowGroup() error {
	at := r.BytesRead()
	for r.nextEnd < len(r.groupEnds) && r.groupEnds[r.nextEnd] <= at {
		r.nextEnd++
	}
	if r.nextEnd == len(r.groupEnds) {
		return fmt.Errorf("the scan found no row group at footer byte %d", at)
	}
	_, err := r.Discard(r.groupEnds[r.nextEnd] - at)
	return err
}

// Discard is promoted explicitly: parquet-go skips binary values through it
// when the reader has it, and embedding the interface would hide it.
func (r *footerReader) Discard(n int) (int, error) {
	return r.BytesReader.(interface{ Discard(int) (int, error) }).Discard(n)
}

var compact thrift.CompactProtocol

// Decode decodes a footer: the thrift-encoded FileMetaData that sits between
// the data and the trailing length and magic. It accepts exactly one
// FileMetaData; trailing bytes are an error, except in plaintext-footer
// encrypted files, where they are the footer signature (see ReadFooter).
//
// The result owns its memory (the input may be reused). Unknown LogicalType
// members decode as *UnknownLogicalType, non-UTF-8 strings are kept as they
// are, and a schema whose num_children do not describe one tree is an error.
func Decode(footer []byte, opts ...Option) (*FileMetaData, error) {
	meta, _, err := decode(footer, opts, nil)
	if err != nil {
		return nil, err
	}
	return meta.FileMetaData, nil
}

// decodedMeta is a decoded footer and which of its row groups it holds.
type decodedMeta struct {
	*FileMetaData
	firstRowGroup, numRowGroups int
}

// decode returns the metadata and the signature bytes that follow it. With
// a window, only the window's row groups are decoded.
func decode(footer []byte, opts []Option, window *RowGroupWindow) (meta *decodedMeta, trailing []byte, err error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, nil, err
	}
	data := bytes.Clone(footer)
	// A strict window checks the row groups by their shape in the scan
	// instead of decoding the ones outside it (rowGroupWindow).
	var shape *wireShape
	if window != nil && window.Strict {
		shape = rowGroupsShape
	}
	var groupEnds []int
	n, err := scanShaped(data, shape, &groupEnds)
	if err != nil {
		var se *scanError
		if errors.As(err, &se) {
			return nil, nil, &DecodeError{Offset: int64(se.offset), FileOffset: -1, Err: err}
		}
		return nil, nil, &DecodeError{Offset: -1, FileOffset: -1, Err: err}
	}
	r := &footerReader{BytesReader: compact.NewReaderFromBytes(data[:n]), data: data[:n], cfg: cfg, window: window, groupEnds: groupEnds}
	defer func() {
		// parquet-go's codec should return errors, not panic, on any input;
		// should it ever panic, it is still bad input to the caller.
		if p := recover(); p != nil {
			meta, trailing = nil, nil
			err = &DecodeError{Offset: int64(r.BytesRead()), FileOffset: -1, Err: fmt.Errorf("decoder panicked: %v", p)}
		}
	}()
	dec := thrift.NewDecoder(r)
	dec.SetStrict(true) // a field of the wrong type is an error, not silently dropped
	if window == nil {
		m := new(FileMetaData)
		if err := dec.Decode(m); err != nil {
			return nil, nil, &DecodeError{Offset: int64(r.BytesRead()), FileOffset: -1, Err: err}
		}
		meta = &decodedMeta{FileMetaData: m, numRowGroups: len(m.RowGroups)}
	} else {
		m := new(fileMetaDataWindow)
		if err := dec.Decode(m); err != nil {
			return nil, nil, &DecodeError{Offset: int64(r.BytesRead()), FileOffset: -1, Err: err}
		}
		meta = &decodedMeta{FileMetaData: m.meta(), firstRowGroup: m.RowGroups.first, numRowGroups: m.RowGroups.total}
	}
	if n < len(data) {
		if !meta.Encrypted() {
			return nil, nil, &DecodeError{Offset: int64(n), FileOffset: -1,
				Err: fmt.Errorf("%d bytes follow the FileMetaData, which ends here", len(data)-n)}
		}
		trailing = data[n:]
	}
	if _, err := newSchemaTree(meta.Schema); err != nil {
		return nil, nil, &DecodeError{Offset: -1, FileOffset: -1, Err: err}
	}
	return meta, trailing, nil
}

// Encode encodes meta in the thrift compact protocol, as the footer of a
// Parquet file. A footer decoded by Decode encodes back to the same bytes
// when the writer used only fields this model knows, in field-id order, with
// minimal varints; RewriteFooter checks that before it rewrites anything.
func Encode(meta *FileMetaData) (out []byte, err error) {
	if meta == nil {
		return nil, errors.New("parquet footer: nil FileMetaData")
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("parquet footer: encoder panicked: %v", p)
		}
	}()
	var buf bytes.Buffer
	if err := thrift.NewEncoder(compact.NewWriter(&buf)).Encode(meta); err != nil {
		return nil, fmt.Errorf("parquet footer: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// encodeValue encodes any part of the model (a row group, a schema element).
func encodeValue(v any) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("encoder panicked: %v", p)
		}
	}()
	var buf bytes.Buffer
	if err := thrift.NewEncoder(compact.NewWriter(&buf)).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// guard turns a panic in an exported function into an error: bad input must
// never crash the caller, even through a path no test has found yet.
func guard(err *error, op string) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: internal error on this input (please report): %v", op, p)
	}
}
