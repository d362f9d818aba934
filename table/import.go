package table

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// AppendFiles commits existing Parquet data files, at their locations, in
// one snapshot (Append with no rows).
func (t *Table) AppendFiles(ctx context.Context, locations []string, snapshotProps map[string]string) (*Commit, error) {
	return t.Append(ctx, nil, locations, snapshotProps)
}

// Append commits, in one snapshot, the rows of rows (nil for none), written
// as AppendRows writes them, and the existing Parquet data files at
// locations.
//
// Each existing file is checked before anything is written or committed: it
// is on storage, its schema matches the table's (by field id, or by name
// through the table's name mapping for files without ids), its footer
// carries no logical type the table's readers would crash on (unless the
// table opts in to footer annotations), and in a partitioned table all its
// rows fall in one partition. Its DataFile has the record count, size,
// split offsets and the top-level columns' sizes and value and null counts
// from the footer; no bounds, so the planner keeps the file for every
// metrics predicate. With existing files iceberg-go's duplicate-file check
// stays on: their paths may already be in the table.
func (t *Table) Append(ctx context.Context, rows RowSource, locations []string, snapshotProps map[string]string) (*Commit, error) {
	start := time.Now()
	var imported []iceberg.DataFile
	if len(locations) > 0 {
		fsys, err := t.tbl.FS(ctx)
		if err != nil {
			return nil, fmt.Errorf("table %s: file IO: %w", t.Name(), err)
		}
		spec, err := t.Spec()
		if err != nil {
			return nil, err
		}
		for _, loc := range locations {
			df, err := t.importFile(fsys, spec.Schema, loc)
			if err != nil {
				return nil, fmt.Errorf("append to %s: %w", t.Name(), err)
			}
			imported = append(imported, df)
		}
	}
	var written []iceberg.DataFile
	if rows != nil {
		var err error
		if written, err = t.WriteRows(ctx, rows); err != nil {
			return nil, err
		}
	}
	all := append(written, imported...)
	took := time.Since(start)
	if len(all) == 0 {
		return &Commit{Table: t.Name(), Write: took}, nil
	}
	c, err := t.CommitFiles(ctx, all, CommitOptions{DuplicateCheck: len(imported) > 0, SnapshotProperties: snapshotProps})
	if err != nil {
		if len(written) == 0 {
			return nil, err
		}
		// The files stay: a commit whose outcome is unknown (a timeout after
		// the catalog swapped) may reference them.
		paths := make([]string, len(written))
		for i, df := range written {
			paths[i] = df.FilePath()
		}
		return nil, fmt.Errorf("%w (data files left uncommitted: %s)", err, strings.Join(paths, ", "))
	}
	c.Write = took
	return c, nil
}

// importFile builds the DataFile of one existing Parquet file.
func (t *Table) importFile(fsys iceio.IO, schema *iceberg.Schema, loc string) (iceberg.DataFile, error) {
	if f, ok := registry.FromFileName(loc); ok && f != registry.PARQUET {
		return nil, fmt.Errorf("data file %s: only Parquet data files can be appended, this is %s", loc, f)
	}
	in := registry.InputFile{FS: fsys, Location: loc}
	src, size, err := in.Open()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("data file %s is missing from storage", loc)
		}
		return nil, fmt.Errorf("data file %s: %w", loc, err)
	}
	ft, err := footer.ReadFooter(src, size)
	src.Close()
	if err != nil {
		return nil, fmt.Errorf("data file %s is not a readable Parquet file: %w", loc, err)
	}
	if !t.FooterAnnotations() {
		for _, el := range ft.Meta.Schema {
			if footer.IsExtension(el.LogicalType.Value) {
				return nil, fmt.Errorf("data file %s: column %q carries the logical type %s in its footer, which arrow-go (and so iceberg-go's scan) and released parquet-java crash on; "+
					"append its rows with --input instead, which writes the types to the key/value mirror only, or create the table with %s=true",
					loc, el.Name, el.LogicalType.String(), PropFooterAnnotations)
			}
		}
	}
	fileSchema, err := t.fileSchema(in)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", loc, err)
	}
	if err := checkFileSchema(schema, fileSchema); err != nil {
		return nil, fmt.Errorf("data file %s does not match the schema of table %s: %w", loc, t.Name(), err)
	}
	pspec := t.tbl.Spec()
	partition, err := t.filePartition(in, pspec, schema)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", loc, err)
	}
	b, err := iceberg.NewDataFileBuilder(pspec, iceberg.EntryContentData, loc, iceberg.ParquetFile,
		partition, partitionLogicalTypes(pspec, schema), nil, ft.Meta.NumRows, size)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", loc, err)
	}
	footerMetrics(b, ft.Meta, fileSchema)
	return b.Build(), nil
}

// fileSchema is the schema the registry's reader reads the file with: its
// own field ids, or the table's name mapping for a file without them.
func (t *Table) fileSchema(in registry.InputFile) (*iceberg.Schema, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		return nil, err
	}
	nm := t.tbl.NameMapping()
	if nm == nil {
		nm = t.tbl.Schema().NameMapping()
	}
	return b.WithNameMapping(nm).FileSchema()
}

// filePartition reads the partition source columns of the file and returns
// the one partition its rows are in.
func (t *Table) filePartition(in registry.InputFile, pspec iceberg.PartitionSpec, schema *iceberg.Schema) (map[int]any, error) {
	if pspec.IsUnpartitioned() {
		return nil, nil
	}
	ids := map[int]iceberg.Void{}
	for _, f := range pspec.Fields() {
		ids[f.SourceID()] = iceberg.Void{}
	}
	proj, err := iceberg.PruneColumns(schema, ids, false)
	if err != nil {
		return nil, err
	}
	parts, err := newPartitioner(pspec, proj)
	if err != nil {
		return nil, err
	}
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		return nil, err
	}
	nm := t.tbl.NameMapping()
	if nm == nil {
		nm = t.tbl.Schema().NameMapping()
	}
	r, err := b.Project(proj).WithNameMapping(nm).ReuseContainers().Build()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var first string
	var values map[int]any
	for row := int64(0); ; row++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		key, v, path, err := parts.partition(rec)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", row, err)
		}
		if values == nil {
			first, values = path, v
			continue
		}
		if key != first && path != first {
			return nil, fmt.Errorf("its rows span more than one partition of table %s (%s in the first rows, %s at row %d); a data file of a partitioned table holds one partition", t.Name(), first, path, row)
		}
	}
	if values == nil {
		return nil, fmt.Errorf("it has no rows, so it is in no partition of table %s", t.Name())
	}
	return values, nil
}

// footerMetrics sets what the footer says of the file's top-level primitive
// columns: sizes, value counts and null counts, and the row groups' offsets.
func footerMetrics(b *iceberg.DataFileBuilder, meta *footer.FileMetaData, schema *iceberg.Schema) {
	sizes, values, nulls := map[int]int64{}, map[int]int64{}, map[int]int64{}
	var splits []int64
	nullsKnown := map[int]bool{}
	for _, rg := range meta.RowGroups {
		if len(rg.Columns) > 0 && rg.Columns[0].MetaData != nil {
			md := rg.Columns[0].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset.Valid && md.DictionaryPageOffset.V > 0 && md.DictionaryPageOffset.V < start {
				start = md.DictionaryPageOffset.V
			}
			splits = append(splits, start)
		}
		for _, cc := range rg.Columns {
			md := cc.MetaData
			if md == nil || len(md.PathInSchema) != 1 {
				continue
			}
			f, ok := schema.FindFieldByName(md.PathInSchema[0])
			if !ok {
				continue
			}
			if _, prim := f.Type.(iceberg.PrimitiveType); !prim {
				continue
			}
			sizes[f.ID] += md.TotalCompressedSize
			values[f.ID] += md.NumValues
			if md.Statistics != nil && md.Statistics.NullCount.Valid {
				if _, seen := nullsKnown[f.ID]; !seen {
					nullsKnown[f.ID] = true
				}
				nulls[f.ID] += md.Statistics.NullCount.V
			} else {
				nullsKnown[f.ID] = false
			}
		}
	}
	for id, known := range nullsKnown {
		if !known {
			delete(nulls, id)
		}
	}
	slices.Sort(splits)
	b.ColumnSizes(sizes).ValueCounts(values).NullValueCounts(nulls).SplitOffsets(splits)
}

// checkFileSchema compares a data file's schema with the table's, by field
// id: every file column must be a table column of the same name and a type
// the table's reads (the same, or a promotion Iceberg allows), and every
// required table column must be in the file.
func checkFileSchema(table, file *iceberg.Schema) error {
	return checkStruct("", table.AsStruct(), file.AsStruct())
}

func checkStruct(prefix string, table, file iceberg.StructType) error {
	for _, ff := range file.FieldList {
		i := slices.IndexFunc(table.FieldList, func(tf iceberg.NestedField) bool { return tf.ID == ff.ID })
		path := prefix + ff.Name
		if i < 0 {
			return fmt.Errorf("column %q (field id %d) is not in the table", path, ff.ID)
		}
		tf := table.FieldList[i]
		if tf.Name != ff.Name {
			return fmt.Errorf("field id %d is column %q in the file and %q in the table", ff.ID, path, prefix+tf.Name)
		}
		if tf.Required && !ff.Required {
			return fmt.Errorf("column %q (field id %d) is optional in the file and required in the table", path, ff.ID)
		}
		if err := checkType(path, tf.Type, ff.Type); err != nil {
			return err
		}
	}
	for _, tf := range table.FieldList {
		if tf.Required && !slices.ContainsFunc(file.FieldList, func(ff iceberg.NestedField) bool { return ff.ID == tf.ID }) {
			return fmt.Errorf("required column %q (field id %d) is not in the file", prefix+tf.Name, tf.ID)
		}
	}
	return nil
}

func checkType(path string, table, file iceberg.Type) error {
	mismatch := func() error {
		return fmt.Errorf("column %q is %s in the file and %s in the table", path, file, table)
	}
	switch tt := table.(type) {
	case *iceberg.StructType:
		ft, ok := file.(*iceberg.StructType)
		if !ok {
			return mismatch()
		}
		return checkStruct(path+".", *tt, *ft)
	case *iceberg.ListType:
		ft, ok := file.(*iceberg.ListType)
		if !ok || ft.ElementID != tt.ElementID || (tt.ElementRequired && !ft.ElementRequired) {
			return mismatch()
		}
		return checkType(path+".element", tt.Element, ft.Element)
	case *iceberg.MapType:
		ft, ok := file.(*iceberg.MapType)
		if !ok || ft.KeyID != tt.KeyID || ft.ValueID != tt.ValueID || (tt.ValueRequired && !ft.ValueRequired) {
			return mismatch()
		}
		if err := checkType(path+".key", tt.KeyType, ft.KeyType); err != nil {
			return err
		}
		return checkType(path+".value", tt.ValueType, ft.ValueType)
	}
	if data.Promotable(file, table) {
		return nil
	}
	return mismatch()
}
