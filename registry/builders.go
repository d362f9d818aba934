package registry

import (
	"maps"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ReadBuilder configures a read of rows of type D, mirroring Iceberg 1.11's
// ReadBuilder. Each setter returns the builder for chaining.
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

// FileWriterBuilder is Iceberg 1.11's one generic builder for content-file
// writers: data, equality-delete and position-delete writers share it and
// differ only in what Build produces.
type FileWriterBuilder[D any, W any] struct {
	model FormatModel[D]
	out   OutputFile
	opts  WriteOptions
	build func(FormatModel[D], OutputFile, WriteOptions) (W, error)
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

// EqualityFieldIDs sets the ids that define row equality in an
// equality-delete file; other writers ignore them.
func (b *FileWriterBuilder[D, W]) EqualityFieldIDs(ids ...int) *FileWriterBuilder[D, W] {
	b.opts.EqualityFieldIDs = append([]int(nil), ids...)
	return b
}

// Options returns the options collected so far.
func (b *FileWriterBuilder[D, W]) Options() WriteOptions { return b.opts }

// Build validates the options and opens the writer.
func (b *FileWriterBuilder[D, W]) Build() (W, error) {
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
