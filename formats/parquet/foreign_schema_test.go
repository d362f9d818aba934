package parquet_test

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// otherWriterRow has what other writers put in files and the lab's own
// writer does not: unsigned integers, INTERVAL, a list whose element has no
// field id (DuckDB's FLOAT[N]) and, after the footer edit below, a field id
// of 0 (DuckDB's FIELD_IDS 'auto' starts there).
type otherWriterRow struct {
	Zero  int32     `parquet:"zero,id(9)"`
	U8    uint8     `parquet:"u8,id(1)"`
	U16   uint16    `parquet:"u16,id(2)"`
	U32   uint32    `parquet:"u32,id(3)"`
	U64   uint64    `parquet:"u64,id(4)"`
	Ival  [12]byte  `parquet:"ival,id(5)"`
	Embed []float32 `parquet:"embed,list,id(6)"`
}

func writeOtherWriterFile(t *testing.T, rows []otherWriterRow, edit func(*footer.FileMetaData) error) string {
	t.Helper()
	var buf bytes.Buffer
	w := pq.NewGenericWriter[otherWriterRow](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := footer.RewriteFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &out, edit); err != nil {
		t.Fatal(err)
	}
	path := tempFile(t, "other.parquet")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// asOtherWriters gives "zero" the field id 0 and "ival" the INTERVAL
// converted type, as DuckDB writes them.
func asOtherWriters(m *footer.FileMetaData) error {
	for i := range m.Schema {
		switch m.Schema[i].Name {
		case "zero":
			m.Schema[i].FieldID = thrift.New[int32](0)
		case "ival":
			m.Schema[i].ConvertedType = thrift.New(deprecated.Interval)
		}
	}
	return nil
}

func TestOtherWritersColumnsAllRead(t *testing.T) {
	ival := [12]byte{1, 0, 0, 0, 2, 0, 0, 0, 0xb8, 0x0b, 0, 0} // 1 month, 2 days, 3000 ms
	path := writeOtherWriterFile(t, []otherWriterRow{
		{Zero: 7, U8: math.MaxUint8, U16: math.MaxUint16, U32: math.MaxUint32, U64: math.MaxUint64, Ival: ival, Embed: []float32{1, 2}},
		{Zero: -1, Embed: []float32{}},
	}, asOtherWriters)

	elementType := &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.Float32, ElementRequired: true}
	want := iceberg.NewSchema(0,
		req(0, "zero", iceberg.PrimitiveTypes.Int32),
		req(1, "u8", iceberg.PrimitiveTypes.Int32),
		req(2, "u16", iceberg.PrimitiveTypes.Int32),
		req(3, "u32", iceberg.PrimitiveTypes.Int64),
		req(4, "u64", iceberg.DecimalTypeOf(20, 0)),
		req(5, "ival", iceberg.FixedTypeOf(12)),
		req(6, "embed", elementType),
	)
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	got := r.(registry.SchemaReader).Schema()
	r.Close()
	if !got.Equals(want) {
		t.Fatalf("file schema\n%s\nwant\n%s", got, want)
	}

	maxU64, _ := new(big.Int).SetString("18446744073709551615", 10)
	st := want.AsStruct()
	wantRecs := []*data.Record{
		rec(&st, int32(7), int32(255), int32(65535), int64(math.MaxUint32),
			iceberg.Decimal{Val: decimal128.FromBigInt(maxU64), Scale: 0}, ival[:], []any{float32(1), float32(2)}),
		rec(&st, int32(-1), int32(0), int32(0), int64(0), iceberg.Decimal{Val: decimal128.FromU64(0)}, make([]byte, 12), []any{}),
	}
	assertRecords(t, readRecords(t, path, nil), wantRecs)

	// Field id 0 is an id like any other: a projection finds it.
	zeroOnly := iceberg.NewSchema(0, req(0, "zero", iceberg.PrimitiveTypes.Int32))
	zst := zeroOnly.AsStruct()
	assertRecords(t, readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(zeroOnly) }),
		[]*data.Record{rec(&zst, int32(7)), rec(&zst, int32(-1))})
}

func TestUnsignedStatisticsDoNotPrune(t *testing.T) {
	path := writeOtherWriterFile(t, []otherWriterRow{{U32: math.MaxUint32, Embed: []float32{}}}, asOtherWriters)
	// In signed order the statistics of u32 say -1..-1; a filter for the
	// real value must not skip the row group.
	recs := readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) {
		b.Filter(iceberg.EqualTo(iceberg.Reference("u32"), int64(math.MaxUint32)))
	})
	if len(recs) != 1 {
		t.Fatalf("read %d records, want the row group kept", len(recs))
	}
}

func TestFieldWithoutIDAmongIDsIsNamed(t *testing.T) {
	path := writeOtherWriterFile(t, []otherWriterRow{{Embed: []float32{}}}, func(m *footer.FileMetaData) error {
		for i := range m.Schema {
			if m.Schema[i].Name == "u16" {
				m.Schema[i].FieldID = thrift.Null[int32]{}
			}
		}
		return nil
	})
	_, err := tryReadRecords(path, nil)
	if err == nil || !strings.Contains(err.Error(), `column "u16" has no field id`) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want one naming the file and column u16", err)
	}
	// A projection that leaves it out reads the rest.
	only := iceberg.NewSchema(0, req(1, "u8", iceberg.PrimitiveTypes.Int32))
	if _, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(only) }); err != nil {
		t.Fatal(err)
	}
}

// The lab reads INT32 DELTA_BINARY_PACKED chunks with its own decoder
// (parquet-go unpacks miniblocks wider than 32 bits wrongly); it must read
// every page form parquet-go writes as parquet-go itself does.
func TestInt32DeltaChunksReadAsWritten(t *testing.T) {
	type row struct {
		A *int32  `parquet:"a,optional"`
		R []int32 `parquet:"r"`
		B int32   `parquet:"b"`
	}
	delta := func(n pq.Node) pq.Node { return pq.Encoded(n, &pq.DeltaBinaryPacked) }
	fileSchema := pq.NewSchema("row", pq.Group{
		"a": pq.FieldID(pq.Optional(delta(pq.Int(32))), 1),
		"r": pq.FieldID(pq.Repeated(delta(pq.Int(32))), 2),
		"b": pq.FieldID(delta(pq.Int(32)), 3),
	})
	var rows []row
	for i := range 3000 {
		r := row{B: int32(uint32(i) * 2654435761), R: make([]int32, i%4)}
		if i%3 != 0 {
			v := int32(i * 7)
			r.A = &v
		}
		for j := range r.R {
			r.R[j] = int32(i - j)
		}
		rows = append(rows, r)
	}
	schema := iceberg.NewSchema(0,
		opt(1, "a", iceberg.PrimitiveTypes.Int32),
		req(2, "r", &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.Int32, ElementRequired: true}),
		req(3, "b", iceberg.PrimitiveTypes.Int32),
	)
	st := schema.AsStruct()
	var want []*data.Record
	for _, r := range rows {
		var a any
		if r.A != nil {
			a = *r.A
		}
		elems := []any{}
		for _, v := range r.R {
			elems = append(elems, v)
		}
		want = append(want, rec(&st, a, elems, r.B))
	}
	for _, tc := range []struct {
		name string
		opts []pq.WriterOption
	}{
		{"v1 uncompressed", []pq.WriterOption{pq.DataPageVersion(1), pq.PageBufferSize(4096)}},
		{"v2 zstd", []pq.WriterOption{pq.DataPageVersion(2), pq.Compression(&pq.Zstd), pq.PageBufferSize(4096)}},
		{"v1 snappy", []pq.WriterOption{pq.DataPageVersion(1), pq.Compression(&pq.Snappy)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := pq.NewGenericWriter[row](&buf, append(tc.opts, fileSchema)...)
			if _, err := w.Write(rows); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			pf, err := pq.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range pf.Metadata().RowGroups[0].Columns {
				if !slices.Contains(c.MetaData.Encoding, format.DeltaBinaryPacked) {
					t.Fatalf("column %v is not DELTA_BINARY_PACKED: %v", c.MetaData.PathInSchema, c.MetaData.Encoding)
				}
			}
			path := tempFile(t, "delta.parquet")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			assertRecords(t, readRecords(t, path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(schema) }), want)

			// One flipped byte inside column r's first page (columns sort a, b, r): the page CRC
			// parquet-go wrote refuses it, as parquet-go's own pages do.
			md := pf.Metadata().RowGroups[0].Columns[2].MetaData
			raw := bytes.Clone(buf.Bytes())
			raw[md.DataPageOffset+min(md.TotalCompressedSize/2, 200)] ^= 0x10
			bad := tempFile(t, "flipped.parquet")
			if err := os.WriteFile(bad, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = tryReadRecords(bad, func(b *registry.ReadBuilder[*data.Record]) { b.Project(schema) })
			if err == nil || !strings.Contains(err.Error(), "checksum") || !strings.Contains(err.Error(), `"r"`) {
				t.Fatalf("flipped byte: err = %v, want a checksum error naming column r", err)
			}
		})
	}
}

// Reading one row of a wide file scales with the columns read, not with
// a full batch per column: 60,000 columns took 2.6 GB before the cursors
// shared one value budget.
func TestWideFileReadIsBounded(t *testing.T) {
	const n = 8000
	g := pq.Group{}
	for i := range n {
		g[fmt.Sprintf("c%05d", i)] = pq.FieldID(pq.Optional(pq.Int(64)), i+1)
	}
	var buf bytes.Buffer
	w := pq.NewWriter(&buf, pq.NewSchema("wide", g))
	row := make(pq.Row, n)
	for i := range n {
		row[i] = pq.Int64Value(int64(i)).Level(0, 1, i)
	}
	if _, err := w.WriteRows([]pq.Row{row, row}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := tempFile(t, "wide.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	r.Close()
	if got := rec.Get(n - 1); got != int64(n-1) {
		t.Fatalf("last column %v", got)
	}
	// Measured: 332 MB with a 1024-value batch per column (8000 × 1024 ×
	// 24 bytes of them), 161 MB with the shared budget; the rest is
	// parquet-go's per-chunk page readers and the schema.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 250<<20 {
		t.Fatalf("reading one row of %d columns allocated %d MB", n, alloc>>20)
	}
}
