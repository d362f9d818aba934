package registry

import (
	"bytes"
	"errors"
	"fmt"
	"maps"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ReadBuilder configures a read of rows of type D. It mirrors the methods of
// Iceberg Java's org.apache.iceberg.formats.ReadBuilder as read at
// apache/iceberg 7f879b1136 (apache-iceberg-1.11.0-552-g7f879b1136): Split,
// Project, EngineProjection, CaseSensitive, Filter, Set, SetAll,
// ReuseContainers, RecordsPerBatch, IDToConstant and WithNameMapping. It adds
// WithFileEncryptionKey and WithAADPrefix, which that interface lacks (see
// ReadOptions). Java's schema type parameter S has no counterpart: the engine
// projection is an any that the model interprets. Each setter returns the
// builder for chaining.
type ReadBuilder[D any] struct {
	model FormatModel[D]
	in    InputFile
	opts  ReadOptions
}

// NewReadBuilder looks up (format, D) in Default and starts a read of in.
func NewReadBuilder[D any](format FileFormat, in InputFile) (*ReadBuilder[D], error) {
	return ReadBuilderIn[D](Default, format, in)
}

// ReadBuilderIn is NewReadBuilder against a given registry.
func ReadBuilderIn[D any](reg *Registry, format FileFormat, in InputFile) (*ReadBuilder[D], error) {
	m, err := ModelFor[D](reg, format)
	if err != nil {
		return nil, err
	}
	return &ReadBuilder[D]{model: m, in: in, opts: ReadOptions{CaseSensitive: true}}, nil
}

// Split restricts the read to [start, start+length).
func (b *ReadBuilder[D]) Split(start, length int64) *ReadBuilder[D] {
	b.opts.Split = &Split{Start: start, Length: length}
	return b
}

// Project sets the schema to read.
func (b *ReadBuilder[D]) Project(schema *iceberg.Schema) *ReadBuilder[D] {
	b.opts.Projection = schema
	return b
}

// CaseSensitive sets how filter names bind; the default is true.
func (b *ReadBuilder[D]) CaseSensitive(v bool) *ReadBuilder[D] {
	b.opts.CaseSensitive = v
	return b
}

// EngineProjection sets the engine's own form of the projection (Java's
// engineProjection(S)). Its type is the model's to choose: the parquet-arrow
// model takes an *arrow.Schema; models without one refuse it at Build.
func (b *ReadBuilder[D]) EngineProjection(schema any) *ReadBuilder[D] {
	b.opts.EngineProjection = schema
	return b
}

// WithFileEncryptionKey sets the key that decrypts a file written with
// Parquet modular encryption, as Java's Parquet.ReadBuilder does. Models
// that cannot decrypt refuse it at Build.
func (b *ReadBuilder[D]) WithFileEncryptionKey(key []byte) *ReadBuilder[D] {
	b.opts.FileEncryptionKey = bytes.Clone(key)
	return b
}

// WithAADPrefix sets the additional authenticated data prefix the file was
// encrypted with (Parquet.ReadBuilder.withAADPrefix); Iceberg does not store
// it in the file, so a reader must supply it.
func (b *ReadBuilder[D]) WithAADPrefix(prefix []byte) *ReadBuilder[D] {
	b.opts.AADPrefix = bytes.Clone(prefix)
	return b
}

// Filter pushes a filter down on a best-effort basis: the reader may return
// rows that do not match, so the caller applies the filter again.
func (b *ReadBuilder[D]) Filter(expr iceberg.BooleanExpression) *ReadBuilder[D] {
	b.opts.Filter = expr
	return b
}

// Set sets a reader property; readers ignore keys they do not know.
func (b *ReadBuilder[D]) Set(key, value string) *ReadBuilder[D] {
	if b.opts.Properties == nil {
		b.opts.Properties = map[string]string{}
	}
	b.opts.Properties[key] = value
	return b
}

// SetAll sets several reader properties.
func (b *ReadBuilder[D]) SetAll(props map[string]string) *ReadBuilder[D] {
	for k, v := range props {
		b.Set(k, v)
	}
	return b
}

// ReuseContainers lets the reader overwrite the row it returned last.
func (b *ReadBuilder[D]) ReuseContainers() *ReadBuilder[D] {
	b.opts.ReuseContainers = true
	return b
}

// RecordsPerBatch sets the batch size of columnar readers.
func (b *ReadBuilder[D]) RecordsPerBatch(n int) *ReadBuilder[D] {
	b.opts.RecordsPerBatch = n
	return b
}

// IDToConstant supplies values for field ids that come from metadata.
func (b *ReadBuilder[D]) IDToConstant(constants map[int]any) *ReadBuilder[D] {
	b.opts.IDToConstant = maps.Clone(constants)
	return b
}

// WithNameMapping maps column names to field ids for files written without ids.
func (b *ReadBuilder[D]) WithNameMapping(m iceberg.NameMapping) *ReadBuilder[D] {
	b.opts.NameMapping = m
	return b
}

// Options returns the options collected so far.
func (b *ReadBuilder[D]) Options() ReadOptions { return b.opts }

// Build opens the reader.
func (b *ReadBuilder[D]) Build() (Reader[D], error) {
	return b.model.NewReader(b.in, b.opts)
}

// FileWriterBuilder is Iceberg's one generic builder for content-file
// writers: data, equality-delete and position-delete writers share it and
// differ only in what Build produces. It mirrors the methods of Iceberg
// Java's org.apache.iceberg.formats.FileWriterBuilder (and the checks of
// FileWriterBuilderImpl) as read at apache/iceberg 7f879b1136
// (apache-iceberg-1.11.0-552-g7f879b1136): Set, SetAll, Meta, MetaAll
// (meta(Map)), MetricsConfig, Overwrite, WithFileEncryptionKey,
// WithAADPrefix, Spec, Partition, KeyMetadata, SortOrder, Schema,
// EngineSchema, EqualityFieldIDs (int...) and EqualityFieldIDList
// (List<Integer>). Java's schema type parameter S has no counterpart: the
// engine schema is an any that the model interprets.
//
// Java throws from a setter it refuses (equalityFieldIds on a data or
// position-delete builder); a Go setter returns the builder, so the refusal
// is kept and returned by Build.
type FileWriterBuilder[D any, W any] struct {
	model FormatModel[D]
	out   OutputFile
	opts  WriteOptions
	build func(FormatModel[D], OutputFile, WriteOptions) (W, error)
	// err is the first setter refusal; Build returns it.
	err error
}

func newFileWriterBuilder[D, W any](reg *Registry, format FileFormat, out OutputFile, content iceberg.ManifestEntryContent,
	build func(FormatModel[D], OutputFile, WriteOptions) (W, error)) (*FileWriterBuilder[D, W], error) {
	m, err := ModelFor[D](reg, format)
	if err != nil {
		return nil, err
	}
	return &FileWriterBuilder[D, W]{
		model: m,
		out:   out,
		opts: WriteOptions{
			Content:       content,
			Spec:          *iceberg.UnpartitionedSpec,
			MetricsConfig: DefaultMetricsConfig(),
		},
		build: build,
	}, nil
}

// Schema sets the Iceberg schema of the rows written.
func (b *FileWriterBuilder[D, W]) Schema(s *iceberg.Schema) *FileWriterBuilder[D, W] {
	b.opts.Schema = s
	return b
}

// EngineSchema sets the engine's own schema of the rows written (Java's
// engineSchema(S)). Its type is the model's to choose: the parquet-arrow
// model takes an *arrow.Schema; models without one refuse it at Build.
func (b *FileWriterBuilder[D, W]) EngineSchema(schema any) *FileWriterBuilder[D, W] {
	b.opts.EngineSchema = schema
	return b
}

// WithFileEncryptionKey sets the key the file is encrypted with (Parquet
// modular encryption). A model that cannot encrypt refuses it at Build: Java
// says "If the writer does not support encryption, then an exception should
// be thrown."
func (b *FileWriterBuilder[D, W]) WithFileEncryptionKey(key []byte) *FileWriterBuilder[D, W] {
	b.opts.FileEncryptionKey = bytes.Clone(key)
	return b
}

// WithAADPrefix sets the additional authenticated data prefix of the file's
// encryption. As in Iceberg, it is not stored in the file: readers supply it.
func (b *FileWriterBuilder[D, W]) WithAADPrefix(prefix []byte) *FileWriterBuilder[D, W] {
	b.opts.AADPrefix = bytes.Clone(prefix)
	return b
}

// Spec sets the partition spec recorded in the DataFile.
func (b *FileWriterBuilder[D, W]) Spec(spec iceberg.PartitionSpec) *FileWriterBuilder[D, W] {
	b.opts.Spec = spec
	return b
}

// Partition sets the partition values, by partition field id.
func (b *FileWriterBuilder[D, W]) Partition(values map[int]any) *FileWriterBuilder[D, W] {
	b.opts.Partition = maps.Clone(values)
	return b
}

// SortOrder records the sort order of the rows in the DataFile.
func (b *FileWriterBuilder[D, W]) SortOrder(order table.SortOrder) *FileWriterBuilder[D, W] {
	b.opts.SortOrder = &order
	return b
}

// KeyMetadata records encryption key metadata in the DataFile.
func (b *FileWriterBuilder[D, W]) KeyMetadata(key []byte) *FileWriterBuilder[D, W] {
	b.opts.KeyMetadata = append([]byte(nil), key...)
	return b
}

// MetricsConfig sets which column metrics are collected.
func (b *FileWriterBuilder[D, W]) MetricsConfig(cfg MetricsConfig) *FileWriterBuilder[D, W] {
	b.opts.MetricsConfig = cfg
	return b
}

// Overwrite replaces an existing file; without it an existing file is an error.
func (b *FileWriterBuilder[D, W]) Overwrite() *FileWriterBuilder[D, W] {
	b.opts.Overwrite = true
	return b
}

// Set sets a writer property.
func (b *FileWriterBuilder[D, W]) Set(key, value string) *FileWriterBuilder[D, W] {
	if b.opts.Properties == nil {
		b.opts.Properties = map[string]string{}
	}
	b.opts.Properties[key] = value
	return b
}

// SetAll sets several writer properties.
func (b *FileWriterBuilder[D, W]) SetAll(props map[string]string) *FileWriterBuilder[D, W] {
	for k, v := range props {
		b.Set(k, v)
	}
	return b
}

// Meta adds a key/value pair to the file's footer metadata.
func (b *FileWriterBuilder[D, W]) Meta(key, value string) *FileWriterBuilder[D, W] {
	if b.opts.FileMetadata == nil {
		b.opts.FileMetadata = map[string]string{}
	}
	b.opts.FileMetadata[key] = value
	return b
}

// MetaAll adds several key/value pairs to the file's footer metadata (Java's
// meta(Map)).
func (b *FileWriterBuilder[D, W]) MetaAll(props map[string]string) *FileWriterBuilder[D, W] {
	for k, v := range props {
		b.Meta(k, v)
	}
	return b
}

// ErrEqualityFieldIDsNotSupported is what Build returns after
// EqualityFieldIDs was called on a data or position-delete builder. The
// text is the message of the UnsupportedOperationException Java's
// FileWriterBuilderImpl.equalityFieldIds throws.
var ErrEqualityFieldIDsNotSupported = errors.New("Equality field ids not supported for this writer type")

// EqualityFieldIDs sets the ids that define row equality in an
// equality-delete file. As in Java, only an equality-delete builder takes
// them: on any other, Build fails with ErrEqualityFieldIDsNotSupported.
func (b *FileWriterBuilder[D, W]) EqualityFieldIDs(ids ...int) *FileWriterBuilder[D, W] {
	if b.opts.Content != iceberg.EntryContentEqDeletes {
		if b.err == nil {
			b.err = ErrEqualityFieldIDsNotSupported
		}
		return b
	}
	b.opts.EqualityFieldIDs = append([]int(nil), ids...)
	return b
}

// EqualityFieldIDList is EqualityFieldIDs taking a slice (Java's
// equalityFieldIds(List<Integer>) overload).
func (b *FileWriterBuilder[D, W]) EqualityFieldIDList(ids []int) *FileWriterBuilder[D, W] {
	return b.EqualityFieldIDs(ids...)
}

// Options returns the options collected so far.
func (b *FileWriterBuilder[D, W]) Options() WriteOptions { return b.opts }

// Build validates the options and opens the writer.
func (b *FileWriterBuilder[D, W]) Build() (W, error) {
	if b.err != nil {
		var zero W
		return zero, b.err
	}
	opts := b.opts
	// Writer properties may carry metrics settings too, as table properties do.
	cfg, err := metricsFromPropertiesOver(opts.MetricsConfig, opts.Properties)
	if err != nil {
		var zero W
		return zero, err
	}
	opts.MetricsConfig = promoteSortColumns(cfg, opts.Schema, opts.SortOrder)
	return b.build(b.model, b.out, opts)
}

// DataWriteBuilder starts a data-file writer for (format, D) in Default.
func DataWriteBuilder[D any](format FileFormat, out OutputFile) (*FileWriterBuilder[D, *DataWriter[D]], error) {
	return DataWriteBuilderIn[D](Default, format, out)
}

// DataWriteBuilderIn is DataWriteBuilder against a given registry.
func DataWriteBuilderIn[D any](reg *Registry, format FileFormat, out OutputFile) (*FileWriterBuilder[D, *DataWriter[D]], error) {
	return newFileWriterBuilder(reg, format, out, iceberg.EntryContentData, newDataWriter[D])
}

// EqualityDeleteWriteBuilder starts an equality-delete writer for (format, D) in Default.
func EqualityDeleteWriteBuilder[D any](format FileFormat, out OutputFile) (*FileWriterBuilder[D, *EqualityDeleteWriter[D]], error) {
	return EqualityDeleteWriteBuilderIn[D](Default, format, out)
}

// EqualityDeleteWriteBuilderIn is EqualityDeleteWriteBuilder against a given registry.
func EqualityDeleteWriteBuilderIn[D any](reg *Registry, format FileFormat, out OutputFile) (*FileWriterBuilder[D, *EqualityDeleteWriter[D]], error) {
	return newFileWriterBuilder(reg, format, out, iceberg.EntryContentEqDeletes, newEqualityDeleteWriter[D])
}

// Model is the format model the builder reads with.
func (b *ReadBuilder[D]) Model() FormatModel[D] { return b.model }

// FileSchema opens a reader with the options collected so far, returns the
// schema it reads (see SchemaReader) and closes it without reading a row.
// Without a projection that is the file's own schema.
func (b *ReadBuilder[D]) FileSchema() (*iceberg.Schema, error) {
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	s, err := ReaderSchema(b.model, r)
	if cerr := r.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", b.in.Location, cerr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.in.Location, err)
	}
	return s, nil
}
