package table

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	itable "github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/schemaspec"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// SearchOptions select what Search scores.
type SearchOptions struct {
	// Column is the VECTOR column; "" is the table's only one.
	Column string
	Metric vector.Metric
	// Queries are scored together; each has the column's dimension.
	Queries vector.Matrix
	K       int
	// Filter restricts the search to the rows it matches; nil searches all.
	Filter iceberg.BooleanExpression
	// SnapshotID searches that snapshot; 0 the current one.
	SnapshotID int64
	// Columns are returned with each hit (Hit.Row); none returns none.
	Columns         []string
	CaseInsensitive bool
}

// Hit is one search result: a row of a data file and its score.
type Hit struct {
	File  string
	Pos   int64 // the row's position in File (_pos)
	Score float32
	// Row holds SearchOptions.Columns of the row, when asked for.
	Row *data.Record
}

// SearchResult is what Search found, with how it got there.
type SearchResult struct {
	Table      string
	SnapshotID int64
	Column     vector.Declaration
	// Hits are the k best rows of each query, best first, ranked as
	// vector.TopK ranks (ties: the earlier file, then the lower position).
	Hits [][]Hit
	// Files is how many data files were searched after planning; Paged
	// how many of them were read as blocks of vectors, the rest as records
	// (a filter, equality deletes, or a file that is not Parquet).
	Files, Paged int
	// Rows is how many rows were scored.
	Rows       int64
	Plan, Scan time.Duration
	// Columns is the schema of Hit.Row; nil without SearchOptions.Columns.
	Columns *schemaspec.Spec
}

// fileSlot is the width of a file's row positions in the ids Search merges
// on: id = file index << fileSlot | position.
const fileSlot = 40

// Search is the exact top-k of queries over a VECTOR column of the table:
// iceberg-go plans the files (the filter prunes them by partition and
// metrics), each kept file is searched, and the per-file top lists merge.
// A Parquet data file with no filter and no equality deletes is read as
// blocks of vectors (the registry's (PARQUET, vector.Block) model, through
// the table's FileIO), asking for k more hits than it has deleted rows and
// dropping those; any other file is read as records, rows filtered and
// deletes applied as a scan does.
func (t *Table) Search(ctx context.Context, o SearchOptions) (*SearchResult, error) {
	start := time.Now()
	spec, err := t.Spec()
	if err != nil {
		return nil, err
	}
	decl, err := searchColumn(t.Name(), vector.Columns(spec.Decls), o.Column, !o.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	if !o.Metric.Valid() {
		return nil, fmt.Errorf("search %s: invalid metric %v", t.Name(), o.Metric)
	}
	if o.K < 0 {
		return nil, fmt.Errorf("search %s: k %d is negative", t.Name(), o.K)
	}
	if o.Queries.Dim != decl.Dim || len(o.Queries.Data) == 0 || len(o.Queries.Data)%decl.Dim != 0 {
		return nil, fmt.Errorf("search %s: column %s is %s: want queries of dimension %d, got dimension %d", t.Name(), decl.Column, decl.TypeName(), decl.Dim, o.Queries.Dim)
	}
	s, err := t.scan(ctx, ScanOptions{Filter: o.Filter, SnapshotID: o.SnapshotID, CaseInsensitive: o.CaseInsensitive,
		Columns: []string{decl.Column}, Workers: 1}, true)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", t.Name(), err)
	}
	s.raw = true
	res := &SearchResult{Table: t.Name(), Column: decl}
	if snap := s.Snapshot(); snap != nil {
		res.SnapshotID = snap.SnapshotID
	}
	res.Plan = time.Since(start)
	scanStart := time.Now()
	nq := o.Queries.Rows()
	tops := make([]*vector.TopK, nq)
	for i := range tops {
		tops[i] = vector.NewTopK(o.K, o.Metric)
	}
	// Tasks of one file (splits) are searched together when the page
	// reader takes the whole file.
	byFile := map[string][]int{}
	var files []string
	for i, task := range s.Tasks {
		p := task.File.FilePath()
		if _, ok := byFile[p]; !ok {
			files = append(files, p)
		}
		byFile[p] = append(byFile[p], i)
	}
	res.Files = len(files)
	vecAt := slices.IndexFunc(s.read.Fields(), func(f iceberg.NestedField) bool { return f.Name == decl.Column })
	posAt := len(s.read.Fields()) - 1
	for fi, path := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tasks := byFile[path]
		base := int64(fi) << fileSlot
		if format := s.Tasks[tasks[0]].File.FileFormat(); format == iceberg.ParquetFile && !s.filtered && !anyEquality(s.Tasks, tasks) {
			n, err := t.searchPaged(ctx, s, path, s.read.Field(vecAt), decl, o, tasks, base, tops)
			if err != nil {
				return nil, fmt.Errorf("search %s: data file %s: %w", t.Name(), path, err)
			}
			res.Rows += n
			res.Paged++
			continue
		}
		buf := make([]float32, 0, decl.Dim)
		for _, ti := range tasks {
			var decodeErr error
			err := s.readTask(ctx, ti, true, func(rec *data.Record) bool {
				b, ok := rec.Get(vecAt).([]byte)
				if !ok || b == nil {
					return true // a null vector is not a candidate
				}
				v, derr := decl.Element.DecodeVector(buf[:0], decl.Dim, b)
				if derr != nil {
					decodeErr = fmt.Errorf("data file %s: column %s: %w", path, decl.Column, derr)
					return false
				}
				pos := rec.Get(posAt).(int64)
				for q := range nq {
					tops[q].Push(base|pos, o.Metric.Score(o.Queries.Row(q), v))
				}
				res.Rows++
				return true
			})
			if err == nil {
				err = decodeErr
			}
			if err != nil {
				return nil, fmt.Errorf("search %s: %w", t.Name(), err)
			}
		}
	}
	res.Scan = time.Since(scanStart)
	res.Hits = make([][]Hit, nq)
	for q, top := range tops {
		for _, r := range top.Results() {
			res.Hits[q] = append(res.Hits[q], Hit{File: files[r.ID>>fileSlot], Pos: r.ID & (1<<fileSlot - 1), Score: r.Score})
		}
	}
	if len(o.Columns) > 0 {
		if err := t.fillHitRows(ctx, o, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// searchColumn finds the VECTOR column to search.
func searchColumn(table string, vectors []vector.Declaration, name string, cs bool) (vector.Declaration, error) {
	var names []string
	for _, d := range vectors {
		names = append(names, d.Column)
		if d.Column == name || (!cs && strings.EqualFold(d.Column, name)) {
			return d, nil
		}
	}
	switch {
	case len(vectors) == 0:
		return vector.Declaration{}, fmt.Errorf("search %s: the table has no VECTOR column", table)
	case name == "" && len(vectors) == 1:
		return vectors[0], nil
	case name == "":
		return vector.Declaration{}, fmt.Errorf("search %s: the table has VECTOR columns %s: name one", table, strings.Join(names, ", "))
	}
	return vector.Declaration{}, fmt.Errorf("search %s: %q is not a VECTOR column (VECTOR columns: %s)", table, name, strings.Join(names, ", "))
}

func anyEquality(tasks []itable.FileScanTask, idx []int) bool {
	for _, i := range idx {
		if len(tasks[i].EqualityDeleteFiles) > 0 {
			return true
		}
	}
	return false
}

// searchPaged searches one whole Parquet data file as blocks of vectors
// (one registry read of (PARQUET, vector.Block) through the table's
// FileIO), dropping the rows its deletion vectors and position deletes
// remove. The column is projected by field id, so a renamed column is
// still found.
func (t *Table) searchPaged(ctx context.Context, s *Scan, path string, field iceberg.NestedField, decl vector.Declaration, o SearchOptions, tasks []int, base int64, tops []*vector.TopK) (int64, error) {
	blocks, err := vectorcol.OpenVectorBlocks(registry.InputFile{FS: s.fsys, Location: path},
		func(b *registry.ReadBuilder[vector.Block]) { b.Project(iceberg.NewSchema(0, field)) })
	if err != nil {
		return 0, err
	}
	defer blocks.Close()
	info := blocks.Info()
	if info.Dim != decl.Dim {
		return 0, fmt.Errorf("column %s holds dimension %d vectors; the table declares %s", decl.Column, info.Dim, decl.TypeName())
	}
	deleted := dv.NewRoaringPositionBitmap()
	for _, ti := range tasks {
		d, err := s.deletes.forTask(ctx, s.Tasks[ti], s.read)
		if err != nil {
			return 0, err
		}
		if d != nil && d.positions != nil {
			deleted.Or(d.positions)
		}
	}
	extra := deleted.Cardinality()
	res, err := blocks.Search(o.Metric, o.Queries, o.K+int(extra))
	if err != nil {
		return 0, err
	}
	for q, rs := range res {
		for _, r := range rs {
			if extra > 0 && deleted.Contains(uint64(r.ID)) {
				continue
			}
			tops[q].Push(base|r.ID, r.Score)
		}
	}
	return info.Rows - extra, nil
}

// fillHitRows reads the asked-for columns of the hit rows, one registry
// read per file that has hits, keeping the rows at the hits' positions.
func (t *Table) fillHitRows(ctx context.Context, o SearchOptions, res *SearchResult) error {
	s, err := t.scan(ctx, ScanOptions{SnapshotID: o.SnapshotID, Columns: o.Columns, CaseInsensitive: o.CaseInsensitive, Workers: 1}, true)
	if err != nil {
		return fmt.Errorf("search %s: --columns: %w", t.Name(), err)
	}
	s.raw = true
	res.Columns = s.Spec
	want := map[string]map[int64][]*Hit{}
	for q := range res.Hits {
		for i := range res.Hits[q] {
			h := &res.Hits[q][i]
			if want[h.File] == nil {
				want[h.File] = map[int64][]*Hit{}
			}
			want[h.File][h.Pos] = append(want[h.File][h.Pos], h)
		}
	}
	posAt := len(s.read.Fields()) - 1
	for i, task := range s.Tasks {
		hits := want[task.File.FilePath()]
		if len(hits) == 0 {
			continue
		}
		err := s.readTask(ctx, i, false, func(rec *data.Record) bool {
			if hs, ok := hits[rec.Get(posAt).(int64)]; ok {
				row := reshapeInto(data.NewRecord(s.Spec.Schema), rec)
				for _, h := range hs {
					h.Row = row
				}
			}
			return true
		})
		if err != nil {
			return fmt.Errorf("search %s: %w", t.Name(), err)
		}
	}
	for _, file := range slices.Sorted(maps.Keys(want)) {
		for pos, hs := range want[file] {
			if hs[0].Row == nil {
				return fmt.Errorf("search %s: data file %s: row %d was a hit but is not in the scan", t.Name(), file, pos)
			}
		}
	}
	return nil
}
