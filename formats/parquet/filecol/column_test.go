package filecol_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/file"
)

// lookupSchema has FILE columns at the top (doc), inside a struct
// (meta.img) and inside a list (docs), and columns that are not FILE.
func lookupSchema(t *testing.T) *iceberg.Schema {
	t.Helper()
	must := func(f iceberg.NestedField, err error) iceberg.NestedField {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	doc := must(file.Column(2, "doc", false, file.FieldURI, file.FieldSize))
	img := must(file.Column(11, "img", false, file.AllFields...))
	elem, err := file.NewStruct(21, file.FieldURI)
	if err != nil {
		t.Fatal(err)
	}
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		doc,
		iceberg.NestedField{ID: 10, Name: "meta", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{img}}},
		iceberg.NestedField{ID: 20, Name: "docs", Type: &iceberg.ListType{ElementID: 21, Element: elem}},
		iceberg.NestedField{ID: 30, Name: "addr", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 31, Name: "street", Type: iceberg.PrimitiveTypes.String}}}},
	)
}

func TestLookup(t *testing.T) {
	schema := lookupSchema(t)
	anns := []footer.Annotation{{Kind: footer.KindFile, Path: []string{"doc"}}, {Kind: footer.KindFile, Path: []string{"addr"}}}
	for _, tc := range []struct {
		column    string
		name      string
		id        int
		annotated bool
		fields    []file.Field
		projected []string // the projection's top-level names
	}{
		{"doc", "doc", 2, true, []file.Field{file.FieldURI, file.FieldSize}, []string{"doc"}},
		{"meta.img", "meta.img", 11, false, file.AllFields, []string{"meta"}},
	} {
		t.Run(tc.column, func(t *testing.T) {
			c, err := filecol.Lookup(schema, anns, tc.column)
			if err != nil {
				t.Fatal(err)
			}
			var top []string
			for _, f := range c.Projection.Fields() {
				top = append(top, f.Name)
			}
			if c.Name != tc.name || c.ID != tc.id || c.Annotated != tc.annotated || !slices.Equal(c.Layout.Fields(), tc.fields) || !slices.Equal(top, tc.projected) {
				t.Errorf("Lookup(%q) = %s id %d annotated %v fields %v projecting %v; want %s id %d annotated %v fields %v projecting %v",
					tc.column, c.Name, c.ID, c.Annotated, c.Layout.Fields(), top, tc.name, tc.id, tc.annotated, tc.fields, tc.projected)
			}
		})
	}
}

func TestLookupRefuses(t *testing.T) {
	schema := lookupSchema(t)
	anns := []footer.Annotation{{Kind: footer.KindFile, Path: []string{"addr"}}}
	for _, tc := range []struct{ column, want string }{
		{"nope", `no column "nope" (columns: id, doc, meta, docs, addr)`},
		{"id", `column "id" (field id 1) has type long; a FILE column is a group of FILE children (uri, offset, size, content_type, checksum, inline)`},
		{"addr", `column "addr" (field id 30) is annotated FILE but its group is not FILE-shaped: `},
		{"meta", `column "meta" (field id 10) is not a FILE column: `},
		{"docs.element", `column "docs.element" (field id 21): it sits inside list<struct<22: uri: optional string>> "docs", which holds many values per row; only columns reached through structs can be resolved`},
	} {
		t.Run(tc.column, func(t *testing.T) {
			_, err := filecol.Lookup(schema, anns, tc.column)
			var ce *filecol.ColumnError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v, want a *ColumnError starting %q", err, tc.want)
			}
		})
	}
}

func TestColumnValue(t *testing.T) {
	schema := lookupSchema(t)
	c, err := filecol.Lookup(schema, nil, "meta.img")
	if err != nil {
		t.Fatal(err)
	}
	meta := c.Projection.Fields()[0].Type.(*iceberg.StructType)
	imgType := meta.FieldList[0].Type.(*iceberg.StructType)
	want := &file.Value{URI: file.Ptr("s3://b/k.png"), Size: file.Ptr[int64](7)}
	group, err := want.ToRecord(imgType)
	if err != nil {
		t.Fatal(err)
	}
	withImg := data.NewStructRecord(meta)
	withImg.Set(0, group)
	for _, tc := range []struct {
		name    string
		rec     *data.Record
		want    *file.Value
		wantErr string
	}{
		{"value", data.Of(c.Projection, withImg), want, ""},
		{"null struct on the way", data.Of(c.Projection, nil), nil, ""},
		{"null value", data.Of(c.Projection, data.NewStructRecord(meta)), nil, ""},
		{"not a group", data.Of(c.Projection, func() *data.Record {
			r := data.NewStructRecord(meta)
			r.Set(0, "s3://b/k.png")
			return r
		}()), nil, `column "meta.img" holds string, want a FILE group`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Value(tc.rec)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !got.Equal(tc.want) {
				t.Errorf("Value = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
