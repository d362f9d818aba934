package footer

import (
	"bytes"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

type flatRow struct {
	ID    int64     `parquet:"id"`
	Name  string    `parquet:"name"`
	Score float64   `parquet:"score"`
	Flag  bool      `parquet:"flag"`
	Opt   *int32    `parquet:"opt,optional"`
	TS    time.Time `parquet:"ts,timestamp(microsecond)"`
	Blob  []byte    `parquet:"blob"`
	Price int64     `parquet:"price,decimal(2:10)"`
}

type innerStruct struct {
	A int32   `parquet:"a"`
	B *string `parquet:"b,optional"`
}

type deepElem struct {
	X []int32 `parquet:"x,list"`
}

type nestedRow struct {
	ID    int64            `parquet:"id"`
	Inner innerStruct      `parquet:"inner"`
	Tags  []string         `parquet:"tags,list"`
	Attrs map[string]int64 `parquet:"attrs"`
	Deep  []deepElem       `parquet:"deep,list"`
}

// fileRef has the FILE group's children (DESIGN: uri, offset, size,
// content_type, checksum, inline), all optional.
type fileRef struct {
	URI         *string `parquet:"uri,optional"`
	Offset      *int64  `parquet:"offset,optional"`
	Size        *int64  `parquet:"size,optional"`
	ContentType *string `parquet:"content_type,optional"`
	Checksum    *string `parquet:"checksum,optional"`
	Inline      []byte  `parquet:"inline,optional"`
}

type multimodalRow struct {
	ID  int64     `parquet:"id"`
	Doc *fileRef  `parquet:"doc,optional"`
	Emb []float32 `parquet:"emb,list"`
}

func ptr[T any](v T) *T { return &v }

func writeParquet[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatalf("write rows: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close writer: %v", err)
	}
	return buf.Bytes()
}

func flatRows() []flatRow {
	base := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	return []flatRow{
		{ID: 1, Name: "a", Score: 1.5, Flag: true, Opt: ptr(int32(7)), TS: base, Blob: []byte{1, 2}, Price: 12345},
		{ID: 2, Name: "", Score: -0.25, TS: base.Add(time.Hour), Blob: []byte{}},
		{ID: 3, Name: "ü€", Score: 1e300, Flag: true, Opt: ptr(int32(-1)), TS: base.Add(2 * time.Hour), Blob: []byte("xyz")},
	}
}

func nestedRows() []nestedRow {
	return []nestedRow{
		{ID: 1, Inner: innerStruct{A: 1, B: ptr("x")}, Tags: []string{"p", "q"}, Attrs: map[string]int64{"k": 1},
			Deep: []deepElem{{X: []int32{1, 2}}, {X: nil}}},
		{ID: 2, Inner: innerStruct{A: 2}, Tags: nil, Attrs: map[string]int64{}, Deep: nil},
		{ID: 3, Inner: innerStruct{A: 3, B: ptr("")}, Tags: []string{""}, Attrs: map[string]int64{"a": -1, "b": 2}},
	}
}

func multimodalRows() []multimodalRow {
	return []multimodalRow{
		{ID: 1, Doc: &fileRef{URI: ptr("s3://bucket/a.jpg"), Offset: ptr(int64(0)), Size: ptr(int64(1024)), ContentType: ptr("image/jpeg"), Checksum: ptr("sha256:00")},
			Emb: []float32{1, 2, 3, 4}},
		{ID: 2, Doc: nil, Emb: []float32{5, 6, 7, 8}},
		{ID: 3, Doc: &fileRef{Inline: []byte("hello"), Size: ptr(int64(5)), ContentType: ptr("text/plain")}, Emb: []float32{-1, 0, 1, 2}},
	}
}

// generatedFile is a Parquet file written by parquet-go for the tests.
type generatedFile struct {
	name string
	data []byte
	// what the footer must say
	rows, rowGroups, leaves int
	kv                      map[string]string
}

func generatedFiles(t testing.TB) []generatedFile {
	t.Helper()
	return []generatedFile{
		{name: "flat", data: writeParquet(t, flatRows()), rows: 3, rowGroups: 1, leaves: 8},
		{name: "flat-bloom", data: writeParquet(t, flatRows(), parquet.BloomFilters(parquet.SplitBlockFilter(10, "id"), parquet.SplitBlockFilter(10, "name"))),
			rows: 3, rowGroups: 1, leaves: 8},
		{name: "flat-kv-zstd-3-row-groups",
			data: writeParquet(t, flatRows(), parquet.KeyValueMetadata("origin", "lab test"), parquet.KeyValueMetadata("empty", ""),
				parquet.Compression(&zstd.Codec{}), parquet.MaxRowsPerRowGroup(1)),
			rows: 3, rowGroups: 3, leaves: 8, kv: map[string]string{"origin": "lab test", "empty": ""}},
		{name: "nested-lists-maps", data: writeParquet(t, nestedRows()), rows: 3, rowGroups: 1, leaves: 7},
		{name: "multimodal", data: writeParquet(t, multimodalRows()), rows: 3, rowGroups: 1, leaves: 8},
		{name: "no-statistics", data: writeParquet(t, nestedRows(), parquet.DataPageStatistics(false), parquet.SkipPageBounds("id")), rows: 3, rowGroups: 1, leaves: 7},
	}
}

func readFooterBytes(t testing.TB, data []byte, opts ...Option) *Footer {
	t.Helper()
	f, err := ReadFooter(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		t.Fatalf("ReadFooter: %v", err)
	}
	return f
}

func rewrite(t testing.TB, data []byte, edit func(*FileMetaData) error, opts ...Option) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := RewriteFooter(bytes.NewReader(data), int64(len(data)), &out, edit, opts...); err != nil {
		t.Fatalf("RewriteFooter: %v", err)
	}
	return out.Bytes()
}
