package table

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	itable "github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// DeleteOptions say which rows Delete removes, and with which kind of
// delete file.
type DeleteOptions struct {
	// Filter selects the rows to delete (ParseFilter); required. A filter
	// that matches every row must be given as such (AlwaysTrue), never by
	// leaving Filter nil.
	Filter iceberg.BooleanExpression
	// EqualityColumns, when set, writes equality deletes keyed on these
	// primitive columns instead of position deletes: one row per distinct
	// key of the matching rows, per partition. An equality delete removes
	// every row of its partition with that key committed before it, not
	// only the rows the filter matched.
	EqualityColumns []string
	// CaseInsensitive binds Filter and EqualityColumns ignoring case.
	CaseInsensitive bool
	// SnapshotProperties are added to the snapshot summary.
	SnapshotProperties map[string]string
}

// DeleteResult is what one Delete committed.
type DeleteResult struct {
	Table string
	// SnapshotID is the new snapshot; 0 when no row matched and nothing
	// was committed.
	SnapshotID int64
	// Rows is how many rows the filter matched and the commit deletes.
	Rows int64
	// DataFiles is how many data files hold those rows.
	DataFiles int
	// DeleteFiles are the committed delete files; Removed the deletion
	// vectors they supersede (v3 allows one per data file, so a new one
	// holds the old one's positions too).
	DeleteFiles, Removed []iceberg.DataFile
	CommitTime           time.Duration
}

// Delete removes the rows Filter matches, as a row-delta snapshot of
// delete files (merge-on-read): deletion vectors on a v3 table (spec.md:
// v3 writers must not add position-delete files), Parquet position-delete
// files on v2, or equality-delete files with EqualityColumns. Data files
// are not rewritten. Each delete file is complete on storage before the
// commit names it; a failed commit removes them. A commit that loses a
// race is redone on the refreshed table, scanning again.
func (t *Table) Delete(ctx context.Context, o DeleteOptions) (*DeleteResult, error) {
	if o.Filter == nil {
		return nil, fmt.Errorf("delete from %s: a filter is required", t.Name())
	}
	if t.FormatVersion() < 2 {
		return nil, fmt.Errorf("delete from %s: delete files need format-version 2 or later; the table is %d", t.Name(), t.FormatVersion())
	}
	start := time.Now()
	var res *DeleteResult
	err := t.retryLostRaces(ctx, func() (bool, error) {
		var err error
		res, err = t.deleteOnce(ctx, o)
		var commit *commitError
		return errors.As(err, &commit), err
	})
	if err != nil {
		return nil, err
	}
	res.CommitTime = time.Since(start)
	return res, nil
}

// commitError is a failed catalog commit, which Delete may retry; other
// errors of deleteOnce come before the commit.
type commitError struct{ err error }

func (e *commitError) Error() string { return e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// matched is what the filter matched in one data file.
type matched struct {
	file      iceberg.DataFile
	positions []int64
	dvs       []iceberg.DataFile // the deletion vectors the file has now
	keys      []*data.Record     // equality mode: distinct keys
	seen      map[string]bool
}

func (t *Table) deleteOnce(ctx context.Context, o DeleteOptions) (*DeleteResult, error) {
	name := t.Name()
	res := &DeleteResult{Table: name}
	if t.tbl.CurrentSnapshot() == nil {
		return res, nil
	}
	schema := t.tbl.Schema()
	cs := !o.CaseInsensitive
	var eqSchema *iceberg.Schema
	var eqIDs []int
	if len(o.EqualityColumns) > 0 {
		var err error
		if eqSchema, eqIDs, err = equalitySchema(schema, o.EqualityColumns, cs); err != nil {
			return nil, fmt.Errorf("delete from %s: %w", name, err)
		}
	}
	// Only the filter's columns are read, and _pos or the equality columns:
	// a delete needs which rows match, not their other values (a VECTOR
	// column would be most of the bytes).
	so := ScanOptions{Filter: o.Filter, CaseInsensitive: o.CaseInsensitive, Workers: 1, noColumns: eqSchema == nil}
	if eqSchema != nil {
		for _, f := range eqSchema.Fields() {
			so.Columns = append(so.Columns, f.Name)
		}
	}
	s, err := t.scan(ctx, so, eqSchema == nil)
	if err != nil {
		return nil, fmt.Errorf("delete from %s: %w", name, err)
	}
	s.raw = true
	var eqPaths [][]int
	if eqSchema != nil {
		st := s.read.AsStruct()
		for _, id := range eqIDs {
			p, ok := positionPath(&st, id)
			if !ok {
				return nil, fmt.Errorf("delete from %s: internal: equality field %d is not read", name, id)
			}
			eqPaths = append(eqPaths, p)
		}
	}
	posAt := len(s.read.Fields()) - 1
	byPath := map[string]*matched{}
	var order []string
	for i, task := range s.Tasks {
		path := task.File.FilePath()
		m := byPath[path]
		if m == nil {
			m = &matched{file: task.File, dvs: task.DeletionVectorFiles, seen: map[string]bool{}}
			byPath[path] = m
			order = append(order, path)
		}
		err := s.readTask(ctx, i, true, func(rec *data.Record) bool {
			res.Rows++
			if eqSchema == nil {
				m.positions = append(m.positions, rec.Get(posAt).(int64))
				return true
			}
			key := data.NewRecord(eqSchema)
			var kb strings.Builder
			for j, p := range eqPaths {
				v := valueAt(rec, p)
				appendKey(&kb, v)
				key.Set(j, v)
			}
			if k := kb.String(); !m.seen[k] {
				m.seen[k] = true
				m.keys = append(m.keys, key)
			}
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("delete from %s: %w", name, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("delete from %s: %w", name, err)
	}
	var hit []*matched
	for _, p := range order {
		if m := byPath[p]; len(m.positions) > 0 || len(m.keys) > 0 {
			hit = append(hit, m)
		}
	}
	res.DataFiles = len(hit)
	if len(hit) == 0 {
		return res, nil
	}
	wfs, ok := s.fsys.(iceio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("delete from %s: the file IO for %s cannot write", name, t.Location())
	}
	locs, err := t.tbl.LocationProvider()
	if err != nil {
		return nil, fmt.Errorf("delete from %s: %w", name, err)
	}
	var files []iceberg.DataFile
	switch {
	case eqSchema != nil:
		files, err = t.writeEqualityDeletes(wfs, locs, eqSchema, eqIDs, hit)
	case t.FormatVersion() >= 3:
		files, res.Removed, err = t.writeDeletionVectors(ctx, wfs, locs, hit)
	default:
		files, err = t.writePositionDeletes(wfs, locs, hit)
	}
	if err != nil {
		return nil, fmt.Errorf("delete from %s: %w", name, err)
	}
	res.DeleteFiles = files
	tx := t.tbl.NewTransaction()
	rd := tx.NewRowDelta(o.SnapshotProperties).AddDeletes(files...)
	if len(res.Removed) > 0 {
		rd.RemoveDeletes(res.Removed...)
	}
	err = rd.Commit(ctx)
	var nt *itable.Table
	if err == nil {
		nt, err = tx.Commit(ctx)
	}
	if err != nil {
		for _, f := range files {
			_ = wfs.Remove(f.FilePath())
		}
		return nil, &commitError{fmt.Errorf("delete from %s: commit to %s: %w", name, t.cat.desc, err)}
	}
	t.tbl = nt
	if snap := nt.CurrentSnapshot(); snap != nil {
		res.SnapshotID = snap.SnapshotID
	}
	return res, nil
}

// equalitySchema is the schema of equality-delete rows: the equality
// columns, top-level primitives of the table, in the order given.
func equalitySchema(schema *iceberg.Schema, columns []string, cs bool) (*iceberg.Schema, []int, error) {
	var fields []iceberg.NestedField
	var ids []int
	for _, c := range columns {
		i := slices.IndexFunc(schema.Fields(), func(f iceberg.NestedField) bool {
			return f.Name == c || (!cs && strings.EqualFold(f.Name, c))
		})
		if i < 0 {
			return nil, nil, fmt.Errorf("equality column %q: %w among the top-level columns (%s)", c, ErrColumns, strings.Join(topLevelNames(schema), ", "))
		}
		f := schema.Field(i)
		if _, prim := f.Type.(iceberg.PrimitiveType); !prim {
			return nil, nil, fmt.Errorf("equality column %q is %s; equality deletes are keyed on primitive columns", c, f.Type)
		}
		if slices.Contains(ids, f.ID) {
			return nil, nil, fmt.Errorf("equality column %q is named twice", c)
		}
		fields = append(fields, f)
		ids = append(ids, f.ID)
	}
	return iceberg.NewSchema(0, fields...), ids, nil
}

// partitionGroups groups matched files by (spec, partition): a position or
// equality delete file applies within one partition of one spec.
func (t *Table) partitionGroups(hit []*matched) [][]*matched {
	groups := map[string][]*matched{}
	var keys []string
	for _, m := range hit {
		part := m.file.Partition()
		var kb strings.Builder
		fmt.Fprintf(&kb, "%d", m.file.SpecID())
		for _, id := range slices.Sorted(maps.Keys(part)) {
			fmt.Fprintf(&kb, "/%d=", id)
			appendKey(&kb, part[id])
		}
		k := kb.String()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], m)
	}
	out := make([][]*matched, 0, len(keys))
	for _, k := range keys {
		out = append(out, groups[k])
	}
	return out
}

func (t *Table) specOfFile(df iceberg.DataFile) (iceberg.PartitionSpec, error) {
	spec := t.tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	if spec == nil {
		return iceberg.PartitionSpec{}, fmt.Errorf("data file %s: the table has no partition spec %d", df.FilePath(), df.SpecID())
	}
	return *spec, nil
}

// perPartition writes one delete file per (spec, partition) group of hit
// with write, and removes the files already written when one fails.
func (t *Table) perPartition(wfs iceio.WriteFileIO, hit []*matched, write func(group []*matched, spec iceberg.PartitionSpec, partition map[int]any) (iceberg.DataFile, error)) ([]iceberg.DataFile, error) {
	var files []iceberg.DataFile
	for _, group := range t.partitionGroups(hit) {
		first := group[0].file
		spec, err := t.specOfFile(first)
		if err == nil {
			var part map[int]any
			if !spec.IsUnpartitioned() {
				part = first.Partition()
			}
			var df iceberg.DataFile
			if df, err = write(group, spec, part); err == nil {
				files = append(files, df)
				continue
			}
		}
		for _, f := range files {
			_ = wfs.Remove(f.FilePath())
		}
		return nil, err
	}
	return files, nil
}

// writeDeleteFile builds w's writer from b (spec, partition set), writes
// rows with it and closes it; a failure aborts the writer, leaving nothing.
func writeDeleteFile[D any, W interface {
	Write(D) error
	Close() error
	Abort() error
	DataFile() iceberg.DataFile
}](b *registry.FileWriterBuilder[D, W], spec iceberg.PartitionSpec, part map[int]any, rows func(write func(D) error) error) (iceberg.DataFile, error) {
	b.Spec(spec)
	if part != nil {
		b.Partition(part)
	}
	w, err := b.Build()
	if err != nil {
		return nil, err
	}
	if err := rows(w.Write); err != nil {
		_ = w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return w.DataFile(), nil
}

// writeDeletionVectors writes one Puffin file with a deletion vector per
// data file, each holding the positions of the file's current deletion
// vector too; it returns the new files and the ones they supersede.
func (t *Table) writeDeletionVectors(ctx context.Context, wfs iceio.WriteFileIO, locs itable.LocationProvider, hit []*matched) ([]iceberg.DataFile, []iceberg.DataFile, error) {
	meta := t.tbl.Metadata()
	w := dv.NewDVWriter(wfs, func(id int32) *iceberg.PartitionSpec { return meta.PartitionSpecByID(int(id)) })
	var removed []iceberg.DataFile
	for _, m := range hit {
		path := m.file.FilePath()
		if len(m.dvs) > 0 {
			old, err := dv.ReadDVs(wfs, m.dvs)
			if err != nil {
				return nil, nil, fmt.Errorf("deletion vector of %s: %w", path, err)
			}
			merged := dv.NewRoaringPositionBitmap()
			for _, b := range old {
				merged.Or(b)
			}
			w.Load(path, merged, m.file.SpecID(), m.file.Partition())
			removed = append(removed, m.dvs...)
		}
		if err := w.Add(path, m.positions, m.file.SpecID(), m.file.Partition()); err != nil {
			return nil, nil, fmt.Errorf("deletion vector of %s: %w", path, err)
		}
	}
	files, err := w.Flush(ctx, locs.NewDataLocation(uuid.NewString()+"-deletes.puffin"))
	if err != nil {
		return nil, nil, fmt.Errorf("write deletion vectors: %w", err)
	}
	return files, removed, nil
}

// writePositionDeletes writes a Parquet position-delete file per partition
// through the registry, sorted by (file_path, pos) as spec.md requires.
func (t *Table) writePositionDeletes(wfs iceio.WriteFileIO, locs itable.LocationProvider, hit []*matched) ([]iceberg.DataFile, error) {
	return t.perPartition(wfs, hit, func(group []*matched, spec iceberg.PartitionSpec, part map[int]any) (iceberg.DataFile, error) {
		var dels []data.PositionDelete
		for _, m := range group {
			for _, p := range m.positions {
				dels = append(dels, data.PositionDelete{FilePath: m.file.FilePath(), Pos: p})
			}
		}
		slices.SortFunc(dels, func(a, b data.PositionDelete) int {
			if a.Less(b) {
				return -1
			}
			if b.Less(a) {
				return 1
			}
			return 0
		})
		dels = slices.Compact(dels)
		out := registry.OutputFile{FS: wfs, Location: locs.NewDataLocation(uuid.NewString() + "-pos-deletes.parquet")}
		b, err := registry.PositionDeleteWriteBuilder(registry.PARQUET, out)
		if err != nil {
			return nil, err
		}
		return writeDeleteFile(b, spec, part, func(write func(data.PositionDelete) error) error {
			for _, d := range dels {
				if err := write(d); err != nil {
					return fmt.Errorf("position delete %s: %w", d, err)
				}
			}
			return nil
		})
	})
}

// writeEqualityDeletes writes a Parquet equality-delete file per partition
// through the registry, with the distinct keys of the matched rows.
func (t *Table) writeEqualityDeletes(wfs iceio.WriteFileIO, locs itable.LocationProvider, eqSchema *iceberg.Schema, ids []int, hit []*matched) ([]iceberg.DataFile, error) {
	return t.perPartition(wfs, hit, func(group []*matched, spec iceberg.PartitionSpec, part map[int]any) (iceberg.DataFile, error) {
		out := registry.OutputFile{FS: wfs, Location: locs.NewDataLocation(uuid.NewString() + "-eq-deletes.parquet")}
		b, err := registry.EqualityDeleteWriteBuilder[*data.Record](registry.PARQUET, out)
		if err != nil {
			return nil, err
		}
		b.Schema(eqSchema).EqualityFieldIDs(ids...)
		return writeDeleteFile(b, spec, part, func(write func(*data.Record) error) error {
			seen := map[string]bool{}
			for _, m := range group {
				for _, key := range m.keys {
					var kb strings.Builder
					for j := range key.Len() {
						appendKey(&kb, key.Get(j))
					}
					if seen[kb.String()] {
						continue
					}
					seen[kb.String()] = true
					if err := write(key); err != nil {
						return fmt.Errorf("equality delete %s: %w", key, err)
					}
				}
			}
			return nil
		})
	})
}
