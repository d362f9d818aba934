package registry

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

// Footer keys Iceberg writes into delete files.
const (
	DeleteTypeKey     = "delete-type"
	DeleteFieldIDsKey = "delete-field-ids"
)

// contentWriter is the shared core of the three content writers: it feeds an
// appender and, on Close, turns the appender's metrics into a DataFile.
type contentWriter[D any] struct {
	appender FileAppender[D]
	format   FileFormat
	opts     WriteOptions
	location string
	dataFile iceberg.DataFile
	closed   bool
	failed   error
	// adjust, when set, rewrites the appender's metrics before the
	// DataFile is built (position deletes drop some).
	adjust func(Metrics) Metrics
}

func newContentWriter[D any](m FormatModel[D], out OutputFile, opts WriteOptions) (*contentWriter[D], error) {
	if opts.Schema == nil {
		return nil, fmt.Errorf("%s writer for %s: schema is required", contentName(opts.Content), out.Location)
	}
	if !opts.Spec.IsUnpartitioned() && opts.Partition == nil {
		return nil, fmt.Errorf("%s writer for %s: partition values are required for a partitioned spec", contentName(opts.Content), out.Location)
	}
	app, err := m.NewAppender(out, opts)
	if err != nil {
		return nil, err
	}
	return &contentWriter[D]{appender: app, format: m.Format(), opts: opts, location: out.Location}, nil
}

func contentName(c iceberg.ManifestEntryContent) string {
	switch c {
	case iceberg.EntryContentEqDeletes:
		return "equality-delete"
	case iceberg.EntryContentPosDeletes:
		return "position-delete"
	default:
		return "data"
	}
}

func (w *contentWriter[D]) write(row D) error {
	if w.closed {
		return fmt.Errorf("write to %s: writer is closed", w.location)
	}
	if err := w.appender.Add(row); err != nil {
		// The row is rejected; the file stays writable and what was
		// written before is kept.
		return err
	}
	return nil
}

func (w *contentWriter[D]) close() error {
	if w.closed {
		return w.failed
	}
	w.closed = true
	if err := w.appender.Close(); err != nil {
		w.failed = err
		return err
	}
	df, err := w.buildDataFile()
	if err != nil {
		w.failed = err
		return err
	}
	w.dataFile = df
	return nil
}

// warnings are the settings ignored while the writer's metrics config was
// read, as Iceberg's MetricsConfig logs them: the lab has no logger, so
// the caller may print them.
func (w *contentWriter[D]) warnings() []string {
	return slices.Clone(w.opts.MetricsConfig.Warnings)
}

func (w *contentWriter[D]) abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.failed = errors.New("writer was aborted")
	return w.appender.Abort()
}

func (w *contentWriter[D]) buildDataFile() (iceberg.DataFile, error) {
	m := w.appender.Metrics()
	if w.adjust != nil {
		m = w.adjust(m)
	}
	ff, err := icebergFormat(w.format)
	if err != nil {
		return nil, err
	}
	b, err := iceberg.NewDataFileBuilder(w.opts.Spec, w.opts.Content, w.location, ff,
		w.opts.Partition, nil, nil, m.RecordCount, w.appender.Length())
	if err != nil {
		return nil, fmt.Errorf("data file for %s: %w", w.location, err)
	}
	if m.ColumnSizes != nil {
		b.ColumnSizes(m.ColumnSizes)
	}
	if m.ValueCounts != nil {
		b.ValueCounts(m.ValueCounts)
	}
	if m.NullValueCounts != nil {
		b.NullValueCounts(m.NullValueCounts)
	}
	if m.NaNValueCounts != nil {
		b.NaNValueCounts(m.NaNValueCounts)
	}
	if m.LowerBounds != nil {
		b.LowerBoundValues(m.LowerBounds)
	}
	if m.UpperBounds != nil {
		b.UpperBoundValues(m.UpperBounds)
	}
	if offs := w.appender.SplitOffsets(); offs != nil {
		b.SplitOffsets(offs)
	}
	if w.opts.KeyMetadata != nil {
		b.KeyMetadata(w.opts.KeyMetadata)
	}
	if w.opts.SortOrder != nil && w.opts.Content != iceberg.EntryContentPosDeletes {
		b.SortOrderID(w.opts.SortOrder.OrderID())
	}
	if w.opts.Content == iceberg.EntryContentEqDeletes {
		b.EqualityFieldIDs(w.opts.EqualityFieldIDs)
	}
	return b.Build(), nil
}

func icebergFormat(f FileFormat) (iceberg.FileFormat, error) {
	switch f {
	case PARQUET:
		return iceberg.ParquetFile, nil
	case AVRO:
		return iceberg.AvroFile, nil
	case ORC:
		return iceberg.OrcFile, nil
	case PUFFIN:
		return iceberg.PuffinFile, nil
	default:
		return "", fmt.Errorf("format %s cannot hold table content", f)
	}
}

// DataWriter writes rows of a data file. Close yields the DataFile.
type DataWriter[D any] struct{ w *contentWriter[D] }

func newDataWriter[D any](m FormatModel[D], out OutputFile, opts WriteOptions) (*DataWriter[D], error) {
	w, err := newContentWriter(m, out, opts)
	if err != nil {
		return nil, err
	}
	return &DataWriter[D]{w: w}, nil
}

// Write appends one row.
func (d *DataWriter[D]) Write(row D) error { return d.w.write(row) }

// Close finishes the file and builds its DataFile.
func (d *DataWriter[D]) Close() error { return d.w.close() }

// Abort discards the file.
func (d *DataWriter[D]) Abort() error { return d.w.abort() }

// DataFile is the written file's metadata; nil before a successful Close.
func (d *DataWriter[D]) DataFile() iceberg.DataFile { return d.w.dataFile }

// Warnings are the metrics settings Build ignored (MetricsConfig.Warnings).
func (d *DataWriter[D]) Warnings() []string { return d.w.warnings() }

// EqualityDeleteWriter writes rows that delete every row equal on the
// equality field ids.
type EqualityDeleteWriter[D any] struct{ w *contentWriter[D] }

func newEqualityDeleteWriter[D any](m FormatModel[D], out OutputFile, opts WriteOptions) (*EqualityDeleteWriter[D], error) {
	if len(opts.EqualityFieldIDs) == 0 {
		return nil, fmt.Errorf("equality-delete writer for %s: equality field ids are required", out.Location)
	}
	if opts.Schema != nil {
		for _, id := range opts.EqualityFieldIDs {
			if _, ok := opts.Schema.FindFieldByID(id); !ok {
				return nil, fmt.Errorf("equality-delete writer for %s: equality field id %d is not in the schema", out.Location, id)
			}
		}
	}
	opts.FileMetadata = withMeta(opts.FileMetadata, map[string]string{
		DeleteTypeKey:     "equality",
		DeleteFieldIDsKey: joinIDs(opts.EqualityFieldIDs),
	})
	w, err := newContentWriter(m, out, opts)
	if err != nil {
		return nil, err
	}
	return &EqualityDeleteWriter[D]{w: w}, nil
}

// Write appends one delete row.
func (d *EqualityDeleteWriter[D]) Write(row D) error { return d.w.write(row) }

// Close finishes the file and builds its DataFile.
func (d *EqualityDeleteWriter[D]) Close() error { return d.w.close() }

// Abort discards the file.
func (d *EqualityDeleteWriter[D]) Abort() error { return d.w.abort() }

// DataFile is the written file's metadata; nil before a successful Close.
func (d *EqualityDeleteWriter[D]) DataFile() iceberg.DataFile { return d.w.dataFile }

// Warnings are the metrics settings Build ignored (MetricsConfig.Warnings).
func (d *EqualityDeleteWriter[D]) Warnings() []string { return d.w.warnings() }

// PositionDeleteWriter writes (file_path, pos) deletes, for format-version 2
// tables (see PositionDeleteWriteBuilder).
type PositionDeleteWriter struct {
	w    *contentWriter[data.PositionDelete]
	last *data.PositionDelete
	// manyFiles is set once deletes reference more than one data file.
	// Deletes come sorted by file_path, so a path other than the last
	// one's is a new file.
	manyFiles bool
}

// PositionDeleteWriteBuilder starts a position-delete writer for format in
// Default. Its row type is always data.PositionDelete.
//
// Position-delete files apply to format-version 2 tables only. Iceberg's
// FormatModelRegistry.positionDeleteWriteBuilder says so (apache/iceberg
// 7f879b1136): "This method is only applicable to format-version 2 tables.
// Format-version 3 tables use deletion vectors, which are always written in
// Puffin format. Registered FormatModel implementations for PositionDelete
// are not consulted for format-version 3+ tables." The lab does not know the
// table's format version, so it does not check it; the caller must.
//
// As in Java, EqualityFieldIDs on this builder makes Build fail with
// ErrEqualityFieldIDsNotSupported.
func PositionDeleteWriteBuilder(format FileFormat, out OutputFile) (*FileWriterBuilder[data.PositionDelete, *PositionDeleteWriter], error) {
	return PositionDeleteWriteBuilderIn(Default, format, out)
}

// PositionDeleteWriteBuilderIn is PositionDeleteWriteBuilder against a given
// registry; like it, it applies to format-version 2 tables only.
func PositionDeleteWriteBuilderIn(reg *Registry, format FileFormat, out OutputFile) (*FileWriterBuilder[data.PositionDelete, *PositionDeleteWriter], error) {
	b, err := newFileWriterBuilder(reg, format, out, iceberg.EntryContentPosDeletes, newPositionDeleteWriter)
	if err != nil {
		return nil, err
	}
	// The schema is fixed by the spec; a caller may still replace it to
	// add the deprecated row column.
	b.opts.Schema = data.PositionDeleteSchema()
	// Iceberg's writer factories pass MetricsConfig.forPositionDelete():
	// full metrics for file_path and pos, none for the row column
	// (data/src/main/java/org/apache/iceberg/data/RegistryBasedFileWriterFactory.java).
	b.opts.MetricsConfig = PositionDeleteMetricsConfig()
	return b, nil
}

func newPositionDeleteWriter(m FormatModel[data.PositionDelete], out OutputFile, opts WriteOptions) (*PositionDeleteWriter, error) {
	opts.FileMetadata = withMeta(opts.FileMetadata, map[string]string{DeleteTypeKey: "position"})
	w, err := newContentWriter(m, out, opts)
	if err != nil {
		return nil, err
	}
	return &PositionDeleteWriter{w: w}, nil
}

// Write appends one delete. Iceberg requires deletes sorted by file path,
// then position: the model refuses a delete out of that order (see
// PositionDeleteModel, which holds the position-delete rules once).
func (d *PositionDeleteWriter) Write(del data.PositionDelete) error {
	if err := d.w.write(del); err != nil {
		return err
	}
	if d.last != nil && d.last.FilePath != del.FilePath {
		d.manyFiles = true
	}
	d.last = &data.PositionDelete{FilePath: del.FilePath, Pos: del.Pos}
	return nil
}

// Close finishes the file and builds its DataFile. Its metrics are the
// appender's less what Iceberg's PositionDeleteWriter.metrics() drops
// (core/src/main/java/org/apache/iceberg/deletes/PositionDeleteWriter.java):
// the value, null and NaN counts of file_path and pos always
// (MetricsUtil.copyWithoutFieldCounts), and their bounds too when the
// deletes reference more than one data file
// (MetricsUtil.copyWithoutFieldCountsAndBounds). Column sizes stay.
func (d *PositionDeleteWriter) Close() error {
	d.w.adjust = func(m Metrics) Metrics { return positionDeleteMetrics(m, d.manyFiles) }
	return d.w.close()
}

// positionDeleteMetrics drops the counts of file_path and pos, and with
// manyFiles their bounds, from a copy of m.
func positionDeleteMetrics(m Metrics, manyFiles bool) Metrics {
	ids := []int{data.DeleteFilePathID, data.DeleteFilePosID}
	without := func(src map[int]int64) map[int]int64 {
		if src == nil {
			return nil
		}
		out := maps.Clone(src)
		for _, id := range ids {
			delete(out, id)
		}
		return out
	}
	m.ValueCounts = without(m.ValueCounts)
	m.NullValueCounts = without(m.NullValueCounts)
	m.NaNValueCounts = without(m.NaNValueCounts)
	if manyFiles {
		for _, b := range []*map[int][]byte{&m.LowerBounds, &m.UpperBounds} {
			if *b == nil {
				continue
			}
			*b = maps.Clone(*b)
			for _, id := range ids {
				delete(*b, id)
			}
		}
	}
	return m
}

// Warnings are the metrics settings Build ignored (MetricsConfig.Warnings).
func (d *PositionDeleteWriter) Warnings() []string { return d.w.warnings() }

// Abort discards the file.
func (d *PositionDeleteWriter) Abort() error { return d.w.abort() }

// DataFile is the written file's metadata; nil before a successful Close.
func (d *PositionDeleteWriter) DataFile() iceberg.DataFile { return d.w.dataFile }

func withMeta(base, add map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, add)
	return out
}

// joinIDs formats ids as Iceberg does for delete-field-ids: "1, 2, 3".
func joinIDs(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ", ")
}
