package footer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

func TestRewriteWithoutEditIsIdentity(t *testing.T) {
	for _, g := range generatedFiles(t) {
		t.Run(g.name, func(t *testing.T) {
			if out := rewrite(t, g.data, nil); !bytes.Equal(out, g.data) {
				t.Errorf("rewriting without an edit changed the file (first difference at %d)", firstDifference(out, g.data))
			}
		})
	}
}

func annotateMultimodal(opts ...func(*Annotation)) func(*FileMetaData) error {
	return func(m *FileMetaData) error {
		vec := Annotation{Kind: KindVector, VectorLength: 4}
		for _, o := range opts {
			o(&vec)
		}
		return errors.Join(
			Annotate(m, []string{"doc"}, Annotation{Kind: KindFile}),
			Annotate(m, []string{"emb"}, vec),
		)
	}
}

func TestRewriteAnnotatesFileAndVector(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	before := readFooterBytes(t, in)
	out := rewrite(t, in, annotateMultimodal())

	after := readFooterBytes(t, out)
	if !bytes.Equal(out[:after.Offset], in[:before.Offset]) || after.Offset != before.Offset {
		t.Fatalf("the bytes before the footer changed: offsets %d -> %d", before.Offset, after.Offset)
	}
	if !bytes.Equal(out[len(out)-4:], []byte("PAR1")) {
		t.Error("no trailing magic")
	}
	got, err := ReadAnnotations(after.Meta)
	if err != nil {
		t.Fatal(err)
	}
	want := []Annotation{
		{Path: []string{"doc"}, Kind: KindFile, ID: 19, InFooter: true, InKeyValue: true},
		{Path: []string{"emb"}, Kind: KindVector, ID: 20, VectorLength: 4, Element: "FLOAT", InFooter: true, InKeyValue: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("annotations\n got %+v\nwant %+v", got, want)
	}
	emb := schemaElementByPath(t, after.Meta, "emb")
	if emb.ConvertedType != thrift.New(deprecated.List) {
		t.Errorf("emb converted type %+v, want LIST kept for readers that drop VECTOR", emb.ConvertedType)
	}
	if _, err := Encode(after.Meta); err != nil {
		t.Fatal(err)
	}
	// Only the annotations changed: the rest of the footer is as before.
	annotated, _ := Decode(before.Raw)
	if err := annotateMultimodal()(annotated); err != nil {
		t.Fatal(err)
	}
	if want, _ := Encode(annotated); !bytes.Equal(after.Raw, want) {
		t.Error("the rewritten footer is not the original with the annotations")
	}
}

// parquet-go, which does not know FILE or VECTOR, still reads the rewritten
// file's values: the data and its layout are untouched.
func TestRewrittenFileReadsInParquetGo(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	out := rewrite(t, in, annotateMultimodal())
	rows, err := parquet.Read[multimodalRow](bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatalf("parquet-go read: %v", err)
	}
	if !reflect.DeepEqual(rows, multimodalRows()) {
		t.Errorf("rows\n got %+v\nwant %+v", rows, multimodalRows())
	}
}

func TestRewriteVectorRepetitionNeedsTheFlag(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	edit := annotateMultimodal(func(a *Annotation) { a.VectorRepetition = true })
	var out bytes.Buffer
	err := RewriteFooter(bytes.NewReader(in), int64(len(in)), &out, edit)
	if err == nil || !strings.Contains(err.Error(), "column emb.list (schema element 10): repetition changed from REPEATED to VECTOR") {
		t.Fatalf("err = %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes written despite the refusal", out.Len())
	}
	got := rewrite(t, in, edit, AllowVectorRepetition())
	meta := readFooterBytes(t, got).Meta
	list := schemaElementByPath(t, meta, "emb", "list")
	if list.RepetitionType != thrift.New(Vector) || list.VectorLength != thrift.New[int32](4) {
		t.Errorf("emb.list repetition %v vector_length %v", list.RepetitionType, list.VectorLength)
	}
	if emb := schemaElementByPath(t, meta, "emb"); emb.ConvertedType.Valid {
		t.Errorf("emb keeps converted type %v on a VECTOR group", emb.ConvertedType.V)
	}
	anns, _ := ReadAnnotations(meta)
	if len(anns) != 2 || !anns[1].VectorRepetition || anns[1].VectorLength != 4 {
		t.Errorf("annotations %+v", anns)
	}
	// A custom VECTOR id round-trips when the reader is told about it.
	got = rewrite(t, in, annotateMultimodal(func(a *Annotation) { a.ID = 77 }))
	if s := schemaElementByPath(t, readFooterBytes(t, got, WithVectorID(77)).Meta, "emb").LogicalType.String(); s != "VECTOR(id=77)" {
		t.Errorf("emb logical type %s with WithVectorID(77)", s)
	}
	if s := schemaElementByPath(t, readFooterBytes(t, got).Meta, "emb").LogicalType.String(); s != "UNKNOWN_ANNOTATION(id=77)" {
		t.Errorf("emb logical type %s without WithVectorID", s)
	}
}

func schemaElementByPath(t testing.TB, m *FileMetaData, path ...string) *SchemaElement {
	t.Helper()
	tree, err := newSchemaTree(m.Schema)
	if err != nil {
		t.Fatal(err)
	}
	i, err := tree.find(path)
	if err != nil {
		t.Fatal(err)
	}
	return &m.Schema[i]
}

// fileWithFooter frames a footer as a file: the data of base, then footer.
func fileWithFooter(base []byte, footer []byte, suffix ...byte) []byte {
	f, _ := ReadFooter(bytes.NewReader(base), int64(len(base)))
	out := append([]byte{}, base[:f.Offset]...)
	out = append(out, footer...)
	out = append(out, suffix...)
	return withTrailer(out, uint32(len(footer)+len(suffix)), "PAR1")
}

// withUnknownField appends field 100 (i32 1) to the FileMetaData: a field this
// model does not know, which decoding skips and encoding cannot reproduce.
func withUnknownField(footer []byte) []byte {
	out := append([]byte{}, footer[:len(footer)-1]...) // drop the STOP
	out = append(out, 0x05, 0xc8, 0x01, 0x02, 0x00)    // i32, id zigzag(100), value zigzag(1), STOP
	return out
}

func TestRewriteRefusals(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	f := readFooterBytes(t, in)

	encMeta, _ := Decode(f.Raw)
	encMeta.EncryptionAlgorithm = format.EncryptionAlgorithm{Value: &format.AesGcmV1{AadFileUnique: []byte("u")}}
	encFooter, _ := Encode(encMeta)
	plaintextEncrypted := fileWithFooter(in, encFooter, make([]byte, 28)...)

	unknownField := fileWithFooter(in, withUnknownField(f.Raw))
	// The same footer with a non-minimal varint for version (0x02 0x80 0x00
	// instead of 0x02): decodes to the same value, encodes shorter.
	nonMinimal := fileWithFooter(in, append([]byte{f.Raw[0], f.Raw[1] | 0x80, 0x00}, f.Raw[2:]...))

	// A ColumnOrder member this model does not know (4) decodes as an unset
	// union, which encodes differently: refused.
	coMeta, _ := Decode(f.Raw)
	coMeta.ColumnOrders = []ColumnOrder{{Value: &Int96TimestampOrder{}}}
	coFooter, _ := Encode(coMeta)
	at := bytes.Index(coFooter, []byte{0x19, 0x1c, 0x3c, 0x00, 0x00})
	if at < 0 {
		t.Fatal("column order not found in the encoding")
	}
	coFooter[at+2] = 0x4c
	unknownColumnOrder := fileWithFooter(in, coFooter)

	edit := func(change func(m *FileMetaData)) func(*FileMetaData) error {
		return func(m *FileMetaData) error { change(m); return nil }
	}
	cases := []struct {
		name string
		in   []byte
		edit func(*FileMetaData) error
		opts []Option
		want string
	}{
		{name: "encrypted footer", in: withTrailer([]byte("PARE0123"), 4, "PARE"), want: "encrypted"},
		{name: "plaintext-footer encryption", in: plaintextEncrypted, want: "encrypted file (plaintext footer mode)"},
		{name: "unknown field", in: unknownField,
			want: fmt.Sprintf("does not re-encode byte-identically (first difference at footer byte %d, file offset %d", len(f.Raw)-1, f.Offset+int64(len(f.Raw))-1)},
		{name: "non-minimal varint", in: nonMinimal,
			want: fmt.Sprintf("first difference at footer byte 1, file offset %d", f.Offset+1)},
		{name: "unknown column order member", in: unknownColumnOrder,
			want: fmt.Sprintf("first difference at footer byte %d", at+2)},
		{name: "edit fails", in: in, edit: func(*FileMetaData) error { return errors.New("no thanks") }, want: "footer edit: no thanks"},
		{name: "element added", in: in, edit: edit(func(m *FileMetaData) { m.Schema = append(m.Schema, SchemaElement{Name: "z"}) }),
			want: "number of schema elements changed from 12 to 13"},
		{name: "renamed", in: in, edit: edit(func(m *FileMetaData) { m.Schema[1].Name = "key" }),
			want: `column id (schema element 1): name changed to "key"`},
		{name: "num_children", in: in, edit: edit(func(m *FileMetaData) { m.Schema[2].NumChildren = thrift.New[int32](5) }),
			want: "column doc (schema element 2): num_children changed from 6 to 5"},
		{name: "physical type", in: in, edit: edit(func(m *FileMetaData) { m.Schema[1].Type = thrift.New(format.Int32) }),
			want: "column id (schema element 1): physical type changed from INT64 to INT32"},
		{name: "type length", in: in, edit: edit(func(m *FileMetaData) { m.Schema[1].TypeLength = thrift.New[int32](8) }),
			want: "column id (schema element 1): type length changed from 64 to 8"},
		{name: "repetition", in: in, edit: edit(func(m *FileMetaData) { m.Schema[2].RepetitionType = thrift.New(Required) }),
			want: "column doc (schema element 2): repetition changed from OPTIONAL to REQUIRED"},
		{name: "repetition other than REPEATED<->VECTOR even with the flag", in: in, opts: []Option{AllowVectorRepetition()},
			edit: edit(func(m *FileMetaData) { m.Schema[2].RepetitionType = thrift.New(Required) }),
			want: "only REPEATED <-> VECTOR may change"},
		{name: "VECTOR without vector_length", in: in, opts: []Option{AllowVectorRepetition()},
			edit: edit(func(m *FileMetaData) { m.Schema[10].RepetitionType = thrift.New(Vector) }),
			want: "requires a positive vector_length exactly on VECTOR groups"},
		{name: "num_rows", in: in, edit: edit(func(m *FileMetaData) { m.NumRows++ }), want: "num_rows changed from 3 to 4"},
		{name: "row group rows", in: in, edit: edit(func(m *FileMetaData) { m.RowGroups[0].NumRows = 2 }),
			want: "row group 0 or its column chunks changed"},
		{name: "column chunk offset", in: in, edit: edit(func(m *FileMetaData) { m.RowGroups[0].Columns[3].MetaData.DataPageOffset++ }),
			want: "row group 0 or its column chunks changed"},
		{name: "column chunk statistics", in: in, edit: edit(func(m *FileMetaData) { m.RowGroups[0].Columns[0].MetaData.Statistics = nil }),
			want: "row group 0 or its column chunks changed"},
		{name: "adds encryption", in: in, edit: edit(func(m *FileMetaData) { m.FooterSigningKeyMetadata = []byte("k") }),
			want: "adds encryption metadata"},
		{name: "FILE on a leaf", in: in, edit: edit(func(m *FileMetaData) { m.Schema[1].LogicalType = LogicalType{Value: &FileType{}} }),
			want: "column id (schema element 1): FILE annotates a group, and this is a INT64 leaf"},
		{name: "VECTOR on the FILE-shaped group", in: in, edit: edit(func(m *FileMetaData) { m.Schema[2].LogicalType = LogicalType{Value: &VectorType{}} }),
			want: "column doc (schema element 2): a VECTOR group has exactly one child"},
		{name: "unencodable annotation", in: in, edit: edit(func(m *FileMetaData) {
			m.Schema[2].LogicalType = LogicalType{Value: &UnknownLogicalType{ID: 1}}
		}), want: "not encodable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := RewriteFooter(bytes.NewReader(tc.in), int64(len(tc.in)), &out, tc.edit, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("%d bytes written despite the refusal", out.Len())
			}
		})
	}
}

// The plaintext-footer encrypted file reads, with its signature split off.
func TestReadFooterPlaintextEncrypted(t *testing.T) {
	in := writeParquet(t, flatRows())
	m, _ := Decode(readFooterBytes(t, in).Raw)
	m.EncryptionAlgorithm = format.EncryptionAlgorithm{Value: &format.AesGcmV1{}}
	b, _ := Encode(m)
	sig := slices.Repeat([]byte{0xab}, 28)
	f := readFooterBytes(t, fileWithFooter(in, b, sig...))
	if !bytes.Equal(f.Signature, sig) || !f.Meta.Encrypted() {
		t.Errorf("signature %x, encrypted %v", f.Signature, f.Meta.Encrypted())
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return 0, io.ErrShortWrite
}

func TestRewriteReportsWriteFailure(t *testing.T) {
	in := writeParquet(t, flatRows())
	err := RewriteFooter(bytes.NewReader(in), int64(len(in)), &failingWriter{}, nil)
	if !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("err = %v, want the writer's error", err)
	}
}

func TestRewriteUnlinksColumnIndexesOnlyWithTheFlag(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	before := readFooterBytes(t, in).Meta
	linked := 0
	for _, rg := range before.RowGroups {
		for _, cc := range rg.Columns {
			if cc.ColumnIndexOffset.Valid {
				linked++
			}
		}
	}
	if linked == 0 {
		t.Fatal("the sample file has no ColumnIndex to unlink")
	}
	unlink := func(m *FileMetaData) error {
		cc := &m.RowGroups[0].Columns[0]
		cc.ColumnIndexOffset, cc.ColumnIndexLength = thrift.Null[int64]{}, thrift.Null[int32]{}
		return nil
	}
	var out bytes.Buffer
	if err := RewriteFooter(bytes.NewReader(in), int64(len(in)), &out, unlink); err == nil || !strings.Contains(err.Error(), "row group 0 or its column chunks changed") {
		t.Fatalf("unlinking without the flag: %v", err)
	}
	got := readFooterBytes(t, rewrite(t, in, unlink, AllowUnlinkingColumnIndexes())).Meta
	if cc := got.RowGroups[0].Columns[0]; cc.ColumnIndexOffset.Valid || cc.ColumnIndexLength.Valid {
		t.Error("the ColumnIndex is still linked")
	}
	if a, b := got.RowGroups[0].Columns[1], before.RowGroups[0].Columns[1]; !reflect.DeepEqual(a, b) {
		t.Error("a chunk the edit left alone changed")
	}
	// The flag unlinks; it does not let an edit move an index or touch
	// anything else in a chunk.
	for name, edit := range map[string]func(*FileMetaData) error{
		"move": func(m *FileMetaData) error { m.RowGroups[0].Columns[0].ColumnIndexOffset.V++; return nil },
		"half": func(m *FileMetaData) error {
			m.RowGroups[0].Columns[0].ColumnIndexOffset = thrift.Null[int64]{}
			return nil
		},
		"offset index": func(m *FileMetaData) error {
			m.RowGroups[0].Columns[0].OffsetIndexOffset = thrift.Null[int64]{}
			return nil
		},
	} {
		out.Reset()
		err := RewriteFooter(bytes.NewReader(in), int64(len(in)), &out, edit, AllowUnlinkingColumnIndexes())
		if err == nil || !strings.Contains(err.Error(), "column chunks changed") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRewriteFooterInPlaceMatchesRewriteFooter(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	edit := annotateMultimodal()
	want := rewrite(t, in, edit)
	path := filepath.Join(t.TempDir(), "f.parquet")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := RewriteFooterInPlace(f, edit); err != nil {
		t.Fatal(err)
	}
	// A refused edit leaves the file as it was.
	refused := func(m *FileMetaData) error { m.NumRows++; return nil }
	if err := RewriteFooterInPlace(f, refused); err == nil || !strings.Contains(err.Error(), "num_rows changed") {
		t.Errorf("refused edit: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("in place: %d bytes, RewriteFooter: %d bytes, first difference at %d", len(got), len(want), firstDifference(got, want))
	}
}
