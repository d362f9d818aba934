package parquet_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

// A FILE group as another writer might lay it out: children in its own
// order, some missing, with metadata beside the group.
type foreignDoc struct {
	Size   *int64  `parquet:"size,optional,id(4)"`
	URI    *string `parquet:"uri,optional,id(3)"`
	Inline []byte  `parquet:"inline,optional,id(5)"`
}

type foreignRow struct {
	ID      int64       `parquet:"id,id(1)"`
	Doc     *foreignDoc `parquet:"doc,optional,id(2)"`
	DocMeta int64       `parquet:"doc_meta,id(6)"`
	Emb     [8]byte     `parquet:"emb,id(7)"`
	Tags    []float32   `parquet:"tags,list,id(8)"`
}

func writeForeign(t testing.TB, rows []foreignRow, edit func(*footer.FileMetaData) error, opts ...footer.Option) string {
	t.Helper()
	var buf bytes.Buffer
	w := pq.NewGenericWriter[foreignRow](&buf, pq.CreatedBy("someone-else", "1.0", ""))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := footer.RewriteFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &out, edit, opts...); err != nil {
		t.Fatal(err)
	}
	path := tempFile(t, "foreign.parquet")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func foreignRows() []foreignRow {
	return []foreignRow{
		{ID: 1, Doc: &foreignDoc{URI: file.Ptr("a/b.jpg"), Size: file.Ptr[int64](10)}, DocMeta: 7, Emb: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}, Tags: []float32{1}},
		{ID: 2, Doc: nil, DocMeta: 8},
		{ID: 3, Doc: &foreignDoc{Inline: []byte("hi")}, DocMeta: 9},
	}
}

// parquet-go drops a logical-type member it does not know (FILE 19, VECTOR
// 20, or any other id, with or without fields in its struct) and reads the
// column by its physical layout, so the lab's reader opens such footers
// directly; the annotations themselves come from the lab's codec.
func TestReadForeignAnnotatedFile(t *testing.T) {
	path := writeForeign(t, foreignRows(), func(m *footer.FileMetaData) error {
		if err := footer.Annotate(m, []string{"doc"}, footer.Annotation{Kind: footer.KindFile}); err != nil {
			return err
		}
		if err := footer.Annotate(m, []string{"emb"}, footer.Annotation{Kind: footer.KindVector, VectorLength: 2, Element: "FLOAT"}); err != nil {
			return err
		}
		for i := range m.Schema {
			switch m.Schema[i].Name {
			case "doc":
				// A writer that put a field (i32 1 = 5) in the FILE struct.
				m.Schema[i].LogicalType = footer.LogicalType{Value: &footer.FileType{Unmodelled: []byte{0x15, 0x0a, 0x00}}}
			case "doc_meta":
				m.Schema[i].LogicalType = footer.LogicalType{Value: &footer.UnknownLogicalType{ID: 21, Raw: []byte{0x15, 0x0a, 0x00}}}
			}
		}
		return nil
	})
	got := readRecords(t, path, nil)
	if len(got) != 3 {
		t.Fatalf("read %d records", len(got))
	}
	wantDocs := []*file.Value{{URI: file.Ptr("a/b.jpg"), Size: file.Ptr[int64](10)}, nil, {Inline: []byte("hi")}}
	for i, r := range got {
		doc, _ := r.Get(1).(*data.Record)
		v, err := file.FromRecord(doc)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !v.Equal(wantDocs[i]) {
			t.Errorf("record %d: doc = %s, want %s", i, v, wantDocs[i])
		}
		if r.Get(2) != foreignRows()[i].DocMeta {
			t.Errorf("record %d: doc_meta = %v", i, r.Get(2))
		}
	}
	if emb := got[0].Get(3).([]byte); !bytes.Equal(emb, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("emb = %v", emb)
	}

	anns, err := parquet.FileAnnotations(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]footer.Kind{}
	for _, a := range anns {
		kinds[strings.Join(a.Path, ".")] = a.Kind
	}
	if kinds["doc"] != footer.KindFile || kinds["emb"] != footer.KindVector || kinds["doc_meta"] != footer.KindUnknown {
		t.Errorf("annotations: %+v", anns)
	}
}

func TestReadRefusesBadAnnotatedFiles(t *testing.T) {
	cases := []struct {
		name string
		rows []foreignRow // default: the first foreign row
		edit func(*footer.FileMetaData) error
		opts []footer.Option
		want string
	}{
		{
			// Only the mirror says FILE (a tool dropped the annotation); the
			// group still has to be a FILE group.
			name: "mirror-only FILE",
			edit: func(m *footer.FileMetaData) error {
				m.SetKeyValue(footer.MirrorKey, `{"version":1,"annotations":[{"path":["doc"],"kind":"FILE","id":19}]}`)
				return nil
			},
			want: "",
		},
		{
			// The reader reads PR #592's layout, but a list relabelled
			// VECTOR-repeated is not it: its chunk holds 3 values for a
			// row of vector_length 2. (When the counts happen to agree, no
			// reader can tell: PR #592's pages carry nothing more.)
			name: "VECTOR repetition over list pages",
			rows: []foreignRow{{ID: 1, Tags: []float32{1, 2, 3}}},
			edit: func(m *footer.FileMetaData) error {
				return footer.Annotate(m, []string{"tags"}, footer.Annotation{Kind: footer.KindVector, VectorLength: 2, VectorRepetition: true})
			},
			opts: []footer.Option{footer.AllowVectorRepetition()},
			want: `column "tags.list.element" in row group 0: 3 values for 1 rows of vector_length 2: the VECTOR repetition disagrees with the data`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows := tc.rows
			if rows == nil {
				rows = foreignRows()[:1]
			}
			path := writeForeign(t, rows, tc.edit, tc.opts...)
			_, err := tryReadRecords(path, nil)
			if tc.want == "" {
				// A valid FILE group known only from the mirror reads fine.
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s and contain %q", err, path, tc.want)
			}
		})
	}
}

// A FILE group with a child the spec does not list is refused on read,
// naming the file and the column (spec/FILE.md, S4).
func TestReadRefusesFileGroupWithUnknownChild(t *testing.T) {
	st := structOf(opt(3, "uri", iceberg.PrimitiveTypes.String), opt(4, "thumbnail", iceberg.PrimitiveTypes.Binary))
	sc := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "doc", st))
	path := tempFile(t, "unknown-child.parquet")
	writeRecords(t, path, sc, nil, rec(schemaStruct(sc), int64(1), rec(st, "a.jpg", []byte{1})))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	// Annotate refuses this group, so only the mirror can claim it.
	err = footer.RewriteFooter(bytes.NewReader(raw), int64(len(raw)), &out, func(m *footer.FileMetaData) error {
		m.SetKeyValue(footer.MirrorKey, `{"version":1,"annotations":[{"path":["doc"],"kind":"FILE","id":19}]}`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = tryReadRecords(path, nil)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `FILE column "doc"`) || !strings.Contains(err.Error(), `"thumbnail"`) {
		t.Fatalf("err = %v, want a refusal naming the file, FILE column doc and child thumbnail", err)
	}
	// A projection without the column still reads.
	proj := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	if _, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(proj) }); err != nil {
		t.Errorf("projection without doc: %v", err)
	}
}
