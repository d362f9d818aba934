package vectorcol

import (
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// detectLayout finds the top-level fields and the vector group's middle
// group and element through footer.SchemaTree: past nested siblings, and
// with an error, not a panic, for a schema that is no tree (a footer built
// in memory, which the decoder never checked).
func TestDetectLayoutWalksTheTree(t *testing.T) {
	group := func(name string, rep footer.FieldRepetitionType, n int32) footer.SchemaElement {
		return footer.SchemaElement{Name: name, RepetitionType: thrift.New(rep), NumChildren: thrift.New(n)}
	}
	leaf := func(name string, typ format.Type) footer.SchemaElement {
		return footer.SchemaElement{Name: name, RepetitionType: thrift.New(footer.Required), Type: thrift.New(typ)}
	}
	root := func(n int32) footer.SchemaElement {
		return footer.SchemaElement{Name: "schema", NumChildren: thrift.New(n)}
	}
	list := func() []footer.SchemaElement {
		return []footer.SchemaElement{group("embedding", footer.Optional, 1), group("list", footer.Repeated, 1), leaf("element", format.Float)}
	}
	// A struct with a nested list before the vector column, another after.
	sibling := []footer.SchemaElement{group("meta", footer.Optional, 2), leaf("id", format.Int64), group("tags", footer.Optional, 1),
		group("list", footer.Repeated, 1), leaf("element", format.Int32)}
	for _, tc := range []struct {
		name   string
		schema []footer.SchemaElement
		column string
		path   []string
		err    string
	}{
		{"only column", slices.Concat([]footer.SchemaElement{root(1)}, list()), "", []string{"embedding", "list", "element"}, ""},
		{"between nested siblings", slices.Concat([]footer.SchemaElement{root(3)}, sibling, list(), sibling), "embedding",
			[]string{"embedding", "list", "element"}, ""},
		{"a nested field is no top-level field", slices.Concat([]footer.SchemaElement{root(1)}, sibling), "id", nil, `no top-level field "id"`},
		{"middle group with two children", []footer.SchemaElement{root(1), group("embedding", footer.Optional, 1), group("list", footer.Repeated, 2),
			leaf("element", format.Float), leaf("x", format.Float)}, "", nil, "not a 3-level list or vector"},
		{"element is a group", []footer.SchemaElement{root(1), group("embedding", footer.Optional, 1), group("list", footer.Repeated, 1),
			group("element", footer.Required, 1), leaf("x", format.Float)}, "", nil, "not a 3-level list or vector"},
		{"num_children past the end", []footer.SchemaElement{root(1), group("embedding", footer.Optional, 1), group("list", footer.Repeated, 5),
			leaf("element", format.Float)}, "", nil, `schema element 2 ("list") has num_children 5, but only 1 elements follow it`},
		{"element without a parent", slices.Concat([]footer.SchemaElement{root(1)}, list(), list()), "", nil, `element 4 ("embedding") has no parent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, path, err := detectLayout(&footer.FileMetaData{Schema: tc.schema}, tc.column)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one containing %q", err, tc.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			case !slices.Equal(path, tc.path):
				t.Errorf("leaf path %v, want %v", path, tc.path)
			}
		})
	}
}
