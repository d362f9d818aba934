package parquet

import (
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/registry"
)

// A ColumnFile is a Parquet file opened for a format model that reads one
// column with its own page reader (vectorcol's block model): the file is
// checked as the record model checks it before trusting a byte of it, and
// the model reads the row groups a record read with the same split and
// filter would read (SelectRowGroups), so that both models see one file.
type ColumnFile struct {
	// Location, Src and Size are the file's; Close closes Src.
	Location string
	Src      registry.ReaderAtSeeker
	Size     int64
	// Schema is the file's Iceberg schema as a read with the options
	// sees it (its field ids, or the name mapping's).
	Schema *iceberg.Schema
	// RowGroups is the number of row groups in the file.
	RowGroups int

	file *openedFile
	root *fview
}

// OpenColumnFile opens and checks in, and reads its schema as a read with
// opts sees it.
func OpenColumnFile(in registry.InputFile, opts registry.ReadOptions) (*ColumnFile, error) {
	f, err := openParquet(in)
	if err != nil {
		return nil, err
	}
	_, root, fileSch, err := f.view(opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", f.location, err)
	}
	return &ColumnFile{Location: f.location, Src: f.src, Size: f.size, Schema: fileSch,
		RowGroups: len(f.meta.RowGroups), file: f, root: root}, nil
}

// SelectRowGroups are the row groups, in file order, that a record read
// with opts reads: those of its split, pruned by its filter (by the
// statistics of any column).
func (c *ColumnFile) SelectRowGroups(opts registry.ReadOptions) ([]int, error) {
	rr := &recordReader{file: c.file, location: c.Location, projection: opts.Projection}
	if rr.projection == nil {
		rr.projection = c.Schema
	}
	return rr.selectRowGroups(opts, c.Schema, c.root)
}

// Close closes the file.
func (c *ColumnFile) Close() error { return c.file.Close() }
