package avro_test

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

func TestAddRejectsBadRecords(t *testing.T) {
	point := &iceberg.StructType{FieldList: []iceberg.NestedField{field(10, "x", iceberg.PrimitiveTypes.Int32, true)}}
	other := &iceberg.StructType{FieldList: []iceberg.NestedField{field(99, "y", iceberg.PrimitiveTypes.Int32, true)}}
	schema := iceberg.NewSchema(0,
		field(1, "id", iceberg.PrimitiveTypes.Int64, true),
		field(2, "name", iceberg.PrimitiveTypes.String, false),
		field(3, "hash", iceberg.FixedTypeOf(4), false),
		field(4, "price", iceberg.DecimalTypeOf(9, 2), false),
		field(5, "pt", point, false),
		field(6, "tags", &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}, false),
		field(8, "m", &iceberg.MapType{KeyID: 11, KeyType: iceberg.PrimitiveTypes.String, ValueID: 12, ValueType: iceberg.PrimitiveTypes.UUID, ValueRequired: false}, false),
	)
	pt := func(v any) *data.Record {
		r := data.NewStructRecord(point)
		r.Set(0, v)
		return r
	}
	good := func(id int64) *data.Record {
		return data.Of(schema, id, "n", []byte{1, 2, 3, 4}, dec(t, "12345", 2), pt(int32(1)), []any{"a"},
			data.Map{{Key: "u", Value: uuid.Nil}})
	}
	bad := []struct {
		name string
		row  *data.Record
		want string
	}{
		{"wrong Go type", data.Of(schema, 1), "field id (id 1): expected int64 for long, got int"},
		{"null in required field", data.Of(schema, nil), "field id (id 1): null value in required field"},
		{"wrong fixed length", data.Of(schema, int64(1), nil, []byte{1, 2, 3}), "field hash (id 3): fixed[4] value has 3 bytes"},
		{"decimal wrong scale", data.Of(schema, int64(1), nil, nil, dec(t, "1", 3)), "field price (id 4): cannot write value as decimal(9, 2), wrong scale: 3"},
		{"decimal too many digits", data.Of(schema, int64(1), nil, nil, dec(t, "1234567890", 2)), "field price (id 4): cannot write value as decimal(9, 2), its precision is larger"},
		{"nested wrong type", data.Of(schema, int64(1), nil, nil, nil, pt(int64(1))), "field pt.x (id 10): expected int32 for int, got int64"},
		{"nested null in required", data.Of(schema, int64(1), nil, nil, nil, pt(nil)), "field pt.x (id 10): null value in required field"},
		{"struct of another type", data.Of(schema, int64(1), nil, nil, nil, data.NewStructRecord(other)), "field pt (id 5): record field 0 is y (id 99), the struct has x (id 10)"},
		{"null list element", data.Of(schema, int64(1), nil, nil, nil, nil, []any{"a", nil}), "field tags.element[1] (id 7): null element in a list of required elements"},
		{"list element type", data.Of(schema, int64(1), nil, nil, nil, nil, []any{1}), "field tags.element[0] (id 7): expected string"},
		{"invalid UTF-8", data.Of(schema, int64(1), "\xff"), "field name (id 2): string is not valid UTF-8"},
		{"map value type", data.Of(schema, int64(1), nil, nil, nil, nil, nil, data.Map{{Key: "k", Value: "not a uuid"}}), "field m.value[0] (id 12): expected uuid.UUID"},
		{"duplicate map key", data.Of(schema, int64(1), nil, nil, nil, nil, nil, data.Map{{Key: "k", Value: nil}, {Key: "k", Value: nil}}), "field m.key (id 11): duplicate map key k"},
		{"null map key", data.Of(schema, int64(1), nil, nil, nil, nil, nil, data.Map{{Key: nil, Value: nil}}), "field m.key[0] (id 11): null map key"},
		{"list given as map", data.Of(schema, int64(1), nil, nil, nil, nil, data.Map{}), "field tags (id 6): expected []any"},
		{"nil row", nil, "expected *data.Record"},
		{"row of another schema", data.Of(iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true)), int64(1)), "record has 1 fields, the struct has 7"},
	}
	path := tempPath(t, "bad.avro")
	b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).Build()
	if err != nil {
		t.Fatal(err)
	}
	var want []*data.Record
	for i, tc := range bad {
		row := good(int64(i))
		if err := w.Write(row); err != nil {
			t.Fatalf("good row %d: %v", i, err)
		}
		want = append(want, row)
		err := w.Write(tc.row)
		if err == nil {
			t.Errorf("%s: Write accepted the row", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name %q and the file", tc.name, err, tc.want)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.DataFile().Count(); got != int64(len(want)) {
		t.Errorf("Count() = %d, want %d: rejected rows must not be counted", got, len(want))
	}
	// Nothing of a rejected row reached the file: the good rows read back intact.
	assertRows(t, mustRead(t, path, nil), want)
}

func TestExistingFile(t *testing.T) {
	schema := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true))
	path := tempPath(t, "existing.avro")
	writeRecords(t, path, schema, []*data.Record{data.Of(schema, int64(1))}, nil)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(schema).Build()
	if !errors.Is(err, registry.ErrFileExists) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrFileExists naming the file", err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("a refused writer changed the existing file")
	}

	// An aborted overwrite leaves the old file; a committed one replaces it.
	w, err := b.Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data.Of(schema, int64(2))); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("an aborted overwrite changed the existing file")
	}
	w, err = b.Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data.Of(schema, int64(2))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	assertRows(t, mustRead(t, path, nil), []*data.Record{data.Of(schema, int64(2))})
}

func TestWriterOptionErrors(t *testing.T) {
	schema := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true))
	cases := []struct {
		name  string
		props map[string]string
		meta  map[string]string
		want  string
	}{
		{"unknown codec", map[string]string{"write.avro.compression-codec": "lz4"}, nil, "write.avro.compression-codec: Unsupported compression codec: lz4"},
		{"bad level", map[string]string{"write.avro.compression-codec": "gzip", "write.avro.compression-level": "high"}, nil, "write.avro.compression-level"},
		{"bad sync interval", map[string]string{"write.avro.sync-interval-bytes": "0"}, nil, "write.avro.sync-interval-bytes"},
		{"reserved metadata key", nil, map[string]string{"avro.codec": "null"}, `reserved metadata key "avro.codec"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tempPath(t, "opts.avro")
			b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
			if err != nil {
				t.Fatal(err)
			}
			b.Schema(schema).SetAll(tc.props)
			for k, v := range tc.meta {
				b.Meta(k, v)
			}
			_, err = b.Build()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to contain %q and the path", err, tc.want)
			}
			if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("a refused writer left a file behind")
			}
		})
	}
}

// validFile writes a small uncompressed file with several blocks.
func validFile(t *testing.T) (string, []byte, int) {
	t.Helper()
	schema := iceberg.NewSchema(0, field(1, "id", iceberg.PrimitiveTypes.Int64, true), field(2, "s", iceberg.PrimitiveTypes.String, false))
	var rows []*data.Record
	for i := range 24 {
		rows = append(rows, data.Of(schema, int64(i), strings.Repeat("v", i%7)))
	}
	path := tempPath(t, "valid.avro")
	writeRecords(t, path, schema, rows, map[string]string{"write.avro.compression-codec": "uncompressed", "write.avro.sync-interval-bytes": "40"})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b, len(rows)
}

func writeBytes(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := tempPath(t, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// headerLength finds where the first block starts: after the first copy
// of the sync marker, which the file's last 16 bytes are.
func headerLength(t *testing.T, b []byte) int {
	t.Helper()
	sync := b[len(b)-16:]
	i := bytes.Index(b, sync)
	if i < 0 {
		t.Fatal("no sync marker")
	}
	return i + 16
}

func TestBadFiles(t *testing.T) {
	_, valid, _ := validFile(t)
	hdr := headerLength(t, valid)
	corruptSync := bytes.Clone(valid)
	corruptSync[len(corruptSync)-1] ^= 0xff
	giant := append(bytes.Clone(valid[:hdr]), 0x02) // one row
	giant = append(giant, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f)
	giant = append(giant, bytes.Repeat([]byte{0}, 64)...)
	negative := append(bytes.Clone(valid[:hdr]), 0x02, 0x01) // size -1
	negative = append(negative, valid[len(valid)-16:]...)
	tooManyRows := bytes.Clone(valid)
	tooManyRows[hdr] = 0x7e // the first block claims 63 rows
	badDeflate := append(bytes.Clone(valid[:hdr]), 0x02, 0x08, 0xff, 0xff, 0xff, 0xff)
	badDeflate = append(badDeflate, valid[len(valid)-16:]...)
	// Swap the codec to deflate; the value's length byte changes with it.
	badDeflate = bytes.Replace(badDeflate, []byte("\x14avro.codec\x08null"), []byte("\x14avro.codec\x0edeflate"), 1)
	if !bytes.Contains(badDeflate, []byte("deflate")) {
		t.Fatal("codec swap failed")
	}
	hugeMeta := append([]byte("Obj\x01\x02"), 0xfe, 0xff, 0xff, 0xff, 0x0f) // key of ~2 GiB

	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated header"},
		{"garbage", []byte("this is not an avro file at all, just some text"), "not an Avro object container file"},
		{"magic only", []byte("Obj\x01"), "truncated header"},
		{"huge metadata length", hugeMeta, "header"},
		{"truncated in a block", valid[:len(valid)-10], "truncated or corrupt"},
		{"truncated block header", append(bytes.Clone(valid[:hdr]), 0x80), "truncated block header"},
		{"corrupt sync", corruptSync, "sync marker mismatch"},
		{"giant declared block", giant, "truncated or corrupt"},
		{"negative block size", negative, "negative size -1"},
		{"rows past the block data", tooManyRows, "block at offset"},
		{"corrupt deflate", badDeflate, "deflate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeBytes(t, "bad.avro", tc.data)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := readRecords(t, path, nil)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("read succeeded")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name the file and %q", err, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("reading a %d-byte file allocated %d bytes", len(tc.data), grew)
			}
		})
	}
}

// TestEveryTruncation reads every prefix of a valid file: each gives an
// error naming the file or, cut at a block boundary, a prefix of the rows.
// Avro has no footer, so a file cut between blocks is a valid file.
func TestEveryTruncation(t *testing.T) {
	_, valid, total := validFile(t)
	hdr := headerLength(t, valid)
	for n := 0; n < len(valid); n++ {
		if n < hdr-32 && n%29 != 0 {
			continue // the header's JSON text: a sample of cuts is enough
		}
		path := writeBytes(t, "cut.avro", valid[:n])
		rows, err := readRecords(t, path, nil)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("cut at %d: error %q does not name the file", n, err)
			}
			continue
		}
		if len(rows) >= total {
			t.Fatalf("cut at %d of %d bytes read all %d rows", n, len(valid), total)
		}
		for i, r := range rows {
			if r.Get(0) != int64(i) {
				t.Fatalf("cut at %d: row %d is %s", n, i, r)
			}
		}
	}
}

func TestNotARecordSchema(t *testing.T) {
	// A valid OCF whose schema is a bare long.
	b := []byte("Obj\x01")
	b = append(b, 0x04)                           // two metadata entries
	b = append(b, 0x16)                           // len("avro.schema") = 11
	b = append(b, "avro.schema"...)               //
	b = append(b, 0x0c)                           // len(`"long"`) = 6
	b = append(b, `"long"`...)                    //
	b = append(b, 0x14)                           // len("avro.codec") = 10
	b = append(b, "avro.codec"...)                //
	b = append(b, 0x08)                           // len("null") = 4
	b = append(b, "null"...)                      //
	b = append(b, 0x00)                           // end of metadata
	b = append(b, bytes.Repeat([]byte{7}, 16)...) // sync
	path := writeBytes(t, "long.avro", b)
	_, err := readRecords(t, path, nil)
	if err == nil || !strings.Contains(err.Error(), "not a record") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
}
