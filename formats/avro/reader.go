package avro

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/iceberg-go"
	hamba "github.com/hamba/avro/v2"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// fileReader decodes the rows of one file (or split) into records of the
// projected schema.
type fileReader struct {
	c        *container
	schema   *iceberg.Schema // what is read: the projection or the file's own (ids from the file, a mapping, or derived)
	root     *structReader
	minRow   int
	reuse    bool
	last     *data.Record
	blk      *block
	d        decoder
	rowInBlk int64
	rowPos   int64
	needPos  bool
	posKnown bool
	err      error
	closed   bool
}

// openRecordReader opens in and plans the read.
func openRecordReader(in registry.InputFile, opts registry.ReadOptions) (*fileReader, error) {
	if opts.RecordsPerBatch > 0 {
		// As Iceberg's AvroFormatModel: the Avro reader is row-based.
		return nil, fmt.Errorf("read %s: batch reading is not supported by the Avro reader (records per batch %d)", in.Location, opts.RecordsPerBatch)
	}
	c, err := openContainer(in, opts)
	if err != nil {
		return nil, err
	}
	fr, err := planRead(c, opts)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("read %s: %w", in.Location, err)
	}
	return fr, nil
}

func planRead(c *container, opts registry.ReadOptions) (*fileReader, error) {
	if c.schema.Type() != hamba.Record {
		return nil, fmt.Errorf("the file's Avro schema is %s, not a record", c.schema.Type())
	}
	mapping := opts.NameMapping
	if mapping == nil && opts.Projection != nil {
		// As Java's Avro.ReadBuilder: without a mapping, files without ids
		// are read by the projection's own names.
		// Rebuilt through NewSchemaWithIdentifiers because schemas from
		// iceberg-go's Select and PruneColumns skip its lazy set-up, and
		// their NameMapping dereferences nil.
		p := opts.Projection
		mapping = iceberg.NewSchemaWithIdentifiers(p.ID, p.IdentifierFieldIDs, p.Fields()...).NameMapping()
	}
	root, err := buildFileSchema(c.schema, mapping)
	if err != nil {
		return nil, err
	}
	schema := opts.Projection
	if schema == nil && opts.NameMapping == nil {
		// Read whole: every field appears, or the read fails naming it.
		if where, why, bad := root.unreadable(""); bad {
			return nil, fmt.Errorf("field %s: %s; the file cannot be read whole: read it through a projection, or a name mapping that leaves the field out (lab read --name-mapping)", where, why)
		}
	}
	if schema == nil {
		t, _, ok := root.icebergType()
		st, isStruct := t.(*iceberg.StructType)
		if !ok || !isStruct {
			return nil, errors.New("the file's Avro schema has no field Iceberg can represent: set a name mapping or a projection")
		}
		schema = iceberg.NewSchema(0, st.FieldList...)
	}
	p := &planner{constants: map[int]any{}}
	for id, v := range opts.IDToConstant {
		f, ok := schema.FindFieldByID(id)
		if !ok {
			continue // a constant for a column not read
		}
		cv, err := convertDefault(f.Type, v)
		if err != nil {
			return nil, fmt.Errorf("constant for field %s (id %d): %w", f.Name, id, err)
		}
		p.constants[id] = cv
	}
	st := schema.AsStruct()
	sr, err := p.structReader(&st, root, "")
	if err != nil {
		return nil, err
	}
	fr := &fileReader{c: c, schema: schema, root: sr, minRow: root.minSize(0), reuse: opts.ReuseContainers}
	_, fr.needPos = schema.FindFieldByID(RowPositionFieldID)
	return fr, nil
}

// next decodes the next row; reuse is the row returned last, if reusable.
func (r *fileReader) next(reuse *data.Record) (*data.Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.closed {
		return nil, fmt.Errorf("read %s: reader is closed", r.c.location)
	}
	rec, err := r.decodeRow(reuse)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			err = fmt.Errorf("read %s: %w", r.c.location, err)
		}
		r.err = err
		return nil, err
	}
	return rec, nil
}

func (r *fileReader) decodeRow(reuse *data.Record) (rec *data.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	for r.blk == nil || r.rowInBlk == r.blk.rows {
		if r.blk != nil && r.d.remaining() != 0 {
			return nil, fmt.Errorf("block at offset %d: %d bytes left after its %d rows (corrupt block)",
				r.blk.offset, r.d.remaining(), r.blk.rows)
		}
		if r.needPos && !r.posKnown {
			if r.rowPos, err = r.c.rowsBefore(); err != nil {
				return nil, err
			}
			r.posKnown = true
		}
		blk, err := r.c.nextBlock()
		if err != nil {
			return nil, err
		}
		if r.minRow > 0 && blk.rows > int64(len(blk.data)/r.minRow) {
			return nil, fmt.Errorf("block at offset %d: %d rows cannot fit in %d bytes (corrupt block)", blk.offset, blk.rows, len(blk.data))
		}
		if r.minRow == 0 && blk.rows > maxZeroSizeItems {
			return nil, fmt.Errorf("block at offset %d: %d rows that take no bytes exceed the limit of %d", blk.offset, blk.rows, maxZeroSizeItems)
		}
		r.blk, r.rowInBlk = blk, 0
		r.d = decoder{buf: blk.data}
	}
	r.d.rowPos = r.rowPos
	var reuseAny any
	if reuse != nil {
		reuseAny = reuse
	}
	v, err := r.root.read(&r.d, reuseAny)
	if err != nil {
		return nil, fmt.Errorf("row %d (block at offset %d): %w", r.rowInBlk, r.blk.offset, err)
	}
	r.rowInBlk++
	r.rowPos++
	return v.(*data.Record), nil
}

func (r *fileReader) close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.c.close()
}

// recordReader is the *data.Record reader.
type recordReader struct {
	r *fileReader
}

func (rr *recordReader) Next() (*data.Record, error) {
	var reuse *data.Record
	if rr.r.reuse {
		reuse = rr.r.last
	}
	rec, err := rr.r.next(reuse)
	if err != nil {
		return nil, err
	}
	rr.r.last = rec
	return rec, nil
}

func (rr *recordReader) Close() error { return rr.r.close() }

// Schema is the schema of the records the reader returns (SchemaReader):
// the projection, or the file's own schema.
func (rr *recordReader) Schema() *iceberg.Schema { return rr.r.schema }

var _ registry.SchemaReader = (*recordReader)(nil)
