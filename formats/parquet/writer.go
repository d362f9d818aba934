package parquet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/colmetrics"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// Writer properties, with Iceberg's names where Iceberg has one.
const (
	PropCompressionCodec = "write.parquet.compression-codec"
	PropCompressionLevel = "write.parquet.compression-level"
	PropRowGroupBytes    = "write.parquet.row-group-size-bytes"
	PropPageBytes        = "write.parquet.page-size-bytes"
	// PropRowGroupRows caps a row group's rows (iceberg-go's and PyIceberg's
	// name). Row groups of a known size make split and filter experiments exact.
	PropRowGroupRows = "write.parquet.row-group-limit"
	// Page and dictionary limits; the arrow-go model honours them.
	PropPageRowLimit = "write.parquet.page-row-limit"
	PropDictBytes    = "write.parquet.dict-size-bytes"
	PropDictEnabled  = "parquet.enable.dictionary"

	// IcebergSchemaKey is the footer key Iceberg writes the schema JSON under.
	IcebergSchemaKey = "iceberg.schema"

	defaultCompression   = "zstd"
	defaultRowGroupBytes = 128 << 20
	defaultPageBytes     = 1 << 20
)

// writerSettings are the parsed writer properties.
type writerSettings struct {
	codec         compress.Codec
	rowGroupBytes int64
	rowGroupRows  int64
	pageBytes     int
}

func parseWriterSettings(props map[string]string) (writerSettings, error) {
	s := writerSettings{rowGroupBytes: defaultRowGroupBytes, pageBytes: defaultPageBytes}
	level := -1
	if v, ok := props[PropCompressionLevel]; ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return s, fmt.Errorf("%s: %q is not an integer", PropCompressionLevel, v)
		}
		level = n
	}
	codec := strings.ToLower(strings.TrimSpace(registry.Property(props, PropCompressionCodec, defaultCompression)))
	var err error
	if s.codec, err = sharedCodec(codec, level); err != nil {
		return s, err
	}
	if s.rowGroupBytes, err = positiveProperty(props, PropRowGroupBytes, s.rowGroupBytes); err != nil {
		return s, err
	}
	if s.rowGroupRows, err = positiveProperty(props, PropRowGroupRows, 0); err != nil {
		return s, err
	}
	page, err := positiveProperty(props, PropPageBytes, int64(s.pageBytes))
	if err != nil {
		return s, err
	}
	s.pageBytes = int(min(page, 1<<30))
	return s, nil
}

func positiveProperty(props map[string]string, key string, def int64) (int64, error) {
	v, ok := props[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s: %q is not a positive integer", key, v)
	}
	return n, nil
}

// recordAppender writes *data.Record rows to one Parquet file.
type recordAppender struct {
	location string
	pending  *registry.PendingFile
	w        *pq.Writer
	schema   *iceberg.Schema
	options  []pq.WriterOption // every writer option but the schema
	plan     *writePlan
	shred    *shredder

	// variants buffers the first records while shredding layouts are
	// inferred; nil once the writer has started.
	variants       *variantBuffer
	variantReports map[string]*variant.Report
	collector      *colmetrics.Collector
	settings       writerSettings
	annot          *annotationPlan
	// vec writes the columns of PageBindings, VECTOR's (page_write.go),
	// nil without any; kv and kvOrder are the key/value metadata of a file
	// whose columns are all theirs (parquet-go writes it otherwise).
	vec     *vectorWriter
	kv      map[string]string
	kvOrder []string

	// Rows wait in a batch, shredded column by column, and reach
	// parquet-go a batch at a time (write_columnar.go): row-at-a-time calls
	// cost more than the encoding itself. flatColumns selects the fast path
	// for top-level primitives; only tests turn it off.
	batch       *columnBatch
	flatColumns bool

	groupRows   int64
	groupOffset int64 // writer size estimate right after the last flush

	closed, aborted bool
	failed          error
	footer          *format.FileMetaData
	length          int64
	splits          []int64
	metrics         registry.Metrics
}

func newRecordAppender(out registry.OutputFile, opts registry.WriteOptions) (*recordAppender, error) {
	return newRecordAppenderWith(out, opts, true)
}

// newRecordAppenderWith is newRecordAppender with the fast path for flat
// columns on or off.
func newRecordAppenderWith(out registry.OutputFile, opts registry.WriteOptions, flatColumns bool) (*recordAppender, error) {
	if opts.Schema == nil {
		return nil, fmt.Errorf("parquet writer for %s: schema is required", out.Location)
	}
	if err := withPageBindings(withBindings(recordProperties)).Check(opts.Properties); err != nil {
		return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
	}
	settings, err := parseWriterSettings(opts.Properties)
	if err != nil {
		return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
	}
	vsettings, err := parseVariantSettings(opts.Properties)
	if err != nil {
		return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
	}
	annot, err := planAnnotations(opts.Schema, opts.Properties)
	if err != nil {
		return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
	}
	plan, err := planWriteVectors(opts.Schema, nil, annot.pagedColumnNames())
	if err != nil {
		return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
	}
	collector, err := colmetrics.NewCollector(opts.Schema, opts.MetricsConfig)
	if err != nil {
		return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
	}
	schemaJSON, err := json.Marshal(opts.Schema)
	if err != nil {
		return nil, fmt.Errorf("parquet writer for %s: schema JSON: %w", out.Location, err)
	}
	options := []pq.WriterOption{
		pq.Compression(settings.codec),
		pq.PageBufferSize(settings.pageBytes),
		// Iceberg Java writes v1 data pages; every reader knows them.
		pq.DataPageVersion(1),
		// PLAIN strings and binaries, as Iceberg Java writes them (parquet-go
		// would pick DELTA_LENGTH_BYTE_ARRAY, which not every reader has).
		pq.DefaultEncodingFor(pq.ByteArray, &pq.Plain),
		pq.KeyValueMetadata(IcebergSchemaKey, string(schemaJSON)),
	}
	for _, k := range slices.Sorted(maps.Keys(opts.FileMetadata)) {
		options = append(options, pq.KeyValueMetadata(k, opts.FileMetadata[k]))
	}
	pending, err := out.Create(opts.Overwrite)
	if err != nil {
		return nil, err
	}
	a := &recordAppender{
		location:    out.Location,
		pending:     pending,
		schema:      opts.Schema,
		plan:        plan,
		shred:       newShredder(plan),
		collector:   collector,
		settings:    settings,
		annot:       annot,
		options:     options,
		flatColumns: flatColumns,
	}
	if len(annot.paged) > 0 {
		if a.vec, err = newVectorWriter(out.Location, pending, annot, opts.Properties, settings.pageBytes); err != nil {
			_ = pending.Abort()
			return nil, fmt.Errorf("parquet writer for %s: %w", out.Location, err)
		}
		a.kv, a.kvOrder = icebergSchemaKV(string(schemaJSON), opts.FileMetadata)
		// The lab must know when parquet-go's bytes reach the file: its
		// sink buffers them instead (page_write.go).
		a.options = append(a.options, pq.WriteBufferSize(-1))
	}
	if cols := topLevelVariants(opts.Schema); vsettings.shred && len(cols) > 0 {
		// The writer starts once the first rows have shown the layouts.
		a.variants = &variantBuffer{settings: vsettings, columns: cols}
		for _, c := range cols {
			a.variants.names = append(a.variants.names, opts.Schema.AsStruct().FieldList[c].Name)
		}
		return a, nil
	}
	if err := a.start(plan); err != nil {
		_ = pending.Abort()
		return nil, err
	}
	return a, nil
}

// start creates the parquet-go writer for plan, which writes every column
// but the VECTOR ones; without other columns there is none.
func (a *recordAppender) start(plan *writePlan) error {
	var out io.Writer = a.pending
	if a.vec != nil {
		var err error
		if out, err = a.vec.begin(plan.schema != nil); err != nil {
			return fmt.Errorf("write %s: %w", a.location, err)
		}
	}
	if plan.schema != nil {
		config, err := pq.NewWriterConfig(append([]pq.WriterOption{plan.schema}, a.options...)...)
		if err != nil {
			return fmt.Errorf("parquet writer for %s: %w", a.location, err)
		}
		if err := guard(a.location, "create writer", func() error {
			a.w = pq.NewWriter(out, config)
			return nil
		}); err != nil {
			return err
		}
		a.groupOffset = a.w.Size()
	}
	a.plan, a.shred = plan, newShredder(plan)
	a.batch = newColumnBatch(plan, a.collector, a.flatColumns)
	a.batch.vec = a.vec
	return nil
}

// startShredded infers the variant layouts from the buffered records,
// starts the writer with the shredded schema and writes the records.
func (a *recordAppender) startShredded() error {
	vb := a.variants
	layouts, reports := vb.layouts()
	a.variantReports = reports
	plan, err := planWriteVectors(a.schema, layouts, a.annot.pagedColumnNames())
	if err == nil {
		err = a.start(plan)
	}
	if err != nil {
		a.failed = err
		return err
	}
	records := vb.records
	a.variants = nil
	for _, rec := range records {
		if err := a.add(rec); err != nil {
			a.failed = err
			return err
		}
	}
	return nil
}

// guard runs fn and turns a parquet-go panic into an error naming the file.
func guard(location, what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &recoveredPanic{fmt.Sprintf("%s %s: parquet: %v", what, location, r)}
		}
	}()
	return fn()
}

// recoveredPanic is a parquet-go panic that guard recovered; its text
// already says what was being done to which file.
type recoveredPanic struct{ msg string }

func (e *recoveredPanic) Error() string { return e.msg }

// inContext prefixes err with "what location: " unless it is guard's
// recovered panic, which says so already: without the check, a panic on
// close read "close f.parquet: close f.parquet: parquet: ...".
func inContext(what, location string, err error) error {
	if p := (*recoveredPanic)(nil); errors.As(err, &p) {
		return err
	}
	return fmt.Errorf("%s %s: %w", what, location, err)
}

func (a *recordAppender) Add(rec *data.Record) error {
	switch {
	case a.closed:
		return fmt.Errorf("write to %s: appender is closed", a.location)
	case a.failed != nil:
		return fmt.Errorf("write to %s: appender failed earlier: %w", a.location, a.failed)
	}
	if vb := a.variants; vb != nil {
		// Validate now, against the unshredded plan, so a bad record is
		// refused by the call that passes it, then keep a copy.
		if err := a.shred.validate(rec); err != nil {
			return fmt.Errorf("write to %s: %w", a.location, err)
		}
		if err := a.annot.check(rec); err != nil {
			return fmt.Errorf("write to %s: %w", a.location, err)
		}
		if a.vec != nil {
			if err := a.vec.validate(rec.Get); err != nil {
				return fmt.Errorf("write to %s: %w", a.location, err)
			}
		}
		vb.records = append(vb.records, rec.Copy())
		if len(vb.records) >= vb.settings.rows {
			if err := a.startShredded(); err != nil {
				return fmt.Errorf("write to %s: %w", a.location, err)
			}
		}
		return nil
	}
	return a.add(rec)
}

// add writes one record with the started writer.
func (a *recordAppender) add(rec *data.Record) error {
	if err := a.batch.add(a.shred, rec, a.annot.check); err != nil {
		// The record is rejected whole; the file stays writable.
		return fmt.Errorf("write to %s: %w", a.location, err)
	}
	if a.vec != nil {
		// The record's VECTOR values, staged by the batch.
		if err := a.vec.commit(); err != nil {
			a.failed = err
			return fmt.Errorf("write to %s: %w", a.location, err)
		}
	}
	if a.collector.NeedsRecords() {
		a.collector.Add(rec)
	}
	a.groupRows++
	rowLimitReached := a.settings.rowGroupRows > 0 && a.groupRows >= a.settings.rowGroupRows
	if a.batch.rows < writeBatchRows && !rowLimitReached && a.batch.bytes < a.settings.rowGroupBytes/4 {
		return nil
	}
	if err := a.writeBatch(); err != nil {
		return err
	}
	if rowLimitReached || a.groupSize() >= a.settings.rowGroupBytes {
		if err := a.flushGroup(); err != nil {
			a.failed = err
			return fmt.Errorf("flush row group of %s: %w", a.location, err)
		}
	}
	return nil
}

// groupSize is the row group's size so far. parquet-go's Size() counts
// buffered values uncompressed, and so do the VECTOR columns: an upper
// bound, as the row-group size is in Iceberg.
func (a *recordAppender) groupSize() int64 {
	var n int64
	if a.w != nil {
		n = a.w.Size() - a.groupOffset
	}
	if a.vec != nil {
		n += a.vec.groupBytes
	}
	return n
}

// flushGroup ends the row group: the VECTOR chunks, then parquet-go's.
func (a *recordAppender) flushGroup() error {
	if a.vec != nil {
		if err := a.vec.endGroup(); err != nil {
			return err
		}
	}
	if a.w != nil {
		if err := guard(a.location, "flush", func() error {
			if err := a.batch.flushColumns(a.w.ColumnWriters()); err != nil {
				return err
			}
			return a.w.Flush()
		}); err != nil {
			return err
		}
		a.groupOffset = a.w.Size()
	}
	if a.vec != nil {
		a.vec.beginGroup()
	}
	a.groupRows = 0
	return nil
}

// writeBatchRows is how many rows wait before they go to parquet-go.
const writeBatchRows = 512

// writeBatch hands the waiting rows to parquet-go and their flat columns
// to the metrics collector.
func (a *recordAppender) writeBatch() error {
	if a.batch.rows == 0 {
		return nil
	}
	a.batch.observe(a.collector)
	err := guard(a.location, "write to", func() error {
		if a.w == nil {
			return nil // VECTOR columns only: nothing waits for parquet-go
		}
		return a.batch.writeTo(a.w.ColumnWriters())
	})
	a.batch.reset()
	if err != nil {
		a.failed = err
		return inContext("write to", a.location, err)
	}
	return nil
}

func (a *recordAppender) Close() error {
	if a.closed {
		return a.failed
	}
	a.closed = true
	if a.aborted {
		return fmt.Errorf("close %s: appender was aborted", a.location)
	}
	if a.failed != nil {
		_ = a.pending.Abort()
		return a.failed
	}
	if a.variants != nil {
		// Fewer rows than the inference buffer: infer from what there is.
		if err := a.startShredded(); err != nil {
			_ = a.pending.Abort()
			return fmt.Errorf("close %s: %w", a.location, err)
		}
	}
	if err := a.writeBatch(); err != nil {
		_ = a.pending.Abort()
		return a.failed
	}
	if a.vec != nil {
		if err := a.closeVectors(); err != nil {
			a.failed = inContext("close", a.location, err)
			_ = a.pending.Abort()
			return a.failed
		}
		return nil
	}
	if err := guard(a.location, "close", a.closeWriter); err != nil {
		a.failed = inContext("close", a.location, err)
		_ = a.pending.Abort()
		return a.failed
	}
	if !a.annot.empty() {
		// Length below is the annotated file's: only the footer changed.
		if err := a.annot.rewrite(a.pending); err != nil {
			a.failed = fmt.Errorf("close %s: annotate footer: %w", a.location, err)
			return a.failed
		}
	}
	if err := a.pending.Commit(); err != nil {
		a.failed = err
		return err
	}
	a.footer = a.w.File().Metadata()
	a.length = a.pending.Written()
	a.splits = splitOffsets(a.footer)
	a.metrics = a.collector.Metrics(a.footer)
	return nil
}

// closeWriter ends the last row group's pages, its columns concurrently
// (write_columnar.go), and closes parquet-go's writer.
func (a *recordAppender) closeWriter() error {
	if a.w != nil {
		if err := a.batch.flushColumns(a.w.ColumnWriters()); err != nil {
			return err
		}
	}
	return a.w.Close()
}

// closeVectors finishes a file with VECTOR columns: the last row group,
// parquet-go's close into memory, then the page index and the merged
// footer (page_write.go), and publishes it.
func (a *recordAppender) closeVectors() error {
	if a.groupRows > 0 {
		if err := a.flushGroup(); err != nil {
			return err
		}
	}
	if a.w != nil {
		if err := a.vec.sink.startCapture(); err != nil {
			return err
		}
		if err := guard(a.location, "close", a.closeWriter); err != nil {
			return err
		}
	}
	meta, fb, err := a.vec.finish(a.plan, a.annot, a.kv, a.kvOrder)
	if err != nil {
		return err
	}
	if a.footer, err = parquetGoFooter(fb); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	mf, err := a.vec.metricsFooter(meta)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if err := a.pending.Commit(); err != nil {
		return err
	}
	a.length = a.pending.Written()
	a.splits = vectorSplitOffsets(meta)
	a.metrics = a.collector.Metrics(mf)
	return nil
}

func (a *recordAppender) Abort() error {
	if a.closed && a.failed == nil {
		// A closed file is published; aborting it now would delete data
		// the caller may already have committed.
		return fmt.Errorf("abort %s: file is already closed", a.location)
	}
	a.closed, a.aborted = true, true
	return a.pending.Abort()
}

func (a *recordAppender) Metrics() registry.Metrics { return a.metrics }

// VariantReports are the analyses behind the shredded layouts, by column
// name, once the writer has inferred them (nil without shredding).
func (a *recordAppender) VariantReports() map[string]*variant.Report { return a.variantReports }
func (a *recordAppender) Length() int64                              { return a.length }
func (a *recordAppender) SplitOffsets() []int64                      { return slices.Clone(a.splits) }

// Footer is the written file's metadata as parquet-go wrote it, available
// after Close; the annotations added on Close are not in it. A file with
// VECTOR columns has one footer, the lab's, annotations included
// (page_write.go).
func (a *recordAppender) Footer() *format.FileMetaData { return a.footer }

// rowGroupStart is where a row group begins in the file: the first page of
// its first column chunk (dictionary page if there is one). Iceberg's split
// offsets and a reader's split selection both use it.
func rowGroupStart(rg *format.RowGroup) (int64, bool) {
	if len(rg.Columns) == 0 {
		return 0, false
	}
	md := &rg.Columns[0].MetaData
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < md.DataPageOffset {
		return md.DictionaryPageOffset, true
	}
	return md.DataPageOffset, true
}

func splitOffsets(footer *format.FileMetaData) []int64 {
	out := make([]int64, 0, len(footer.RowGroups))
	for i := range footer.RowGroups {
		if off, ok := rowGroupStart(&footer.RowGroups[i]); ok {
			out = append(out, off)
		}
	}
	slices.Sort(out)
	return out
}
