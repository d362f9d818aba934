// Package registrytest is the conformance suite every format model's tests
// run, as iceberg-go's catalog/catalogtest is for catalogs: given a model
// and a few sample rows, it checks what the registry's builders promise for
// any model. Rows written through the registry read back the same, whole,
// projected, with reused containers and split at any byte offsets; Close
// yields a DataFile whose counts, size and offsets describe the file; an
// existing file is not replaced without Overwrite; Abort leaves nothing; and
// every option the model cannot honour is refused, naming the model.
//
// A read-only model (one that reads files another model writes, such as a
// columnar scan of one column) runs the read checks on files its case's
// WriteSample writes, and instead of the writer's checks, one that every
// writer is refused, naming the model, without touching a file.
package registrytest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// Case describes a model and its sample data.
type Case[D any] struct {
	Model registry.FormatModel[D]
	// Content is what the model writes: data (the zero value) or position
	// deletes (for a FormatModel[data.PositionDelete]).
	Content iceberg.ManifestEntryContent
	// Schema is the Iceberg schema of the rows written.
	Schema *iceberg.Schema
	// Rows returns the sample rows, new on each call. Position deletes must
	// come sorted by file_path, then pos.
	Rows func() []D
	// Render turns a row, as written or as read, into its logical rows, one
	// canonical string each: a record is one, an arrow batch holds many.
	Render func(D) []string
	// Release, when set, frees a row a reader returned (arrow batches).
	Release func(D)
	// Properties are writer properties for every write; settings that make
	// several row groups or blocks give the split checks something to cut.
	Properties map[string]string
	// Projections are reads with a projection and the rows they must give.
	Projections []Projection
	// Honours lists the optional settings the model supports; the suite
	// expects every other one to be refused.
	Honours Honours
	// UnknownProperty, when set, is a writer property in the model's
	// namespace that it does not honour: Build must refuse it.
	UnknownProperty string
	// WriteSample, when set, makes the case a read-only model's: it writes
	// rows (nil for an empty file) to a new file at loc with another model,
	// as the files the model reads are written, with its own writer
	// properties (Properties are the model's writer's, and it has none).
	// The suite reads those files and expects the model to refuse every
	// writer.
	WriteSample func(loc string, rows []D) error
}

// Projection is a read of Schema's fields that must give Want (rendered).
type Projection struct {
	Name   string
	Schema *iceberg.Schema
	Want   []string
}

// Honours lists settings a model may support.
type Honours struct {
	// EngineProjection and EngineSchema: the model takes an engine schema.
	EngineProjection, EngineSchema bool
	// Encryption: file encryption keys and AAD prefixes.
	Encryption bool
}

// Run runs the suite on c.
func Run[D any](t *testing.T, c Case[D]) {
	t.Helper()
	if c.Model == nil || c.Schema == nil || c.Rows == nil || c.Render == nil {
		t.Fatal("registrytest: a Case needs Model, Schema, Rows and Render")
	}
	s := &suite[D]{c: c, reg: registry.New()}
	if err := s.reg.Register(c.Model); err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Rows() {
		s.want = append(s.want, c.Render(d)...)
	}
	if len(s.want) == 0 {
		t.Fatal("registrytest: the sample has no rows")
	}
	t.Run("RoundTrip", s.roundTrip)
	if s.readOnly() {
		// What the model's writer would write is not the model's: the
		// writer checks become one that there is no writer.
		t.Run("Unwritable", s.unwritable)
	} else {
		t.Run("DataFile", s.dataFile)
	}
	t.Run("Projection", s.projection)
	t.Run("Splits", s.splits)
	t.Run("EmptyFile", s.emptyFile)
	if !s.readOnly() {
		t.Run("Overwrite", s.overwrite)
		t.Run("Abort", s.abort)
	}
	t.Run("RefusedOptions", s.refusedOptions)
	if c.Content == iceberg.EntryContentPosDeletes && !s.readOnly() {
		t.Run("PositionDeleteRules", s.positionDeleteRules)
	}
}

type suite[D any] struct {
	c    Case[D]
	reg  *registry.Registry
	want []string
}

func (s *suite[D]) readOnly() bool { return s.c.WriteSample != nil }

// contentWriter is what both the data and the position-delete writers are.
type contentWriter[D any] interface {
	Write(D) error
	Close() error
	Abort() error
	DataFile() iceberg.DataFile
}

func (s *suite[D]) location(t *testing.T) string {
	return filepath.Join(t.TempDir(), "sample."+s.c.Model.Format().Ext())
}

// settings are the builder settings the suite varies; apply sets them on
// either builder type.
type settings struct {
	overwrite    bool
	props        map[string]string
	engineSchema any
	key, aad     []byte
	equalityIDs  []int
}

func apply[D, W any](b *registry.FileWriterBuilder[D, W], schema *iceberg.Schema, common map[string]string, ws settings) {
	b.Schema(schema).SetAll(common).SetAll(ws.props)
	if ws.overwrite {
		b.Overwrite()
	}
	if ws.engineSchema != nil {
		b.EngineSchema(ws.engineSchema)
	}
	if ws.key != nil {
		b.WithFileEncryptionKey(ws.key)
	}
	if ws.aad != nil {
		b.WithAADPrefix(ws.aad)
	}
	if ws.equalityIDs != nil {
		b.EqualityFieldIDs(ws.equalityIDs...)
	}
}

// writer builds the case's content writer for loc with ws.
func (s *suite[D]) writer(loc string, ws settings) (contentWriter[D], error) {
	out := registry.LocalOutput(loc)
	if s.c.Content == iceberg.EntryContentPosDeletes {
		b, err := registry.PositionDeleteWriteBuilderIn(s.reg, s.c.Model.Format(), out)
		if err != nil {
			return nil, err
		}
		apply(b, s.c.Schema, s.c.Properties, ws)
		w, err := b.Build()
		if err != nil {
			return nil, err
		}
		cw, ok := any(w).(contentWriter[D])
		if !ok {
			w.Abort()
			return nil, fmt.Errorf("registrytest: position deletes need a FormatModel[data.PositionDelete], not %T", s.c.Model)
		}
		return cw, nil
	}
	b, err := registry.DataWriteBuilderIn[D](s.reg, s.c.Model.Format(), out)
	if err != nil {
		return nil, err
	}
	apply(b, s.c.Schema, s.c.Properties, ws)
	return b.Build()
}

// write writes rows to a new file at loc and returns its DataFile (nil
// for a read-only model, whose files WriteSample writes).
func (s *suite[D]) write(t *testing.T, loc string, rows []D) iceberg.DataFile {
	t.Helper()
	if s.readOnly() {
		if err := s.c.WriteSample(loc, rows); err != nil {
			t.Fatalf("%s: write the sample: %v", s.c.Model.Name(), err)
		}
		return nil
	}
	w, err := s.writer(loc, settings{})
	if err != nil {
		t.Fatalf("%s: build the writer: %v", s.c.Model.Name(), err)
	}
	for i, d := range rows {
		if err := w.Write(d); err != nil {
			w.Abort()
			t.Fatalf("%s: write row %d: %v", s.c.Model.Name(), i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: close: %v", s.c.Model.Name(), err)
	}
	return w.DataFile()
}

// read reads loc to the end, rendering each row as it comes (so that reused
// containers are rendered before they are overwritten).
func (s *suite[D]) read(t *testing.T, loc string, configure func(*registry.ReadBuilder[D])) ([]string, registry.Reader[D]) {
	t.Helper()
	b, err := registry.ReadBuilderIn[D](s.reg, s.c.Model.Format(), registry.LocalInput(loc))
	if err != nil {
		t.Fatal(err)
	}
	if configure != nil {
		configure(b)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatalf("%s: build the reader: %v", s.c.Model.Name(), err)
	}
	var got []string
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.Close()
			t.Fatalf("%s: read row %d: %v", s.c.Model.Name(), len(got), err)
		}
		got = append(got, s.c.Render(d)...)
		if s.c.Release != nil {
			s.c.Release(d)
		}
	}
	// The end stays the end.
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("%s: Next after io.EOF = %v, want io.EOF again", s.c.Model.Name(), err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("%s: close the reader: %v", s.c.Model.Name(), err)
	}
	return got, r
}

func (s *suite[D]) sample(t *testing.T) string {
	t.Helper()
	loc := s.location(t)
	s.write(t, loc, s.c.Rows())
	return loc
}

func diff(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	n := min(len(got), len(want))
	for i := range n {
		if got[i] != want[i] {
			t.Errorf("%s: row %d is\n  %s\nwant\n  %s\n(%d rows, want %d)", what, i, got[i], want[i], len(got), len(want))
			return
		}
	}
	t.Errorf("%s: %d rows, want %d (the first %d agree)", what, len(got), len(want), n)
}

func (s *suite[D]) roundTrip(t *testing.T) {
	loc := s.sample(t)
	got, r := s.read(t, loc, nil)
	diff(t, "read whole", got, s.want)
	if sr, ok := r.(registry.SchemaReader); ok {
		if ids, want := fieldIDs(sr.Schema()), fieldIDs(s.c.Schema); !slices.Equal(ids, want) {
			t.Errorf("%s: the reader reports field ids %v, want the written schema's %v", s.c.Model.Name(), ids, want)
		}
	}
	got, _ = s.read(t, loc, func(b *registry.ReadBuilder[D]) { b.ReuseContainers() })
	diff(t, "read with ReuseContainers", got, s.want)
}

func fieldIDs(s *iceberg.Schema) []int {
	var ids []int
	for _, f := range s.Fields() {
		ids = append(ids, f.ID)
	}
	return ids
}

func (s *suite[D]) dataFile(t *testing.T) {
	loc := s.location(t)
	df := s.write(t, loc, s.c.Rows())
	name := s.c.Model.Name()
	st, err := os.Stat(loc)
	if err != nil {
		t.Fatal(err)
	}
	content := s.c.Content
	if df.ContentType() != content {
		t.Errorf("%s: DataFile content %v, want %v", name, df.ContentType(), content)
	}
	if df.FilePath() != loc {
		t.Errorf("%s: DataFile path %s, want %s", name, df.FilePath(), loc)
	}
	if got, want := string(df.FileFormat()), s.c.Model.Format().String(); got != want {
		t.Errorf("%s: DataFile format %s, want %s", name, got, want)
	}
	if df.Count() != int64(len(s.want)) {
		t.Errorf("%s: DataFile record count %d, want %d", name, df.Count(), len(s.want))
	}
	if df.FileSizeBytes() != st.Size() {
		t.Errorf("%s: DataFile size %d bytes, the file has %d", name, df.FileSizeBytes(), st.Size())
	}
	offs := df.SplitOffsets()
	for i, o := range offs {
		if o < 0 || o >= st.Size() || i > 0 && o <= offs[i-1] {
			t.Errorf("%s: split offsets %v are not ascending offsets inside the %d-byte file", name, offs, st.Size())
			break
		}
	}
	for id, n := range df.NullValueCounts() {
		if vc, ok := df.ValueCounts()[id]; ok && n > vc {
			t.Errorf("%s: field %d has %d nulls in %d values", name, id, n, vc)
		}
	}
	for id, n := range df.ValueCounts() {
		if f, ok := s.c.Schema.FindFieldByID(id); ok && s.topLevel(id) && isPrimitive(f.Type) && n != int64(len(s.want)) {
			t.Errorf("%s: top-level field %s (id %d) has a value count of %d, want one per row (%d)", name, f.Name, id, n, len(s.want))
		}
	}
	lower, upper := df.LowerBoundValues(), df.UpperBoundValues()
	for id := range lower {
		if _, ok := upper[id]; !ok {
			t.Errorf("%s: field %d has a lower bound and no upper bound", name, id)
		}
	}
	if content == iceberg.EntryContentPosDeletes {
		// Iceberg's PositionDeleteWriter drops these counts.
		for _, id := range []int{data.DeleteFilePathID, data.DeleteFilePosID} {
			if _, ok := df.ValueCounts()[id]; ok {
				t.Errorf("%s: a position-delete DataFile has a value count for field %d", name, id)
			}
		}
	}
}

func (s *suite[D]) topLevel(id int) bool { return slices.Contains(fieldIDs(s.c.Schema), id) }

func isPrimitive(t iceberg.Type) bool {
	_, ok := t.(iceberg.PrimitiveType)
	return ok
}

func (s *suite[D]) projection(t *testing.T) {
	if len(s.c.Projections) == 0 {
		t.Skip("the case has no projections")
	}
	loc := s.sample(t)
	for _, p := range s.c.Projections {
		t.Run(p.Name, func(t *testing.T) {
			got, r := s.read(t, loc, func(b *registry.ReadBuilder[D]) { b.Project(p.Schema) })
			diff(t, "projection "+p.Name, got, p.Want)
			if sr, ok := r.(registry.SchemaReader); ok {
				if ids, want := fieldIDs(sr.Schema()), fieldIDs(p.Schema); !slices.Equal(ids, want) {
					t.Errorf("%s: the reader reports field ids %v, want the projection's %v", s.c.Model.Name(), ids, want)
				}
			}
		})
	}
}

// splits cuts the file into equal byte ranges: whatever the cut points,
// the splits give every row once, in order, as Iceberg's planning relies on.
func (s *suite[D]) splits(t *testing.T) {
	loc := s.sample(t)
	st, err := os.Stat(loc)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	whole, _ := s.read(t, loc, func(b *registry.ReadBuilder[D]) { b.Split(0, size) })
	diff(t, "the split of the whole file", whole, s.want)
	if !s.c.Model.Format().Splittable() {
		return
	}
	for _, n := range []int64{2, 3, 7} {
		var got []string
		for i := range n {
			start, end := size*i/n, size*(i+1)/n
			part, _ := s.read(t, loc, func(b *registry.ReadBuilder[D]) { b.Split(start, end-start) })
			got = append(got, part...)
		}
		diff(t, fmt.Sprintf("%d splits", n), got, s.want)
	}
	past, _ := s.read(t, loc, func(b *registry.ReadBuilder[D]) { b.Split(size, 100) })
	if len(past) != 0 {
		t.Errorf("%s: a split past the end read %d rows", s.c.Model.Name(), len(past))
	}
}

func (s *suite[D]) emptyFile(t *testing.T) {
	loc := s.location(t)
	df := s.write(t, loc, nil)
	if df != nil && df.Count() != 0 {
		t.Errorf("%s: an empty file's DataFile counts %d rows", s.c.Model.Name(), df.Count())
	}
	if got, _ := s.read(t, loc, nil); len(got) != 0 {
		t.Errorf("%s: an empty file read %d rows", s.c.Model.Name(), len(got))
	}
}

func (s *suite[D]) overwrite(t *testing.T) {
	loc := s.sample(t)
	before, err := os.ReadFile(loc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.writer(loc, settings{})
	if !errors.Is(err, registry.ErrFileExists) || !strings.Contains(err.Error(), loc) {
		t.Errorf("%s: a writer over an existing file: %v, want ErrFileExists naming %s", s.c.Model.Name(), err, loc)
	}
	if after, _ := os.ReadFile(loc); !slices.Equal(after, before) {
		t.Errorf("%s: the refused writer changed the existing file", s.c.Model.Name())
	}
	w, err := s.writer(loc, settings{overwrite: true})
	if err != nil {
		t.Fatalf("%s: Overwrite: %v", s.c.Model.Name(), err)
	}
	rows := s.c.Rows()
	if err := w.Write(rows[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := s.read(t, loc, nil)
	diff(t, "the overwritten file", got, s.c.Render(rows[0]))
	assertOnlyFile(t, loc)
}

func (s *suite[D]) abort(t *testing.T) {
	loc := s.location(t)
	w, err := s.writer(loc, settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.c.Rows() {
		if err := w.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("%s: Abort: %v", s.c.Model.Name(), err)
	}
	if w.DataFile() != nil {
		t.Errorf("%s: an aborted writer has a DataFile", s.c.Model.Name())
	}
	if ents, _ := os.ReadDir(filepath.Dir(loc)); len(ents) != 0 {
		t.Errorf("%s: Abort left %v", s.c.Model.Name(), names(ents))
	}
}

// unwritable checks a read-only model: a writer, for a new file or over an
// existing one with Overwrite, is refused naming the model, and neither
// file is created or changed.
func (s *suite[D]) unwritable(t *testing.T) {
	name := s.c.Model.Name()
	refused := func(what, loc string, ws settings) {
		t.Helper()
		w, err := s.writer(loc, ws)
		if err == nil {
			w.Abort()
		}
		if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %s: %v, want ErrUnsupportedOption naming the model", name, what, err)
		}
	}
	fresh := s.location(t)
	refused("a writer", fresh, settings{})
	if ents, _ := os.ReadDir(filepath.Dir(fresh)); len(ents) != 0 {
		t.Errorf("%s: the refused writer left %v", name, names(ents))
	}
	loc := s.sample(t)
	before, err := os.ReadFile(loc)
	if err != nil {
		t.Fatal(err)
	}
	refused("a writer with Overwrite over an existing file", loc, settings{overwrite: true})
	if after, _ := os.ReadFile(loc); !slices.Equal(after, before) {
		t.Errorf("%s: the refused writer changed the existing file", name)
	}
	assertOnlyFile(t, loc)
}

func assertOnlyFile(t *testing.T, loc string) {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Dir(loc))
	if len(ents) != 1 || ents[0].Name() != filepath.Base(loc) {
		t.Errorf("the directory holds %v, want only %s", names(ents), filepath.Base(loc))
	}
}

func names(ents []os.DirEntry) []string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func (s *suite[D]) refusedOptions(t *testing.T) {
	name := s.c.Model.Name()
	loc := s.sample(t)
	refused := func(t *testing.T, what string, err error) {
		t.Helper()
		if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %s: %v, want ErrUnsupportedOption naming the model", name, what, err)
		}
	}
	// An engine schema of a type no model takes.
	type notASchema struct{}
	read := func(configure func(*registry.ReadBuilder[D])) error {
		b, err := registry.ReadBuilderIn[D](s.reg, s.c.Model.Format(), registry.LocalInput(loc))
		if err != nil {
			t.Fatal(err)
		}
		configure(b)
		r, err := b.Build()
		if err == nil {
			r.Close()
		}
		return err
	}
	if !s.c.Honours.EngineProjection {
		refused(t, "read with an engine projection", read(func(b *registry.ReadBuilder[D]) {
			b.Project(s.c.Schema).EngineProjection(notASchema{})
		}))
	}
	if !s.c.Honours.Encryption {
		refused(t, "read with a file encryption key", read(func(b *registry.ReadBuilder[D]) { b.WithFileEncryptionKey(make([]byte, 16)) }))
		refused(t, "read with an AAD prefix", read(func(b *registry.ReadBuilder[D]) { b.WithAADPrefix([]byte("aad")) }))
	}
	if s.readOnly() {
		return // every writer is refused (Unwritable)
	}
	write := func(ws settings) error {
		w, err := s.writer(s.location(t), ws)
		if err == nil {
			w.Abort()
		}
		return err
	}
	if !s.c.Honours.EngineSchema {
		refused(t, "write with an engine schema", write(settings{engineSchema: notASchema{}}))
	}
	if !s.c.Honours.Encryption {
		refused(t, "write with a file encryption key", write(settings{key: make([]byte, 16)}))
		refused(t, "write with an AAD prefix", write(settings{aad: []byte("aad")}))
	}
	// The builders' own refusal, the same for every model.
	if err := write(settings{equalityIDs: []int{fieldIDs(s.c.Schema)[0]}}); !errors.Is(err, registry.ErrEqualityFieldIDsNotSupported) {
		t.Errorf("%s: equality field ids on a %v writer: %v, want ErrEqualityFieldIDsNotSupported", name, s.c.Content, err)
	}
	if key := s.c.UnknownProperty; key != "" {
		err := write(settings{props: map[string]string{key: "1"}})
		var up *registry.UnknownPropertyError
		if !errors.As(err, &up) || up.Key != key || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: unknown writer property %s: %v, want an UnknownPropertyError naming it and the model", name, key, err)
		}
	}
}

// positionDeleteRules are the spec's rules for position deletes, which
// every position-delete model enforces (registry.PositionDeleteModel holds
// them for the lab's): pos is never negative, deletes come sorted by
// file_path then pos, and the schema is a position-delete schema.
func (s *suite[D]) positionDeleteRules(t *testing.T) {
	name := s.c.Model.Name()
	asRow := func(d data.PositionDelete) D {
		row, ok := any(d).(D)
		if !ok {
			t.Fatalf("registrytest: position deletes need a FormatModel[data.PositionDelete], not %T", s.c.Model)
		}
		return row
	}
	for _, tt := range []struct {
		name    string
		deletes []data.PositionDelete
		want    string
	}{
		{"negative pos", []data.PositionDelete{{FilePath: "a", Pos: -1}}, "-1 is negative"},
		{"pos out of order", []data.PositionDelete{{FilePath: "a", Pos: 5}, {FilePath: "a", Pos: 4}}, "out of order"},
		{"file_path out of order", []data.PositionDelete{{FilePath: "b", Pos: 0}, {FilePath: "a", Pos: 9}}, "out of order"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loc := s.location(t)
			w, err := s.writer(loc, settings{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			for i, d := range tt.deletes {
				err = w.Write(asRow(d))
				last := i == len(tt.deletes)-1
				if !last && err != nil {
					t.Fatalf("%s: delete %s: %v", name, d, err)
				}
				if last && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), loc)) {
					t.Errorf("%s: delete %s after %v: %v, want an error naming %s and saying %q", name, d, tt.deletes[:i], err, loc, tt.want)
				}
			}
		})
	}
	t.Run("data schema", func(t *testing.T) {
		b, err := registry.PositionDeleteWriteBuilderIn(s.reg, s.c.Model.Format(), registry.LocalOutput(s.location(t)))
		if err != nil {
			t.Fatal(err)
		}
		other := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
		w, err := b.Schema(other).Build()
		if err == nil {
			w.Abort()
		}
		if err == nil || !strings.Contains(err.Error(), "not a position-delete schema") {
			t.Errorf("%s: a position-delete writer with schema %s: %v, want it refused", name, other, err)
		}
	})
}
