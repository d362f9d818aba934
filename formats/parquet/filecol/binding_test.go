package filecol_test

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/file"
)

func fileBinding(t *testing.T) parquet.ColumnBinding {
	t.Helper()
	for _, b := range parquet.ColumnBindings() {
		if b.Kind() == footer.KindFile {
			if b.Property() != filecol.PropColumns {
				t.Fatalf("FILE declares with %s, want %s", b.Property(), filecol.PropColumns)
			}
			return b
		}
	}
	t.Fatal("importing filecol registered no FILE binding")
	return nil
}

func TestBindChecksTheFieldAndEveryValue(t *testing.T) {
	b := fileBinding(t)
	if _, err := b.Bind(iceberg.NestedField{ID: 1, Name: "doc", Type: iceberg.PrimitiveTypes.String}); err == nil ||
		!strings.Contains(err.Error(), "has type string, a FILE column needs a struct of FILE children") {
		t.Fatalf("Bind(string) = %v", err)
	}
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	check, err := b.Bind(doc)
	if err != nil {
		t.Fatal(err)
	}
	st := doc.Type.(*iceberg.StructType)
	good, err := (&file.Value{Inline: []byte("x")}).ToRecord(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(good); err != nil {
		t.Fatalf("check(inline) = %v", err)
	}
	// A reference with neither uri nor inline is no FILE value
	// (spec/FILE.md); the writer refuses it rather than store a null.
	bad, err := (&file.Value{Size: file.Ptr[int64](3)}).ToRecord(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(bad); err == nil || !strings.Contains(err.Error(), "invalid FILE value") {
		t.Fatalf("check(size only) = %v", err)
	}
}

func TestRecognizeReadsTheGroupAsTypesFileDoes(t *testing.T) {
	b := fileBinding(t)
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Recognize(doc.Type); err != nil {
		t.Fatalf("Recognize(FILE struct) = %v", err)
	}
	if err := b.Recognize(iceberg.PrimitiveTypes.Binary); err == nil || !strings.Contains(err.Error(), "annotated FILE but read as binary") {
		t.Fatalf("Recognize(binary) = %v", err)
	}
	odd := &iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 3, Name: "colour", Type: iceberg.PrimitiveTypes.String}}}
	if err := b.Recognize(odd); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Fatalf("Recognize(struct<colour>) = %v", err)
	}
}
