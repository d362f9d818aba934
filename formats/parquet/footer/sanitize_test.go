package footer

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go/format"
)

func TestSanitizeRemovesExtensionAnnotations(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	meta := readFooterBytes(t, rewrite(t, in, annotateMultimodal())).Meta
	meta.Schema[1].LogicalType = LogicalType{Value: &UnknownLogicalType{ID: 2555}}
	before, err := Encode(meta)
	if err != nil || len(before) == 0 {
		t.Fatalf("encode before: %d bytes, %v", len(before), err)
	}

	s, err := Sanitize(meta)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Encode(meta)
	if err != nil {
		t.Fatalf("encode after: %v", err)
	}
	if !bytes.Equal(after, before) {
		t.Error("Sanitize changed its input")
	}
	if len(s.Schema) != len(meta.Schema) {
		t.Fatalf("sanitized schema has %d elements, the input %d", len(s.Schema), len(meta.Schema))
	}
	removed := map[string]int{} // the kinds of annotation the input had: each must be met
	for i, el := range s.Schema {
		orig := meta.Schema[i]
		switch orig.LogicalType.Value.(type) {
		case *FileType, *VectorType, *UnknownLogicalType:
			removed[fmt.Sprintf("%T", orig.LogicalType.Value)]++
			if el.LogicalType.Value != nil {
				t.Errorf("element %d (%s) keeps %s", i, el.Name, el.LogicalType.String())
			}
		default:
			if el.LogicalType.String() != orig.LogicalType.String() {
				t.Errorf("element %d (%s): %s became %s", i, el.Name, orig.LogicalType.String(), el.LogicalType.String())
			}
		}
		// The physical layout stays.
		if el.Name != orig.Name || el.Type != orig.Type || el.RepetitionType != orig.RepetitionType ||
			el.NumChildren != orig.NumChildren || el.ConvertedType != orig.ConvertedType {
			t.Errorf("element %d (%s) changed beyond its annotation: %+v -> %+v", i, el.Name, orig, el)
		}
	}
	for _, kind := range []string{"*footer.FileType", "*footer.VectorType", "*footer.UnknownLogicalType"} {
		if removed[kind] == 0 {
			t.Errorf("the input has no %s annotation: the removal is untested (%v)", kind, removed)
		}
	}
	mirror, ok := s.KeyValue(MirrorKey)
	if want, _ := meta.KeyValue(MirrorKey); !ok || mirror == "" || mirror != want {
		t.Errorf("the mirror was dropped or changed: %q, want %q", mirror, want)
	}
	if !reflect.DeepEqual(s.RowGroups, meta.RowGroups) {
		t.Error("row groups changed")
	}
}

func TestSanitizeRefusesUnknownRepetition(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	out := rewrite(t, in, annotateMultimodal(func(a *Annotation) { a.VectorRepetition = true }), AllowVectorRepetition())
	meta := readFooterBytes(t, out).Meta
	_, err := Sanitize(meta)
	want := "column emb.list (schema element 10) has repetition VECTOR (3), which arrow-go v18.8.0 would misread"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	meta.Schema[3].RepetitionType.V = 7
	if _, err := SanitizedFooterBytes(meta); err == nil || !strings.Contains(err.Error(), "FieldRepetitionType(7)") {
		t.Errorf("repetition 7: err = %v", err)
	}
	if _, err := ArrowFileMetaData(meta, int64(len(out))); err == nil {
		t.Error("ArrowFileMetaData accepted a VECTOR repetition")
	}
}

// openArrowUnguarded is what arrow-go does by itself: parse the footer.
func openArrowUnguarded(data []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	r, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return r.Close()
}

func TestArrowOpensAFileGroupOnlyThroughTheSanitizedFooter(t *testing.T) {
	in := writeParquet(t, multimodalRows())
	out := rewrite(t, in, func(m *FileMetaData) error { return Annotate(m, []string{"doc"}, Annotation{Kind: KindFile}) })

	// The unguarded behaviour: arrow-go v18.8.0 meets union id 19, which
	// it does not know, and panics while building the schema.
	if err := openArrowUnguarded(in); err != nil {
		t.Fatalf("arrow-go cannot open the unannotated file either: %v", err)
	}
	err := openArrowUnguarded(out)
	if err == nil || !strings.Contains(err.Error(), "panic: invalid logical type") {
		t.Fatalf("arrow-go opened the FILE-annotated file unguarded (err = %v); the guard would be untested", err)
	}

	md, err := ArrowFileMetaData(readFooterBytes(t, out).Meta, int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := file.NewParquetReader(bytes.NewReader(out), file.WithMetadata(md))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 3 {
		t.Fatalf("%d rows", tbl.NumRows())
	}
	doc := tbl.Column(1).Data().Chunk(0).(*array.Struct)
	uri := doc.Field(0).(*array.String)
	size := doc.Field(2).(*array.Int64)
	var got []string
	for i := range doc.Len() {
		switch {
		case doc.IsNull(i):
			got = append(got, "<null doc>")
		case uri.IsNull(i):
			got = append(got, fmt.Sprintf("<null uri> size=%d", size.Value(i)))
		default:
			got = append(got, fmt.Sprintf("%s size=%d", uri.Value(i), size.Value(i)))
		}
	}
	want := []string{"s3://bucket/a.jpg size=1024", "<null doc>", "<null uri> size=5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("doc values\n got %q\nwant %q", got, want)
	}
	emb := tbl.Column(2).Data().Chunk(0).(*array.List)
	if emb.DataType().(*arrow.ListType).Elem().ID() != arrow.FLOAT32 {
		t.Errorf("emb is %s", emb.DataType())
	}
	if v := emb.ListValues().(*array.Float32).Float32Values(); !reflect.DeepEqual(v, []float32{1, 2, 3, 4, 5, 6, 7, 8, -1, 0, 1, 2}) {
		t.Errorf("emb values %v", v)
	}
}

func TestSanitizeRefusesTimeWithoutUnit(t *testing.T) {
	for _, lt := range []LogicalTypeValue{
		&format.TimeType{IsAdjustedToUTC: true},
		&format.TimestampType{IsAdjustedToUTC: true},
	} {
		m := minimalMeta()
		m.Schema[2].LogicalType = LogicalType{Value: lt}
		_, err := Sanitize(m)
		if err == nil || !strings.Contains(err.Error(), "column g.x (schema element 2) is TIME") {
			t.Errorf("%T without unit: err = %v", lt, err)
		}
	}
}
