package footer

import (
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

func TestSchemaTree(t *testing.T) {
	leaf := func(name string) SchemaElement { return SchemaElement{Name: name, Type: thrift.New(format.Int32)} }
	group := func(name string, n int32) SchemaElement { return SchemaElement{Name: name, NumChildren: thrift.New(n)} }
	// root { a; g { b; h { c; d } }; empty {}; e }
	s := []SchemaElement{group("root", 4), leaf("a"), group("g", 2), leaf("b"), group("h", 2), leaf("c"), leaf("d"), group("empty", 0), leaf("e")}
	tree, err := NewSchemaTree(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.Children(0); !slices.Equal(got, []int{1, 2, 7, 8}) {
		t.Fatalf("top level %v", got)
	}
	for _, tc := range []struct{ i, end, leaves int }{{1, 2, 1}, {2, 7, 3}, {4, 7, 2}, {7, 8, 0}, {8, 9, 1}, {0, 9, 5}} {
		if end, leaves := tree.Subtree(tc.i); end != tc.end || leaves != tc.leaves {
			t.Errorf("Subtree(%d) = %d, %d; want %d, %d", tc.i, end, leaves, tc.end, tc.leaves)
		}
	}
	if p := tree.Path(6); strings.Join(p, ".") != "g.h.d" || tree.Parent(6) != 4 {
		t.Errorf("Path(6) = %v, parent %d", p, tree.Parent(6))
	}
	if i, err := tree.Find([]string{"g", "h", "c"}); err != nil || i != 5 {
		t.Errorf("Find(g.h.c) = %d, %v", i, err)
	}
	if _, err := NewSchemaTree(s[:5]); err == nil || !strings.Contains(err.Error(), "num_children") {
		t.Errorf("a truncated schema: %v", err)
	}
}
