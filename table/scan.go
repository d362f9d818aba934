package table

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/schemaspec"
	_ "github.com/coltype-lab/lab/formats/avro" // registers (AVRO, *data.Record): tables may hold Avro data files
	"github.com/coltype-lab/lab/registry"
)

// ErrColumns is wrapped by Scan's error for columns the schema does not have.
var ErrColumns = errors.New("no such column")

// ScanOptions select what a scan reads.
type ScanOptions struct {
	// Columns are the columns to read, top-level or dotted (img.uri);
	// none reads all.
	Columns []string
	// Filter keeps the rows it matches (ParseFilter); nil keeps all. It
	// prunes manifests and files in planning, row groups in the reader, and
	// is applied to every row read.
	Filter iceberg.BooleanExpression
	// SnapshotID reads that snapshot (with its schema); 0 the current one.
	SnapshotID int64
	// Limit stops after that many rows; 0 reads all.
	Limit int64
	// CaseInsensitive binds column names in Columns and Filter ignoring case.
	CaseInsensitive bool
	// Workers is how many tasks are read at once; 0 is GOMAXPROCS.
	Workers int
	// noColumns reads no column but the filter's and the deletes' (and
	// _pos): Delete needs only which rows match, not their values.
	noColumns bool
}

// Scan is a planned scan: iceberg-go's file tasks and the schema the rows
// come in.
type Scan struct {
	t        *Table
	o        ScanOptions
	snapshot *itable.Snapshot
	// Spec is the projected schema, with the table's FILE and VECTOR
	// columns among it: what each row holds.
	Spec *schemaspec.Spec
	// Tasks are the planned file tasks, after partition and metrics pruning.
	Tasks []itable.FileScanTask
	// read is the schema each file is read with: the projection plus the
	// columns the filter and the tasks' delete files need.
	read     *iceberg.Schema
	eval     func(iceberg.StructLike) (bool, error)
	filtered bool
	fsys     iceio.IO
	deletes  *deleteIndex
	// raw hands rows on in the read schema, with the filter's and the
	// deletes' columns, instead of reshaping them to Spec.Schema.
	raw bool
	// warnings are what the file readers said of the filter: predicates
	// they did not push down, and why (Warnings).
	mu       sync.Mutex
	warnings []string
}

// warn records a reader's filter warnings, each once.
func (s *Scan) warn(ws []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range ws {
		if !slices.Contains(s.warnings, w) {
			s.warnings = append(s.warnings, w)
		}
	}
}

// Warnings are what the files read so far said of the filter: the
// predicates a reader did not push down into its statistics and pages, and
// why (a variant path shredded as a type the predicate does not read it
// as). The rows are right either way; the warning says the filter cost a
// full read of those files.
func (s *Scan) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warnings)
}

// Snapshot is the snapshot the scan reads; nil for a table without one.
func (s *Scan) Snapshot() *itable.Snapshot { return s.snapshot }

// Scan plans a scan with iceberg-go (manifest, partition and metrics
// pruning); Rows then reads each task through one registry lookup.
func (t *Table) Scan(ctx context.Context, o ScanOptions) (*Scan, error) {
	return t.scan(ctx, o, false)
}

// scan is Scan; withPositions adds _pos to the rows read, for Delete.
func (t *Table) scan(ctx context.Context, o ScanOptions, withPositions bool) (*Scan, error) {
	cs := !o.CaseInsensitive
	schema := t.tbl.Schema()
	var snap *itable.Snapshot
	opts := []itable.ScanOption{itable.WithCaseSensitive(cs)}
	if o.SnapshotID != 0 {
		var err error
		if snap, err = t.Snapshot(o.SnapshotID); err != nil {
			return nil, err
		}
		if snap.SchemaID != nil {
			if s, ok := t.tbl.Schemas()[*snap.SchemaID]; ok {
				schema = s
			}
		}
		opts = append(opts, itable.WithSnapshotID(o.SnapshotID))
	} else {
		snap = t.tbl.CurrentSnapshot()
	}
	where := t.Name()
	if snap != nil {
		where = fmt.Sprintf("%s snapshot %d", t.Name(), snap.SnapshotID)
	}
	proj := schema
	if o.noColumns {
		proj = iceberg.NewSchema(schema.ID)
	} else if len(o.Columns) > 0 {
		var err error
		if proj, err = schema.Select(cs, o.Columns...); err != nil {
			return nil, fmt.Errorf("scan %s: %w: %w (columns: %s)", where, ErrColumns, err, strings.Join(topLevelNames(schema), ", "))
		}
	}
	spec, err := t.specOf(proj)
	if err != nil {
		return nil, err
	}
	s := &Scan{t: t, o: o, snapshot: snap, Spec: spec, read: proj}
	var filterIDs []int
	if o.Filter != nil {
		if _, always := o.Filter.(iceberg.AlwaysTrue); !always {
			bound, err := iceberg.BindExpr(schema, o.Filter, cs)
			if err != nil {
				return nil, fmt.Errorf("scan %s: filter %s: %w", where, o.Filter, err)
			}
			if filterIDs, err = iceberg.ExtractFieldIDs(bound); err != nil {
				return nil, fmt.Errorf("scan %s: filter %s: %w", where, o.Filter, err)
			}
			s.filtered = true
			opts = append(opts, itable.WithRowFilter(o.Filter))
		}
	}
	if snap != nil {
		if s.fsys, err = t.tbl.FS(ctx); err != nil {
			return nil, fmt.Errorf("scan %s: file IO: %w", where, err)
		}
		if s.Tasks, err = t.tbl.Scan(opts...).PlanFiles(ctx); err != nil {
			return nil, fmt.Errorf("scan %s: plan: %w", where, err)
		}
	}
	// The file schema: the projection, the filter's columns, and what the
	// tasks' delete files need (equality columns, _pos).
	eqIDs, needPos := deleteFields(s.Tasks)
	if s.read, err = withFields(schema, proj, append(filterIDs, eqIDs...)); err != nil {
		return nil, fmt.Errorf("scan %s: %w", where, err)
	}
	if needPos || withPositions {
		s.read = iceberg.NewSchema(s.read.ID, append(s.read.Fields(), positionField)...)
	}
	if s.filtered {
		if s.eval, err = iceberg.ExpressionEvaluator(s.read, o.Filter, cs); err != nil {
			return nil, fmt.Errorf("scan %s: filter %s: %w", where, o.Filter, err)
		}
	}
	s.deletes = newDeleteIndex(s.fsys, schema)
	return s, nil
}

func topLevelNames(s *iceberg.Schema) []string {
	out := make([]string, 0, len(s.Fields()))
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// withFields is proj with the fields of ids added, as schema has them.
func withFields(schema, proj *iceberg.Schema, ids []int) (*iceberg.Schema, error) {
	selected := map[int]iceberg.Void{}
	missing := false
	for _, id := range ids {
		if _, ok := proj.FindFieldByID(id); !ok {
			missing = true
		}
		selected[id] = iceberg.Void{}
	}
	if !missing {
		return proj, nil
	}
	for id := range projIDs(proj) {
		selected[id] = iceberg.Void{}
	}
	return iceberg.PruneColumns(schema, selected, false)
}

// projIDs are every field id in s.
func projIDs(s *iceberg.Schema) map[int]bool {
	out := map[int]bool{}
	var walk func(t iceberg.Type)
	walk = func(t iceberg.Type) {
		switch t := t.(type) {
		case *iceberg.StructType:
			for _, f := range t.FieldList {
				out[f.ID] = true
				walk(f.Type)
			}
		case *iceberg.ListType:
			out[t.ElementID] = true
			walk(t.Element)
		case *iceberg.MapType:
			out[t.KeyID], out[t.ValueID] = true, true
			walk(t.KeyType)
			walk(t.ValueType)
		}
	}
	st := s.AsStruct()
	walk(&st)
	return out
}

// Rows reads the planned tasks and yields their rows in task order. A row
// is the caller's until the next one is yielded. The first error ends the
// iteration. With more than one worker, tasks are read at once, each on its
// own goroutine; with one, rows come straight from the reader, its record
// reused, which allocates least.
func (s *Scan) Rows(ctx context.Context) iter.Seq2[*data.Record, error] {
	return func(yield func(*data.Record, error) bool) {
		if len(s.Tasks) == 0 {
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		workers := s.o.Workers
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		workers = min(workers, len(s.Tasks))
		var n int64
		emit := func(rec *data.Record) bool {
			if !yield(rec, nil) {
				return false
			}
			n++
			return s.o.Limit == 0 || n < s.o.Limit
		}
		if workers == 1 {
			for i := range s.Tasks {
				if err := s.readTask(ctx, i, true, emit); err != nil {
					yield(nil, err)
					return
				}
				if ctx.Err() != nil || (s.o.Limit > 0 && n >= s.o.Limit) {
					return
				}
			}
			return
		}
		// Each task's rows travel in batches on its own channel; workers
		// take tasks in order, so the task the consumer waits on is always
		// being read, and memory stays within workers × depth × batch rows.
		const batchRows, depth = 256, 4
		chans := make([]chan taskBatch, len(s.Tasks))
		for i := range chans {
			chans[i] = make(chan taskBatch, depth)
		}
		var next int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= len(s.Tasks) {
						return
					}
					s.sendTask(ctx, i, batchRows, chans[i])
				}
			}()
		}
		defer wg.Wait()
		defer cancel() // runs before wg.Wait: stops the workers first
		for i := range s.Tasks {
			for b := range chans[i] {
				if b.err != nil {
					yield(nil, b.err)
					return
				}
				for _, rec := range b.rows {
					if !emit(rec) {
						return
					}
				}
			}
		}
	}
}

type taskBatch struct {
	rows []*data.Record
	err  error
}

// sendTask reads task i and sends its rows in batches; the channel is
// closed at the end.
func (s *Scan) sendTask(ctx context.Context, i, batchRows int, out chan<- taskBatch) {
	defer close(out)
	send := func(b taskBatch) bool {
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	batch := make([]*data.Record, 0, batchRows)
	err := s.readTask(ctx, i, false, func(rec *data.Record) bool {
		if batch = append(batch, rec); len(batch) == batchRows {
			if !send(taskBatch{rows: batch}) {
				return false
			}
			batch = make([]*data.Record, 0, batchRows)
		}
		return true
	})
	if err != nil {
		send(taskBatch{err: err})
		return
	}
	if len(batch) > 0 {
		send(taskBatch{rows: batch})
	}
}

// readTask reads task i through the registry and hands each matching row,
// projected, to emit until emit returns false. With reuse the reader reuses
// its record, so a row is valid only until emit returns.
func (s *Scan) readTask(ctx context.Context, i int, reuse bool, emit func(*data.Record) bool) error {
	task := s.Tasks[i]
	path := task.File.FilePath()
	fail := func(err error) error {
		return fmt.Errorf("scan %s snapshot %d: data file %s: %w", s.t.Name(), s.snapshot.SnapshotID, path, err)
	}
	dels, err := s.deletes.forTask(ctx, task, s.read)
	if err != nil {
		return fail(err)
	}
	r, err := s.openTask(task, reuse)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("scan %s snapshot %d: data file %s is missing from storage", s.t.Name(), s.snapshot.SnapshotID, path)
		}
		return fail(err)
	}
	defer r.Close()
	if w, ok := r.(interface{ FilterWarnings() []string }); ok {
		s.warn(w.FilterWarnings())
	}
	var out *data.Record
	for ctx.Err() == nil {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fail(err)
		}
		if dels.deleted(rec) {
			continue
		}
		if s.eval != nil {
			ok, err := s.eval(recordRow{rec})
			if err != nil {
				return fail(fmt.Errorf("filter: %w", err))
			}
			if !ok {
				continue
			}
		}
		if !s.raw && s.read != s.Spec.Schema {
			if out == nil || !reuse {
				out = data.NewRecord(s.Spec.Schema)
			}
			rec = reshapeInto(out, rec)
		}
		if !emit(rec) {
			return nil
		}
	}
	return nil
}

// openTask is the one registry lookup of a task: the read builder for the
// file's format and *data.Record, with the task's projection, split and
// filter.
func (s *Scan) openTask(task itable.FileScanTask, reuse bool) (registry.Reader[*data.Record], error) {
	format, err := registry.ParseFileFormat(string(task.File.FileFormat()))
	if err != nil {
		return nil, err
	}
	in := registry.InputFile{FS: s.fsys, Location: task.File.FilePath()}
	b, err := registry.NewReadBuilder[*data.Record](format, in)
	if err != nil {
		return nil, err
	}
	b.Project(s.read).Split(task.Start, task.Length).CaseSensitive(!s.o.CaseInsensitive)
	if s.eval != nil {
		// The scan's filter, not the task's residual: iceberg-go hands the
		// residual bound to the table schema, and the reader binds a filter
		// to the file itself. Partition predicates the residual drops cost
		// nothing here; they only match.
		b.Filter(s.o.Filter)
	}
	if nm := s.t.tbl.NameMapping(); nm != nil {
		b.WithNameMapping(nm)
	}
	if c := s.identityConstants(task.File); len(c) > 0 {
		b.IDToConstant(c)
	}
	if reuse {
		b.ReuseContainers()
	}
	return b.Build()
}

// identityConstants are the values of identity partition columns, from the
// file's partition tuple, for files that do not hold the column (imported
// files); only values in data.Record's Go type for the column are passed.
func (s *Scan) identityConstants(df iceberg.DataFile) map[int]any {
	spec := s.t.tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	if spec == nil || spec.IsUnpartitioned() {
		return nil
	}
	values := df.Partition()
	out := map[int]any{}
	for _, f := range spec.Fields() {
		if _, ok := f.Transform.(iceberg.IdentityTransform); !ok {
			continue
		}
		src, ok := s.read.FindFieldByID(f.SourceID())
		if !ok {
			continue
		}
		v, ok := values[f.FieldID]
		if !ok {
			continue
		}
		if v == nil || recordTypeMatches(v, src.Type) {
			out[src.ID] = v
		}
	}
	return out
}

func recordTypeMatches(v any, t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.BooleanType:
		_, ok := v.(bool)
		return ok
	case iceberg.Int32Type:
		_, ok := v.(int32)
		return ok
	case iceberg.Int64Type:
		_, ok := v.(int64)
		return ok
	case iceberg.StringType:
		_, ok := v.(string)
		return ok
	case iceberg.DateType:
		_, ok := v.(iceberg.Date)
		return ok
	}
	return false
}

// recordRow shows a data.Record to iceberg-go's evaluators, nested records
// included.
type recordRow struct{ r *data.Record }

func (r recordRow) Size() int { return r.r.Len() }
func (r recordRow) Get(pos int) any {
	v := r.r.Get(pos)
	if sub, ok := v.(*data.Record); ok && sub != nil {
		return recordRow{sub}
	}
	return v
}
func (r recordRow) Set(pos int, v any) { r.r.Set(pos, v) }

// reshapeInto fills out, a record of the scan's schema, from rec, taking
// fields by id: rec was read with more columns than the scan returns (the
// filter's).
func reshapeInto(out, rec *data.Record) *data.Record {
	from := rec.Fields()
	for i, f := range out.Fields() {
		for j, g := range from {
			if g.ID != f.ID {
				continue
			}
			v := rec.Get(j)
			if sub, ok := v.(*data.Record); ok && sub != nil {
				if fst, ok := f.Type.(*iceberg.StructType); ok && len(fst.FieldList) != sub.Len() {
					v = reshapeInto(data.NewStructRecord(fst), sub)
				}
			}
			out.Set(i, v)
			break
		}
	}
	return out
}
