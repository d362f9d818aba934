package inspect

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

type dictRow struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name,dict"`
}

func pagesOf(t *testing.T, data []byte, opts Options) *PagesReport {
	t.Helper()
	rep, err := Pages(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("Pages: %v", err)
	}
	return rep
}

func chunkOf(t *testing.T, rep *PagesReport, path string) ChunkPages {
	t.Helper()
	for _, c := range rep.RowGroups[0].Columns {
		if joinPath(c.Path) == path {
			return c
		}
	}
	t.Fatalf("no chunk %s", path)
	return ChunkPages{}
}

// Every chunk's pages tile it exactly, the data pages hold its values, and
// the offset index points at the data pages the headers were read from.
func TestPagesWalkEveryChunk(t *testing.T) {
	var rs []dictRow
	for i := range 5000 {
		rs = append(rs, dictRow{ID: int64(i), Name: []string{"a", "b", "c"}[i%3]})
	}
	data := writeParquet(t, rs, parquet.PageBufferSize(4096))
	rep := pagesOf(t, data, Options{Name: "dict.parquet"})
	f := readFooter(t, data)
	for ci, c := range rep.RowGroups[0].Columns {
		md := f.Meta.RowGroups[0].Columns[ci].MetaData
		var covered, values int64
		var dataPages []int64
		for _, p := range c.Pages {
			if p.Offset != c.Offset+covered {
				t.Errorf("%v: page at %d, want %d", c.Path, p.Offset, c.Offset+covered)
			}
			covered += p.HeaderLength + int64(p.CompressedSize)
			if p.Type == "DATA_PAGE" || p.Type == "DATA_PAGE_V2" {
				values += int64(p.NumValues)
				dataPages = append(dataPages, p.Offset)
			}
		}
		if covered != md.TotalCompressedSize || values != md.NumValues || len(dataPages) < 2 {
			t.Errorf("%v: pages cover %d of %d bytes, hold %d of %d values, %d data pages", c.Path, covered, md.TotalCompressedSize, values, md.NumValues, len(dataPages))
		}
		if len(c.OffsetIndex) != len(dataPages) {
			t.Fatalf("%v: offset index of %d pages, %d data pages", c.Path, len(c.OffsetIndex), len(dataPages))
		}
		for i, l := range c.OffsetIndex {
			if l.Offset != dataPages[i] {
				t.Errorf("%v: offset index page %d at %d, the header walk found it at %d", c.Path, i, l.Offset, dataPages[i])
			}
		}
		if c.ColumnIndex == nil || len(c.ColumnIndex.Pages) != len(dataPages) {
			t.Errorf("%v: column index %+v", c.Path, c.ColumnIndex)
		}
	}
	name := chunkOf(t, rep, "name")
	if p := name.Pages[0]; p.Type != "DICTIONARY_PAGE" || p.NumValues != 3 || p.Offset != name.Offset || p.IsSorted == nil {
		t.Errorf("name's first page %+v, want its 3-value dictionary at the chunk's start", p)
	}
	if p := name.Pages[1]; p.Encoding != "RLE_DICTIONARY" {
		t.Errorf("name's first data page is %s, want RLE_DICTIONARY", p.Encoding)
	}
	id := chunkOf(t, rep, "id")
	if ci := id.ColumnIndex; ci.BoundaryOrder != "ASCENDING" || ci.Pages[0].Min != "0" || ci.Pages[len(ci.Pages)-1].Max != "4999" {
		t.Errorf("id column index %s, first min %s, last max %s", ci.BoundaryOrder, ci.Pages[0].Min, ci.Pages[len(ci.Pages)-1].Max)
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"row group 0, column name: BYTE_ARRAY, UNCOMPRESSED, 5000 values, ",
		"  column index: boundary order ASCENDING\n",
		"  0     DICTIONARY_PAGE  ",
		"DATA_PAGE_V2", "def 0B, rep 0B",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}

	// Version 1 data pages name their level encodings.
	v1 := pagesOf(t, writeParquet(t, rs[:10], parquet.DataPageVersion(1)), Options{})
	if p := chunkOf(t, v1, "id").Pages[0]; p.Type != "DATA_PAGE" || levels(p) != "def RLE, rep RLE" || p.NumValues != 10 || p.Statistics == nil || p.Statistics.Max != "9" {
		t.Errorf("v1 page %+v (levels %q, statistics %+v)", p, levels(p), p.Statistics)
	}
}

// Hostile chunks and indexes fail naming the row group, the column and
// the byte offset, and allocate nothing like what they declare.
func TestPagesRefuseForgedHeaders(t *testing.T) {
	data := writeParquet(t, rows())
	f := readFooter(t, data)
	id := f.Meta.RowGroups[0].Columns[0].MetaData
	start := id.DataPageOffset
	first := pagesOf(t, data, Options{}).RowGroups[0].Columns[0].Pages[0]
	setID := func(edit func(cc *footer.ColumnChunk)) []byte {
		return withFooter(t, data, func(m *footer.FileMetaData) { edit(&m.RowGroups[0].Columns[0]) })
	}

	// A header claiming a 1 GiB min_value in its statistics: the thrift
	// length is far larger than the chunk.
	forged := bytes.Clone(data)
	header := []byte{
		0x15, 0x00, // type DATA_PAGE
		0x15, 0x14, 0x15, 0x14, // uncompressed and compressed size 10
		0x2c,                                           // field 5: DataPageHeader
		0x15, 0x02, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, // num_values 1, encodings
		0x1c,                               // field 5: Statistics
		0x68, 0x80, 0x80, 0x80, 0x80, 0x04, // field 6: min_value, 1<<30 bytes
	}
	copy(forged[start:], header)

	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"thrift length past the chunk", forged,
			"row group 0, column id: page header at byte 4: not a page header within the chunk's"},
		{"page past the chunk end", setID(func(cc *footer.ColumnChunk) { cc.MetaData.TotalCompressedSize = first.HeaderLength + 2 }),
			"row group 0, column id: page at byte 4: declares " + strconv.Itoa(int(first.CompressedSize)) + " compressed bytes after its " +
				strconv.FormatInt(first.HeaderLength, 10) + "-byte header; the chunk has 2 left"},
		{"truncated header", setID(func(cc *footer.ColumnChunk) { cc.MetaData.TotalCompressedSize = 3 }),
			"row group 0, column id: page header at byte 4: not a page header within the chunk's 3 bytes left"},
		{"chunk past the footer", setID(func(cc *footer.ColumnChunk) { cc.MetaData.DataPageOffset = int64(len(data)) }),
			"row group 0, column id: chunk of "},
		{"column index past the footer", setID(func(cc *footer.ColumnChunk) { cc.ColumnIndexLength.V = 1 << 30 }),
			"row group 0, column id: column index of 1073741824 bytes at byte "},
		{"offset index of garbage", setID(func(cc *footer.ColumnChunk) { cc.OffsetIndexOffset.V = start }),
			"row group 0, column id: offset index at byte 4: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Pages(bytes.NewReader(tc.data), int64(len(tc.data)), Options{Name: "bad.parquet"})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "pages bad.parquet: "+tc.want) {
				t.Fatalf("err = %v\nwant one containing %q", err, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("allocated %d bytes reading a %d-byte file", grew, len(tc.data))
			}
		})
	}
}

// FuzzPages: whatever bytes the pages and indexes hold, Pages and both
// renderers return an error naming the file or a report; never a panic,
// not even one its recover turns into an internal error.
func FuzzPages(f *testing.F) {
	data := writeParquet(f, rows())
	f.Add(data)
	fo := readFooter(f, data)
	for _, at := range []int64{4, 5, 9, fo.Offset / 3, fo.Offset / 2, fo.Offset - 7} {
		flipped := bytes.Clone(data)
		flipped[at] ^= 0x5a
		f.Add(flipped)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Pages(bytes.NewReader(data), int64(len(data)), Options{Name: "fuzz"})
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz") || strings.Contains(err.Error(), "internal error") {
				t.Fatalf("error: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := rep.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
	})
}

// pagesWidth is the widest line lab pages may print for a file whose column
// paths are short: 132 columns, a wide terminal. Its page table is 110 to
// 125 columns by itself (DATA_PAGE_V2, DELTA_LENGTH_BYTE_ARRAY; 103 to 107
// for the lab's own VECTOR files, PLAIN DATA_PAGE), so the bounds have
// tables of their own.
const pagesWidth = 132

// lab pages shows a VECTOR column's bounds, in its page statistics and its
// column index, through the type's formatter as lab inspect shows its
// statistics; a page index bound cut to a prefix (parquet-go keeps 16
// bytes by default) is no vector and shows as its bytes. JSON keeps the
// display strings, whole with FullStatistics.
func TestPagesVectorBounds(t *testing.T) {
	const (
		minVector = "[0, 0, 0, 0, 0, 0, 0, …] 768×float32"
		maxVector = "[0, 0.2857, 0.5714, …] 768×float32"
	)
	whole := parquet.ColumnIndexSizeLimit(func([]string) int { return 4096 })
	for _, tc := range []struct {
		name     string
		opts     []parquet.WriterOption
		min, max string // the column index's, as the text view shows them
	}{
		{"whole bounds", []parquet.WriterOption{whole}, minVector, maxVector},
		{"bounds cut to 16 bytes", nil, "0x" + strings.Repeat("00", 16), "0x000000002549923e2549123fb76d5b40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := vectorFile(t, tc.opts...)
			rep := pagesOf(t, data, Options{Name: "vectors.parquet"})
			emb := chunkOf(t, rep, "emb")
			if len(emb.Pages) != 1 || emb.Pages[0].Statistics == nil || emb.ColumnIndex == nil || len(emb.ColumnIndex.Pages) != 1 {
				t.Fatalf("emb: %d pages, statistics %v, column index %+v", len(emb.Pages), emb.Pages[0].Statistics, emb.ColumnIndex)
			}
			// The page's statistics read as the chunk's do in lab inspect.
			stats := column(t, inspectBytes(t, data, Options{}).RowGroups[0], "emb").Statistics
			wantMin, wantMax := stats.textBounds()
			if gotMin, gotMax := emb.Pages[0].Statistics.textBounds(); gotMin != wantMin || gotMax != wantMax {
				t.Errorf("page statistics %q, %q; lab inspect's %q, %q", gotMin, gotMax, wantMin, wantMax)
			}
			pb := emb.ColumnIndex.Pages[0]
			if got := textBound(pb.Min, pb.minText, pb.minBytes); got != tc.min {
				t.Errorf("column index min %q, want %q", got, tc.min)
			}
			if got := textBound(pb.Max, pb.maxText, pb.maxBytes); got != tc.max {
				t.Errorf("column index max %q, want %q", got, tc.max)
			}

			var buf bytes.Buffer
			if err := rep.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			s := buf.String()
			for _, want := range []string{
				"row group 0, column emb: FIXED_LEN_BYTE_ARRAY, UNCOMPRESSED, 3 values, ",
				"  page statistics\n    page  min                                   max\n" +
					"    0     " + minVector + "  " + maxVector + "\n",
				"    0     false      0      " + tc.min,
				"  " + tc.max + "\n",
			} {
				if !strings.Contains(s, want) {
					t.Errorf("text lacks %q:\n%s", want, s)
				}
			}
			for _, line := range strings.Split(s, "\n") {
				if n := utf8.RuneCountInString(line); n > pagesWidth {
					t.Errorf("line of %d columns, more than %d: %s", n, pagesWidth, line)
				}
			}

			// JSON: the display strings, hex, whole with FullStatistics.
			full := chunkOf(t, pagesOf(t, data, Options{FullStatistics: true}), "emb")
			if got := full.ColumnIndex.Pages[0].Min; got != "0x"+strings.Repeat("00", pb.minBytes) {
				t.Errorf("JSON column index min is %d characters, want the %d bytes in hex", len(got), pb.minBytes)
			}
			if got := full.Pages[0].Statistics.Min; got != "0x"+strings.Repeat("00", 3072) {
				t.Errorf("JSON page statistics min is %d characters, want 3072 bytes in hex", len(got))
			}
		})
	}
}
