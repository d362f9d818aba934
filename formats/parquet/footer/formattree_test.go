package footer

import (
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// NewFormatSchemaTree builds, from parquet-go's model, the tree that
// NewSchemaTree builds from the lab's, and refuses the same lists.
func TestFormatSchemaTree(t *testing.T) {
	leaf := func(name string) format.SchemaElement {
		return format.SchemaElement{Name: name, Type: thrift.New(format.Int32)}
	}
	group := func(name string, n int32) format.SchemaElement {
		return format.SchemaElement{Name: name, NumChildren: thrift.New(n)}
	}
	// root { a; g { b; h { c; d } }; empty {}; e; z (typed, num_children 0) }
	typedZero := leaf("z")
	typedZero.NumChildren = thrift.New[int32](0)
	s := []format.SchemaElement{group("root", 5), leaf("a"), group("g", 2), leaf("b"), group("h", 2), leaf("c"), leaf("d"), group("empty", 0), leaf("e"), typedZero}
	tree, err := NewFormatSchemaTree(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.Children(0); !slices.Equal(got, []int{1, 2, 7, 8, 9}) {
		t.Errorf("top level %v", got)
	}
	if got := tree.Children(4); !slices.Equal(got, []int{5, 6}) {
		t.Errorf("children of h %v", got)
	}
	if p := tree.Path(6); strings.Join(p, ".") != "g.h.d" || tree.Parent(6) != 4 {
		t.Errorf("Path(6) = %v, parent %d", p, tree.Parent(6))
	}
	// The columns are what parquet-go gives a chunk: typed and childless.
	var leaves []int
	for i := range s {
		if tree.Leaf(i) {
			leaves = append(leaves, i)
		}
	}
	if want := []int{1, 3, 5, 6, 8, 9}; !slices.Equal(leaves, want) {
		t.Errorf("leaves %v, want %v", leaves, want)
	}

	for _, tc := range []struct {
		name   string
		schema []format.SchemaElement
		want   string
	}{
		{"empty", nil, "no elements"},
		{"truncated", s[:5], `schema element 0 ("root") has num_children 5, but only 4 elements follow it`},
		{"negative", []format.SchemaElement{group("root", 1), group("g", -1)}, "num_children -1"},
		{"orphan", []format.SchemaElement{group("root", 1), leaf("a"), leaf("b")}, `element 2 ("b") has no parent`},
	} {
		if _, err := NewFormatSchemaTree(tc.schema); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
