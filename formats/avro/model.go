// Package avro holds Iceberg's Avro format models: (AVRO, *data.Record)
// named "avro-generic" and (AVRO, data.PositionDelete) named
// "avro-position-delete", both registered in registry.Default from init().
//
// Files are Avro object container files. The Avro schema follows the Iceberg
// spec's Avro appendix (field-id, element-id, key-id/value-id, optional fields
// as ["null", T] unions, maps with non-string keys as arrays of k/v records
// with logicalType "map"). hamba/avro builds and serializes the schema and
// writes the container; rows are encoded and decoded here, straight from
// and into data.Record, because the Iceberg type of each value (timestamp
// versus timestamp_ns, uuid versus fixed(16)) is known only from the Iceberg
// schema, and because reading untrusted files must be bounded by the file's
// size, which hamba's OCF decoder does not guarantee (it allocates declared
// block lengths and cannot start at a split offset).
package avro

import (
	"fmt"
	"reflect"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// Model names, as listed by the registry.
const (
	GenericModelName        = "avro-generic"
	PositionDeleteModelName = "avro-position-delete"
)

// Writer properties. The first four are Iceberg's table properties.
const (
	CompressionCodecKey       = "write.avro.compression-codec"
	CompressionLevelKey       = "write.avro.compression-level"
	DeleteCompressionCodecKey = "write.delete.avro.compression-codec"
	DeleteCompressionLevelKey = "write.delete.avro.compression-level"
	// SyncIntervalKey is a lab property, not Iceberg's: the uncompressed size
	// in bytes at which a block is closed. Iceberg leaves Avro's default of
	// 64000 bytes, which is the default here too.
	SyncIntervalKey = "write.avro.sync-interval-bytes"
)

// Reader properties (lab properties; Iceberg's Avro reader has none).
const (
	// MaxBlockBytesKey caps the decompressed size of one block. A block is
	// decompressed fully before it is decoded, so this bounds the memory a
	// hostile file can make a reader take.
	MaxBlockBytesKey = "read.avro.max-block-bytes"
)

// Header metadata keys.
const (
	// IcebergSchemaKey holds the Iceberg schema JSON, as Iceberg's Java
	// writer stores it.
	IcebergSchemaKey = "iceberg.schema"
	avroSchemaKey    = "avro.schema"
	avroCodecKey     = "avro.codec"
)

// Reserved metadata column ids Iceberg's Avro reader fills in itself
// (MetadataColumns.ROW_POSITION and IS_DELETED), as the registry names them.
const (
	RowPositionFieldID = registry.RowPositionFieldID
	IsDeletedFieldID   = registry.IsDeletedFieldID
)

// Magic is what every Avro object container file starts with ("Obj" and
// version 1).
const Magic = "Obj\x01"

func init() {
	registry.MustRegisterMagic(registry.AVRO, Magic)
	registry.MustRegister(GenericModel{})
	registry.MustRegister(PositionDeleteModel)
}

// GenericModel reads and writes *data.Record rows.
type GenericModel struct{}

var _ registry.FormatModel[*data.Record] = GenericModel{}

func (GenericModel) Name() string                { return GenericModelName }
func (GenericModel) Format() registry.FileFormat { return registry.AVRO }
func (GenericModel) RowType() reflect.Type       { return reflect.TypeFor[*data.Record]() }

// NewReader opens in and plans the read of opts.Projection (or the file's
// own schema when nil).
//
// Avro has no engine projection here and no encryption: those settings are
// refused, naming the model.
func (GenericModel) NewReader(in registry.InputFile, opts registry.ReadOptions) (r registry.Reader[*data.Record], err error) {
	defer recoverTo(&err, "read "+in.Location)
	if err := registry.RefuseReadOptions(GenericModelName, opts); err != nil {
		return nil, fmt.Errorf("read %s: %w", in.Location, err)
	}
	fr, err := openRecordReader(in, opts)
	if err != nil {
		return nil, err
	}
	return &recordReader{r: fr}, nil
}

// NewAppender starts an Avro file at out for rows of opts.Schema. An engine
// schema and the encryption settings are refused, naming the model, as Java's
// AvroFormatModel throws "Avro does not support file encryption keys" and
// "Avro does not support AAD prefix".
func (GenericModel) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (a registry.FileAppender[*data.Record], err error) {
	defer recoverTo(&err, "write "+out.Location)
	if err := registry.RefuseWriteOptions(GenericModelName, opts); err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	if opts.Schema == nil {
		return nil, fmt.Errorf("write %s: schema is required", out.Location)
	}
	st := opts.Schema.AsStruct()
	enc, err := newStructEncoder(&st)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	w, err := newOCFWriter(out, opts)
	if err != nil {
		return nil, err
	}
	return &recordAppender{w: w, enc: enc}, nil
}

// PositionDeleteModel reads and writes position deletes through the
// registry's one position-delete adapter over GenericModel. Without a
// projection it reads file_path, pos and, when the file has it, row; a
// schema with the row column writes rows too. Its schema, order and pos
// rules are the registry's (registry.PositionDeleteModel).
var PositionDeleteModel = registry.NewPositionDeleteModel(PositionDeleteModelName, GenericModel{})

// recoverTo turns a panic at an API boundary into an error naming what was
// being done: bad input must never crash the caller.
func recoverTo(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: internal error: %v", what, r)
	}
}
