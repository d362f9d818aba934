package arrow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	labpq "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

// arrowModelName names the (PARQUET, arrow.RecordBatch) model.
const arrowModelName = labpq.ArrowModelName

// arrowDefaultBatchSize is the rows per batch when ReadOptions.RecordsPerBatch is unset.
const arrowDefaultBatchSize = 1024

// arrowFieldIDKey is where arrow-go keeps a Parquet field id on an arrow field.
const arrowFieldIDKey = "PARQUET:field_id"

// arrowMem allocates every arrow buffer of this model. Tests swap in a
// checked allocator to find leaks.
var arrowMem memory.Allocator = memory.DefaultAllocator

func init() { registry.MustRegister(arrowModel{}) }

// arrowModel reads and writes Parquet as arrow.RecordBatch through arrow-go's
// Parquet stack (parquet/file, parquet/pqarrow), the lab's second Parquet
// implementation next to parquet-go.
//
// Reading: each Reader.Next returns one batch of at most RecordsPerBatch
// rows (default 1024). The caller owns the batch and must Release it.
// Projection is by Iceberg field id at the top level: a projected field
// is read whole (nested children are not pruned, and nested types are
// returned as the file has them); int→long, float→double and decimal
// widening are applied to top-level primitives. A projected field absent
// from the file is filled with its initial default, or nulls; a required
// field without a default is an error naming its id. IDToConstant fields are
// filled with their constant. Files without field ids are matched through
// NameMapping (top-level names). Split keeps the row groups whose first
// byte lies in the split. Filter is ignored (callers re-apply it, as the
// registry's contract allows); no row-group pruning is done yet.
// ReuseContainers, CaseSensitive and reader Properties have no effect:
// every batch is new, and nothing binds names.
//
// Writing: batches must have the arrow schema of WriteOptions.Schema as
// iceberg-go's table.SchemaToArrowSchema produces it (field names, types and
// order; field-id metadata and list element names may differ; a nullable
// batch field may feed a required column if it holds no nulls). Metrics carry
// counts only; see arrowFooterMetrics.
//
// Engine schema (write) and engine projection (read) are *arrow.Schema
// values that may represent top-level primitives with other arrow types;
// FileEncryptionKey and AADPrefix write and read Parquet modular
// encryption. Both are described in engine.go.
type arrowModel struct{}

var _ registry.FormatModel[arrow.RecordBatch] = arrowModel{}

func (arrowModel) Name() string                { return arrowModelName }
func (arrowModel) Format() registry.FileFormat { return registry.PARQUET }
func (arrowModel) RowType() reflect.Type       { return reflect.TypeFor[arrow.RecordBatch]() }

// NewReader opens in and plans the read; no column data is read yet.
func (arrowModel) NewReader(in registry.InputFile, opts registry.ReadOptions) (_ registry.Reader[arrow.RecordBatch], err error) {
	if opts.EngineProjection != nil && opts.Projection == nil {
		return nil, fmt.Errorf("parquet file %s: an engine projection represents an Iceberg projection; set one with Project", in.Location)
	}
	pf, err := arrowOpenGuardedKey(in, opts.FileEncryptionKey, opts.AADPrefix)
	if err != nil {
		return nil, err
	}
	r := &arrowReader{location: in.Location, pf: pf, mem: arrowMem}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet file %s: arrow-go panicked planning the read: %v", in.Location, p)
		}
		if err != nil {
			r.Close()
		}
	}()
	if err := r.plan(opts); err != nil {
		return nil, err
	}
	return r, nil
}

// arrowSourceKind says where an output column comes from.
type arrowSourceKind int

const (
	arrowFromFile     arrowSourceKind = iota // a column of the file
	arrowFromConstant                        // IDToConstant, an initial default, or null
)

// arrowColumn is one column of the batches the reader returns.
type arrowColumn struct {
	kind  arrowSourceKind
	field arrow.Field
	// pos is the column's position in the pqarrow record (arrowFromFile).
	pos int
	// castTo, when set, promotes the file's type (int→long, ...).
	castTo arrow.DataType
	// value is the constant (arrowFromConstant); nil means null.
	value any
	id    int
	// engineCast, when set, is the engine projection's type for the
	// column, cast to last.
	engineCast arrow.DataType
}

type arrowReader struct {
	location string
	pf       *file.Reader
	rr       pqarrow.RecordReader // nil when no column comes from the file
	mem      memory.Allocator

	// columns is nil when the file is read without a projection: batches
	// are pqarrow's own.
	columns   []arrowColumn
	schema    *arrow.Schema
	batchSize int64
	// remaining counts the rows still to return when rr is nil.
	remaining int64
	// err is sticky: io.EOF after the last batch, or the first failure.
	err    error
	closed bool
}

// arrowFileField is a top-level field of the file as pqarrow maps it.
type arrowFileField struct {
	index  int
	id     int // -1 when the file has none and no name mapping applies
	field  arrow.Field
	leaves []int
}

func (r *arrowReader) plan(opts registry.ReadOptions) error {
	r.batchSize = int64(opts.RecordsPerBatch)
	if r.batchSize <= 0 {
		r.batchSize = arrowDefaultBatchSize
	}
	props := pqarrow.ArrowReadProperties{BatchSize: r.batchSize}
	fr, err := pqarrow.NewFileReader(r.pf, props, r.mem)
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", r.location, err)
	}
	rowGroups, err := r.selectRowGroups(opts.Split)
	if err != nil {
		return err
	}
	var rows int64
	for _, rg := range rowGroups {
		rows += r.pf.MetaData().RowGroup(rg).NumRows()
	}

	fields := arrowFileFields(fr.Manifest, opts.NameMapping)
	var leaves []int
	if opts.Projection == nil {
		for _, f := range fields {
			leaves = append(leaves, f.leaves...)
		}
	} else if leaves, err = r.planProjection(opts, fields); err != nil {
		return err
	}
	if opts.EngineProjection != nil {
		if err := r.planEngine(opts.EngineProjection); err != nil {
			return err
		}
	}
	switch {
	case len(leaves) == 0:
		// Nothing comes from the file (only missing or constant columns, or
		// a file without columns): batches carry the row count alone.
		if r.columns == nil {
			r.columns = []arrowColumn{}
			r.schema = arrow.NewSchema(nil, nil)
		}
		r.remaining = rows
		return nil
	case rows == 0:
		// pqarrow wants rows to read; the reader starts at EOF.
		if r.schema == nil {
			sc, err := fr.Schema()
			if err != nil {
				return fmt.Errorf("parquet file %s: %w", r.location, err)
			}
			r.schema = sc
		}
		r.err = io.EOF
		return nil
	}
	slices.Sort(leaves)
	rr, err := fr.GetRecordReader(context.Background(), leaves, rowGroups)
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", r.location, err)
	}
	r.rr = rr
	if r.schema == nil {
		r.schema = rr.Schema()
	}
	return nil
}

// planProjection maps the projection's top-level field ids to the file's
// fields and returns the leaf columns to read.
func (r *arrowReader) planProjection(opts registry.ReadOptions, fields []arrowFileField) ([]int, error) {
	byID := map[int]*arrowFileField{}
	for i := range fields {
		if id := fields[i].id; id >= 0 {
			if _, dup := byID[id]; !dup {
				byID[id] = &fields[i]
			}
		}
	}
	var (
		leaves  []int
		sources []*arrowColumn
		outs    []arrow.Field
	)
	r.columns = make([]arrowColumn, 0, opts.Projection.NumFields())
	for _, pf := range opts.Projection.Fields() {
		want, err := table.TypeToArrowType(pf.Type, true, false)
		if err != nil {
			return nil, fmt.Errorf("parquet file %s: field id %d (%s): %w", r.location, pf.ID, pf.Name, err)
		}
		col := arrowColumn{id: pf.ID, kind: arrowFromConstant, field: arrow.Field{
			Name: pf.Name, Type: want, Nullable: !pf.Required,
			Metadata: arrow.NewMetadata([]string{arrowFieldIDKey}, []string{strconv.Itoa(pf.ID)}),
		}}
		if c, ok := opts.IDToConstant[pf.ID]; ok {
			col.value = c
			col.field.Nullable = col.field.Nullable || c == nil
		} else if ff, ok := byID[pf.ID]; ok {
			cast, err := arrowPromotion(ff.field.Type, want)
			if err != nil {
				return nil, fmt.Errorf("parquet file %s: field id %d (%s): %w", r.location, pf.ID, pf.Name, err)
			}
			col.kind = arrowFromFile
			col.castTo = cast
			col.field.Type = ff.field.Type
			if cast != nil {
				col.field.Type = cast
			}
			col.field.Nullable = col.field.Nullable || ff.field.Nullable
			col.pos = ff.index // remapped to the record position below
			leaves = append(leaves, ff.leaves...)
		} else if pf.InitialDefault != nil {
			col.value = pf.InitialDefault
		} else if pf.Required {
			return nil, fmt.Errorf("parquet file %s: required field id %d (%s) is not in the file and has no initial default",
				r.location, pf.ID, pf.Name)
		}
		r.columns = append(r.columns, col)
		outs = append(outs, col.field)
	}
	for i := range r.columns {
		if r.columns[i].kind == arrowFromFile {
			sources = append(sources, &r.columns[i])
		}
	}
	// pqarrow returns the selected top-level fields in file order.
	order := make([]int, 0, len(sources))
	for _, c := range sources {
		if !slices.Contains(order, c.pos) {
			order = append(order, c.pos)
		}
	}
	slices.Sort(order)
	for _, c := range sources {
		c.pos = slices.Index(order, c.pos)
	}
	// Constants must be representable before the first batch.
	for _, c := range r.columns {
		if c.kind == arrowFromConstant && c.value != nil {
			a, err := arrowConstantArray(r.mem, c.field.Type, c.value, 1)
			if err != nil {
				return nil, fmt.Errorf("parquet file %s: field id %d (%s): constant: %w", r.location, c.id, c.field.Name, err)
			}
			a.Release()
		}
	}
	r.schema = arrow.NewSchema(outs, nil)
	return leaves, nil
}

// planEngine applies an engine projection to the planned columns: the
// output schema takes its types, and columns whose type differs are cast.
func (r *arrowReader) planEngine(engine any) error {
	casts, err := arrowEnginePlan("engine projection", r.schema, engine)
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", r.location, err)
	}
	fields := slices.Clone(r.schema.Fields())
	for i, dt := range casts {
		if dt != nil {
			r.columns[i].engineCast = dt
			fields[i].Type = dt
		}
	}
	r.schema = arrow.NewSchema(fields, nil)
	return nil
}

// arrowPromotion checks that a file column of type got can be read as want
// and returns the type to cast to, or nil when no cast is needed. Nested
// types are only checked for their kind: their children are read as stored.
func arrowPromotion(got, want arrow.DataType) (arrow.DataType, error) {
	if arrow.TypeEqual(got, want) {
		return nil, nil
	}
	switch {
	case got.ID() == arrow.INT32 && want.ID() == arrow.INT64,
		got.ID() == arrow.FLOAT32 && want.ID() == arrow.FLOAT64:
		return want, nil
	case got.ID() == arrow.DECIMAL128 && want.ID() == arrow.DECIMAL128:
		g, w := got.(*arrow.Decimal128Type), want.(*arrow.Decimal128Type)
		if g.Scale == w.Scale && g.Precision <= w.Precision {
			return want, nil
		}
	case got.ID() == want.ID() && (got.ID() == arrow.STRUCT || got.ID() == arrow.LIST || got.ID() == arrow.MAP):
		return nil, nil
	}
	return nil, fmt.Errorf("file type %s cannot be read as %s", got, want)
}

// arrowFileFields lists the file's top-level fields with their ids and leaves.
func arrowFileFields(m *pqarrow.SchemaManifest, nm iceberg.NameMapping) []arrowFileField {
	out := make([]arrowFileField, len(m.Fields))
	for i := range m.Fields {
		sf := &m.Fields[i]
		f := arrowFileField{index: i, id: -1, field: *sf.Field, leaves: arrowLeaves(sf, nil)}
		if v, ok := sf.Field.Metadata.GetValue(arrowFieldIDKey); ok {
			if id, err := strconv.Atoi(v); err == nil && id >= 0 {
				f.id = id
			}
		}
		if f.id < 0 {
			// Files written without ids: the name mapping supplies them.
			for _, mf := range nm {
				if mf.FieldID != nil && slices.Contains(mf.Names, sf.Field.Name) {
					f.id = *mf.FieldID
					break
				}
			}
		}
		out[i] = f
	}
	return out
}

func arrowLeaves(sf *pqarrow.SchemaField, acc []int) []int {
	if sf.IsLeaf() {
		return append(acc, sf.ColIndex)
	}
	for i := range sf.Children {
		acc = arrowLeaves(&sf.Children[i], acc)
	}
	return acc
}

// selectRowGroups keeps, for a split, the row groups whose start offset
// lies in [start, start+length); without a split, every row group.
func (r *arrowReader) selectRowGroups(split *registry.Split) ([]int, error) {
	md := r.pf.MetaData()
	n := md.NumRowGroups()
	out := make([]int, 0, n)
	for i := range n {
		if split != nil {
			start, err := arrowRowGroupStart(md.RowGroup(i))
			if err != nil {
				return nil, fmt.Errorf("parquet file %s: row group %d: %w", r.location, i, err)
			}
			if start < split.Start || start >= split.Start+split.Length {
				continue
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// arrowRowGroupStart is where a row group's data begins: its first column's
// dictionary page if it has one before the data pages, else the first data
// page. Iceberg (Java's BlockMetaData.getStartingPos) uses the same rule for
// split offsets and split planning, so a writer's split offsets and a
// reader's split assignment agree.
func arrowRowGroupStart(rg *metadata.RowGroupMetaData) (int64, error) {
	if rg.NumColumns() == 0 {
		return rg.FileOffset(), nil
	}
	cc, err := rg.ColumnChunk(0)
	if err != nil {
		return 0, err
	}
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
		start = cc.DictionaryPageOffset()
	}
	return start, nil
}

// Schema is the arrow schema of the batches Next returns.
func (r *arrowReader) Schema() *arrow.Schema { return r.schema }

// Next returns the next batch, or io.EOF. The caller must Release it.
func (r *arrowReader) Next() (out arrow.RecordBatch, err error) {
	if r.closed {
		return nil, fmt.Errorf("parquet file %s: read after Close", r.location)
	}
	if r.err != nil {
		return nil, r.err
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("parquet file %s: arrow-go panicked reading it: %v", r.location, p)
		}
		if err != nil {
			r.err = err
		}
	}()
	if r.rr == nil {
		if r.remaining <= 0 {
			return nil, io.EOF
		}
		n := min(r.batchSize, r.remaining)
		r.remaining -= n
		return r.assemble(nil, n)
	}
	rec, err := r.rr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("parquet file %s: %w", r.location, err)
	}
	if r.columns == nil {
		rec.Retain()
		return rec, nil
	}
	return r.assemble(rec, rec.NumRows())
}

// assemble builds the output batch of n rows from the file's batch rec
// (nil when nothing is read from the file) and the planned constants.
func (r *arrowReader) assemble(rec arrow.RecordBatch, n int64) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(r.columns))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range r.columns {
		switch {
		case c.kind == arrowFromFile && c.castTo != nil:
			a, err := compute.CastArray(context.Background(), rec.Column(c.pos), compute.SafeCastOptions(c.castTo))
			if err != nil {
				return nil, fmt.Errorf("parquet file %s: field id %d (%s): %w", r.location, c.id, c.field.Name, err)
			}
			cols[i] = a
		case c.kind == arrowFromFile:
			a := rec.Column(c.pos)
			a.Retain()
			cols[i] = a
		default:
			a, err := arrowConstantArray(r.mem, c.field.Type, c.value, int(n))
			if err != nil {
				return nil, fmt.Errorf("parquet file %s: field id %d (%s): %w", r.location, c.id, c.field.Name, err)
			}
			cols[i] = a
		}
		if c.engineCast != nil {
			a, err := arrowCastColumn(cols[i], c.engineCast)
			if err != nil {
				return nil, fmt.Errorf("parquet file %s: field id %d (%s) as %s: %w", r.location, c.id, c.field.Name, c.engineCast, err)
			}
			cols[i].Release()
			cols[i] = a
		}
	}
	return array.NewRecordBatch(r.schema, cols, n), nil
}

// Close releases the reader and closes the file; it may be called twice.
func (r *arrowReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	if err := r.pf.Close(); err != nil {
		return fmt.Errorf("close %s: %w", r.location, err)
	}
	return nil
}
