package colmetrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go/format"

	pqfooter "github.com/coltype-lab/lab/formats/parquet/footer"
)

// footerSchema is a footer's flattened, depth-first schema with its tree,
// walked by footer.SchemaTree, the project's one schema walker.
type footerSchema struct {
	elems []format.SchemaElement
	tree  *pqfooter.SchemaTree // nil when the footer has no schema at all
}

// newFooterSchema builds the tree of elems. Metrics are taken from footers
// the lab's writers have just written, which are always one well-formed
// tree; a list that is not one is an error naming the element at fault,
// and the caller leaves out the metrics that need it rather than guess.
// An empty list (a footer built in memory without a schema) has no
// columns.
func newFooterSchema(elems []format.SchemaElement) (*footerSchema, error) {
	s := &footerSchema{elems: elems}
	if len(elems) == 0 {
		return s, nil
	}
	tree, err := pqfooter.NewFormatSchemaTree(elems)
	if err != nil {
		return nil, fmt.Errorf("colmetrics: footer schema: %w", err)
	}
	s.tree = tree
	return s, nil
}

// walk calls visit for every element below the root, in schema order,
// with its path (the root's name is not part of any path_in_schema) and
// whether it is a leaf: a column, with a physical type and no children. A
// group has children; an element with neither (a group without children)
// is not visited. A path is only valid during the call.
func (s *footerSchema) walk(visit func(i int, path []string, leaf bool)) {
	if s.tree == nil {
		return
	}
	paths := make([][]string, len(s.elems))
	for i := 1; i < len(s.elems); i++ {
		parent := paths[s.tree.Parent(i)]
		// Clip so that siblings never share the appended name.
		paths[i] = append(slices.Clip(parent), s.elems[i].Name)
		switch {
		case len(s.tree.Children(i)) > 0:
			visit(i, paths[i], false)
		case s.tree.Leaf(i):
			visit(i, paths[i], true)
		}
	}
}

// leafFieldIDs maps the path of every leaf to the leaf's field id. Leaves
// without a field id are left out, and so are ids carried by more than one
// leaf, whose chunks could not be told apart. parquet-go encodes field id 0
// as absent, so 0 counts as no id.
func (s *footerSchema) leafFieldIDs() map[string]int { return s.fieldIDs(true) }

// groupFieldIDs is leafFieldIDs for groups: the path of every group with a
// field id (a struct, list, map or variant) to that id.
func (s *footerSchema) groupFieldIDs() map[string]int { return s.fieldIDs(false) }

func (s *footerSchema) fieldIDs(leaves bool) map[string]int {
	ids := map[string]int{}
	seen := map[int]int{}
	s.walk(func(i int, path []string, leaf bool) {
		if e := &s.elems[i]; leaf == leaves && e.FieldID != 0 {
			id := int(e.FieldID)
			seen[id]++
			ids[pathKey(path)] = id
		}
	})
	for path, id := range ids {
		if seen[id] > 1 {
			delete(ids, path)
		}
	}
	return ids
}

// pathKey joins path elements with a byte that Parquet names do not contain
// in practice, unlike ".", which field names may.
func pathKey(path []string) string { return strings.Join(path, "\x00") }
