package parquet

import (
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// positionDeleteAppender writes deletes through a record appender, keeping
// the order Iceberg requires: by file path, then position.
type positionDeleteAppender struct {
	*recordAppender
	rec    *data.Record
	rowPos int // position of the row column, -1 without one
	prev   *data.PositionDelete
}

func newPositionDeleteAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[data.PositionDelete], error) {
	if opts.Schema == nil {
		opts.Schema = data.PositionDeleteSchema()
	}
	rowPos, err := checkPositionDeleteSchema(opts.Schema)
	if err != nil {
		return nil, fmt.Errorf("position-delete writer for %s: %w", out.Location, err)
	}
	inner, err := newRecordAppender(out, opts)
	if err != nil {
		return nil, err
	}
	return &positionDeleteAppender{recordAppender: inner, rec: data.NewStructRecord(inner.plan.root.st), rowPos: rowPos}, nil
}

// checkPositionDeleteSchema wants file_path and pos first, with their
// reserved ids and types, and at most the row column after them.
func checkPositionDeleteSchema(s *iceberg.Schema) (rowPos int, err error) {
	fields := s.Fields()
	if len(fields) < 2 || len(fields) > 3 ||
		fields[0].ID != data.DeleteFilePathID || !fields[0].Type.Equals(iceberg.PrimitiveTypes.String) ||
		fields[1].ID != data.DeleteFilePosID || !fields[1].Type.Equals(iceberg.PrimitiveTypes.Int64) {
		return -1, fmt.Errorf("schema %s is not a position-delete schema: want file_path (id %d, string), pos (id %d, long) and optionally row (id %d)",
			s, data.DeleteFilePathID, data.DeleteFilePosID, data.DeleteFileRowID)
	}
	if len(fields) == 3 {
		if _, ok := fields[2].Type.(*iceberg.StructType); !ok || fields[2].ID != data.DeleteFileRowID {
			return -1, fmt.Errorf("schema %s: third column must be row (id %d, struct)", s, data.DeleteFileRowID)
		}
		return 2, nil
	}
	return -1, nil
}

func (a *positionDeleteAppender) Add(d data.PositionDelete) error {
	if a.prev != nil && d.Less(*a.prev) {
		return fmt.Errorf("write to %s: position deletes must be sorted by file_path, then pos: %s comes after %s",
			a.location, d, *a.prev)
	}
	a.rec.Set(0, d.FilePath)
	a.rec.Set(1, d.Pos)
	switch {
	case a.rowPos >= 0:
		if d.Row != nil {
			a.rec.Set(a.rowPos, d.Row)
		} else {
			a.rec.Set(a.rowPos, nil)
		}
	case d.Row != nil:
		// Dropping the row silently would lose data the caller meant to keep.
		return fmt.Errorf("write to %s: delete %s has a row but the schema has no row column (use data.PositionDeleteSchemaWithRow)", a.location, d)
	}
	if err := a.recordAppender.Add(a.rec); err != nil {
		return err
	}
	prev := d
	a.prev = &prev
	return nil
}

// positionDeleteReader reads deletes through a record reader.
type positionDeleteReader struct {
	records        *recordReader
	path, pos, row int
	location       string
}

func newPositionDeleteReader(in registry.InputFile, opts registry.ReadOptions) (registry.Reader[data.PositionDelete], error) {
	r, err := newRecordReader(in, opts)
	if err != nil {
		return nil, err
	}
	pr := &positionDeleteReader{records: r, path: -1, pos: -1, row: -1, location: in.Location}
	for i, f := range r.projection.Fields() {
		switch f.ID {
		case data.DeleteFilePathID:
			pr.path = i
		case data.DeleteFilePosID:
			pr.pos = i
		case data.DeleteFileRowID:
			pr.row = i
		}
	}
	if pr.path < 0 || pr.pos < 0 {
		r.Close()
		return nil, fmt.Errorf("read %s: not a position-delete file: no file_path (id %d) or pos (id %d) column",
			in.Location, data.DeleteFilePathID, data.DeleteFilePosID)
	}
	return pr, nil
}

func (r *positionDeleteReader) Next() (data.PositionDelete, error) {
	rec, err := r.records.Next()
	if err != nil {
		return data.PositionDelete{}, err
	}
	path, ok1 := rec.Get(r.path).(string)
	pos, ok2 := rec.Get(r.pos).(int64)
	if !ok1 || !ok2 {
		return data.PositionDelete{}, fmt.Errorf("read %s: position delete %s has a null or mistyped file_path or pos", r.location, rec)
	}
	d := data.PositionDelete{FilePath: path, Pos: pos}
	if r.row >= 0 {
		if row, ok := rec.Get(r.row).(*data.Record); ok {
			d.Row = row
		}
	}
	return d, nil
}

func (r *positionDeleteReader) Close() error { return r.records.Close() }
