// Command registry-tour is the notebook of the registry tour (`lab demo`):
// which file formats an Iceberg table can hold, which (format, row type)
// pairs the Go mirror registers, and what writing and reading through each
// registered model costs.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/data"

	_ "github.com/coltype-lab/lab/formats/parquet/arrow" // registers (PARQUET, arrow.RecordBatch)
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/registry/tour"
	"github.com/coltype-lab/lab/types/vector"
)

func main() { notebook.Main(run) }

// config is the run's size.
type config struct {
	rows int // rows written and read per model
	runs int // timed runs, best kept
}

func configFor(opts notebook.Options) config {
	if opts.Quick {
		return config{rows: 2000, runs: 1}
	}
	return config{rows: 200_000, runs: 3}
}

// modelFigures is one registered model's measurement.
type modelFigures struct {
	model       registry.Model
	rows        int
	fileBytes   int64
	writeSec    float64
	readSec     float64
	floor       bench.FloorResult // at fileBytes
	readsBack   int               // rows the read returned
	notMeasured string            // why the model was not measured, if it was not
}

func run(ctx context.Context, opts notebook.Options) (*notebook.Report, error) {
	cfg := configFor(opts)
	dir, err := os.MkdirTemp("", "registry-tour-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	var transcript bytes.Buffer
	res, err := tour.Run(&transcript, dir, tour.DefaultRows())
	if err != nil {
		return nil, fmt.Errorf("registry tour: %w", err)
	}

	models := registry.Default.Models()
	var figs []modelFigures
	for _, m := range models {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := measure(m, filepath.Join(dir, "models"), cfg, opts.Seed)
		if err != nil {
			return nil, fmt.Errorf("model %s (%s, %s): %w", m.Name(), m.Format(), m.RowType(), err)
		}
		figs = append(figs, f)
	}

	r := &notebook.Report{
		Title:    "Registry tour: closed formats, open row types",
		Question: "Which file formats can an Iceberg table hold, which (format, row type) pairs does the lab's Go mirror of Iceberg 1.11's File Format API register, and what does writing and reading through each registered model cost?",
		Setup: []string{
			"The tour of `lab demo` (registry/tour): the file formats, the registered models, a three-row write and read through the builders, and the two errors the registry must give.",
			fmt.Sprintf("Per registered model: %d rows of the tour's schema (`id long required, name string optional`, every 7th name null), written and read back through the registry's builders, best of %d runs; reads come from the page cache. Seed %d.", cfg.rows, cfg.runs, opts.Seed),
			fmt.Sprintf("The block model (`vector.Block`, parquet-vector-blocks) only reads: its file holds the same number of rows of `id long, emb` with emb a VECTOR float32×%d column (flba), written through parquet-generic, and its rows are the vectors it reads back as blocks.", vectorDim),
			"The memory-bandwidth floor (bench.Floor) is measured in the same run at each file's size: no read of those bytes can beat it.",
		},
	}

	r.Section("File formats: a closed enum")
	perFormat := map[registry.FileFormat]int{}
	for _, m := range models {
		perFormat[m.Format()]++
	}
	ft := notebook.NewTable(notebook.Text("format"), notebook.Text("splittable"), notebook.Num("models registered", "%d"))
	for _, f := range registry.FileFormats {
		if err := ft.Row(f.String(), fmt.Sprint(f.Splittable()), perFormat[f]); err != nil {
			return nil, err
		}
	}
	r.Table(ft)

	r.Section("Registered models: open row types")
	var measured []modelFigures
	mt := notebook.NewTable(notebook.Text("format"), notebook.Text("row type"), notebook.Text("model"), notebook.Num("rows", "%d"),
		notebook.Num("bytes/row", "%.1f"), notebook.Num("write krows/s", "%.0f"), notebook.Num("read krows/s", "%.0f"), notebook.Num("read ÷ floor", "%.0f"))
	var skipped []string
	for _, f := range figs {
		if f.notMeasured != "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s): %s", f.model.Name(), f.model.RowType(), f.notMeasured))
			continue
		}
		measured = append(measured, f)
		if err := mt.Row(f.model.Format().String(), "`"+f.model.RowType().String()+"`", f.model.Name(), f.rows,
			float64(f.fileBytes)/float64(f.rows), float64(f.rows)/f.writeSec/1e3, float64(f.rows)/f.readSec/1e3, f.readSec/f.floor.Seconds); err != nil {
			return nil, err
		}
	}
	r.Table(mt)
	if len(skipped) > 0 {
		r.Text("Not measured (the notebook has no row generator for their row type): %s.", strings.Join(skipped, "; "))
	}
	if len(measured) > 0 {
		names := make([]string, len(measured))
		write := make([]float64, len(measured))
		read := make([]float64, len(measured))
		for i, f := range measured {
			names[i] = f.model.Name()
			write[i] = float64(f.rows) / f.writeSec / 1e3
			read[i] = float64(f.rows) / f.readSec / 1e3
		}
		p, err := notebook.Bars("Throughput per registered model", "thousand rows per second (log)", names,
			[]notebook.Series{{Name: "write", Values: write}, {Name: "read", Values: read}}, true)
		if err != nil {
			return nil, err
		}
		if err := r.Figure("throughput.svg", fmt.Sprintf("Write and read throughput of each registered model, %d rows, best of %d.", cfg.rows, cfg.runs), p); err != nil {
			return nil, err
		}
	}

	r.Section("The tour's transcript")
	r.Text("What `lab demo` prints, line for line comparable with the Java walkthrough:")
	r.Markdown("```text\n" + strings.TrimRight(transcript.String(), "\n") + "\n```")

	// What this shows, from the run's own values.
	closed := 0
	for _, f := range registry.FileFormats {
		if perFormat[f] == 0 {
			closed++
		}
	}
	rowTypes := map[reflect.Type]bool{}
	for _, m := range models {
		rowTypes[m.RowType()] = true
	}
	r.Finding("The format side is closed: %d formats parse (%s), and %d of them have no model in this program. Asking for `lance` fails before the registry is reached: `%v`.",
		len(registry.FileFormats), joinFormats(), closed, res.LanceError)
	r.Finding("The row side is open: %d models over %d row types are registered by the packages this program imports. ORC is a valid format without a model, and says so: `%v`.",
		len(models), len(rowTypes), res.ORCError)
	r.Finding("The tour's three-row Parquet file has %d records and %d bytes; it read back %d records.", res.DataFile.Count(), res.DataFile.FileSizeBytes(), len(res.ReadBack))
	if len(measured) > 0 {
		fastW, fastR := measured[0], measured[0]
		for _, f := range measured {
			if f.writeSec < fastW.writeSec {
				fastW = f
			}
			if f.readSec < fastR.readSec {
				fastR = f
			}
		}
		r.Finding("Fastest write: %s at %.0f krows/s; fastest read: %s at %.0f krows/s, %.0f× the memory-bandwidth floor of its file.",
			fastW.model.Name(), float64(fastW.rows)/fastW.writeSec/1e3, fastR.model.Name(), float64(fastR.rows)/fastR.readSec/1e3, fastR.readSec/fastR.floor.Seconds)
		r.Headline = fmt.Sprintf("%d formats (closed), %d registered models over %d row types; fastest read %s at %.0f krows/s.",
			len(registry.FileFormats), len(models), len(rowTypes), fastR.model.Name(), float64(fastR.rows)/fastR.readSec/1e3)
		r.Finding("Per model the spread is %s.", spread(measured))
	} else {
		r.Headline = fmt.Sprintf("%d formats (closed), %d registered models over %d row types.", len(registry.FileFormats), len(models), len(rowTypes))
	}
	return r, nil
}

func joinFormats() string {
	names := make([]string, len(registry.FileFormats))
	for i, f := range registry.FileFormats {
		names[i] = f.String()
	}
	return strings.Join(names, ", ")
}

// spread says how far apart the slowest and fastest reads and writes are.
func spread(figs []modelFigures) string {
	minW, maxW, minR, maxR := figs[0].writeSec, figs[0].writeSec, figs[0].readSec, figs[0].readSec
	for _, f := range figs {
		minW, maxW = min(minW, f.writeSec), max(maxW, f.writeSec)
		minR, maxR = min(minR, f.readSec), max(maxR, f.readSec)
	}
	return fmt.Sprintf("%.1f× between the slowest and fastest write and %.1f× between the slowest and fastest read", maxW/minW, maxR/minR)
}

// measure writes and reads cfg.rows rows through model m. The row type
// decides how rows are made; a row type the notebook does not know is
// reported, not guessed at.
func measure(m registry.Model, dir string, cfg config, seed uint64) (modelFigures, error) {
	f := modelFigures{model: m, rows: cfg.rows}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	path := filepath.Join(dir, m.Name()+"."+strings.ToLower(m.Format().String()))
	var write func() error
	var read func() (int, error)
	switch m.RowType() {
	case reflect.TypeFor[*data.Record]():
		recs := records(cfg.rows, seed)
		write = func() error { return writeData(m.Format(), path, recs) }
		read = func() (int, error) { return readCount[*data.Record](m.Format(), path, true) }
	case reflect.TypeFor[arrow.RecordBatch]():
		batch, err := arrowBatch(records(cfg.rows, seed))
		if err != nil {
			return f, err
		}
		defer batch.Release()
		write = func() error { return writeData(m.Format(), path, []arrow.RecordBatch{batch}) }
		read = func() (int, error) { return readCount[arrow.RecordBatch](m.Format(), path, true) }
	case reflect.TypeFor[data.PositionDelete]():
		dels := deletes(cfg.rows)
		write = func() error { return writeDeletes(m.Format(), path, dels) }
		read = func() (int, error) { return readCount[data.PositionDelete](m.Format(), path, false) }
	case reflect.TypeFor[vector.Block]():
		// The block model only reads: its file is written as records with
		// a VECTOR column, and its rows are the vectors read back as blocks.
		sc, recs, err := vectorRecords(cfg.rows, seed)
		if err != nil {
			return f, err
		}
		write = func() error { return writeVectors(path, sc, recs) }
		read = func() (int, error) { return countVectors(path) }
	default:
		f.notMeasured = "no row generator for this row type"
		return f, nil
	}
	var err error
	if f.writeSec, err = bench.BestOf(cfg.runs, write); err != nil {
		return f, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return f, err
	}
	f.fileBytes = st.Size()
	f.readSec, err = bench.BestOf(cfg.runs, func() error {
		n, err := read()
		f.readsBack = n
		return err
	})
	if err != nil {
		return f, err
	}
	if f.readsBack != cfg.rows {
		return f, fmt.Errorf("%s: read %d rows, wrote %d", path, f.readsBack, cfg.rows)
	}
	f.floor, err = bench.Floor(f.fileBytes, 5)
	return f, err
}

// records are n rows of the tour's schema; every 7th name is null.
func records(n int, seed uint64) []*data.Record {
	out := make([]*data.Record, n)
	for i := range out {
		rec := data.NewRecord(tour.Schema)
		rec.Set(0, int64(i))
		if i%7 != 6 {
			rec.Set(1, fmt.Sprintf("name-%d-%d", seed, i*7919%100_003))
		}
		out[i] = rec
	}
	return out
}

// deletes are n sorted position deletes over ten data files.
func deletes(n int) []data.PositionDelete {
	out := make([]data.PositionDelete, n)
	per := (n + 9) / 10
	for i := range out {
		out[i] = data.PositionDelete{FilePath: fmt.Sprintf("s3://bucket/table/data/%05d.parquet", i/per), Pos: int64(i % per * 3)}
	}
	return out
}

func arrowBatch(recs []*data.Record) (arrow.RecordBatch, error) {
	sc, err := table.SchemaToArrowSchema(tour.Schema, nil, true, false)
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	names := b.Field(1).(*array.StringBuilder)
	for _, rec := range recs {
		ids.Append(rec.Get(0).(int64))
		if s, ok := rec.Get(1).(string); ok {
			names.Append(s)
		} else {
			names.AppendNull()
		}
	}
	return b.NewRecordBatch(), nil
}

func writeData[D any](format registry.FileFormat, path string, rows []D) error {
	b, err := registry.DataWriteBuilder[D](format, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Schema(tour.Schema).Overwrite().Build()
	if err != nil {
		return err
	}
	for _, row := range rows {
		if err := w.Write(row); err != nil {
			return errors.Join(err, w.Abort())
		}
	}
	return w.Close()
}

// vectorDim is the dimension of the block model's vectors.
const vectorDim = 32

// vectorRecords are n rows of (id, emb float32×vectorDim) for the block
// model's file.
func vectorRecords(n int, seed uint64) (*iceberg.Schema, []*data.Record, error) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(4 * vectorDim), Required: true})
	r := rand.New(rand.NewPCG(seed, 32))
	v := make([]float32, vectorDim)
	out := make([]*data.Record, n)
	for i := range out {
		for j := range v {
			v[j] = r.Float32()
		}
		b, err := vector.Float32.EncodeAppend(nil, v)
		if err != nil {
			return nil, nil, err
		}
		out[i] = data.Of(sc, int64(i), b)
	}
	return sc, out, nil
}

// writeVectors writes recs through the record model with emb declared a
// VECTOR column (flba, the default layout).
func writeVectors(path string, sc *iceberg.Schema, recs []*data.Record) error {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Schema(sc).Set(vectorcol.PropColumns, fmt.Sprintf("emb:vector<float32,%d>", vectorDim)).Overwrite().Build()
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return errors.Join(err, w.Abort())
		}
	}
	return w.Close()
}

// countVectors reads path through the block model and counts the vectors.
func countVectors(path string) (int, error) {
	b, err := registry.NewReadBuilder[vector.Block](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return 0, err
	}
	rd, err := b.Build()
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	n := 0
	for {
		blk, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += len(blk.Vectors) / vectorDim
		blk.Release()
	}
}

func writeDeletes(format registry.FileFormat, path string, dels []data.PositionDelete) error {
	b, err := registry.PositionDeleteWriteBuilder(format, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Overwrite().Build()
	if err != nil {
		return err
	}
	for _, d := range dels {
		if err := w.Write(d); err != nil {
			return errors.Join(err, w.Abort())
		}
	}
	return w.Close()
}

// readCount reads every row through the registry and counts them; project,
// when set, is the read schema.
func readCount[D any](format registry.FileFormat, path string, project bool) (int, error) {
	b, err := registry.NewReadBuilder[D](format, registry.LocalInput(path))
	if err != nil {
		return 0, err
	}
	if project {
		b = b.Project(tour.Schema)
	}
	rd, err := b.ReuseContainers().Build()
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	n := 0
	for {
		row, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if batch, ok := any(row).(arrow.RecordBatch); ok {
			n += int(batch.NumRows())
			continue
		}
		n++
	}
}
