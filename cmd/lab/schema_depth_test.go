package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// Deep schemas on every path that turns text or bytes into one, written
// the way each form nests: depth counts the types, a top-level column's
// being the first.

// compactStructs is the compact form of a column of depth types: structs
// around an int (Parquet holds them at the limit; lists take two levels
// there each).
func compactStructs(depth int) string {
	return "a:" + strings.Repeat("struct<b:", depth-1) + "int" + strings.Repeat(">", depth-1)
}

// jsonList is the same column in Iceberg's schema JSON.
func jsonList(depth int) string {
	t := `"int"`
	for i := depth - 1; i >= 1; i-- {
		t = fmt.Sprintf(`{"type":"list","element-id":%d,"element":%s,"element-required":false}`, i+1, t)
	}
	return `{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a","required":false,"type":` + t + `}]}`
}

// avroRecords is an Avro schema whose column a nests depth records, the
// innermost holding an int.
func avroRecords(depth int) string {
	t := `"int"`
	for i := depth - 1; i >= 1; i-- {
		t = fmt.Sprintf(`{"type":"record","name":"r%d","fields":[{"name":"f","type":%s,"field-id":%d}]}`, i, t, i+1)
	}
	return `{"type":"record","name":"r","fields":[{"name":"a","type":` + t + `,"field-id":1}]}`
}

// avroFile is an Avro object container file of no blocks whose header holds
// meta.
func avroFile(meta map[string]string) []byte {
	long := func(b []byte, n int64) []byte { return binary.AppendVarint(b, n) }
	b := []byte("Obj\x01")
	b = long(b, int64(len(meta)))
	for k, v := range meta {
		b = long(b, int64(len(k)))
		b = append(b, k...)
		b = long(b, int64(len(v)))
		b = append(b, v...)
	}
	b = long(b, 0)
	return append(b, "0123456789abcdef"...)
}

// parquetGroups is a Parquet file whose one column sits under depth-1
// required groups (the column itself is the last level). Its levels stay
// zero, so the pages of a flat file are right for it.
func parquetGroups(t *testing.T, depth int) []byte {
	t.Helper()
	type row struct {
		X int64 `parquet:"x"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{7}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src := buf.Bytes()
	f, err := footer.ReadFooter(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Meta
	leaf := m.Schema[1]
	schema := []footer.SchemaElement{m.Schema[0]}
	var path []string
	for i := range depth - 1 {
		name := fmt.Sprintf("g%d", i)
		schema = append(schema, footer.SchemaElement{Name: name, NumChildren: thrift.New[int32](1), RepetitionType: thrift.New(footer.Required)})
		path = append(path, name)
	}
	m.Schema = append(schema, leaf)
	for i := range m.RowGroups {
		for j := range m.RowGroups[i].Columns {
			c := &m.RowGroups[i].Columns[j]
			c.MetaData.PathInSchema = append(path, leaf.Name)
			c.ColumnIndexOffset, c.ColumnIndexLength = thrift.Null[int64]{}, thrift.Null[int32]{}
			c.OffsetIndexOffset, c.OffsetIndexLength = thrift.Null[int64]{}, thrift.Null[int32]{}
		}
	}
	m.KeyValueMetadata = nil
	raw, err := footer.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return replaceFooter(t, src, raw)
}

// TestDeepSchemas checks each entry path at the lab's schema limit and
// past it: the deepest schema is accepted, one level more is refused with
// the limit named, and 3,000 levels are refused as fast. Without the limit
// 3,000 levels took lab write 12 s (compact) and 22 s (JSON), lab schema
// 21 s and 1 GB (Avro records) and the Iceberg schema in an Avro header as
// long as the JSON form, and a 1,000-level Parquet footer was inspected.
func TestDeepSchemas(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	const limit = data.MaxSchemaDepth
	tooDeep := fmt.Sprintf("types nest deeper than %d levels", limit)
	rule := fmt.Sprintf("schemas nest at most %d levels", limit)
	file := func(name string, b []byte) string { return writeFile(t, filepath.Join(work, name), b) }
	type entry struct {
		name string
		args func(depth int) []string
		// refusedCode is the exit status past the limit, want what the
		// error says.
		refusedCode int
		want        string
	}
	entries := []entry{
		{"write --schema compact", func(d int) []string {
			return []string{"write", "--schema", "@" + file(fmt.Sprintf("c%d.txt", d), []byte(compactStructs(d))), filepath.Join(work, "out.parquet"), "--overwrite"}
		}, 2, tooDeep},
		{"write --schema JSON", func(d int) []string {
			return []string{"write", "--schema", "@" + file(fmt.Sprintf("j%d.json", d), []byte(jsonList(d))), filepath.Join(work, "out.avro"), "--format", "avro", "--overwrite"}
		}, 2, tooDeep},
		{"schema of an Avro file", func(d int) []string {
			return []string{"schema", file(fmt.Sprintf("r%d.avro", d), avroFile(map[string]string{"avro.schema": avroRecords(d), "avro.codec": "null"}))}
		}, 1, tooDeep},
		{"read of an Avro file", func(d int) []string {
			return []string{"read", file(fmt.Sprintf("r%d.avro", d), avroFile(map[string]string{"avro.schema": avroRecords(d), "avro.codec": "null"}))}
		}, 1, tooDeep},
		{"schema of an Avro file's iceberg.schema", func(d int) []string {
			return []string{"schema", file(fmt.Sprintf("i%d.avro", d), avroFile(map[string]string{
				"avro.schema": `{"type":"record","name":"r","fields":[]}`, "avro.codec": "null", "iceberg.schema": jsonList(d)}))}
		}, 1, tooDeep},
	}
	for _, cmd := range []string{"read", "schema", "inspect"} {
		entries = append(entries, entry{cmd + " of a Parquet file", func(d int) []string {
			return []string{cmd, file(fmt.Sprintf("g%d.parquet", d), parquetGroups(t, d))}
		}, 1, fmt.Sprintf("is nested %d levels deep, more than %d", limit+1, limit)})
	}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			if _, errOut, code := run(t, bin, work, e.args(limit)...); code != 0 {
				t.Errorf("%d levels: exit %d: %s", limit, code, errOut)
			}
			for _, depth := range []int{limit + 1, 3000} {
				began := time.Now()
				// Each takes about 0.2 s; the bound leaves room for a loaded
				// two-core machine and fails the quadratic paths.
				_, errOut, code := runWithin(t, 5*time.Second, bin, work, nil, "", e.args(depth)...)
				if code != e.refusedCode || !strings.Contains(errOut, e.want) || !strings.Contains(errOut, rule) {
					t.Errorf("%d levels: exit %d, %q; want %d and %q", depth, code, errOut, e.refusedCode, e.want)
				}
				t.Logf("%d levels: refused in %v", depth, time.Since(began))
			}
		})
	}
}
