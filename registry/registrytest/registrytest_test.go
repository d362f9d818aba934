package registrytest_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/registry/registrytest"
)

// linesModel is a small, correct format model (one text line per row, in
// the AVRO slot so that it is splittable) that a test can break in one
// way, to show the suite notices each.
type linesModel struct{ broken string }

const linesName = "lines"

var linesSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
)

func (linesModel) Name() string                { return linesName }
func (linesModel) Format() registry.FileFormat { return registry.AVRO }
func (linesModel) RowType() reflect.Type       { return reflect.TypeFor[*data.Record]() }

func (m linesModel) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[*data.Record], error) {
	if m.broken != "key" {
		if err := registry.RefuseWriteOptions(linesName, opts); err != nil {
			return nil, err
		}
	}
	props := registry.PropertySet{Model: linesName, Namespaces: []string{"write.lines."}, Known: []string{"write.lines.ok"}}
	if err := props.Check(opts.Properties); err != nil {
		return nil, err
	}
	p, err := out.Create(opts.Overwrite)
	if err != nil {
		return nil, err
	}
	return &linesAppender{m: m, p: p}, nil
}

type linesAppender struct {
	m           linesModel
	p           *registry.PendingFile
	rows, nulls int64
}

func (a *linesAppender) Add(r *data.Record) error {
	name := `\N`
	if s, ok := r.Get(1).(string); ok {
		name = s
	} else {
		a.nulls++
	}
	a.rows++
	_, err := fmt.Fprintf(a.p, "%d\t%s\n", r.Get(0), name)
	return err
}

func (a *linesAppender) Close() error { return a.p.Commit() }
func (a *linesAppender) Abort() error {
	if a.m.broken == "abort" {
		return a.p.Commit() // publishes what it was told to discard
	}
	return a.p.Abort()
}
func (a *linesAppender) Metrics() registry.Metrics {
	n := a.rows
	if a.m.broken == "count" {
		n++
	}
	return registry.Metrics{RecordCount: n, ValueCounts: map[int]int64{1: a.rows, 2: a.rows}, NullValueCounts: map[int]int64{2: a.nulls}}
}
func (a *linesAppender) Length() int64         { return a.p.Written() }
func (a *linesAppender) SplitOffsets() []int64 { return nil }

func (m linesModel) NewReader(in registry.InputFile, opts registry.ReadOptions) (registry.Reader[*data.Record], error) {
	if err := registry.RefuseReadOptions(linesName, opts); err != nil {
		return nil, err
	}
	f, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.NewSectionReader(f, 0, size))
	if err != nil {
		return nil, err
	}
	proj := opts.Projection
	if proj == nil || m.broken == "projection" {
		proj = linesSchema
	}
	r := &linesReader{m: m, schema: proj}
	var off int64
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		start := off
		off += int64(len(line)) + 1
		// A row belongs to the split its line starts in.
		if s := opts.Split; s != nil && m.broken != "split" && (start < s.Start || start >= s.Start+s.Length) {
			continue
		}
		id, name, _ := strings.Cut(line, "\t")
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %q: %w", in.Location, line, err)
		}
		values := map[int]any{1: n}
		if name != `\N` {
			values[2] = name
		}
		rec := data.NewRecord(proj)
		for i, fld := range proj.Fields() {
			rec.Set(i, values[fld.ID])
		}
		r.rows = append(r.rows, rec)
	}
	return r, nil
}

type linesReader struct {
	m      linesModel
	schema *iceberg.Schema
	rows   []*data.Record
	done   bool
}

func (r *linesReader) Next() (*data.Record, error) {
	if len(r.rows) == 0 {
		if r.done && r.m.broken == "eof" {
			return nil, errors.New("read past the end")
		}
		r.done = true
		return nil, io.EOF
	}
	row := r.rows[0]
	r.rows = r.rows[1:]
	return row, nil
}

func (r *linesReader) Close() error            { return nil }
func (r *linesReader) Schema() *iceberg.Schema { return r.schema }

func linesCase(broken string) registrytest.Case[*data.Record] {
	rows := func() []*data.Record {
		var out []*data.Record
		for i := range 50 {
			var name any
			if i%4 != 0 {
				name = fmt.Sprintf("row %d", i)
			}
			out = append(out, data.Of(linesSchema, int64(i), name))
		}
		return out
	}
	names := iceberg.NewSchema(0, linesSchema.Field(1))
	var want []string
	for _, r := range rows() {
		want = append(want, data.Of(names, r.Get(1)).String())
	}
	return registrytest.Case[*data.Record]{
		Model:           linesModel{broken: broken},
		Schema:          linesSchema,
		Rows:            rows,
		Render:          func(r *data.Record) []string { return []string{r.String()} },
		Projections:     []registrytest.Projection{{Name: "name", Schema: names, Want: want}},
		UnknownProperty: "write.lines.typo",
	}
}

const breakEnv = "LAB_REGISTRYTEST_BREAK"

// TestSuiteOnLines runs the suite on the lines model: correct, it passes;
// broken as $LAB_REGISTRYTEST_BREAK says, TestSuiteCatchesBrokenModels
// expects it to fail.
func TestSuiteOnLines(t *testing.T) {
	registrytest.Run(t, linesCase(os.Getenv(breakEnv)))
}

func TestSuiteCatchesBrokenModels(t *testing.T) {
	if os.Getenv(breakEnv) != "" {
		t.Skip("inside a broken run")
	}
	for _, tt := range []struct{ broken, want string }{
		{"split", "2 splits: 100 rows, want 50"},
		{"count", "lines: DataFile record count 51, want 50"},
		{"key", "write with a file encryption key: <nil>, want ErrUnsupportedOption naming the model"},
		{"projection", "projection name: row 0 is"},
		{"eof", "lines: Next after io.EOF = read past the end, want io.EOF again"},
		{"abort", "lines: Abort left [sample.avro]"},
	} {
		t.Run(tt.broken, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteOnLines$", "-test.count=1")
			cmd.Env = append(os.Environ(), breakEnv+"="+tt.broken)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed a model broken by %q (%v):\n%s", tt.broken, err, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("the suite failed the model broken by %q without saying %q:\n%s", tt.broken, tt.want, out)
			}
		})
	}
}

// readLines is the lines model made read-only, as a scan of files another
// model writes is: it reads what linesModel writes and refuses to write,
// unless broken "writes".
type readLines struct{ lines linesModel }

const readLinesName = "read-lines"

func (readLines) Name() string                { return readLinesName }
func (readLines) Format() registry.FileFormat { return registry.AVRO }
func (readLines) RowType() reflect.Type       { return reflect.TypeFor[*data.Record]() }

func (m readLines) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[*data.Record], error) {
	if m.lines.broken == "writes" {
		return m.lines.NewAppender(out, opts)
	}
	return nil, registry.UnsupportedOption(readLinesName, "writing (write lines with "+linesName+")")
}

func (m readLines) NewReader(in registry.InputFile, opts registry.ReadOptions) (registry.Reader[*data.Record], error) {
	if err := registry.RefuseReadOptions(readLinesName, opts); err != nil {
		return nil, err
	}
	return m.lines.NewReader(in, opts)
}

func readLinesCase(broken string) registrytest.Case[*data.Record] {
	c := linesCase(broken)
	c.Model = readLines{lines: linesModel{broken: broken}}
	c.UnknownProperty = ""
	// The sample is written by the (correct) lines model, through a
	// registry of its own.
	writers := registry.New()
	if err := writers.Register(linesModel{}); err != nil {
		panic(err)
	}
	c.WriteSample = func(loc string, rows []*data.Record) error {
		b, err := registry.DataWriteBuilderIn[*data.Record](writers, registry.AVRO, registry.LocalOutput(loc))
		if err != nil {
			return err
		}
		w, err := b.Schema(linesSchema).Build()
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := w.Write(r); err != nil {
				w.Abort()
				return err
			}
		}
		return w.Close()
	}
	return c
}

func TestSuiteOnReadOnlyLines(t *testing.T) {
	registrytest.Run(t, readLinesCase(os.Getenv(breakEnv)))
}

// A read-only model runs the read checks, and one that writes after all
// is caught.
func TestSuiteCatchesBrokenReadOnlyModels(t *testing.T) {
	if os.Getenv(breakEnv) != "" {
		t.Skip("inside a broken run")
	}
	for _, tt := range []struct{ broken, want string }{
		{"writes", "read-lines: a writer: <nil>, want ErrUnsupportedOption naming the model"},
		{"split", "2 splits: 100 rows, want 50"},
		{"eof", "read-lines: Next after io.EOF = read past the end, want io.EOF again"},
	} {
		t.Run(tt.broken, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteOnReadOnlyLines$", "-test.count=1")
			cmd.Env = append(os.Environ(), breakEnv+"="+tt.broken)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed a read-only model broken by %q (%v):\n%s", tt.broken, err, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("the suite failed the read-only model broken by %q without saying %q:\n%s", tt.broken, tt.want, out)
			}
		})
	}
}

// deleteLines is a small position-delete model written without the
// registry's adapter, holding the spec's rules itself unless broken.
type deleteLines struct{ broken string }

func (deleteLines) Name() string                { return "delete-lines" }
func (deleteLines) Format() registry.FileFormat { return registry.AVRO }
func (deleteLines) RowType() reflect.Type       { return reflect.TypeFor[data.PositionDelete]() }

func (m deleteLines) NewAppender(out registry.OutputFile, opts registry.WriteOptions) (registry.FileAppender[data.PositionDelete], error) {
	if err := registry.RefuseWriteOptions(m.Name(), opts); err != nil {
		return nil, err
	}
	if err := registry.CheckPositionDeleteSchema(opts.Schema, true); err != nil {
		return nil, fmt.Errorf("write %s: %w", out.Location, err)
	}
	props := registry.PropertySet{Model: m.Name(), Namespaces: []string{"write.lines."}}
	if err := props.Check(opts.Properties); err != nil {
		return nil, err
	}
	p, err := out.Create(opts.Overwrite)
	if err != nil {
		return nil, err
	}
	return &deleteLinesAppender{m: m, p: p}, nil
}

type deleteLinesAppender struct {
	m    deleteLines
	p    *registry.PendingFile
	last *data.PositionDelete
	rows int64
}

func (a *deleteLinesAppender) Add(d data.PositionDelete) error {
	if d.Pos < 0 && a.m.broken != "negative" {
		return fmt.Errorf("write %s: pos %d is negative", a.p.Location(), d.Pos)
	}
	if a.last != nil && d.Less(*a.last) && a.m.broken != "order" {
		return fmt.Errorf("write %s: %s is out of order after %s", a.p.Location(), d, *a.last)
	}
	a.last = &d
	a.rows++
	_, err := fmt.Fprintf(a.p, "%d\t%s\n", d.Pos, d.FilePath)
	return err
}

func (a *deleteLinesAppender) Close() error { return a.p.Commit() }
func (a *deleteLinesAppender) Abort() error { return a.p.Abort() }
func (a *deleteLinesAppender) Metrics() registry.Metrics {
	return registry.Metrics{RecordCount: a.rows}
}
func (a *deleteLinesAppender) Length() int64         { return a.p.Written() }
func (a *deleteLinesAppender) SplitOffsets() []int64 { return nil }

func (m deleteLines) NewReader(in registry.InputFile, opts registry.ReadOptions) (registry.Reader[data.PositionDelete], error) {
	if err := registry.RefuseReadOptions(m.Name(), opts); err != nil {
		return nil, err
	}
	f, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.NewSectionReader(f, 0, size))
	if err != nil {
		return nil, err
	}
	r := &deleteLinesReader{}
	var off int64
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		start := off
		off += int64(len(line))
		if line == "" || opts.Split != nil && (start < opts.Split.Start || start >= opts.Split.Start+opts.Split.Length) {
			continue
		}
		pos, path, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		n, err := strconv.ParseInt(pos, 10, 64)
		if err != nil {
			return nil, err
		}
		r.rows = append(r.rows, data.PositionDelete{FilePath: path, Pos: n})
	}
	return r, nil
}

type deleteLinesReader struct{ rows []data.PositionDelete }

func (r *deleteLinesReader) Next() (data.PositionDelete, error) {
	if len(r.rows) == 0 {
		return data.PositionDelete{}, io.EOF
	}
	d := r.rows[0]
	r.rows = r.rows[1:]
	return d, nil
}
func (r *deleteLinesReader) Close() error { return nil }

func deleteLinesCase(broken string) registrytest.Case[data.PositionDelete] {
	return registrytest.Case[data.PositionDelete]{
		Model:   deleteLines{broken: broken},
		Content: iceberg.EntryContentPosDeletes,
		Schema:  data.PositionDeleteSchema(),
		Rows: func() []data.PositionDelete {
			var out []data.PositionDelete
			for i := range 40 {
				out = append(out, data.PositionDelete{FilePath: fmt.Sprintf("f%d", i/10), Pos: int64(i % 10)})
			}
			return out
		},
		Render: func(d data.PositionDelete) []string { return []string{d.String()} },
	}
}

func TestSuiteOnDeleteLines(t *testing.T) {
	registrytest.Run(t, deleteLinesCase(os.Getenv(breakEnv)))
}

func TestSuiteCatchesBrokenPositionDeleteModels(t *testing.T) {
	if os.Getenv(breakEnv) != "" {
		t.Skip("inside a broken run")
	}
	for _, tt := range []struct{ broken, want string }{
		{"negative", `delete-lines: delete {file_path: "a", pos: -1} after []: <nil>, want an error`},
		{"order", `delete-lines: delete {file_path: "a", pos: 4} after [{file_path: "a", pos: 5}]: <nil>, want an error`},
	} {
		t.Run(tt.broken, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteOnDeleteLines$", "-test.count=1")
			cmd.Env = append(os.Environ(), breakEnv+"="+tt.broken)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed a position-delete model broken by %q (%v):\n%s", tt.broken, err, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("the suite failed the model broken by %q without saying %q:\n%s", tt.broken, tt.want, out)
			}
		})
	}
}
