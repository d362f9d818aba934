package registry

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Model is the non-generic face of a format model: what the registry needs
// to key, list and report it.
type Model interface {
	// Name identifies the model in errors and listings, e.g. "parquet-generic".
	Name() string
	Format() FileFormat
	// RowType is the Go type of the rows the model reads and writes.
	RowType() reflect.Type
}

// FormatModel reads and writes rows of type D in one file format. A model
// gets fully resolved options from the registry's builders; it never sees
// the builders themselves, so every model shares one builder surface.
//
// Java's FormatModel<D, S> also has a schema type S (schemaType()), the type
// of engineSchema and engineProjection. Go models have no such parameter:
// those settings are an any the model checks (ReadOptions.EngineProjection,
// WriteOptions.EngineSchema).
type FormatModel[D any] interface {
	Model
	// NewReader opens in for reading with the given options.
	NewReader(in InputFile, opts ReadOptions) (Reader[D], error)
	// NewAppender starts a file at out. The model writes the rows; the
	// registry's content writers turn the result into an Iceberg DataFile.
	NewAppender(out OutputFile, opts WriteOptions) (FileAppender[D], error)
}

// Reader yields rows until it returns io.EOF.
type Reader[D any] interface {
	// Next returns the next row, or io.EOF after the last one. With
	// ReuseContainers the row may be overwritten by the following call.
	Next() (D, error)
	Close() error
}

// FileAppender is what a model returns for writing. Close finishes the file;
// Metrics, Length and SplitOffsets are valid after a successful Close.
type FileAppender[D any] interface {
	Add(row D) error
	Close() error
	// Abort discards the partially written file, leaving nothing behind.
	Abort() error
	Metrics() Metrics
	Length() int64
	SplitOffsets() []int64
}

// Metrics are the per-file column statistics an Iceberg DataFile carries,
// keyed by field id. Bounds use Iceberg's single-value serialization.
type Metrics struct {
	RecordCount     int64
	ColumnSizes     map[int]int64
	ValueCounts     map[int]int64
	NullValueCounts map[int]int64
	NaNValueCounts  map[int]int64
	LowerBounds     map[int][]byte
	UpperBounds     map[int][]byte
}

// Split restricts a read to [Start, Start+Length) of the file.
type Split struct {
	Start, Length int64
}

// ReadOptions are the settings the registry's ReadBuilder collects. They
// mirror the methods of Iceberg Java's org.apache.iceberg.formats.ReadBuilder
// as of apache/iceberg 7f879b1136 (apache-iceberg-1.11.0-552-g7f879b1136;
// the interface is the same at the 1.11.0 tag but for Javadoc): split,
// project, engineProjection, caseSensitive, filter, set/setAll,
// reuseContainers, recordsPerBatch, idToConstant and withNameMapping. The
// two decryption settings are not on that interface: Java's Parquet model
// takes them from a NativeEncryptionInputFile's key metadata and hands them
// to Parquet.ReadBuilder.withFileEncryptionKey/withAADPrefix; the lab's
// InputFile carries no key metadata, so the builder takes them directly.
type ReadOptions struct {
	// Projection is the schema to read; nil reads the file's own schema.
	Projection *iceberg.Schema
	// EngineProjection is the engine's own form of Projection (Java's
	// engineProjection(S)): "consistent with the requested Iceberg
	// projection, while allowing representation differences". Java types
	// it by the model's schema type S; here it is any, and each model says
	// which type it takes (the parquet-arrow model: *arrow.Schema). A model
	// that takes none refuses a non-nil value, naming itself.
	EngineProjection any
	// Filter is applied on a best-effort basis; callers re-apply it.
	Filter        iceberg.BooleanExpression
	CaseSensitive bool
	Split         *Split
	// ReuseContainers lets the reader reuse the row it returned last.
	ReuseContainers bool
	RecordsPerBatch int
	// IDToConstant gives values for field ids that come from metadata
	// (partition values, _file, ...) instead of the file's columns.
	IDToConstant map[int]any
	NameMapping  iceberg.NameMapping
	Properties   map[string]string
	// FileEncryptionKey and AADPrefix decrypt a file written with Parquet
	// modular encryption (Parquet.ReadBuilder's withFileEncryptionKey and
	// withAADPrefix). A model that cannot decrypt refuses them, naming itself.
	FileEncryptionKey []byte
	AADPrefix         []byte
}

// WriteOptions are the settings the registry's FileWriterBuilder collects.
// They mirror the methods of Iceberg Java's
// org.apache.iceberg.formats.FileWriterBuilder as of apache/iceberg
// 7f879b1136 (apache-iceberg-1.11.0-552-g7f879b1136; unchanged since the
// 1.11.0 tag): set/setAll, meta (one pair or a map), metricsConfig,
// overwrite, withFileEncryptionKey, withAADPrefix, spec, partition,
// keyMetadata, sortOrder, schema, engineSchema and equalityFieldIds (a list
// or varargs). Content is what FileWriterBuilderImpl passes to
// ModelWriteBuilder.content.
type WriteOptions struct {
	Content iceberg.ManifestEntryContent
	Schema  *iceberg.Schema
	// EngineSchema is the engine's own schema of the rows written (Java's
	// engineSchema(S)): "aligned with the Iceberg schema, but may include
	// representation details that Iceberg considers equivalent". Java types
	// it by the model's schema type S; here it is any, and each model says
	// which type it takes (the parquet-arrow model: *arrow.Schema). A model
	// that takes none refuses a non-nil value, naming itself.
	EngineSchema any

	Spec        iceberg.PartitionSpec
	Partition   map[int]any
	SortOrder   *table.SortOrder
	KeyMetadata []byte
	// MetricsConfig is filled by the builders (default truncate(16)); its zero
	// value means no metrics at all.
	MetricsConfig MetricsConfig
	Overwrite     bool
	// Properties configure the writer (compression, row-group size, ...).
	Properties map[string]string
	// FileMetadata is written into the file's key/value metadata.
	FileMetadata     map[string]string
	EqualityFieldIDs []int
	// FileEncryptionKey and AADPrefix ask for Parquet modular encryption
	// (withFileEncryptionKey, withAADPrefix). A model that cannot encrypt
	// refuses them, naming itself, as Java's "If the writer does not support
	// encryption, then an exception should be thrown" asks.
	FileEncryptionKey []byte
	AADPrefix         []byte
}

// ErrUnsupportedOption is wrapped by the error a model returns for a
// builder setting it cannot honour (UnsupportedOption).
var ErrUnsupportedOption = errors.New("unsupported option")

// UnsupportedOption is the error a model returns for a setting it cannot
// honour: it names the model and the setting, and wraps
// ErrUnsupportedOption. Settings are never silently ignored.
func UnsupportedOption(model, option string) error {
	return fmt.Errorf("the %s model does not support %s: %w", model, option, ErrUnsupportedOption)
}

// RefuseReadOptions returns UnsupportedOption for the first of the engine
// projection and decryption settings that is set, for a model that supports
// none of them; nil when none is set.
func RefuseReadOptions(model string, opts ReadOptions) error {
	switch {
	case opts.EngineProjection != nil:
		return UnsupportedOption(model, fmt.Sprintf("an engine projection (got %T)", opts.EngineProjection))
	case opts.FileEncryptionKey != nil:
		return UnsupportedOption(model, "file encryption keys")
	case opts.AADPrefix != nil:
		return UnsupportedOption(model, "an AAD prefix")
	}
	return nil
}

// RefuseWriteOptions is RefuseReadOptions for the engine schema and
// encryption settings of a writer.
func RefuseWriteOptions(model string, opts WriteOptions) error {
	switch {
	case opts.EngineSchema != nil:
		return UnsupportedOption(model, fmt.Sprintf("an engine schema (got %T)", opts.EngineSchema))
	case opts.FileEncryptionKey != nil:
		return UnsupportedOption(model, "file encryption keys")
	case opts.AADPrefix != nil:
		return UnsupportedOption(model, "an AAD prefix")
	}
	return nil
}

// Property returns a writer or reader property, or def when unset.
func Property(props map[string]string, key, def string) string {
	if v, ok := props[key]; ok {
		return v
	}
	return def
}

// ReadAll reads r to the end and closes it. With clone, each row is cloned
// before it is kept, which a reader built with ReuseContainers needs.
func ReadAll[D any](r Reader[D], clone func(D) D) (rows []D, err error) {
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		if clone != nil {
			row = clone(row)
		}
		rows = append(rows, row)
	}
}

// SchemaReader is the optional interface of a Reader that reports the
// Iceberg schema of the rows it returns: the projection when one was given,
// else the file's own schema as the model reads it (its field ids, the name
// mapping's, or ids derived from the file's schema). Callers that need a
// file's schema use ReadBuilder.FileSchema or ReaderSchema rather than
// asserting a method of their own.
type SchemaReader interface {
	Schema() *iceberg.Schema
}

// ReaderSchema is r's schema when r is a SchemaReader; the error names the
// model whose reader cannot report one.
func ReaderSchema[D any](model Model, r Reader[D]) (*iceberg.Schema, error) {
	sr, ok := r.(SchemaReader)
	if !ok {
		return nil, fmt.Errorf("the %s model's reader does not report its schema (registry.SchemaReader)", model.Name())
	}
	return sr.Schema(), nil
}
