package inspect

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

type address struct {
	Street string `parquet:"street"`
	Zip    *int32 `parquet:"zip,optional"`
}

// fileRef has the FILE group's children (DESIGN: uri, offset, size,
// content_type, checksum, inline).
type fileRef struct {
	URI         *string `parquet:"uri,optional"`
	Offset      *int64  `parquet:"offset,optional"`
	Size        *int64  `parquet:"size,optional"`
	ContentType *string `parquet:"content_type,optional"`
	Checksum    *string `parquet:"checksum,optional"`
	Inline      []byte  `parquet:"inline,optional"`
}

type row struct {
	ID     int64            `parquet:"id"`
	Name   string           `parquet:"name"`
	Price  int32            `parquet:"price,decimal(2:9)"`
	Amount int64            `parquet:"amount,decimal(3:18)"`
	TS     time.Time        `parquet:"ts,timestamp(microsecond)"`
	Local  int64            `parquet:"local,timestamp(millisecond:local)"`
	UID    [16]byte         `parquet:"uid,uuid"`
	Small  int32            `parquet:"small,int(8)"`
	Score  float64          `parquet:"score"`
	Blob   []byte           `parquet:"blob"`
	Addr   address          `parquet:"addr"`
	Tags   []string         `parquet:"tags,list"`
	Attrs  map[string]int64 `parquet:"attrs"`
	Emb    []float32        `parquet:"emb,list"`
	Doc    *fileRef         `parquet:"doc,optional"`
}

func ptr[T any](v T) *T { return &v }

var baseTime = time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)

func rows() []row {
	return []row{
		{ID: 1, Name: "alpha", Price: 12345, Amount: -1500, TS: baseTime, Local: 1_700_000_000_000,
			UID: [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}, Small: -3, Score: 1.5,
			Blob: []byte{0xff, 0x00}, Addr: address{Street: "Main", Zip: ptr(int32(1000))}, Tags: []string{"p", "q"},
			Attrs: map[string]int64{"k": 1}, Emb: []float32{1, 2, 3, 4},
			Doc: &fileRef{URI: ptr("s3://bucket/a.jpg"), Size: ptr(int64(1024)), ContentType: ptr("image/jpeg")}},
		{ID: 2, Name: "beta", Price: -5, Amount: 7, TS: baseTime.Add(time.Hour), Local: 1_700_000_000_001,
			UID: [16]byte{0xff}, Small: 100, Score: -0.25, Addr: address{Street: "Side"}, Emb: []float32{5, 6, 7, 8}},
		{ID: 3, Name: "ü€", Price: 0, Amount: 0, TS: baseTime.Add(-time.Hour), Local: 1_600_000_000_000,
			Small: 0, Score: 1e300, Blob: []byte("xyz"), Addr: address{Street: ""}, Tags: []string{""},
			Attrs: map[string]int64{"a": -1, "b": 2}, Emb: []float32{-1, 0, 1, 2},
			Doc: &fileRef{Inline: []byte("hello"), Size: ptr(int64(5))}},
	}
}

func writeParquet[T any](t testing.TB, data []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(data); err != nil {
		t.Fatalf("write rows: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close writer: %v", err)
	}
	return buf.Bytes()
}

func readFooter(t testing.TB, data []byte, opts ...footer.Option) *footer.Footer {
	t.Helper()
	f, err := footer.ReadFooter(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		t.Fatalf("ReadFooter: %v", err)
	}
	return f
}

// withFooter is data with its footer replaced by meta, as a writer that
// made other choices (no page index, say) would have written it.
func withFooter(t testing.TB, data []byte, edit func(*footer.FileMetaData)) []byte {
	t.Helper()
	f := readFooter(t, data)
	edit(f.Meta)
	raw, err := footer.Encode(f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(bytes.Clone(data[:f.Offset]), raw...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(raw)))
	return append(out, "PAR1"...)
}

func inspectBytes(t testing.TB, data []byte, opts Options) *Report {
	t.Helper()
	rep, err := Inspect(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	return rep
}

func node(t testing.TB, rep *Report, path ...string) *Node {
	t.Helper()
	n := rep.Schema.Find(path)
	if n == nil {
		t.Fatalf("no schema node %v", path)
	}
	return n
}

func column(t testing.TB, rg RowGroup, path string) ColumnChunk {
	t.Helper()
	for _, c := range rg.Columns {
		if joinPath(c.Path) == path {
			return c
		}
	}
	t.Fatalf("no column chunk %s", path)
	return ColumnChunk{}
}

func joinPath(p []string) string {
	s := ""
	for i, n := range p {
		if i > 0 {
			s += "."
		}
		s += n
	}
	return s
}
