package registry

import (
	"fmt"
	"reflect"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

// PositionDeleteModel is the one home of position deletes: a
// FormatModel[data.PositionDelete] built over any FormatModel[*data.Record].
// It maps each delete onto a record of the delete schema and back, and it
// holds the rules of the Iceberg spec's "Position Delete Files" once, for
// every format:
//
//   - schema (CheckPositionDeleteSchema, which states the field-order
//     rule): top-level file_path (id 2147483546, string), pos (id
//     2147483545, long) and optionally row (id 2147483544, struct), nothing
//     else;
//   - pos: a 0-based row ordinal, so never negative, on write and on read;
//   - order: deletes are written sorted by file_path, then pos; a delete
//     that sorts before the one written last is refused. Reads do not check
//     it: a reader gains nothing from refusing another writer's file.
//
// Format packages register the result (Parquet's "parquet-position-delete",
// Avro's "avro-position-delete"), so the registry's PositionDeleteWriter
// relies on it and does not check again. A position-delete model registered
// without it must enforce the same rules; registrytest checks them.
type PositionDeleteModel struct {
	name    string
	records FormatModel[*data.Record]
}

var _ FormatModel[data.PositionDelete] = (*PositionDeleteModel)(nil)

// NewPositionDeleteModel builds the position-delete model named name over
// records, in records' file format.
func NewPositionDeleteModel(name string, records FormatModel[*data.Record]) *PositionDeleteModel {
	return &PositionDeleteModel{name: name, records: records}
}

func (m *PositionDeleteModel) Name() string          { return m.name }
func (m *PositionDeleteModel) Format() FileFormat    { return m.records.Format() }
func (m *PositionDeleteModel) RowType() reflect.Type { return reflect.TypeFor[data.PositionDelete]() }

// RecordModel is the record model the deletes are written and read with.
func (m *PositionDeleteModel) RecordModel() FormatModel[*data.Record] { return m.records }

// positionDeleteLayout is where file_path, pos and row are among a schema's
// top-level fields; row is -1 without a row column.
type positionDeleteLayout struct {
	path, pos, row int
}

// Field-order rule: readers bind the three fields by id, as Iceberg readers
// do, so another writer's file or a projection in any order reads. Writers
// must lay them out in the spec's order (file_path, pos, then row), which is
// what the spec's table and every Iceberg writer use, so the file sorts by
// its first two columns.
//
// CheckPositionDeleteSchema is the one schema check of position-delete
// files. With forWrite it also asks for the spec's order and for file_path
// and pos to be required.
func CheckPositionDeleteSchema(s *iceberg.Schema, forWrite bool) error {
	_, err := checkPositionDeleteSchema(s, forWrite)
	return err
}

func checkPositionDeleteSchema(s *iceberg.Schema, forWrite bool) (positionDeleteLayout, error) {
	l := positionDeleteLayout{path: -1, pos: -1, row: -1}
	if s == nil {
		return l, fmt.Errorf("no schema")
	}
	bad := func(format string, args ...any) (positionDeleteLayout, error) {
		return l, fmt.Errorf("schema %s is not a position-delete schema: %s (want file_path (id %d, string), pos (id %d, long) and optionally row (id %d, struct))",
			s, fmt.Sprintf(format, args...), data.DeleteFilePathID, data.DeleteFilePosID, data.DeleteFileRowID)
	}
	for i, f := range s.Fields() {
		var want iceberg.Type
		switch f.ID {
		case data.DeleteFilePathID:
			l.path, want = i, iceberg.PrimitiveTypes.String
		case data.DeleteFilePosID:
			l.pos, want = i, iceberg.PrimitiveTypes.Int64
		case data.DeleteFileRowID:
			l.row = i
			if _, ok := f.Type.(*iceberg.StructType); !ok {
				return bad("field %s (id %d) is %s, not a struct", f.Name, f.ID, f.Type)
			}
			// Either nullability: the spec calls row required when present,
			// while most of Java's schemas (MetadataColumns users) make it
			// optional.
			continue
		default:
			return bad("field %s (id %d) is not file_path, pos or row", f.Name, f.ID)
		}
		if !f.Type.Equals(want) {
			return bad("field %s (id %d) is %s, not %s", f.Name, f.ID, f.Type, want)
		}
		if forWrite && !f.Required {
			// As Java's MetadataColumns.DELETE_FILE_PATH and DELETE_FILE_POS.
			return bad("field %s (id %d) is optional; position deletes always have it", f.Name, f.ID)
		}
	}
	switch {
	case l.path < 0:
		return bad("no file_path (id %d)", data.DeleteFilePathID)
	case l.pos < 0:
		return bad("no pos (id %d)", data.DeleteFilePosID)
	case forWrite && (l.path != 0 || l.pos != 1):
		return bad("a writer lays out file_path, pos, then row, in the spec's order")
	}
	return l, nil
}

// NewAppender starts a position-delete file at out with the record model.
// opts.Schema defaults to data.PositionDeleteSchema(); a schema with the row
// column (data.PositionDeleteSchemaWithRow) writes rows too.
func (m *PositionDeleteModel) NewAppender(out OutputFile, opts WriteOptions) (FileAppender[data.PositionDelete], error) {
	if err := RefuseWriteOptions(m.name, opts); err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	if opts.Schema == nil {
		opts.Schema = data.PositionDeleteSchema()
	}
	l, err := checkPositionDeleteSchema(opts.Schema, true)
	if err != nil {
		return nil, fmt.Errorf("write %s: the %s model: %w", out.Location, m.name, err)
	}
	inner, err := m.records.NewAppender(out, opts)
	if err != nil {
		return nil, fmt.Errorf("the %s model: %w", m.name, err)
	}
	st := opts.Schema.AsStruct()
	return &positionDeleteAppender{FileAppender: inner, model: m.name, location: out.Location, st: &st, layout: l}, nil
}

// positionDeleteAppender checks each delete and adds it as a record; the
// rest of FileAppender is the record appender's.
type positionDeleteAppender struct {
	FileAppender[*data.Record]
	model, location string
	st              *iceberg.StructType
	layout          positionDeleteLayout
	last            data.PositionDelete
	hasLast         bool
}

func (a *positionDeleteAppender) Add(d data.PositionDelete) error {
	if d.Pos < 0 {
		return fmt.Errorf("write %s: the %s model: position delete %s: pos %d is negative; it is a 0-based row position",
			a.location, a.model, d, d.Pos)
	}
	if a.hasLast && d.Less(a.last) {
		return fmt.Errorf("write %s: the %s model: position delete %s is out of order after %s: deletes must be sorted by file_path, then pos",
			a.location, a.model, d, a.last)
	}
	if d.Row != nil && a.layout.row < 0 {
		// Dropping the row silently would lose data the caller meant to keep.
		return fmt.Errorf("write %s: the %s model: position delete %s has a row but the schema has no row column (use data.PositionDeleteSchemaWithRow)",
			a.location, a.model, d)
	}
	// A new record per delete: the record appender may keep what it is given.
	rec := data.NewStructRecord(a.st)
	rec.Set(a.layout.path, d.FilePath)
	rec.Set(a.layout.pos, d.Pos)
	if a.layout.row >= 0 && d.Row != nil {
		rec.Set(a.layout.row, d.Row)
	}
	if err := a.FileAppender.Add(rec); err != nil {
		return err
	}
	a.last, a.hasLast = data.PositionDelete{FilePath: d.FilePath, Pos: d.Pos}, true
	return nil
}

// NewReader reads position deletes from in with the record model: the
// projection when given, else the file's own schema, which must then be a
// position-delete schema. The record reader must report its schema
// (SchemaReader) for a read without a projection.
func (m *PositionDeleteModel) NewReader(in InputFile, opts ReadOptions) (Reader[data.PositionDelete], error) {
	if err := RefuseReadOptions(m.name, opts); err != nil {
		return nil, fmt.Errorf("read %s: %w", in.Location, err)
	}
	if opts.Projection != nil {
		if _, err := checkPositionDeleteSchema(opts.Projection, false); err != nil {
			return nil, fmt.Errorf("read %s: the %s model: projection: %w", in.Location, m.name, err)
		}
	}
	r, err := m.records.NewReader(in, opts)
	if err != nil {
		return nil, fmt.Errorf("the %s model: %w", m.name, err)
	}
	// The reader's schema, not the projection, says where the values are.
	schema := opts.Projection
	if sr, ok := r.(SchemaReader); ok {
		schema = sr.Schema()
	} else if schema == nil {
		r.Close()
		return nil, fmt.Errorf("read %s: the %s model needs a projection: the %s model's reader does not report the file's schema (registry.SchemaReader)",
			in.Location, m.name, m.records.Name())
	}
	l, err := checkPositionDeleteSchema(schema, false)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("read %s: the %s model: not a position-delete file: %w", in.Location, m.name, err)
	}
	return &positionDeleteReader{records: r, schema: schema, layout: l, model: m.name, location: in.Location}, nil
}

type positionDeleteReader struct {
	records         Reader[*data.Record]
	schema          *iceberg.Schema
	layout          positionDeleteLayout
	model, location string
	n               int64
}

func (r *positionDeleteReader) Next() (data.PositionDelete, error) {
	rec, err := r.records.Next()
	if err != nil {
		return data.PositionDelete{}, err
	}
	r.n++
	path, ok1 := rec.Get(r.layout.path).(string)
	pos, ok2 := rec.Get(r.layout.pos).(int64)
	if !ok1 || !ok2 {
		return data.PositionDelete{}, fmt.Errorf("read %s: the %s model: delete %d, %s: file_path and pos must be non-null string and long",
			r.location, r.model, r.n, rec)
	}
	d := data.PositionDelete{FilePath: path, Pos: pos}
	if pos < 0 {
		return data.PositionDelete{}, fmt.Errorf("read %s: the %s model: delete %d, %s: pos %d is negative; it is a 0-based row position",
			r.location, r.model, r.n, d, pos)
	}
	if r.layout.row >= 0 {
		d.Row, _ = rec.Get(r.layout.row).(*data.Record)
	}
	return d, nil
}

// Schema is the schema the deletes are read with (SchemaReader).
func (r *positionDeleteReader) Schema() *iceberg.Schema { return r.schema }

func (r *positionDeleteReader) Close() error { return r.records.Close() }
