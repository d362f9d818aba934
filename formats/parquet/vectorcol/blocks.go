package vectorcol

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// VectorBlockModelName names the model that reads a VECTOR column as blocks.
const VectorBlockModelName = "parquet-vector-blocks"

// Read properties of the block model. Other read.vector. keys are refused.
const (
	// PropVectorWorkers is how many goroutines decode pages ahead of the
	// consumer (default: one per core).
	PropVectorWorkers = "read.vector.workers"
	// PropVectorColumn names the VECTOR column to read, by its top-level
	// name: for callers that know the name and not the field id Project
	// needs. With both, they must agree.
	PropVectorColumn = "read.vector.column"
	// PropVectorMapFile maps a local file instead of reading its pages into
	// recycled buffers: worth it for a file scanned many times, not for one
	// search (File.ReadPages). Default false.
	PropVectorMapFile = "read.vector.map-file"
)

func init() { registry.MustRegister(VectorBlockModel{}) }

// VectorBlockModel reads the VECTOR column of a Parquet file as blocks of
// vectors (vector.Block), a columnar row type: one block per data page (a
// row cut at a page boundary comes as a block of its own), decoded by the
// page stack on every core, in bounded memory. It is how vector scans reach
// a file through the registry, like every other read: Project names the
// column (a schema of one VECTOR field; none picks the file's only one, or
// emb), Split and Filter select row groups (the filter by the statistics of
// any other column, as the record reader prunes), and the input is any
// FileIO. Block row ids are the file's row positions.
//
// It writes nothing: vectors are written as records (parquet.RecordModel,
// with PropColumns), which is where the layouts are chosen. The file is
// opened and its row groups selected by formats/parquet
// (parquet.OpenColumnFile), so that both models check and select alike.
type VectorBlockModel struct{}

var _ registry.FormatModel[vector.Block] = VectorBlockModel{}

func (VectorBlockModel) Name() string                { return VectorBlockModelName }
func (VectorBlockModel) Format() registry.FileFormat { return registry.PARQUET }
func (VectorBlockModel) RowType() reflect.Type       { return reflect.TypeFor[vector.Block]() }

// NewAppender refuses: see VectorBlockModel.
func (VectorBlockModel) NewAppender(out registry.OutputFile, _ registry.WriteOptions) (registry.FileAppender[vector.Block], error) {
	return nil, fmt.Errorf("parquet file %s: %w", out.Location, registry.UnsupportedOption(VectorBlockModelName,
		"writing (write VECTOR columns as records with "+PropColumns+")"))
}

// NewReader opens the VECTOR column of in. Settings a block read cannot
// honour are refused, naming the model: an engine projection, decryption,
// constants for other columns and a batch size (a block is a page).
func (VectorBlockModel) NewReader(in registry.InputFile, opts registry.ReadOptions) (registry.Reader[vector.Block], error) {
	if err := registry.RefuseReadOptions(VectorBlockModelName, opts); err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, err)
	}
	switch {
	case len(opts.IDToConstant) > 0:
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, registry.UnsupportedOption(VectorBlockModelName, "constants for other columns (blocks hold one VECTOR column)"))
	case opts.RecordsPerBatch > 0:
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, registry.UnsupportedOption(VectorBlockModelName, "a batch size (a block is one data page)"))
	}
	workers, mapFile, named, err := vectorBlockProperties(opts.Properties)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, err)
	}
	f, err := parquet.OpenColumnFile(in, opts)
	if err != nil {
		return nil, err
	}
	r, err := newVectorBlockReader(f, opts, named, workers, mapFile)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func vectorBlockProperties(props map[string]string) (workers int, mapFile bool, column string, err error) {
	for k, v := range props {
		if !strings.HasPrefix(k, "read.vector.") {
			continue
		}
		switch k {
		case PropVectorWorkers:
			if workers, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || workers < 0 {
				return 0, false, "", fmt.Errorf("%s: %q is not a count of goroutines (0 for one per core)", k, v)
			}
		case PropVectorMapFile:
			if mapFile, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
				return 0, false, "", fmt.Errorf("%s: %q is not a boolean", k, v)
			}
		case PropVectorColumn:
			column = strings.TrimSpace(v)
		default:
			return 0, false, "", registry.UnsupportedOption(VectorBlockModelName, fmt.Sprintf("read property %s (known: %s, %s, %s)", k, PropVectorColumn, PropVectorWorkers, PropVectorMapFile))
		}
	}
	return workers, mapFile, column, nil
}

// vectorBlockReader hands out the blocks of the selected row groups, or
// searches them itself (Search). Its page decoders start with the first
// block asked for, so a search that never asks for one runs on the fused
// scan instead.
type vectorBlockReader struct {
	file    *parquet.ColumnFile
	col     *File
	workers int
	blocks  *FileBlocks // nil until the first Next
	used    bool        // Next or Search has run
	closed  bool
}

func newVectorBlockReader(f *parquet.ColumnFile, opts registry.ReadOptions, named string, workers int, mapFile bool) (*vectorBlockReader, error) {
	loc := f.Location
	column, err := projectedVectorColumn(opts.Projection, f.Schema)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", loc, err)
	}
	switch {
	case column == "":
		column = named
	case named != "" && named != column:
		return nil, fmt.Errorf("read %s: %s=%s, but the projection asks for %s", loc, PropVectorColumn, named, column)
	}
	// The row groups a record read with the same split and filter reads.
	groups, err := f.SelectRowGroups(opts)
	if err != nil {
		return nil, err
	}
	col, err := OpenReader(f.Src, f.Size, loc, column)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, f.RowGroups)
	for _, g := range groups {
		keep[g] = true
	}
	col.KeepRowGroups(func(g int) bool { return g < len(keep) && keep[g] })
	col.ReadPages(!mapFile)
	return &vectorBlockReader{file: f, col: col, workers: workers}, nil
}

// projectedVectorColumn is the top-level name of the one field projection
// asks for; "" (no projection) lets the page reader pick.
func projectedVectorColumn(projection, fileSch *iceberg.Schema) (string, error) {
	if projection == nil {
		return "", nil
	}
	fields := projection.Fields()
	if len(fields) != 1 {
		return "", fmt.Errorf("%s reads one VECTOR column: the projection has %d fields", VectorBlockModelName, len(fields))
	}
	want := fields[0]
	got, ok := fileSch.FindFieldByID(want.ID)
	if !ok {
		return "", fmt.Errorf("projected field %q (id %d) is not in the file", want.Name, want.ID)
	}
	for _, f := range fileSch.Fields() {
		if f.ID == got.ID {
			return f.Name, nil
		}
	}
	return "", fmt.Errorf("projected field %q (id %d) is not a top-level column of the file", want.Name, want.ID)
}

// Next returns the next block, or io.EOF after the last.
func (r *vectorBlockReader) Next() (vector.Block, error) {
	switch {
	case r.closed:
		return vector.Block{}, fmt.Errorf("read %s: reader is closed", r.file.Location)
	case r.blocks == nil && r.used:
		return vector.Block{}, fmt.Errorf("read %s: the reader's rows were searched (Search); it hands out no blocks after", r.file.Location)
	case r.blocks == nil:
		r.blocks, r.used = r.col.Blocks(r.workers), true
	}
	b, err := r.blocks.Next()
	if err != nil && !errors.Is(err, io.EOF) {
		return b, fmt.Errorf("read %s: %w", r.file.Location, err)
	}
	return b, err
}

// Info describes the column read; Checksums counts its pages read so far
// with and without a CRC to verify (File.Checksums).
func (r *vectorBlockReader) Info() FileInfo                       { return r.col.Info() }
func (r *vectorBlockReader) Checksums() (verified, without int64) { return r.col.Checksums() }

// Search finds, for each query, the k best rows of the column (ids are
// the file's row positions), as vector.SearchStream over the reader's
// blocks finds them. Before any block is read, and with the default
// workers, it runs the fused scan (File.Search), which scores
// every page on the goroutine that decodes it; after, it streams the rest
// of the blocks.
func (r *vectorBlockReader) Search(metric vector.Metric, queries vector.Matrix, k int) ([][]vector.Result, error) {
	if r.closed {
		return nil, fmt.Errorf("read %s: reader is closed", r.file.Location)
	}
	if !r.used && r.workers == 0 {
		r.used = true
		res, err := r.col.Search(0, metric, queries, k)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", r.file.Location, err)
		}
		return res, nil
	}
	dim := r.col.Info().Dim
	if dim == 0 {
		dim = queries.Dim
	}
	return vector.SearchStream(metric, dim, r, queries, k, 0)
}

// Close stops the page decoders and closes the file. Blocks must not be
// used afterwards.
func (r *vectorBlockReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.blocks != nil {
		r.blocks.Close()
		r.blocks = nil
	}
	err := r.col.Close()
	if cerr := r.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// VectorBlocks is what the block model's readers add to registry.Reader:
// the column's description and the counts of its pages read with and
// without a CRC to verify.
type VectorBlocks interface {
	registry.Reader[vector.Block]
	vector.Searcher
	Info() FileInfo
	Checksums() (verified, without int64)
}

var _ VectorBlocks = (*vectorBlockReader)(nil)

// OpenVectorBlocks is the registry read of in's VECTOR column as blocks,
// configured by configure (nil: the file's own column), for callers that
// also want the column's description or its CRC counts.
func OpenVectorBlocks(in registry.InputFile, configure func(*registry.ReadBuilder[vector.Block])) (VectorBlocks, error) {
	b, err := registry.NewReadBuilder[vector.Block](registry.PARQUET, in)
	if err != nil {
		return nil, err
	}
	if configure != nil {
		configure(b)
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	blocks, ok := r.(VectorBlocks)
	if !ok {
		r.Close()
		return nil, fmt.Errorf("%s: the registry's block reader (%T) does not describe its column", in.Location, r)
	}
	return blocks, nil
}
