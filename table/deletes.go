package table

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	itable "github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// The scan applies the three kinds of delete files iceberg-go's planner
// assigns to a task (spec.md, "Scan Planning"): deletion vectors and
// position-delete files remove rows by their position in the data file,
// equality-delete files remove every row whose equality columns equal one
// of the file's rows. Which delete files apply to which data file (data
// sequence numbers, partitions, referenced_data_file) is the planner's;
// the scan reads them and drops the rows.

// positionField is the _pos metadata column a scan adds to its read schema
// when a task has position deletes; the format models fill it in.
var positionField = iceberg.NestedField{ID: registry.RowPositionFieldID, Name: "_pos", Type: iceberg.PrimitiveTypes.Int64, Required: true,
	Doc: "Ordinal position of the row in its data file"}

// rowDeletes is what a task's delete files remove from its data file.
type rowDeletes struct {
	// positions are deleted row positions (deletion vectors and position
	// deletes, merged); nil when none apply.
	positions *dv.RoaringPositionBitmap
	// pos is the index of _pos in a row of the scan's read schema.
	pos int
	// equality are the equality-delete sets that apply.
	equality []*equalitySet
}

// equalitySet is the rows of equality-delete files keyed on one set of
// field ids: a row is deleted when its key is in keys.
type equalitySet struct {
	ids   []int
	paths [][]int // positions of ids in a row of the read schema
	keys  map[string]struct{}
}

// deleted reports whether rec, at position pos in its data file, is deleted.
func (d *rowDeletes) deleted(rec *data.Record) bool {
	if d == nil {
		return false
	}
	if d.positions != nil {
		if p, ok := rec.Get(d.pos).(int64); ok && p >= 0 && d.positions.Contains(uint64(p)) {
			return true
		}
	}
	for _, eq := range d.equality {
		if _, ok := eq.keys[eq.keyOf(rec)]; ok {
			return true
		}
	}
	return false
}

func (eq *equalitySet) keyOf(rec *data.Record) string {
	var b strings.Builder
	for _, p := range eq.paths {
		appendKey(&b, valueAt(rec, p))
	}
	return b.String()
}

// appendKey appends v to an equality key. The Go type is part of the key,
// so values of different types never collide; null matches null, as
// spec.md's equality deletes require.
func appendKey(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("\x00null")
	case []byte:
		fmt.Fprintf(b, "\x00[]byte:%q", v)
	case string:
		fmt.Fprintf(b, "\x00string:%q", v)
	default:
		fmt.Fprintf(b, "\x00%T:%v", v, v)
	}
}

// deleteIndex reads each delete file once per scan, however many tasks it
// applies to; tasks run on several goroutines.
type deleteIndex struct {
	fsys   iceio.IO
	schema *iceberg.Schema // the table schema of the scan's snapshot
	mu     sync.Mutex
	pos    map[string]*loaded[map[string][]int64] // position-delete file → data file → positions
	eq     map[string]*loaded[*equalitySet]       // equality-delete file → its set
}

type loaded[T any] struct {
	once sync.Once
	v    T
	err  error
}

func newDeleteIndex(fsys iceio.IO, schema *iceberg.Schema) *deleteIndex {
	return &deleteIndex{fsys: fsys, schema: schema, pos: map[string]*loaded[map[string][]int64]{}, eq: map[string]*loaded[*equalitySet]{}}
}

func cached[T any](mu *sync.Mutex, m map[string]*loaded[T], key string, load func() (T, error)) (T, error) {
	mu.Lock()
	l, ok := m[key]
	if !ok {
		l = &loaded[T]{}
		m[key] = l
	}
	mu.Unlock()
	l.once.Do(func() { l.v, l.err = load() })
	return l.v, l.err
}

// hasDeletes reports whether any delete file applies to the task.
func hasDeletes(task itable.FileScanTask) bool {
	return len(task.DeleteFiles)+len(task.EqualityDeleteFiles)+len(task.DeletionVectorFiles) > 0
}

// forTask gathers the deletes of one task, for rows of the read schema.
func (x *deleteIndex) forTask(ctx context.Context, task itable.FileScanTask, read *iceberg.Schema) (*rowDeletes, error) {
	if !hasDeletes(task) {
		return nil, nil
	}
	d := &rowDeletes{pos: -1}
	path := task.File.FilePath()
	if len(task.DeletionVectorFiles) > 0 || len(task.DeleteFiles) > 0 {
		for i, f := range read.Fields() {
			if f.ID == registry.RowPositionFieldID {
				d.pos = i
			}
		}
		if d.pos < 0 {
			return nil, errors.New("internal: the read schema lacks _pos for its position deletes")
		}
		d.positions = dv.NewRoaringPositionBitmap()
	}
	if len(task.DeletionVectorFiles) > 0 {
		bitmaps, err := dv.ReadDVs(x.fsys, task.DeletionVectorFiles)
		if err != nil {
			return nil, fmt.Errorf("deletion vector: %w", err)
		}
		for i, b := range bitmaps {
			if ref := task.DeletionVectorFiles[i].ReferencedDataFile(); ref != nil && *ref != path {
				return nil, fmt.Errorf("deletion vector %s references %s, not this file", task.DeletionVectorFiles[i].FilePath(), *ref)
			}
			d.positions.Or(b)
		}
	}
	for _, df := range task.DeleteFiles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		byFile, err := cached(&x.mu, x.pos, df.FilePath(), func() (map[string][]int64, error) { return x.readPositionDeletes(df) })
		if err != nil {
			return nil, fmt.Errorf("position-delete file %s: %w", df.FilePath(), err)
		}
		for _, p := range byFile[path] {
			d.positions.Set(uint64(p))
		}
	}
	for _, df := range task.EqualityDeleteFiles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		set, err := cached(&x.mu, x.eq, df.FilePath(), func() (*equalitySet, error) { return x.readEqualityDeletes(df) })
		if err != nil {
			return nil, fmt.Errorf("equality-delete file %s: %w", df.FilePath(), err)
		}
		bound := &equalitySet{ids: set.ids, keys: set.keys}
		st := read.AsStruct()
		for _, id := range set.ids {
			p, ok := positionPath(&st, id)
			if !ok {
				return nil, fmt.Errorf("internal: the read schema lacks equality field %d", id)
			}
			bound.paths = append(bound.paths, p)
		}
		d.equality = append(d.equality, bound)
	}
	return d, nil
}

// readPositionDeletes reads a position-delete file through the registry,
// grouping positions by data file. The spec's rules are the model's
// (registry.PositionDeleteModel refuses a negative pos, naming the file and
// the delete); the scan does not depend on the (file_path, pos) order.
func (x *deleteIndex) readPositionDeletes(df iceberg.DataFile) (map[string][]int64, error) {
	format, err := registry.ParseFileFormat(string(df.FileFormat()))
	if err != nil {
		return nil, err
	}
	b, err := registry.NewReadBuilder[data.PositionDelete](format, registry.InputFile{FS: x.fsys, Location: df.FilePath()})
	if err != nil {
		return nil, err
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := map[string][]int64{}
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out[d.FilePath] = append(out[d.FilePath], d.Pos)
	}
}

// readEqualityDeletes reads the equality columns of an equality-delete
// file through the registry, by field id, in the table's types.
func (x *deleteIndex) readEqualityDeletes(df iceberg.DataFile) (*equalitySet, error) {
	ids := slices.Clone(df.EqualityFieldIDs())
	if len(ids) == 0 {
		return nil, errors.New("it names no equality field ids")
	}
	sel := map[int]iceberg.Void{}
	for _, id := range ids {
		f, ok := x.schema.FindFieldByID(id)
		if !ok {
			return nil, fmt.Errorf("equality field id %d is not in the table schema", id)
		}
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return nil, fmt.Errorf("equality field %q is %s; equality deletes are on primitive columns", f.Name, f.Type)
		}
		sel[id] = iceberg.Void{}
	}
	proj, err := iceberg.PruneColumns(x.schema, sel, false)
	if err != nil {
		return nil, err
	}
	format, err := registry.ParseFileFormat(string(df.FileFormat()))
	if err != nil {
		return nil, err
	}
	b, err := registry.NewReadBuilder[*data.Record](format, registry.InputFile{FS: x.fsys, Location: df.FilePath()})
	if err != nil {
		return nil, err
	}
	r, err := b.Project(proj).Build()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	set := &equalitySet{ids: ids, keys: map[string]struct{}{}}
	st := proj.AsStruct()
	for _, id := range ids {
		p, _ := positionPath(&st, id)
		set.paths = append(set.paths, p)
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return set, nil
		}
		if err != nil {
			return nil, err
		}
		set.keys[set.keyOf(rec)] = struct{}{}
	}
}

// deleteFields are the field ids the scan must read besides its
// projection to apply the tasks' deletes, and whether it needs _pos.
func deleteFields(tasks []itable.FileScanTask) (ids []int, pos bool) {
	seen := map[int]bool{}
	for _, t := range tasks {
		if len(t.DeleteFiles) > 0 || len(t.DeletionVectorFiles) > 0 {
			pos = true
		}
		for _, df := range t.EqualityDeleteFiles {
			for _, id := range df.EqualityFieldIDs() {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	return ids, pos
}
