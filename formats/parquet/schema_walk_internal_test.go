package parquet

import (
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

func schemaGroup(name string, rep footer.FieldRepetitionType, children int32) footer.SchemaElement {
	return footer.SchemaElement{Name: name, RepetitionType: thrift.New(rep), NumChildren: thrift.New(children)}
}

func schemaLeaf(name string, t format.Type) footer.SchemaElement {
	return footer.SchemaElement{Name: name, RepetitionType: thrift.New(footer.Required), Type: thrift.New(t)}
}

func vectorMiddle(length int32) footer.SchemaElement {
	g := schemaGroup("list", footer.Vector, 1)
	g.VectorLength = thrift.New(length)
	return g
}

// vectorRepetitionShape finds the VECTOR group's parent and element through
// the schema tree. Before it did, it looked at the elements just before and
// after the group; depth-first order makes that the same answer (a group
// at i-1 with one child is the parent of i), and these cases keep it so
// where the parent is not at i-1.
func TestVectorRepetitionShapeByTree(t *testing.T) {
	root := func(n int32) footer.SchemaElement {
		return footer.SchemaElement{Name: "schema", NumChildren: thrift.New(n)}
	}
	childlessVectorGroup := vectorMiddle(4)
	childlessVectorGroup.NumChildren = thrift.New[int32](0)
	for _, tc := range []struct {
		name   string
		schema []footer.SchemaElement
		at     int // the VECTOR group
		want   string
	}{
		{"PR 592 shape", []footer.SchemaElement{
			root(1), schemaGroup("v", footer.Optional, 1), vectorMiddle(4), schemaLeaf("element", format.Float),
		}, 2, ""},
		{"below a struct, after a sibling column", []footer.SchemaElement{
			root(2), schemaLeaf("id", format.Int64), schemaGroup("s", footer.Required, 1),
			schemaGroup("v", footer.Optional, 1), vectorMiddle(4), schemaLeaf("element", format.Double),
		}, 4, ""},
		{"parent has a leaf before it", []footer.SchemaElement{
			root(1), schemaGroup("v", footer.Optional, 2), schemaLeaf("x", format.Int32),
			vectorMiddle(4), schemaLeaf("element", format.Float),
		}, 3, "it is not the only child of its group"},
		{"parent has a one-child group before it", []footer.SchemaElement{
			root(1), schemaGroup("v", footer.Optional, 2), schemaGroup("g", footer.Optional, 1), schemaLeaf("y", format.Int32),
			vectorMiddle(4), schemaLeaf("element", format.Float),
		}, 4, "it is not the only child of its group"},
		{"parent has a childless group before it", []footer.SchemaElement{
			root(1), schemaGroup("v", footer.Optional, 2), schemaGroup("g", footer.Optional, 0),
			vectorMiddle(4), schemaLeaf("element", format.Float),
		}, 3, "it is not the only child of its group"},
		{"top-level VECTOR group", []footer.SchemaElement{
			root(1), vectorMiddle(4), schemaLeaf("element", format.Float),
		}, 1, "it is not the only child of its group"},
		{"repeated parent", []footer.SchemaElement{
			root(1), schemaGroup("v", footer.Repeated, 1), vectorMiddle(4), schemaLeaf("element", format.Float),
		}, 2, `its parent "v" is REPEATED`},
		{"element is a group", []footer.SchemaElement{
			root(1), schemaGroup("v", footer.Optional, 1), vectorMiddle(4), schemaGroup("element", footer.Required, 1),
			schemaLeaf("x", format.Float),
		}, 2, "it is not a group of one element leaf"},
		{"childless VECTOR group", []footer.SchemaElement{
			root(2), schemaGroup("v", footer.Optional, 1), childlessVectorGroup, schemaLeaf("x", format.Float),
		}, 2, "it is not a group of one element leaf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := footer.NewSchemaTree(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			got := vectorRepetitionShape(tree, tc.schema, tc.at)
			if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
				t.Errorf("vectorRepetitionShape = %q, want %q", got, tc.want)
			}
		})
	}
}
