package unbound_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// fileRow has doc, a group FILE may annotate: one optional STRING uri.
type fileRow struct {
	Doc *struct {
		URI *string `parquet:"uri,optional"`
	} `parquet:"doc,optional"`
}

// Without filecol no FILE placement rule is registered, and the footer
// refuses FILE, naming the package to import, rather than write a FILE group
// it cannot check: through Annotate and through an edit of RewriteFooter
// that sets the member itself.
func TestFileRefusedWithoutItsPlacementRule(t *testing.T) {
	const want = "annotate column doc: FILE cannot be placed (no placement rule is registered for it: import formats/parquet/filecol)"
	str := footer.LogicalType{Value: &format.StringType{}}
	meta := &footer.FileMetaData{Version: 1, Schema: []footer.SchemaElement{
		{Name: "root", NumChildren: thrift.New[int32](1)},
		{Name: "doc", NumChildren: thrift.New[int32](1), RepetitionType: thrift.New(footer.Optional)},
		{Name: "uri", Type: thrift.New(format.ByteArray), RepetitionType: thrift.New(footer.Optional), LogicalType: str},
	}, RowGroups: []footer.RowGroup{}}
	err := footer.Annotate(meta, []string{"doc"}, footer.Annotation{Kind: footer.KindFile})
	if !errors.Is(err, footer.ErrNoFilePlacement) || err.Error() != want {
		t.Fatalf("Annotate FILE: %v, want %q", err, want)
	}
	if meta.Schema[1].LogicalType.Value != nil {
		t.Errorf("a refused FILE left logical type %s on doc", meta.Schema[1].LogicalType.String())
	}
	if _, ok := meta.KeyValue(footer.MirrorKey); ok {
		t.Error("a refused FILE was mirrored")
	}

	var buf bytes.Buffer
	w := parquet.NewGenericWriter[fileRow](&buf)
	uri := "file:///a"
	if _, err := w.Write([]fileRow{{Doc: &struct {
		URI *string `parquet:"uri,optional"`
	}{URI: &uri}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in := buf.Bytes()
	var out bytes.Buffer
	err = footer.RewriteFooter(bytes.NewReader(in), int64(len(in)), &out, func(m *footer.FileMetaData) error {
		m.Schema[1].LogicalType = footer.LogicalType{Value: &footer.FileType{}}
		return nil
	})
	wantEdit := "footer edit refused: column doc (schema element 1): " + footer.ErrNoFilePlacement.Error()
	if !errors.Is(err, footer.ErrNoFilePlacement) || err.Error() != wantEdit {
		t.Fatalf("RewriteFooter setting FILE: %v, want %q", err, wantEdit)
	}
}
