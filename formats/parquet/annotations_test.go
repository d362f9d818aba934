package parquet_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

// multimodalSchema has a FILE column declaring every child, a float32
// vector of 4 as fixed[16], and a plain column beside them.
func multimodalSchema(t testing.TB) *iceberg.Schema {
	t.Helper()
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	return iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		doc,
		opt(9, "emb", iceberg.FixedTypeOf(16)),
		opt(10, "note", iceberg.PrimitiveTypes.String),
	)
}

var multimodalProps = map[string]string{
	filecol.PropColumns:   "doc",
	vectorcol.PropColumns: "emb:float32:4",
}

func float32Bytes(xs ...float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func fileRecord(t testing.TB, sc *iceberg.Schema, v *file.Value) any {
	t.Helper()
	if v == nil {
		return nil
	}
	st := sc.Field(1).Type.(*iceberg.StructType)
	r, err := v.ToRecord(st)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func multimodalRecords(t testing.TB, sc *iceberg.Schema) []*data.Record {
	t.Helper()
	values := []*file.Value{
		{Inline: []byte("hello"), ContentType: file.Ptr("text/plain")},
		{URI: file.Ptr("s3://bucket/a.jpg"), Offset: file.Ptr[int64](8), Size: file.Ptr[int64](1024),
			Checksum: file.Ptr("SHA-256:" + strings.Repeat("ab", 32))},
		nil,
		{URI: file.Ptr("objects/x.bin"), Size: file.Ptr[int64](0), Inline: []byte{}},
	}
	out := make([]*data.Record, len(values))
	for i, v := range values {
		var emb any = float32Bytes(float32(i), 1, -2, 0.5)
		if i == 2 {
			emb = nil
		}
		out[i] = rec(schemaStruct(sc), int64(i), fileRecord(t, sc, v), emb, "n")
	}
	return out
}

func readFooterOf(t testing.TB, path string, opts ...footer.Option) *footer.Footer {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := footer.ReadFooter(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAnnotatedWriteRoundTrip(t *testing.T) {
	sc := multimodalSchema(t)
	recs := multimodalRecords(t, sc)
	dir := t.TempDir()
	plainPath, annotatedPath := filepath.Join(dir, "plain.parquet"), filepath.Join(dir, "annotated.parquet")
	plainDF := writeRecords(t, plainPath, sc, nil, recs...)
	df := writeRecords(t, annotatedPath, sc, multimodalProps, recs...)

	assertRecords(t, readRecords(t, annotatedPath, nil), recs)

	// The annotations are in the footer and in the key/value mirror.
	anns, err := parquet.FileAnnotations(registry.LocalInput(annotatedPath))
	if err != nil {
		t.Fatal(err)
	}
	want := []footer.Annotation{
		{Path: []string{"doc"}, Kind: footer.KindFile, ID: footer.FileID, InFooter: true, InKeyValue: true},
		{Path: []string{"emb"}, Kind: footer.KindVector, ID: footer.DefaultVectorID, VectorLength: 4, Element: "FLOAT", InFooter: true, InKeyValue: true},
	}
	if len(anns) != len(want) {
		t.Fatalf("annotations = %+v, want %+v", anns, want)
	}
	for i := range want {
		if strings.Join(anns[i].Path, ".") != strings.Join(want[i].Path, ".") || anns[i].Kind != want[i].Kind || anns[i].ID != want[i].ID ||
			anns[i].VectorLength != want[i].VectorLength || anns[i].Element != want[i].Element ||
			anns[i].InFooter != want[i].InFooter || anns[i].InKeyValue != want[i].InKeyValue {
			t.Errorf("annotation %d = %+v, want %+v", i, anns[i], want[i])
		}
	}
	if plainAnns, err := parquet.FileAnnotations(registry.LocalInput(plainPath)); err != nil || len(plainAnns) != 0 {
		t.Errorf("file written without declarations has annotations %+v (err %v)", plainAnns, err)
	}

	// With FILE annotations only, every byte before the footer is what
	// parquet-go wrote (VECTOR columns are written by the lab's page
	// writer, page_write.go).
	filePath := filepath.Join(dir, "file-only.parquet")
	writeRecords(t, filePath, sc, map[string]string{filecol.PropColumns: "doc"}, recs...)
	plainBytes, _ := os.ReadFile(plainPath)
	fileBytes, _ := os.ReadFile(filePath)
	annotatedBytes, _ := os.ReadFile(annotatedPath)
	pf, ff := readFooterOf(t, plainPath), readFooterOf(t, filePath)
	if pf.Offset != ff.Offset || !bytes.Equal(plainBytes[:pf.Offset], fileBytes[:ff.Offset]) {
		t.Errorf("data region differs: plain footer at %d, FILE-annotated at %d", pf.Offset, ff.Offset)
	}
	if ff.Length <= pf.Length {
		t.Errorf("annotated footer is %d bytes, plain %d: the annotations are missing", ff.Length, pf.Length)
	}
	os.Remove(filePath)

	// The DataFile describes the final file; column metrics do not change.
	if df.FileSizeBytes() != int64(len(annotatedBytes)) {
		t.Errorf("DataFile length %d, file has %d bytes", df.FileSizeBytes(), len(annotatedBytes))
	}
	if df.Count() != int64(len(recs)) {
		t.Errorf("DataFile count %d", df.Count())
	}
	for id, size := range plainDF.ColumnSizes() {
		// The VECTOR column (9) is written without min/max statistics.
		if got := df.ColumnSizes()[id]; got != size && (id != 9 || got <= 0 || got >= size) {
			t.Errorf("column size of field %d: %d, plain %d", id, df.ColumnSizes()[id], size)
		}
	}
	if df.ValueCounts()[9] != 4 || df.NullValueCounts()[9] != 1 {
		t.Errorf("emb: value count %d, null count %d, want 4 and 1", df.ValueCounts()[9], df.NullValueCounts()[9])
	}
	if got, want := df.SplitOffsets(), plainDF.SplitOffsets(); len(got) != len(want) || (len(got) > 0 && got[0] != want[0]) {
		t.Errorf("split offsets %v, plain %v", got, want)
	}
	// No temporary file is left beside the result.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want the two files", len(entries))
	}
}

func TestVectorLogicalTypeID(t *testing.T) {
	sc := multimodalSchema(t)
	recs := multimodalRecords(t, sc)
	path := tempFile(t, "v33.parquet")
	props := map[string]string{vectorcol.PropColumns: "emb:f32:4", vectorcol.PropLogicalTypeID: "33"}
	writeRecords(t, path, sc, props, recs...)
	assertRecords(t, readRecords(t, path, nil), recs)

	anns, err := parquet.FileAnnotations(registry.LocalInput(path), footer.WithVectorID(33))
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 1 || anns[0].Kind != footer.KindVector || anns[0].ID != 33 || !anns[0].InFooter {
		t.Errorf("annotations read under id 33: %+v", anns)
	}
	// Under the default id the member is unknown; the mirror still says VECTOR.
	anns, err = parquet.FileAnnotations(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 2 || anns[0].Kind != footer.KindUnknown || anns[0].ID != 33 || anns[1].Kind != footer.KindVector || anns[1].InFooter {
		t.Errorf("annotations read under the default id: %+v", anns)
	}
}

func TestVectorElementTypes(t *testing.T) {
	for _, tc := range []struct {
		decl, element string
		fixed         int
	}{
		{"v:float64:3", "DOUBLE", 24},
		{"v:float16:8", "FLOAT16", 16},
		{"v:int8:5", "INT8", 5},
	} {
		t.Run(tc.decl, func(t *testing.T) {
			sc := iceberg.NewSchema(0, req(1, "v", iceberg.FixedTypeOf(tc.fixed)))
			path := tempFile(t, "v.parquet")
			r := rec(schemaStruct(sc), bytes.Repeat([]byte{7}, tc.fixed))
			writeRecords(t, path, sc, map[string]string{vectorcol.PropColumns: tc.decl}, r)
			assertRecords(t, readRecords(t, path, nil), []*data.Record{r})
			anns, err := parquet.FileAnnotations(registry.LocalInput(path))
			if err != nil || len(anns) != 1 || anns[0].Element != tc.element || int(anns[0].VectorLength)*int(footer.VectorElementWidths[tc.element]) != tc.fixed {
				t.Errorf("annotations %+v (err %v)", anns, err)
			}
		})
	}
}

func TestAnnotationDeclarationErrors(t *testing.T) {
	st := func(fields ...iceberg.NestedField) *iceberg.StructType { return structOf(fields...) }
	sc := iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "extra", st(opt(3, "uri", iceberg.PrimitiveTypes.String), opt(4, "thumbnail", iceberg.PrimitiveTypes.Binary))),
		opt(5, "required_child", st(req(6, "uri", iceberg.PrimitiveTypes.String))),
		opt(7, "wrong_type", st(opt(8, "size", iceberg.PrimitiveTypes.Int32))),
		opt(9, "emb", iceberg.FixedTypeOf(16)),
		opt(10, "blob", iceberg.PrimitiveTypes.Binary),
		opt(11, "good", st(opt(12, "uri", iceberg.PrimitiveTypes.String))),
	)
	cases := []struct {
		name  string
		props map[string]string
		want  string
	}{
		{"unknown FILE column", map[string]string{filecol.PropColumns: "nope"}, `column "nope" is not a top-level column`},
		{"nested name", map[string]string{filecol.PropColumns: "good.uri"}, `column "good.uri" is not a top-level column`},
		{"FILE on a primitive", map[string]string{filecol.PropColumns: "id"}, `column "id" (field id 1): has type long, a FILE column needs a struct`},
		{"FILE child unknown", map[string]string{filecol.PropColumns: "extra"}, `column "extra" (field id 2): FILE group child "thumbnail"`},
		{"FILE child required", map[string]string{filecol.PropColumns: "required_child"}, `column "required_child" (field id 5): FILE group child "uri" (field id 6) is required`},
		{"FILE child type", map[string]string{filecol.PropColumns: "wrong_type"}, `column "wrong_type" (field id 7): FILE group child "size" (field id 8) has type int, want long`},
		{"unknown VECTOR column", map[string]string{vectorcol.PropColumns: "nope:float32:4"}, `column "nope" is not a top-level column`},
		{"VECTOR syntax", map[string]string{vectorcol.PropColumns: "emb:float32"}, `column "emb": "float32" is not vector<ELEMENT,DIM>`},
		{"VECTOR element", map[string]string{vectorcol.PropColumns: "emb:complex:4"}, `column "emb": vector: unknown element type "complex"`},
		{"VECTOR bfloat16", map[string]string{vectorcol.PropColumns: "emb:bfloat16:8"}, `column "emb": element type bfloat16 has no Parquet representation`},
		{"VECTOR dim", map[string]string{vectorcol.PropColumns: "emb:float32:0"}, `column "emb": dimension "0" is not a positive integer`},
		{"VECTOR length", map[string]string{vectorcol.PropColumns: "emb:float32:3"}, `column "emb" (field id 9) has type fixed[16], a VECTOR of 3 float32 needs fixed[12]`},
		{"VECTOR not fixed", map[string]string{vectorcol.PropColumns: "blob:int8:4"}, `column "blob" (field id 10) has type binary, a VECTOR of 4 int8 needs fixed[4]`},
		{"both", map[string]string{filecol.PropColumns: "good", vectorcol.PropColumns: "good:int8:1"}, `column "good" is already declared in ` + filecol.PropColumns},
		{"id 19", map[string]string{vectorcol.PropColumns: "emb:float32:4", vectorcol.PropLogicalTypeID: "19"}, `"19" must be an integer in 20..32767`},
		{"id text", map[string]string{vectorcol.PropLogicalTypeID: "x"}, `"x" must be an integer`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tempFile(t, "bad.parquet")
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Schema(sc).SetAll(tc.props).Build()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Build error = %v, want it to name %s and contain %q", err, path, tc.want)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
				t.Errorf("Build failed but left %d files behind", len(entries))
			}
		})
	}
}

func TestInvalidFileValuesAreRejected(t *testing.T) {
	sc := multimodalSchema(t)
	s := schemaStruct(sc)
	good := multimodalRecords(t, sc)[0]
	cases := []struct {
		v    *file.Value
		rule file.Rule
	}{
		{&file.Value{ContentType: file.Ptr("image/png")}, file.RuleMustResolve},
		{&file.Value{URI: file.Ptr("")}, file.RuleMustResolve},
		{&file.Value{Inline: []byte("x"), Offset: file.Ptr[int64](0), Size: file.Ptr[int64](1)}, file.RuleOffsetWithoutURI},
		{&file.Value{URI: file.Ptr("a.bin"), Offset: file.Ptr[int64](4)}, file.RuleOffsetWithoutSize},
		{&file.Value{URI: file.Ptr("a.bin"), Offset: file.Ptr[int64](-1), Size: file.Ptr[int64](1)}, file.RuleOffsetNegative},
		{&file.Value{URI: file.Ptr("a.bin"), Size: file.Ptr[int64](-1)}, file.RuleSizeNegative},
		{&file.Value{Inline: []byte("abc"), URI: file.Ptr("a.bin"), Size: file.Ptr[int64](4)}, file.RuleInlineLocatorMismatch},
		// "fields set alongside `inline` must form a locator valid on its
		// own, so `offset` requires `uri` and `size`": size alone is none.
		{&file.Value{Inline: []byte("abc"), Size: file.Ptr[int64](3)}, file.RuleInlineLocatorInvalid},
	}
	path := tempFile(t, "invalid.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).SetAll(multimodalProps).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		err := w.Write(rec(s, int64(99), fileRecord(t, sc, tc.v), nil, nil))
		rule, ok := file.RuleOf(err)
		if !ok || rule != tc.rule || !strings.Contains(err.Error(), `column "doc"`) || !strings.Contains(err.Error(), path) {
			t.Errorf("value %s: err = %v, want rule %s naming the file and column doc", tc.v, err, tc.rule)
		}
	}
	// The writer stays usable and keeps only the valid rows. A checksum
	// the lab cannot use breaks no rule (the Validation list has none for
	// checksum), so that reference is written.
	unverifiable := rec(s, int64(100), fileRecord(t, sc, &file.Value{URI: file.Ptr("a.bin"), Checksum: file.Ptr("MD5:xyz")}), nil, nil)
	for _, r := range []*data.Record{good, unverifiable} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	assertRecords(t, readRecords(t, path, nil), []*data.Record{good, unverifiable})
}

// A FILE column without the declaration is an ordinary struct: nothing is
// validated, nothing annotated. The golden files use this to write invalid
// values on purpose.
func TestUndeclaredFileStructIsNotValidated(t *testing.T) {
	sc := multimodalSchema(t)
	r := rec(schemaStruct(sc), int64(1), fileRecord(t, sc, &file.Value{Size: file.Ptr[int64](3)}), nil, nil)
	path := tempFile(t, "plain.parquet")
	writeRecords(t, path, sc, nil, r)
	assertRecords(t, readRecords(t, path, nil), []*data.Record{r})
}

func schemaStruct(sc *iceberg.Schema) *iceberg.StructType {
	st := sc.AsStruct()
	return &st
}
