package arrow

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/internal/sample"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
)

var (
	cryptoKey = []byte("0123456789abcdef0123456789abcdef") // AES-256
	cryptoAAD = []byte("s3://bucket/table/data/f.parquet")
)

// arrowWriteEncrypted writes recs of sc with the arrow model, encrypted
// with key and aad.
func arrowWriteEncrypted(t *testing.T, path string, sc *iceberg.Schema, key, aad []byte, recs ...*data.Record) iceberg.DataFile {
	t.Helper()
	batch := arrowBatchOf(t, sc, recs...)
	defer batch.Release()
	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).WithFileEncryptionKey(key).WithAADPrefix(aad).Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(batch); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.DataFile()
}

func arrowOpenReader(path string, configure func(*registry.ReadBuilder[arrow.RecordBatch])) (registry.Reader[arrow.RecordBatch], error) {
	b, err := registry.NewReadBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return nil, err
	}
	if configure != nil {
		configure(b)
	}
	return b.Build()
}

// Parquet modular encryption as Iceberg's Parquet writer sets it up: footer
// and columns encrypted with the file key, the AAD prefix not stored.
func TestArrowEncryptedRoundTrip(t *testing.T) {
	arrowCheckedMem(t)
	sc := sample.Schema()
	recs := sample.Records(sc, 0, 30)
	path := arrowTempPath(t, "enc.parquet")
	df := arrowWriteEncrypted(t, path, sc, cryptoKey, cryptoAAD, recs...)
	if df.Count() != 30 || df.ValueCounts()[1] != 30 {
		t.Errorf("data file: count %d, value count of id %d", df.Count(), df.ValueCounts()[1])
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Encrypted footer mode, Iceberg's (and parquet-mr's) default.
	if head, tail := string(raw[:4]), string(raw[len(raw)-4:]); head != "PARE" || tail != "PARE" {
		t.Fatalf("magic %q...%q, want PARE...PARE", head, tail)
	}
	for _, plain := range []string{"iceberg.schema", "row-b", `"attrs"`, string(cryptoAAD)} {
		if bytes.Contains(raw, []byte(plain)) {
			t.Errorf("file holds %q in plaintext", plain)
		}
	}
	if df.FileSizeBytes() != int64(len(raw)) {
		t.Errorf("file size %d, DataFile says %d", len(raw), df.FileSizeBytes())
	}

	// With the key and AAD prefix: every row back.
	rd, err := arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) {
		b.WithFileEncryptionKey(cryptoKey).WithAADPrefix(cryptoAAD)
	})
	if err != nil {
		t.Fatal(err)
	}
	arrowEqualRecords(t, arrowReadAll(t, rd, sc), recs)

	// With a projection too (the planned path, not pqarrow's own batches).
	proj := iceberg.NewSchema(0, sc.Field(1), sc.Field(0))
	rd, err = arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) {
		b.Project(proj).WithFileEncryptionKey(cryptoKey).WithAADPrefix(cryptoAAD)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := arrowReadAll(t, rd, proj)
	if len(got) != 30 || got[3].Get(1) != int64(3) || got[3].Get(0) != recs[3].Get(1) {
		t.Errorf("projected rows: %d, row 3 %s", len(got), got[3])
	}

	// The failures a reader can meet, each named.
	for _, tt := range []struct {
		name      string
		configure func(*registry.ReadBuilder[arrow.RecordBatch])
		want      string
		is        error
	}{
		{"no key", nil, "read it with the file's key, ReadBuilder.WithFileEncryptionKey", footer.ErrEncrypted},
		{"no AAD prefix", func(b *registry.ReadBuilder[arrow.RecordBatch]) { b.WithFileEncryptionKey(cryptoKey) },
			"AAD Prefix used for file encryption but not stored in file and not supplied", nil},
		{"wrong AAD prefix", func(b *registry.ReadBuilder[arrow.RecordBatch]) {
			b.WithFileEncryptionKey(cryptoKey).WithAADPrefix([]byte("elsewhere"))
		}, "decrypt with the given key", nil},
		{"wrong key", func(b *registry.ReadBuilder[arrow.RecordBatch]) {
			b.WithFileEncryptionKey(bytes.Repeat([]byte{7}, 32)).WithAADPrefix(cryptoAAD)
		}, "decrypt with the given key", nil},
		{"AAD prefix alone", func(b *registry.ReadBuilder[arrow.RecordBatch]) { b.WithAADPrefix(cryptoAAD) },
			"AAD prefix set with null encryption key", nil},
		{"short key", func(b *registry.ReadBuilder[arrow.RecordBatch]) { b.WithFileEncryptionKey([]byte("short")) },
			"file encryption key is 5 bytes", nil},
	} {
		rd, err := arrowOpenReader(path, tt.configure)
		if err == nil {
			rd.Close()
			t.Errorf("%s: opened", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) || (tt.is != nil && !errors.Is(err, tt.is)) {
			t.Errorf("%s: %v, want %q naming the file", tt.name, err, tt.want)
		}
	}

	// The lab's own footer codec refuses the encrypted footer.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := footer.ReadFooter(f, int64(len(raw))); !errors.Is(err, footer.ErrEncrypted) {
		t.Errorf("footer.ReadFooter: %v, want ErrEncrypted", err)
	}

	// A key given for a plaintext file is an error, as in parquet-mr.
	plainPath := arrowTempPath(t, "plain.parquet")
	batch := arrowBatchOf(t, sc, recs[:2]...)
	arrowWriteFile(t, plainPath, sc, nil, batch)
	batch.Release()
	if rd, err := arrowOpenReader(plainPath, func(b *registry.ReadBuilder[arrow.RecordBatch]) {
		b.WithFileEncryptionKey(cryptoKey)
	}); err == nil {
		rd.Close()
		t.Error("key accepted for a plaintext file")
	} else if !strings.Contains(err.Error(), "plaintext file") {
		t.Errorf("key for a plaintext file: %v", err)
	}
}

// Without an AAD prefix the file still encrypts and reads back with the key.
func TestArrowEncryptedNoAADPrefix(t *testing.T) {
	sc := sample.Schema()
	recs := sample.Records(sc, 0, 5)
	path := arrowTempPath(t, "enc.parquet")
	arrowWriteEncrypted(t, path, sc, cryptoKey[:16], nil, recs...)
	rd, err := arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) { b.WithFileEncryptionKey(cryptoKey[:16]) })
	if err != nil {
		t.Fatal(err)
	}
	arrowEqualRecords(t, arrowReadAll(t, rd, sc), recs)
}

func TestArrowEncryptionWriteErrors(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(8)},
	)
	for _, tt := range []struct {
		name     string
		key, aad []byte
		props    map[string]string
		want     string
	}{
		{"AAD prefix alone", nil, cryptoAAD, nil, "AAD prefix set with null encryption key"},
		{"bad key length", []byte("0123456789"), nil, nil, "file encryption key is 10 bytes"},
		{"VECTOR annotations", cryptoKey, nil, map[string]string{vectorcol.PropColumns: "emb:int8:8"}, "cannot write VECTOR annotations"},
	} {
		path := filepath.Join(t.TempDir(), "x.parquet")
		b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		b.Schema(sc).SetAll(tt.props)
		if tt.key != nil {
			b.WithFileEncryptionKey(tt.key)
		}
		if tt.aad != nil {
			b.WithAADPrefix(tt.aad)
		}
		w, err := b.Build()
		if err == nil {
			_ = w.Abort()
			t.Errorf("%s: built", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: file left behind (%v)", tt.name, err)
		}
	}
}

// engineTestSchema: an Iceberg long, string and int.
func engineTestSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "score", Type: iceberg.PrimitiveTypes.Int32},
	)
}

// The engine's schema: int16 for the long, large_string for the string,
// int8 for the int.
func engineTestArrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int16},
		{Name: "name", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	}, nil)
}

func engineTestBatch(t *testing.T, ids []int16, names []string, scores []int8) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(arrowMem, engineTestArrowSchema())
	defer b.Release()
	b.Field(0).(*array.Int16Builder).AppendValues(ids, nil)
	for _, n := range names {
		if n == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.LargeStringBuilder).Append(n)
		}
	}
	b.Field(2).(*array.Int8Builder).AppendValues(scores, nil)
	return b.NewRecordBatch()
}

// engineSchema: batches in the engine's representation are written as the
// Iceberg types; engineProjection: read back in the engine's types.
func TestArrowEngineSchemaAndProjection(t *testing.T) {
	arrowCheckedMem(t)
	sc := engineTestSchema()
	path := arrowTempPath(t, "engine.parquet")
	batch := engineTestBatch(t, []int16{1, 2, -300}, []string{"a", "", "c"}, []int8{10, -20, 127})
	defer batch.Release()

	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).EngineSchema(engineTestArrowSchema()).Build()
	if err != nil {
		t.Fatal(err)
	}
	// A batch in the Iceberg representation is not the engine schema.
	plain := arrowBatchOf(t, sc, data.Of(sc, int64(9), "z", int32(9)))
	if err := w.Write(plain); err == nil || !strings.Contains(err.Error(), "engine schema") {
		t.Errorf("batch without the engine schema: %v", err)
	}
	plain.Release()
	if err := w.Write(batch); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// The file holds Iceberg's types: a plain read gives long, string, int.
	want := []*data.Record{
		data.Of(sc, int64(1), "a", int32(10)),
		data.Of(sc, int64(2), nil, int32(-20)),
		data.Of(sc, int64(-300), "c", int32(127)),
	}
	rd, err := arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) { b.Project(sc) })
	if err != nil {
		t.Fatal(err)
	}
	arrowEqualRecords(t, arrowReadAll(t, rd, sc), want)

	// Read with the engine projection: the batches carry the engine types.
	rd, err = arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) {
		b.Project(sc).EngineProjection(engineTestArrowSchema())
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Schema(); got.Field(0).Type.ID() != arrow.INT16 || got.Field(1).Type.ID() != arrow.LARGE_STRING || got.Field(2).Type.ID() != arrow.INT8 {
		t.Errorf("engine projection schema %s", got)
	}
	if got := out.Column(0).(*array.Int16).Value(2); got != -300 {
		t.Errorf("id[2] = %d", got)
	}
	if got := out.Column(1).(*array.LargeString); got.Value(0) != "a" || !got.IsNull(1) {
		t.Errorf("name = %v", got)
	}
	out.Release()
	rd.Close()

	// A value that does not fit the engine type fails the read.
	narrow := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int8},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	rd, err = arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) { b.Project(sc).EngineProjection(narrow) })
	if err != nil {
		t.Fatal(err)
	}
	if out, err := rd.Next(); err == nil {
		out.Release()
		t.Error("-300 read as int8")
	} else if !strings.Contains(err.Error(), "field id 1 (id) as int8") {
		t.Errorf("overflow: %v", err)
	}
	rd.Close()
}

func TestArrowEngineSchemaRefused(t *testing.T) {
	sc := engineTestSchema()
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		engine any
		want   string
	}{
		{"not an arrow schema", "id long", "the parquet-arrow model does not support an engine schema of type string (it takes an *arrow.Schema)"},
		{"nil arrow schema", (*arrow.Schema)(nil), "of type *arrow.Schema"},
		{"field count", arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil), "engine schema has 1 fields"},
		{"field name", arrow.NewSchema([]arrow.Field{
			{Name: "ID", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String},
			{Name: "score", Type: arrow.PrimitiveTypes.Int32},
		}, nil), `engine schema field 0 is "ID"`},
		{"type", arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.BinaryTypes.String},
			{Name: "name", Type: arrow.BinaryTypes.String},
			{Name: "score", Type: arrow.PrimitiveTypes.Int64},
		}, nil), "engine schema field id has type utf8, which does not represent int64"},
	} {
		b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "e.parquet")))
		if err != nil {
			t.Fatal(err)
		}
		if w, err := b.Schema(sc).EngineSchema(tt.engine).Build(); err == nil {
			_ = w.Abort()
			t.Errorf("%s: built", tt.name)
		} else if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}

	path := filepath.Join(dir, "p.parquet")
	batch := arrowBatchOf(t, sc, data.Of(sc, int64(1), "a", int32(2)))
	arrowWriteFile(t, path, sc, nil, batch)
	batch.Release()
	if rd, err := arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) {
		b.EngineProjection(engineTestArrowSchema())
	}); err == nil {
		rd.Close()
		t.Error("engine projection without a projection accepted")
	} else if !strings.Contains(err.Error(), "set one with Project") {
		t.Errorf("engine projection without a projection: %v", err)
	}
	if rd, err := arrowOpenReader(path, func(b *registry.ReadBuilder[arrow.RecordBatch]) {
		b.Project(sc).EngineProjection(42)
	}); err == nil {
		rd.Close()
		t.Error("engine projection 42 accepted")
	} else if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), "an engine projection of type int") {
		t.Errorf("engine projection 42: %v", err)
	}
}
