// Package tour is the registry tour: the steps of Iceberg 1.11's File Format
// API walkthrough, run against the Go mirror. Its output is line-oriented so a
// reader can set it beside the Java program's and compare.
package tour

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	_ "github.com/coltype-lab/lab/formats/avro"          // registers (AVRO, *data.Record), (AVRO, data.PositionDelete)
	_ "github.com/coltype-lab/lab/formats/parquet"       // registers the PARQUET models
	_ "github.com/coltype-lab/lab/formats/parquet/arrow" // registers (PARQUET, arrow.RecordBatch)
	"github.com/coltype-lab/lab/registry"
)

// Schema is the walkthrough's table schema: (id long required, name string optional).
var Schema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
)

// Row is one walkthrough row; a nil Name is null.
type Row struct {
	ID   int64
	Name *string
}

// DefaultRows are the three records the walkthrough's Java program writes:
// (1, "row-1"), (2, "row-2"), (3, "row-3").
func DefaultRows() []Row {
	s := func(v string) *string { return &v }
	return []Row{{1, s("row-1")}, {2, s("row-2")}, {3, s("row-3")}}
}

// javaString prints a record as Iceberg Java's GenericRecord.toString does:
// Record(1, row-1), values in schema order, null as null.
func javaString(r *data.Record) string {
	parts := make([]string, r.Len())
	for i := range parts {
		if v := r.Get(i); v == nil {
			parts[i] = "null"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return "Record(" + strings.Join(parts, ", ") + ")"
}

// Result is what the tour did, for callers that check it (tests, notebooks).
type Result struct {
	DataFile   iceberg.DataFile
	ReadBack   []*data.Record
	ORCError   error
	LanceError error
}

// Run writes the tour to w, putting its Parquet file in dir.
func Run(w io.Writer, dir string, rows []Row) (*Result, error) {
	res := &Result{}
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }

	p("== Step 1: file formats (closed enum)")
	for _, f := range registry.FileFormats {
		p("%-8s splittable=%t", f, f.Splittable())
	}

	p("")
	p("== Step 2: registered format models (open row types)")
	for _, m := range registry.Default.Models() {
		p("%-8s %-24s %s", m.Format(), m.RowType(), m.Name())
	}

	p("")
	p("== Step 3: write and read PARQUET through the registry")
	// First the Java program's own lines, so the two outputs compare line by
	// line: each record as it is written, then the file's summary.
	path := filepath.Join(dir, "out.parquet")
	df, written, err := writeRows(path, rows)
	if err != nil {
		return nil, err
	}
	res.DataFile = df
	for _, r := range written {
		p("%s", javaString(r))
	}
	p("wrote %s format=%s records=%d bytes=%d valueCounts=%s",
		df.FilePath(), df.FileFormat(), df.Count(), df.FileSizeBytes(), formatCounts(df.ValueCounts()))
	p("(the Java program's file is 684 bytes: another writer, parquet-java, lays out pages, statistics")
	p(" and footer differently; the records and the metrics are the same)")
	p("")
	p("DataFile:")
	p("  path: %s", filepath.Base(df.FilePath()))
	p("  format: %s", df.FileFormat())
	p("  content: %s", df.ContentType())
	p("  record count: %d", df.Count())
	p("  file size: %d bytes", df.FileSizeBytes())
	p("  value counts: %s", formatCounts(df.ValueCounts()))
	p("  null value counts: %s", formatCounts(df.NullValueCounts()))
	p("  split offsets: %v", df.SplitOffsets())
	res.ReadBack, err = readRows(path)
	if err != nil {
		return nil, err
	}
	p("Read back %d records:", len(res.ReadBack))
	for _, r := range res.ReadBack {
		p("  %s", javaString(r))
	}

	p("")
	p("== Step 4: ask for ORC with *data.Record")
	_, res.ORCError = registry.DataWriteBuilder[*data.Record](registry.ORC, registry.LocalOutput(filepath.Join(dir, "tour.orc")))
	if res.ORCError == nil {
		return nil, errors.New("tour: an ORC model is registered, but no Go ORC library exists")
	}
	p("error: %v", res.ORCError)

	p("")
	p("== Step 5: parse the format name \"lance\"")
	_, res.LanceError = registry.ParseFileFormat("lance")
	if res.LanceError == nil {
		return nil, errors.New("tour: \"lance\" parsed as a file format")
	}
	p("error: %v", res.LanceError)
	return res, nil
}

// writeRows writes the rows and returns the DataFile and the records as
// written.
func writeRows(path string, rows []Row) (iceberg.DataFile, []*data.Record, error) {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return nil, nil, err
	}
	w, err := b.Schema(Schema).Overwrite().Build()
	if err != nil {
		return nil, nil, err
	}
	var written []*data.Record
	for _, row := range rows {
		rec := data.NewRecord(Schema)
		rec.Set(0, row.ID)
		if row.Name != nil {
			rec.Set(1, *row.Name)
		}
		if err := w.Write(rec); err != nil {
			_ = w.Abort()
			return nil, nil, err
		}
		written = append(written, rec)
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	return w.DataFile(), written, nil
}

func readRows(path string) ([]*data.Record, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return nil, err
	}
	r, err := b.Project(Schema).Build()
	if err != nil {
		return nil, err
	}
	return registry.ReadAll(r, nil)
}

// formatCounts prints a field-id map as Java prints a Map: {1=3, 2=3}.
func formatCounts(m map[int]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d=%d", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
