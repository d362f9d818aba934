package parquet

import (
	"fmt"
	"reflect"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// Model names, as they appear in registry listings and errors.
const (
	RecordModelName         = "parquet-generic"
	PositionDeleteModelName = "parquet-position-delete"
)

// Magic is what every Parquet file starts (and ends) with.
const Magic = "PAR1"

func init() {
	registry.MustRegisterMagic(registry.PARQUET, Magic)
	registry.MustRegister(RecordModel{})
	registry.MustRegister(PositionDeleteModel)
}

// RecordModel reads and writes *data.Record rows in Parquet files.
type RecordModel struct{}

var _ registry.FormatModel[*data.Record] = RecordModel{}

func (RecordModel) Name() string                { return RecordModelName }
func (RecordModel) Format() registry.FileFormat { return registry.PARQUET }
func (RecordModel) RowType() reflect.Type       { return reflect.TypeFor[*data.Record]() }

// NewReader opens in and plans the read described by opts. The model has no
// engine projection and cannot decrypt (parquet-go has no Parquet modular
// encryption): those settings are refused, naming the model.
func (RecordModel) NewReader(in registry.InputFile, opts registry.ReadOptions) (registry.Reader[*data.Record], error) {
	if err := registry.RefuseReadOptions(RecordModelName, opts); err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, err)
	}
	r, err := newRecordReader(in, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// NewAppender starts a Parquet file at out for rows of opts.Schema. An
// engine schema and the encryption settings are refused, naming the model:
// parquet-go cannot write Parquet modular encryption.
func (RecordModel) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[*data.Record], error) {
	if err := registry.RefuseWriteOptions(RecordModelName, opts); err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	a, err := newRecordAppender(out, opts)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// PositionDeleteModel reads and writes position deletes through the
// registry's one position-delete adapter over RecordModel: (file_path, pos)
// and, when the schema has it, the deprecated row column. Its schema, order
// and pos rules are the registry's (registry.PositionDeleteModel).
var PositionDeleteModel = registry.NewPositionDeleteModel(PositionDeleteModelName, RecordModel{})

// The record reader reports the schema it reads (the projection, or the
// file's own), which the position-delete adapter and lab read rely on.
var _ registry.SchemaReader = (*recordReader)(nil)
