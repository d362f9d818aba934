package parquet_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

func badRecordSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "name", iceberg.PrimitiveTypes.String),
		opt(3, "address", structOf(req(4, "zip", iceberg.PrimitiveTypes.Int32), opt(5, "city", iceberg.PrimitiveTypes.String))),
		opt(6, "tags", &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.String}),
		opt(8, "fx", iceberg.FixedTypeOf(3)),
		opt(9, "dec", iceberg.DecimalTypeOf(9, 2)),
		opt(10, "u", iceberg.PrimitiveTypes.UUID),
		opt(11, "m", &iceberg.MapType{KeyID: 12, KeyType: iceberg.PrimitiveTypes.String, ValueID: 13, ValueType: iceberg.PrimitiveTypes.Int32}),
	)
}

func TestRecordWriterRejectsBadRecords(t *testing.T) {
	s := badRecordSchema()
	st := s.AsStruct()
	address := st.FieldList[2].Type.(*iceberg.StructType)
	good := func(id int64) *data.Record {
		return rec(&st, id, "n", rec(address, int32(1), "c"), []any{"t"}, []byte{1, 2, 3}, dec(t, "1.25", 9, 2), uuid.Nil,
			data.Map{{Key: "k", Value: int32(1)}})
	}
	with := func(pos int, v any) *data.Record {
		r := good(100)
		r.Set(pos, v)
		return r
	}
	other := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int32))
	cases := []struct {
		name string
		rec  *data.Record
		want string
	}{
		{"nil record", nil, "record is nil"},
		{"record of another struct", data.Of(other, int32(1)), "does not match the schema"},
		{"wrong top-level type", with(1, int32(5)), `column "name": expected string, got int32`},
		{"wrong nested type", with(2, rec(address, "12345", nil)), `column "address.zip": expected int32, got string`},
		{"null in required", with(0, nil), `column "id": null value in required field`},
		{"null in nested required", with(2, rec(address, nil, "c")), `column "address.zip": null value in required field`},
		{"struct of wrong type", with(2, "street"), `column "address": expected *data.Record, got string`},
		{"nested struct of another type", with(2, data.Of(other, int32(1))), `column "address": record of type`},
		{"list of wrong Go type", with(3, []string{"a"}), `column "tags": expected []any, got []string`},
		{"list element of wrong type", with(3, []any{"a", int64(1)}), `column "tags.element": expected string, got int64`},
		{"fixed of wrong length", with(4, []byte{1, 2}), `column "fx": expected 3 bytes for fixed[3], got 2`},
		{"decimal with wrong scale", with(5, dec(t, "1.250", 9, 3)), `column "dec": decimal(9, 2) value has scale 3`},
		{"decimal with too many digits", with(5, dec(t, "12345678.90", 10, 2)), `column "dec": decimal value 12345678.90 has more than 9 digits`},
		{"uuid as string", with(6, "f79c3e09-677c-4bbd-a479-3f349cb785e7"), `column "u": expected uuid.UUID, got string`},
		{"null map key", with(7, data.Map{{Key: nil, Value: int32(1)}}), `column "m.key": null value in required field`},
		{"map value of wrong type", with(7, data.Map{{Key: "k", Value: "v"}}), `column "m.value": expected int32, got string`},
		{"map as Go map", with(7, map[string]int32{"k": 1}), `column "m": expected data.Map, got map[string]int32`},
	}
	path := tempFile(t, "bad.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).Build()
	if err != nil {
		t.Fatal(err)
	}
	var want []*data.Record
	for i, tc := range cases {
		ok := good(int64(i))
		if err := w.Write(ok); err != nil {
			t.Fatal(err)
		}
		want = append(want, ok)
		err := w.Write(tc.rec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v does not name the file", tc.name, err)
		}
	}
	last := good(999)
	if err := w.Write(last); err != nil {
		t.Fatal(err)
	}
	want = append(want, last)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.DataFile().Count() != int64(len(want)) {
		t.Errorf("record count %d, want %d", w.DataFile().Count(), len(want))
	}
	assertRecords(t, readRecords(t, path, nil), want)
}

func TestRecordWriterRejectsUnwritableSchemas(t *testing.T) {
	cases := []struct {
		name   string
		schema *iceberg.Schema
		want   string
	}{
		{"field id zero", iceberg.NewSchema(0, opt(0, "z", iceberg.PrimitiveTypes.Int32)), `column "z": field id 0`},
		{"no columns", iceberg.NewSchema(0), "schema has no column"},
		{"only unknown", iceberg.NewSchema(0, opt(1, "u", iceberg.PrimitiveTypes.Unknown)), "schema has no column"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "x.parquet")))
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Schema(tc.schema).Build()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(tempFile(t, "x.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(badRecordSchema()).Set("write.parquet.compression-codec", "lzo").Build()
	if err == nil || !strings.Contains(err.Error(), `unsupported codec "lzo"`) {
		t.Errorf("lzo: %v", err)
	}
}

func TestRecordWriterExistingFileAndAbort(t *testing.T) {
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	st := s.AsStruct()
	dir := t.TempDir()
	path := filepath.Join(dir, "exists.parquet")
	writeRecords(t, path, s, nil, rec(&st, int64(1)))
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(s).Build()
	if !errors.Is(err, registry.ErrFileExists) || !strings.Contains(err.Error(), path) {
		t.Errorf("writing over an existing file: %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("existing file changed")
	}

	// Aborting an overwrite leaves the old bytes and no temporary file.
	w, err := b.Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec(&st, int64(2))); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	after, _ = os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("aborted overwrite changed the file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after abort, want 1", len(entries))
	}

	// Overwrite replaces it.
	writeRecordsOverwrite(t, path, s, rec(&st, int64(3)))
	assertRecords(t, readRecords(t, path, nil), []*data.Record{rec(&st, int64(3))})
}

func writeRecordsOverwrite(t *testing.T, path string, s *iceberg.Schema, recs ...*data.Record) {
	t.Helper()
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(s).Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// goodFile writes a small valid file and returns its bytes.
func goodFile(t *testing.T) []byte {
	t.Helper()
	s := badRecordSchema()
	st := s.AsStruct()
	path := tempFile(t, "good.parquet")
	writeRecords(t, path, s, nil, rec(&st, int64(1), "a"), rec(&st, int64(2), nil))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// editFooter decodes the footer, applies edit and re-encodes it in place.
func editFooter(t *testing.T, raw []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(raw[len(raw)-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), raw[len(raw)-8-n:len(raw)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), raw[:len(raw)-8-n]...)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

func TestRecordReaderRejectsBadFiles(t *testing.T) {
	raw := goodFile(t)
	footerLen := int(binary.LittleEndian.Uint32(raw[len(raw)-8:]))
	withTail := func(footer []byte) []byte {
		out := append([]byte("PAR1"), footer...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
		return append(out, "PAR1"...)
	}
	garbage := bytes.Repeat([]byte{0xff}, footerLen)
	cases := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"empty", nil, "too small for a Parquet file"},
		{"tiny", []byte("PAR1PAR1"), "too small for a Parquet file"},
		{"text", []byte("this is certainly not a parquet file at all"), "no PAR1 magic"},
		{"truncated", raw[:len(raw)-10], "truncated"},
		{"truncated in the middle", raw[:len(raw)/2], "no PAR1 magic"},
		{"bad header magic", append([]byte("XXXX"), raw[4:]...), "no PAR1 magic at offset 0"},
		{"footer length past EOF", func() []byte {
			b := bytes.Clone(raw)
			binary.LittleEndian.PutUint32(b[len(b)-8:], 1<<31)
			return b
		}(), "footer length 2147483648 (at offset"},
		{"footer length just past start", func() []byte {
			b := bytes.Clone(raw)
			binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(len(b)-8))
			return b
		}(), "exceeds the file"},
		{"garbage footer", append(append(bytes.Clone(raw[:len(raw)-8-footerLen]), garbage...), raw[len(raw)-8:]...), "unknown thrift type"},
		// A list header declaring 2^31-1 structs in a 7-byte footer.
		{"huge declared list", withTail([]byte{0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07}), "list of 2147483647 elements exceeds"},
		{"huge declared string", withTail([]byte{0x48, 0xff, 0xff, 0xff, 0xff, 0x07}), "binary value needs 2147483647 bytes"},
		{"column chunk outside the file", editFooter(t, raw, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.DataPageOffset = 1 << 40
		}), "outside the data region"},
		{"schema children overrun", editFooter(t, raw, func(md *format.FileMetaData) {
			md.Schema[0].NumChildren.V = 1000
		}), "has num_children 1000"},
		{"empty schema", editFooter(t, raw, func(md *format.FileMetaData) { md.Schema = nil }), "schema has no elements"},
		{"missing column chunks", editFooter(t, raw, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns = md.RowGroups[0].Columns[:1]
		}), "does not have enough columns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tempFile(t, "bad.parquet")
			if err := os.WriteFile(path, tc.bytes, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := tryReadRecords(path, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want one naming %s and containing %q", err, path, tc.want)
			}
		})
	}
}

// TestRecordReaderCorruptPages flips bytes inside the data pages: reading
// must end in an error or in values, never in a panic.
func TestRecordReaderCorruptPages(t *testing.T) {
	raw := goodFile(t)
	footerLen := int(binary.LittleEndian.Uint32(raw[len(raw)-8:]))
	dataEnd := len(raw) - 8 - footerLen
	for off := 4; off < dataEnd; off += 3 {
		b := bytes.Clone(raw)
		b[off] ^= 0xa5
		path := filepath.Join(t.TempDir(), "corrupt.parquet")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := tryReadRecords(path, nil)
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("byte %d: error %v does not name the file", off, err)
		}
	}
}

func TestRecordReaderDerivesIDs(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Name string `parquet:"name"`
	}
	path := tempFile(t, "noids.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[row](f)
	if _, err := w.Write([]row{{1, "a"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Without ids or a mapping the file is read through ids derived from
	// its own schema: 1..n for the top-level columns, as Iceberg Java's
	// fallback ids.
	got := readRecords(t, path, nil)
	want := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), req(2, "name", iceberg.PrimitiveTypes.String))
	wst := want.AsStruct()
	assertRecords(t, got, []*data.Record{rec(&wst, int64(1), "a")})
	got = readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Project(iceberg.NewSchema(0, req(2, "name", iceberg.PrimitiveTypes.String)))
	})
	nst := iceberg.NewSchema(0, req(2, "name", iceberg.PrimitiveTypes.String)).AsStruct()
	assertRecords(t, got, []*data.Record{rec(&nst, "a")})
}

func TestRecordReaderProjectionErrors(t *testing.T) {
	s := badRecordSchema()
	st := s.AsStruct()
	path := tempFile(t, "proj.parquet")
	writeRecords(t, path, s, nil, rec(&st, int64(1), "a"))
	cases := []struct {
		name       string
		projection *iceberg.Schema
		want       string
	}{
		{"missing required id", iceberg.NewSchema(0, req(99, "ghost", iceberg.PrimitiveTypes.Int64)), `field id 99 ("ghost") is required but not in the file`},
		{"string as int", iceberg.NewSchema(0, opt(2, "name", iceberg.PrimitiveTypes.Int32)), `field id 2 ("name"): file column "name" is of type string, cannot be read as int`},
		{"long as int", iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int32)), `field id 1 ("id"): file column "id" is of type long`},
		{"struct as primitive", iceberg.NewSchema(0, opt(3, "address", iceberg.PrimitiveTypes.String)), `field id 3 ("address"): file column "address" is a struct`},
		{"list as map", iceberg.NewSchema(0, opt(6, "tags", &iceberg.MapType{KeyID: 7, KeyType: iceberg.PrimitiveTypes.String, ValueID: 70, ValueType: iceberg.PrimitiveTypes.String})), `field id 6 ("tags"): file column "tags" is a list`},
		{"decimal narrowed", iceberg.NewSchema(0, opt(9, "dec", iceberg.DecimalTypeOf(8, 2))), `field id 9 ("dec")`},
		{"decimal rescaled", iceberg.NewSchema(0, opt(9, "dec", iceberg.DecimalTypeOf(10, 3))), `field id 9 ("dec")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(tc.projection) })
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	_, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Filter(iceberg.EqualTo(iceberg.Reference("nope"), int64(1)))
	})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("filter on unknown column: %v", err)
	}
}

// Writers share codecs (codecs.go): writers running at once on the same
// codec must each write a file that reads back whole.
func TestConcurrentWritersShareCodecs(t *testing.T) {
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "name", iceberg.PrimitiveTypes.String))
	const writers, rows = 4, 20_000
	for _, codec := range []string{"zstd", "gzip", "snappy"} {
		t.Run(codec, func(t *testing.T) {
			paths, errs := make([]string, writers), make([]error, writers)
			var wg sync.WaitGroup
			for w := range writers {
				paths[w] = tempFile(t, "x.parquet")
				wg.Go(func() {
					recs := make([]*data.Record, rows)
					for i := range recs {
						recs[i] = data.Of(s, int64(w*rows+i), fmt.Sprintf("writer %d row %d", w, i))
					}
					_, errs[w] = tryWriteRecords(paths[w], s, map[string]string{"write.parquet.compression-codec": codec, "write.parquet.page-size-bytes": "4096"}, recs...)
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			for w, p := range paths {
				got := readRecords(t, p, nil)
				if len(got) != rows {
					t.Fatalf("writer %d: read %d rows, want %d", w, len(got), rows)
				}
				for i, r := range got {
					if r.Get(0) != int64(w*rows+i) || r.Get(1) != fmt.Sprintf("writer %d row %d", w, i) {
						t.Fatalf("writer %d row %d reads %v", w, i, r)
					}
				}
			}
		})
	}
}
