package registry

import (
	"errors"
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

// ReadOptions is every setting of Iceberg 1.11's ReadBuilder.
type ReadOptions struct {
	// Projection is the schema to read; nil reads the file's own schema.
	Projection *iceberg.Schema
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
}

// WriteOptions is every setting of Iceberg 1.11's FileWriterBuilder.
type WriteOptions struct {
	Content     iceberg.ManifestEntryContent
	Schema      *iceberg.Schema
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
