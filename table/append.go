package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	itable "github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
	"github.com/twmb/avro/atype"

	"github.com/coltype-lab/lab/data"
	_ "github.com/coltype-lab/lab/formats/parquet"           // registers (PARQUET, *data.Record)
	_ "github.com/coltype-lab/lab/formats/parquet/vectorcol" // registers VECTOR's binding: appends write VECTOR columns
	"github.com/coltype-lab/lab/registry"
)

// RowSource produces the rows of an append: it calls write once per row, in
// order, and returns write's first error. Rows are records of the table's
// current schema (Table.Spec); a record may be reused after write returns.
type RowSource func(write func(*data.Record) error) error

// CommitOptions configure the commit of data files.
type CommitOptions struct {
	// DuplicateCheck makes iceberg-go read every manifest of the current
	// snapshot to refuse a path the table already references. It is off
	// for files the lab has just written under fresh random names, where
	// no such path can exist and the check's cost grows with the table.
	DuplicateCheck bool
	// SnapshotProperties are added to the snapshot summary.
	SnapshotProperties map[string]string
}

// Commit is what one append committed.
type Commit struct {
	Table string
	// SnapshotID is the new snapshot; 0 when there was nothing to commit.
	SnapshotID int64
	// Files are the committed data files, with first_row_id set on v3.
	Files   []iceberg.DataFile
	Records int64
	// Write and CommitTime split the append's wall time between writing
	// data files and committing them (manifests, manifest list, metadata,
	// the catalog's swap).
	Write, CommitTime time.Duration
}

// AppendRows writes rows through the registry's Parquet data writer for
// *data.Record into the table's data location, one file per partition,
// and commits them in one snapshot. Each file is complete on storage (written,
// closed, published under its final name) before the commit names it; when
// anything fails before the commit, the files written so far are removed.
// No rows commit nothing.
func (t *Table) AppendRows(ctx context.Context, rows RowSource) (*Commit, error) {
	return t.Append(ctx, rows, nil, nil)
}

// WriteRows is AppendRows without the commit: it writes the rows into the
// table's data location, one file per partition, and returns their
// DataFiles, each file closed and complete on storage. When it fails, the
// files it wrote are removed.
func (t *Table) WriteRows(ctx context.Context, rows RowSource) ([]iceberg.DataFile, error) {
	spec, err := t.Spec()
	if err != nil {
		return nil, err
	}
	fsys, err := t.tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: file IO: %w", t.Name(), err)
	}
	wfs, ok := fsys.(iceio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("table %s: the file IO for %s cannot write", t.Name(), t.Location())
	}
	locs, err := t.tbl.LocationProvider()
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name(), err)
	}
	pspec := t.tbl.Spec()
	parts, err := newPartitioner(pspec, spec.Schema)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name(), err)
	}
	props := t.writerProperties(spec)

	type openFile struct {
		w  *registry.DataWriter[*data.Record]
		df iceberg.DataFile
	}
	files := map[string]*openFile{}
	var order []string
	cleanup := func() {
		for _, k := range order {
			f := files[k]
			if f.df == nil {
				_ = f.w.Abort()
			} else {
				_ = wfs.Remove(f.df.FilePath())
			}
		}
	}
	write := func(rec *data.Record) error {
		key, values, path, err := parts.partition(rec)
		if err != nil {
			return err
		}
		f, ok := files[key]
		if !ok {
			name := uuid.NewString() + ".parquet"
			if path != "" {
				name = path + "/" + name
			}
			out := registry.OutputFile{FS: wfs, Location: locs.NewDataLocation(name)}
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, out)
			if err != nil {
				return err
			}
			b.Schema(spec.Schema).Spec(pspec).SetAll(props)
			if values != nil {
				b.Partition(values)
			}
			w, err := b.Build()
			if err != nil {
				return err
			}
			f = &openFile{w: w}
			files[key] = f
			order = append(order, key)
		}
		return f.w.Write(rec)
	}
	if err := rows(write); err != nil {
		cleanup()
		return nil, fmt.Errorf("append to %s: %w", t.Name(), err)
	}
	if err := ctx.Err(); err != nil {
		cleanup()
		return nil, fmt.Errorf("append to %s: %w", t.Name(), err)
	}
	dfs := make([]iceberg.DataFile, 0, len(order))
	for _, k := range order {
		f := files[k]
		if err := f.w.Close(); err != nil {
			cleanup()
			return nil, fmt.Errorf("append to %s: %w", t.Name(), err)
		}
		f.df = f.w.DataFile()
		dfs = append(dfs, f.df)
	}
	return dfs, nil
}

// commitAttempts is how many times CommitFiles tries a commit that loses a
// race; between attempts it waits retryWait, doubled each time, with jitter,
// so that racing writers spread out instead of colliding again.
const (
	commitAttempts = 8
	retryWait      = 10 * time.Millisecond
)

// CommitFiles commits data files to the table in one append snapshot. Each
// must be on storage at the size its DataFile records; on a v3 table each is
// given its first_row_id, counting on from the table's next-row-id in the
// order given.
//
// A commit that loses a race with another writer is retried on the
// refreshed table, with first_row_ids counted again from its next-row-id:
// both appends land, and no two rows share a row id. The retry is the
// lab's, not iceberg-go's (commit.retry.num-retries, 0 by default, should
// stay 0 on v3 tables the lab writes): iceberg-go's replay reuses the
// manifests it wrote, so the first_row_ids in them would overlap the other
// writer's.
func (t *Table) CommitFiles(ctx context.Context, files []iceberg.DataFile, o CommitOptions) (*Commit, error) {
	start := time.Now()
	fsys, err := t.tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: file IO: %w", t.Name(), err)
	}
	for _, df := range files {
		if df.FirstRowID() != nil {
			return nil, fmt.Errorf("append to %s: data file %s already has first_row_id %d", t.Name(), df.FilePath(), *df.FirstRowID())
		}
		if err := checkOnStorage(fsys, df); err != nil {
			return nil, fmt.Errorf("append to %s: %w", t.Name(), err)
		}
	}
	var opts []itable.WriteOption
	if !o.DuplicateCheck {
		opts = append(opts, itable.WithoutDuplicateCheck())
	}
	var c *Commit
	err = t.retryLostRaces(ctx, func() (bool, error) {
		committed, err := t.commitOnce(ctx, files, o.SnapshotProperties, opts)
		if err != nil {
			return true, fmt.Errorf("append to %s: commit to %s: %w", t.Name(), t.cat.desc, err)
		}
		c = &Commit{Table: t.Name(), Files: committed, CommitTime: time.Since(start)}
		for _, df := range committed {
			c.Records += df.Count()
		}
		if s := t.tbl.CurrentSnapshot(); s != nil {
			c.SnapshotID = s.SnapshotID
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// retryLostRaces runs try on the table as last loaded until it succeeds,
// fails before committing (committing false), fails its commit for another
// reason than a lost race, or commitAttempts are spent. A lost race is
// ErrCommitFailed from a REST catalog, and a failed requirement (the branch
// moved) from the SQL catalog: told apart from other failures by the table
// having moved since it was loaded. Between attempts it waits retryWait,
// doubled each time, with jitter, and refreshes the table.
func (t *Table) retryLostRaces(ctx context.Context, try func() (committing bool, err error)) error {
	for attempt := 1; ; attempt++ {
		base := t.tbl.MetadataLocation()
		committing, err := try()
		if err == nil || !committing || attempt == commitAttempts || ctx.Err() != nil {
			return err
		}
		if rerr := t.Refresh(ctx); rerr != nil {
			return fmt.Errorf("%w; and then %w", err, rerr)
		}
		if !errors.Is(err, itable.ErrCommitFailed) && t.tbl.MetadataLocation() == base {
			return err
		}
		wait := retryWait << (attempt - 1)
		wait += time.Duration(rand.Int64N(int64(wait)))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		if rerr := t.Refresh(ctx); rerr != nil {
			return fmt.Errorf("%w; and then %w", err, rerr)
		}
	}
}

// commitOnce is one transaction on the table as last loaded.
func (t *Table) commitOnce(ctx context.Context, files []iceberg.DataFile, props map[string]string, opts []itable.WriteOption) ([]iceberg.DataFile, error) {
	files = slices.Clone(files)
	if t.FormatVersion() >= 3 {
		next := t.tbl.Metadata().NextRowID()
		for i, df := range files {
			var err error
			if files[i], err = withFirstRowID(df, t.tbl.Metadata(), next); err != nil {
				return nil, err
			}
			next += df.Count()
		}
	}
	tx := t.tbl.NewTransaction()
	if err := tx.AddDataFiles(ctx, files, props, opts...); err != nil {
		return nil, err
	}
	nt, err := tx.Commit(ctx)
	if err != nil {
		return nil, err
	}
	t.tbl = nt
	return files, nil
}

// checkOnStorage refuses a DataFile whose file is missing or of another size:
// nothing committed may point at a file that is not complete on storage.
func checkOnStorage(fsys iceio.IO, df iceberg.DataFile) error {
	f, err := fsys.Open(df.FilePath())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("data file %s is missing from storage", df.FilePath())
		}
		return fmt.Errorf("data file %s: %w", df.FilePath(), err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("data file %s: %w", df.FilePath(), err)
	}
	if st.Size() != df.FileSizeBytes() {
		return fmt.Errorf("data file %s is %d bytes on storage, and its DataFile says %d: not the file that was written", df.FilePath(), st.Size(), df.FileSizeBytes())
	}
	return nil
}

// withFirstRowID copies df with first_row_id set. iceberg-go's DataFile is
// read-only, so the copy goes through its builder, field by field.
func withFirstRowID(df iceberg.DataFile, meta itable.Metadata, id int64) (iceberg.DataFile, error) {
	spec := meta.PartitionSpecByID(int(df.SpecID()))
	if spec == nil {
		return nil, fmt.Errorf("data file %s: the table has no partition spec %d", df.FilePath(), df.SpecID())
	}
	b, err := iceberg.NewDataFileBuilder(*spec, df.ContentType(), df.FilePath(), df.FileFormat(),
		df.Partition(), partitionLogicalTypes(*spec, meta.CurrentSchema()), nil, df.Count(), df.FileSizeBytes())
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", df.FilePath(), err)
	}
	if m := df.ColumnSizes(); m != nil {
		b.ColumnSizes(maps.Clone(m))
	}
	if m := df.ValueCounts(); m != nil {
		b.ValueCounts(maps.Clone(m))
	}
	if m := df.NullValueCounts(); m != nil {
		b.NullValueCounts(maps.Clone(m))
	}
	if m := df.NaNValueCounts(); m != nil {
		b.NaNValueCounts(maps.Clone(m))
	}
	if m := df.LowerBoundValues(); m != nil {
		b.LowerBoundValues(maps.Clone(m))
	}
	if m := df.UpperBoundValues(); m != nil {
		b.UpperBoundValues(maps.Clone(m))
	}
	if s := df.SplitOffsets(); s != nil {
		b.SplitOffsets(slices.Clone(s))
	}
	if k := df.KeyMetadata(); k != nil {
		b.KeyMetadata(slices.Clone(k))
	}
	if id := df.SortOrderID(); id != nil {
		b.SortOrderID(*id)
	}
	b.FirstRowID(id)
	return b.Build(), nil
}

// partitionLogicalTypes are the Avro logical types of partition values that
// the manifest needs to encode them (what iceberg-go's own writer passes).
func partitionLogicalTypes(spec iceberg.PartitionSpec, schema *iceberg.Schema) map[int]string {
	out := map[int]string{}
	for _, f := range spec.Fields() {
		src, ok := schema.FindFieldByID(f.SourceID())
		if !ok {
			continue
		}
		switch f.Transform.ResultType(src.Type).(type) {
		case iceberg.DateType:
			out[f.FieldID] = atype.Date
		case iceberg.TimeType:
			out[f.FieldID] = atype.TimeMicros
		case iceberg.TimestampType, iceberg.TimestampTzType:
			out[f.FieldID] = atype.TimestampMicros
		case iceberg.DecimalType:
			out[f.FieldID] = atype.Decimal
		case iceberg.UUIDType:
			out[f.FieldID] = atype.UUID
		}
	}
	return out
}
