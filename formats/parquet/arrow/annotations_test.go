package arrow

import (
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	labpq "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

// Files with FILE and VECTOR annotations read through the arrow-go model:
// the guard in open.go hands arrow-go a sanitized footer, so the FILE
// group reads as a struct and the VECTOR column as fixed-size binary.
func TestArrowReadsAnnotatedFiles(t *testing.T) {
	arrowCheckedMem(t)
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		doc,
		iceberg.NestedField{ID: 9, Name: "emb", Type: iceberg.FixedTypeOf(8)},
	)
	st := sc.AsStruct()
	docType := doc.Type.(*iceberg.StructType)
	values := []*file.Value{
		{Inline: []byte("hello"), ContentType: file.Ptr("text/plain")},
		nil,
		{URI: file.Ptr("objects/data.bin"), Offset: file.Ptr[int64](2), Size: file.Ptr[int64](3), Checksum: file.Ptr("CRC32:cbf43926")},
	}
	var recs []*data.Record
	for i, v := range values {
		r := data.NewStructRecord(&st)
		r.Set(0, int64(i))
		if v != nil {
			dr, err := v.ToRecord(docType)
			if err != nil {
				t.Fatal(err)
			}
			r.Set(1, dr)
			r.Set(2, []byte{byte(i), 0, 0, 0, 1, 0, 0, 0})
		}
		recs = append(recs, r)
	}
	path := arrowTempPath(t, "annotated.parquet")
	recordWriteFile(t, path, sc, map[string]string{filecol.PropColumns: "doc", vectorcol.PropColumns: "emb:int8:8"}, recs...)
	anns, err := labpq.FileAnnotations(registry.LocalInput(path))
	if err != nil || len(anns) != 2 || anns[0].Kind != footer.KindFile || anns[1].Kind != footer.KindVector || !anns[0].InFooter || !anns[1].InFooter {
		t.Fatalf("annotations %+v (err %v)", anns, err)
	}

	rb, err := registry.NewReadBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := rb.Build()
	if err != nil {
		t.Fatal(err)
	}
	arrowEqualRecords(t, arrowReadAll(t, rd, sc), recs)
}

// The arrow-go writer emits VECTOR annotations by the same footer rewrite,
// and refuses FILE declarations, whose values it cannot validate.
func TestArrowWriterAnnotations(t *testing.T) {
	arrowCheckedMem(t)
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(8)},
	)
	st := sc.AsStruct()
	r := data.NewStructRecord(&st)
	r.Set(0, int64(1))
	r.Set(1, []byte{0, 0, 128, 63, 0, 0, 0, 64}) // float32 1, 2
	batch := arrowBatchOf(t, sc, r)
	defer batch.Release()

	path := arrowTempPath(t, "vec.parquet")
	df := arrowWriteFile(t, path, sc, map[string]string{vectorcol.PropColumns: "emb:float32:2"}, batch)
	anns, err := labpq.FileAnnotations(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 1 || anns[0].Kind != footer.KindVector || anns[0].VectorLength != 2 || !anns[0].InFooter || !anns[0].InKeyValue {
		t.Fatalf("annotations %+v", anns)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != df.FileSizeBytes() {
		t.Fatalf("DataFile size %d, file %v %v", df.FileSizeBytes(), st, err)
	}

	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(arrowTempPath(t, "file.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := file.Column(3, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	withDoc := iceberg.NewSchema(0, append(sc.Fields(), doc)...)
	if _, err := b.Schema(withDoc).Set(filecol.PropColumns, "doc").Build(); err == nil || !strings.Contains(err.Error(), "not supported by the parquet-arrow model") {
		t.Fatalf("FILE declaration on the arrow writer: %v", err)
	}
}
