package arrow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	labpq "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/internal/colmetrics"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
)

// Defaults of the arrow-go writer for the shared writer properties (writer.go).
const (
	arrowDefaultRowGroupLimit = 1 << 20
	arrowDefaultPageRowLimit  = 20000
	arrowDefaultDictBytes     = 2 << 20
)

// NewAppender starts a Parquet file at out for batches of opts.Schema, or of
// opts.EngineSchema when set, encrypted when opts.FileEncryptionKey is set
// (see engine.go for both).
func (arrowModel) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[arrow.RecordBatch], error) {
	if opts.Schema == nil {
		return nil, fmt.Errorf("parquet file %s: schema is required", out.Location)
	}
	if err := labpq.CheckProperties(arrowProperties, opts.Properties); err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	sc, err := table.SchemaToArrowSchema(opts.Schema, nil, true, false)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: arrow schema: %w", out.Location, err)
	}
	annot, err := labpq.PlanAnnotations(opts.Schema, opts.Properties)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	// The collector checks the metrics config up front, as the record
	// model's does; it sees no values, only the footer (Close).
	collector, err := colmetrics.NewCollector(opts.Schema, opts.MetricsConfig)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	var engineCasts []arrow.DataType
	if opts.EngineSchema != nil {
		if engineCasts, err = arrowEnginePlan("engine schema", sc, opts.EngineSchema); err != nil {
			return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
		}
	}
	if err := arrowCheckKey(opts.FileEncryptionKey, opts.AADPrefix); err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	if opts.FileEncryptionKey != nil && !annot.Empty() {
		// They go in by rewriting the footer, which is encrypted.
		return nil, fmt.Errorf("parquet file %s: the %s model cannot write VECTOR annotations (%s) into an encrypted file",
			out.Location, arrowModelName, vectorcol.PropColumns)
	}
	if bs := annot.Bindings(); len(bs) > 0 {
		// A binding's values must be valid before they are written
		// (ValueCheck), and this model sees columns, not records: it does
		// not check them.
		b := bs[0]
		return nil, fmt.Errorf("parquet file %s: %s is not supported by the %s model; write %s columns with *data.Record rows",
			out.Location, b.Property(), arrowModelName, b.Kind())
	}
	var extra []parquet.WriterProperty
	if opts.FileEncryptionKey != nil {
		extra = append(extra, parquet.WithEncryptionProperties(arrowEncryptionProps(opts.FileEncryptionKey, opts.AADPrefix)))
	}
	props, rowGroupBytes, err := arrowWriterProps(opts.Properties, extra...)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	schemaJSON, err := opts.Schema.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	pending, err := out.Create(opts.Overwrite)
	if err != nil {
		return nil, err
	}
	fw, err := pqarrow.NewFileWriter(sc, pending, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(arrowMem)))
	if err != nil {
		_ = pending.Abort()
		return nil, fmt.Errorf("parquet file %s: %w", out.Location, err)
	}
	meta := maps.Clone(opts.FileMetadata)
	if meta == nil {
		meta = map[string]string{}
	}
	if _, ok := meta[labpq.IcebergSchemaKey]; !ok {
		meta[labpq.IcebergSchemaKey] = string(schemaJSON)
	}
	return &arrowAppender{
		collector:     collector,
		location:      out.Location,
		pending:       pending,
		fw:            fw,
		schema:        sc,
		engineCasts:   engineCasts,
		iceSchema:     opts.Schema,
		metricsConfig: opts.MetricsConfig,
		meta:          meta,
		rowGroupBytes: rowGroupBytes,
		annot:         annot,
	}, nil
}

// arrowWriterProps maps Iceberg's Parquet writer properties onto arrow-go's.
// A value that does not parse is an error naming the key, never a silent default.
// extra are appended to the options (encryption).
func arrowWriterProps(p map[string]string, extra ...parquet.WriterProperty) (*parquet.WriterProperties, int64, error) {
	sizes := map[string]int64{
		labpq.PropRowGroupBytes: labpq.DefaultRowGroupBytes,
		labpq.PropRowGroupRows:  arrowDefaultRowGroupLimit,
		labpq.PropPageBytes:     labpq.DefaultPageBytes,
		labpq.PropPageRowLimit:  arrowDefaultPageRowLimit,
		labpq.PropDictBytes:     arrowDefaultDictBytes,
	}
	for key := range sizes {
		v, ok := p[key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return nil, 0, fmt.Errorf("property %s=%q: want a positive integer", key, v)
		}
		sizes[key] = n
	}
	codecName := strings.ToLower(registry.Property(p, labpq.PropCompressionCodec, labpq.DefaultCompression))
	codec, ok := map[string]compress.Compression{
		"uncompressed": compress.Codecs.Uncompressed,
		"snappy":       compress.Codecs.Snappy,
		"gzip":         compress.Codecs.Gzip,
		"brotli":       compress.Codecs.Brotli,
		"zstd":         compress.Codecs.Zstd,
		"lz4":          compress.Codecs.Lz4Raw,
		"lz4raw":       compress.Codecs.Lz4Raw,
	}[codecName]
	if !ok {
		return nil, 0, fmt.Errorf("property %s=%q: want uncompressed, snappy, gzip, brotli, zstd or lz4", labpq.PropCompressionCodec, codecName)
	}
	level := compress.DefaultCompressionLevel
	if v, ok := p[labpq.PropCompressionLevel]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, 0, fmt.Errorf("property %s=%q: want an integer", labpq.PropCompressionLevel, v)
		}
		level = n
	}
	dict := true
	if v, ok := p[labpq.PropDictEnabled]; ok {
		dict = strings.EqualFold(strings.TrimSpace(v), "true") // Java's Boolean.parseBoolean
	}
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{
		parquet.WithAllocator(arrowMem),
		parquet.WithCreatedBy("coltype-lab parquet-arrow (arrow-go v18)"),
		parquet.WithMaxRowGroupLength(sizes[labpq.PropRowGroupRows]),
		parquet.WithDataPageSize(sizes[labpq.PropPageBytes]),
		parquet.WithBatchSize(sizes[labpq.PropPageRowLimit]),
		parquet.WithDictionaryPageSizeLimit(sizes[labpq.PropDictBytes]),
		parquet.WithDictionaryDefault(dict),
		parquet.WithCompression(codec),
		parquet.WithCompressionLevel(level),
		// Iceberg's Java writer stores small decimals as INT32/INT64.
		parquet.WithStoreDecimalAsInteger(true),
		parquet.WithStats(true),
	}, extra...)...)
	return props, sizes[labpq.PropRowGroupBytes], nil
}

type arrowAppender struct {
	location      string
	pending       *registry.PendingFile
	fw            *pqarrow.FileWriter
	schema        *arrow.Schema
	iceSchema     *iceberg.Schema
	metricsConfig registry.MetricsConfig
	collector     *colmetrics.Collector
	meta          map[string]string
	rowGroupBytes int64
	annot         *labpq.AnnotationPlan

	// engineCasts is set when the writer has an engine schema: per
	// top-level field, the engine type batches carry (cast to schema's
	// type before writing), or nil where the types agree.
	engineCasts []arrow.DataType

	// failed is set when arrow-go failed mid-write: the file cannot be
	// finished and Close aborts it.
	failed  error
	done    bool
	metrics registry.Metrics
	length  int64
	splits  []int64
}

// Add writes one batch. A batch whose schema does not match, or that has a
// null in a required column, is rejected and the file stays writable; the
// caller keeps ownership of the batch.
func (a *arrowAppender) Add(batch arrow.RecordBatch) (err error) {
	switch {
	case a.done:
		return fmt.Errorf("parquet file %s: write after Close or Abort", a.location)
	case a.failed != nil:
		return a.failed
	case batch == nil:
		return fmt.Errorf("parquet file %s: nil batch", a.location)
	}
	if a.engineCasts != nil {
		conv, err := a.fromEngine(batch)
		if err != nil {
			return fmt.Errorf("parquet file %s: %w", a.location, err)
		}
		defer conv.Release()
		batch = conv
	}
	if err := arrowMatchSchema(a.schema, batch.Schema()); err != nil {
		return fmt.Errorf("parquet file %s: batch does not match the schema: %w", a.location, err)
	}
	cols := make([]arrow.Array, len(a.schema.Fields()))
	for i, want := range a.schema.Fields() {
		col := batch.Column(i)
		if err := arrowCheckRequired(want.Name, want, col, nil); err != nil {
			return fmt.Errorf("parquet file %s: %w", a.location, err)
		}
		// Re-type to the writer's schema (field ids, element names).
		d := arrowRetype(col.Data(), want.Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecordBatch(a.schema, cols, batch.NumRows())
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()

	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet file %s: arrow-go panicked writing a batch: %v", a.location, p)
		}
		if err != nil {
			a.failed = err
		}
	}()
	if err := a.fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("parquet file %s: %w", a.location, err)
	}
	if a.fw.RowGroupTotalBytesWritten() >= a.rowGroupBytes {
		if err := a.fw.NewBufferedRowGroupChecked(); err != nil {
			return fmt.Errorf("parquet file %s: %w", a.location, err)
		}
	}
	return nil
}

// fromEngine checks a batch against the engine schema and casts the columns
// whose engine type differs to the writer's types.
func (a *arrowAppender) fromEngine(batch arrow.RecordBatch) (arrow.RecordBatch, error) {
	engine := batch.Schema()
	if engine.NumFields() != len(a.engineCasts) {
		return nil, fmt.Errorf("batch has %d fields (%s), the engine schema %d",
			engine.NumFields(), arrowFieldNames(engine.Fields()), len(a.engineCasts))
	}
	fields := slices.Clone(engine.Fields())
	cols := make([]arrow.Array, len(fields))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, dt := range a.engineCasts {
		col := batch.Column(i)
		if dt == nil {
			col.Retain()
			cols[i] = col
			continue
		}
		if !arrow.TypeEqual(col.DataType(), dt) {
			return nil, fmt.Errorf("batch does not match the engine schema: field %s has type %s, the engine schema has %s",
				fields[i].Name, col.DataType(), dt)
		}
		c, err := arrowCastColumn(col, a.schema.Field(i).Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", fields[i].Name, err)
		}
		cols[i] = c
		fields[i].Type = c.DataType()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, batch.NumRows()), nil
}

// Close finishes the file, publishes it, and computes metrics from the
// footer just written.
func (a *arrowAppender) Close() (err error) {
	if a.done {
		if a.failed != nil {
			return a.failed
		}
		return nil
	}
	a.done = true
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet file %s: arrow-go panicked closing it: %v", a.location, p)
		}
		if err != nil {
			_ = a.pending.Abort()
			a.failed = err
		}
	}()
	if a.failed != nil {
		return a.failed
	}
	for _, k := range slices.Sorted(maps.Keys(a.meta)) {
		if err := a.fw.AppendKeyValueMetadata(k, a.meta[k]); err != nil {
			return fmt.Errorf("parquet file %s: footer metadata %q: %w", a.location, k, err)
		}
	}
	if err := a.fw.Close(); err != nil {
		return fmt.Errorf("parquet file %s: %w", a.location, err)
	}
	md, err := a.fw.FileMetadata()
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", a.location, err)
	}
	metrics, splits, err := arrowFooterMetrics(md, a.iceSchema, a.metricsConfig)
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", a.location, err)
	}
	if err := a.footerBounds(md, &metrics); err != nil {
		return fmt.Errorf("parquet file %s: %w", a.location, err)
	}
	if !a.annot.Empty() {
		// VECTOR annotations go in by footer rewrite, as in the record model.
		if err := a.annot.Rewrite(a.pending); err != nil {
			return fmt.Errorf("parquet file %s: annotate footer: %w", a.location, err)
		}
	}
	if err := a.pending.Commit(); err != nil {
		return err
	}
	a.metrics, a.splits, a.length = metrics, splits, a.pending.Written()
	return nil
}

// Abort discards the file; nothing is left at the location or beside it.
func (a *arrowAppender) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	return a.pending.Abort()
}

func (a *arrowAppender) Metrics() registry.Metrics { return a.metrics }
func (a *arrowAppender) Length() int64             { return a.length }
func (a *arrowAppender) SplitOffsets() []int64     { return a.splits }

// footerBounds adds the lower and upper bounds that colmetrics derives from
// the written footer's statistics (Collector.FooterMetrics), in parquet-go's
// model of the footer: arrow-go's thrift bytes decoded again. The counts stay
// arrowFooterMetrics's, which sees whether a null count was written at all;
// parquet-go's model reads an absent one as 0.
func (a *arrowAppender) footerBounds(md *metadata.FileMetaData, m *registry.Metrics) error {
	raw, err := md.Serialize(context.Background())
	if err != nil {
		return fmt.Errorf("serialize footer for metrics: %w", err)
	}
	var pm format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw, &pm); err != nil {
		return fmt.Errorf("decode footer for metrics: %w", err)
	}
	fm := a.collector.FooterMetrics(&pm)
	m.LowerBounds, m.UpperBounds = fm.LowerBounds, fm.UpperBounds
	return nil
}

// arrowFooterMetrics derives a DataFile's metrics from a written footer:
// record count, and per field id the column sizes, value counts (which,
// as in Parquet and Iceberg, include nulls) and null counts, summed over
// row groups. A null count missing from any row group drops that field's
// null count rather than under-reporting it. Columns whose metrics mode is
// "none" are left out.
//
// Bounds come from colmetrics (footerBounds); NaN counts need the values,
// which Parquet statistics do not carry, and are left out.
func arrowFooterMetrics(md *metadata.FileMetaData, sc *iceberg.Schema, cfg registry.MetricsConfig) (registry.Metrics, []int64, error) {
	m := registry.Metrics{
		RecordCount:     md.NumRows,
		ColumnSizes:     map[int]int64{},
		ValueCounts:     map[int]int64{},
		NullValueCounts: map[int]int64{},
	}
	noNulls := map[int]bool{}
	splits := make([]int64, 0, md.NumRowGroups())
	for r := range md.NumRowGroups() {
		rg := md.RowGroup(r)
		start, err := arrowRowGroupStart(rg)
		if err != nil {
			return m, nil, err
		}
		splits = append(splits, start)
		for c := range rg.NumColumns() {
			id := int(md.Schema.Column(c).SchemaNode().FieldID())
			if id < 0 {
				continue
			}
			name, _ := sc.FindColumnName(id)
			if cfg.ColumnMode(name).Kind == registry.MetricsNone {
				continue
			}
			cc := md.FileMetaData.RowGroups[r].Columns[c].MetaData
			m.ColumnSizes[id] += cc.TotalCompressedSize
			m.ValueCounts[id] += cc.NumValues
			if st := cc.Statistics; st != nil && st.IsSetNullCount() {
				m.NullValueCounts[id] += st.GetNullCount()
			} else {
				noNulls[id] = true
			}
		}
	}
	for id := range noNulls {
		delete(m.NullValueCounts, id)
	}
	return m, splits, nil
}

// arrowMatchSchema checks a batch schema against the writer's: same fields in
// the same order with the same names and types. Field metadata, list element
// names and map entry names are not compared; a nullable batch field may feed
// a required column (its nulls are checked per batch). The error names the
// first mismatched field by its dotted path.
func arrowMatchSchema(want, got *arrow.Schema) error {
	if want.NumFields() != got.NumFields() {
		return fmt.Errorf("batch has %d fields (%s), the schema %d (%s)",
			got.NumFields(), arrowFieldNames(got.Fields()), want.NumFields(), arrowFieldNames(want.Fields()))
	}
	for i, w := range want.Fields() {
		g := got.Field(i)
		if g.Name != w.Name {
			return fmt.Errorf("field %d is %q, the schema has %q", i, g.Name, w.Name)
		}
		if err := arrowMatchType(w.Name, w.Type, g.Type); err != nil {
			return err
		}
	}
	return nil
}

func arrowFieldNames(fs []arrow.Field) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func arrowMatchType(path string, want, got arrow.DataType) error {
	mismatch := func() error {
		return fmt.Errorf("field %s has type %s, the schema has %s", path, got, want)
	}
	if want.ID() != got.ID() {
		return mismatch()
	}
	switch w := want.(type) {
	case *arrow.StructType:
		g := got.(*arrow.StructType)
		if g.NumFields() != w.NumFields() {
			return mismatch()
		}
		for i, wf := range w.Fields() {
			gf := g.Field(i)
			if gf.Name != wf.Name {
				return fmt.Errorf("field %s.%s is named %q in the batch", path, wf.Name, gf.Name)
			}
			if err := arrowMatchType(path+"."+wf.Name, wf.Type, gf.Type); err != nil {
				return err
			}
		}
	case *arrow.MapType:
		g := got.(*arrow.MapType)
		if err := arrowMatchType(path+".key", w.KeyType(), g.KeyType()); err != nil {
			return err
		}
		return arrowMatchType(path+".value", w.ItemType(), g.ItemType())
	case *arrow.ListType:
		return arrowMatchType(path+".element", w.Elem(), got.(*arrow.ListType).Elem())
	default:
		if !arrow.TypeEqual(want, got) {
			return mismatch()
		}
	}
	return nil
}

// arrowCheckRequired finds a null in a required position of col, whose
// schema field is want (the writer's, whose nullability counts, not the
// batch's); live marks the slots whose parents are valid (nil:
// all). Nulls under a null parent are not values and are allowed.
func arrowCheckRequired(path string, want arrow.Field, col arrow.Array, live []bool) error {
	if !want.Nullable && col.NullN() > 0 {
		for i := range col.Len() {
			if col.IsNull(i) && (live == nil || live[i]) {
				return fmt.Errorf("required field %s has a null at slot %d", path, i)
			}
		}
	}
	valid := func(i int) bool { return (live == nil || live[i]) && col.IsValid(i) }
	switch a := col.(type) {
	case *array.Struct:
		st := want.Type.(*arrow.StructType)
		childLive := make([]bool, a.Len())
		for i := range childLive {
			childLive[i] = valid(i)
		}
		for j, f := range st.Fields() {
			if err := arrowCheckRequired(path+"."+f.Name, f, a.Field(j), childLive); err != nil {
				return err
			}
		}
	case *array.Map:
		mt := want.Type.(*arrow.MapType)
		childLive := arrowListLive(a.Len(), a.ListValues().Len(), a.ValueOffsets, valid)
		if err := arrowCheckRequired(path+".key", mt.KeyField(), a.Keys(), childLive); err != nil {
			return err
		}
		return arrowCheckRequired(path+".value", mt.ItemField(), a.Items(), childLive)
	case *array.List:
		lt := want.Type.(*arrow.ListType)
		childLive := arrowListLive(a.Len(), a.ListValues().Len(), a.ValueOffsets, valid)
		return arrowCheckRequired(path+".element", lt.ElemField(), a.ListValues(), childLive)
	}
	return nil
}

func arrowListLive(n, values int, offsets func(int) (int64, int64), valid func(int) bool) []bool {
	live := make([]bool, values)
	for i := range n {
		if !valid(i) {
			continue
		}
		s, e := offsets(i)
		for k := s; k < e && k < int64(values); k++ {
			live[k] = true
		}
	}
	return live
}

// arrowRetype returns d with the data type dt, which arrowMatchSchema found
// equal to d's up to field metadata, nullability and entry names. The
// buffers are shared.
func arrowRetype(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	children := d.Children()
	var kids []arrow.ArrayData
	switch t := dt.(type) {
	case *arrow.StructType:
		kids = make([]arrow.ArrayData, len(children))
		for i, c := range children {
			kids[i] = arrowRetype(c, t.Field(i).Type)
		}
	case *arrow.ListType:
		kids = []arrow.ArrayData{arrowRetype(children[0], t.Elem())}
	case *arrow.MapType:
		kids = []arrow.ArrayData{arrowRetype(children[0], t.Elem())}
	default:
		kids = children
		for _, c := range kids {
			c.Retain() // balanced by the releases below
		}
	}
	out := array.NewData(dt, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset())
	for _, k := range kids {
		k.Release()
	}
	return out
}
