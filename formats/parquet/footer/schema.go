package footer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
)

// maxSchemaDepth bounds the nesting of the schema tree: the lab's one schema
// limit. Real schemas are a few levels deep; the bound keeps per-column work
// (paths, checks, and iceberg-go's name index over the schema read from the
// file, which is quadratic in the depth) small on hostile footers. Root is
// depth 0, a top-level column 1, as parquet-go counts (its MaxColumnDepth is
// the same 255).
const maxSchemaDepth = data.MaxSchemaDepth

// schemaTree is the tree that the flat, depth-first schema list describes.
// It is built without recursion and refuses lists whose num_children do not
// add up to exactly one tree.
type schemaTree struct {
	schema   []SchemaElement
	parent   []int   // parent index per element, -1 for the root
	children [][]int // child indexes per element
	depth    []int   // 0 for the root
}

func newSchemaTree(schema []SchemaElement) (*schemaTree, error) {
	if len(schema) == 0 {
		return nil, fmt.Errorf("schema has no elements (not even a root)")
	}
	t := &schemaTree{
		schema:   schema,
		parent:   make([]int, len(schema)),
		children: make([][]int, len(schema)),
		depth:    make([]int, len(schema)),
	}
	t.parent[0] = -1
	type open struct{ node, remaining int }
	count := func(i int) (int, error) {
		n := schema[i].NumChildren
		if !n.Valid {
			return 0, nil
		}
		if n.V < 0 {
			return 0, fmt.Errorf("schema element %d (%q) has num_children %d", i, schema[i].Name, n.V)
		}
		if left := len(schema) - i - 1; int(n.V) > left {
			return 0, fmt.Errorf("schema element %d (%q) has num_children %d, but only %d elements follow it",
				i, schema[i].Name, n.V, left)
		}
		return int(n.V), nil
	}
	rootChildren, err := count(0)
	if err != nil {
		return nil, err
	}
	stack := []open{{0, rootChildren}}
	next := 1
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.remaining == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		if next >= len(schema) {
			return nil, fmt.Errorf("schema element %d (%q) expects more children than the schema's %d elements hold",
				top.node, schema[top.node].Name, len(schema))
		}
		top.remaining--
		i, p := next, top.node
		next++
		t.parent[i] = p
		t.depth[i] = t.depth[p] + 1
		t.children[p] = append(t.children[p], i)
		if t.depth[i] > maxSchemaDepth {
			return nil, fmt.Errorf("schema element %d (%q) is nested %d levels deep, more than %d: %w",
				i, schema[i].Name, t.depth[i], maxSchemaDepth, data.ErrSchemaTooDeep)
		}
		n, err := count(i)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			stack = append(stack, open{i, n})
		}
	}
	if next != len(schema) {
		return nil, fmt.Errorf("schema has %d elements, but the tree under root %q holds only %d; element %d (%q) has no parent",
			len(schema), schema[0].Name, next, next, schema[next].Name)
	}
	return t, nil
}

// path returns the column path of element i: the names from below the root.
func (t *schemaTree) path(i int) []string {
	var p []string
	for ; i > 0; i = t.parent[i] {
		p = append(p, t.schema[i].Name)
	}
	slices.Reverse(p)
	return p
}

// find returns the element at path, refusing ambiguous sibling names.
func (t *schemaTree) find(path []string) (int, error) {
	if len(path) == 0 {
		return 0, fmt.Errorf("empty column path")
	}
	node := 0
	for depth, name := range path {
		found := -1
		for _, c := range t.children[node] {
			if t.schema[c].Name != name {
				continue
			}
			if found >= 0 {
				return 0, fmt.Errorf("column path %s is ambiguous: %q appears twice under %s",
					pathString(path), name, pathString(path[:depth]))
			}
			found = c
		}
		if found < 0 {
			return 0, fmt.Errorf("column path %s not found: no %q under %s", pathString(path), name, pathString(path[:depth]))
		}
		node = found
	}
	return node, nil
}

// leaves returns the leaf elements in schema order (one per column chunk).
func (t *schemaTree) leaves() []int {
	var out []int
	for i := 1; i < len(t.schema); i++ {
		if (&SchemaTree{t}).Leaf(i) {
			out = append(out, i)
		}
	}
	return out
}

func pathString(path []string) string {
	if len(path) == 0 {
		return "<root>"
	}
	return strings.Join(path, ".")
}

// SchemaTree is the tree of a flattened, depth-first schema, checked to be
// well formed: every num_children fits the elements after it, every element
// below the root has a parent, and nesting stays within the lab's depth
// limit. It is the one walker of a footer's schema: callers ask it for
// children, paths and subtrees instead of counting num_children themselves.
type SchemaTree struct{ t *schemaTree }

// NewSchemaTree builds the tree of schema, or says what keeps it from being
// one, naming the element.
func NewSchemaTree(schema []SchemaElement) (*SchemaTree, error) {
	t, err := newSchemaTree(schema)
	if err != nil {
		return nil, err
	}
	return &SchemaTree{t}, nil
}

// NewFormatSchemaTree is NewSchemaTree for a schema in parquet-go's model,
// for code that reads a footer through parquet-go. It carries over only
// what the tree is built from (names, physical types, num_children), so it
// is the same tree NewSchemaTree builds from the lab's decoding of the same
// bytes, and there is still one tree implementation.
func NewFormatSchemaTree(schema []format.SchemaElement) (*SchemaTree, error) {
	s := make([]SchemaElement, len(schema))
	for i := range schema {
		e := &schema[i]
		s[i] = SchemaElement{Name: e.Name, Type: e.Type, NumChildren: e.NumChildren}
	}
	return NewSchemaTree(s)
}

// Leaf reports whether element i is a column, one column chunk per row
// group: it has a physical type and no children. That is how parquet-go,
// parquet-java and arrow find the columns, so a group without children is
// no column, and a typed element with num_children 0 is one; Subtree counts
// leaves by it too.
func (t *SchemaTree) Leaf(i int) bool {
	return len(t.t.children[i]) == 0 && t.t.schema[i].Type.Valid
}

// Children are element i's direct children, in schema order (the root is 0).
func (t *SchemaTree) Children(i int) []int { return t.t.children[i] }

// Parent is element i's parent, -1 for the root.
func (t *SchemaTree) Parent(i int) int { return t.t.parent[i] }

// Path is element i's column path: the names below the root.
func (t *SchemaTree) Path(i int) []string { return t.t.path(i) }

// Find returns the element at a column path, refusing ambiguous sibling
// names.
func (t *SchemaTree) Find(path []string) (int, error) { return t.t.find(path) }

// Subtree returns the index just past element i's subtree (its descendants
// follow it contiguously) and the number of leaves in it.
func (t *SchemaTree) Subtree(i int) (end, leaves int) {
	end = i + 1
	if t.Leaf(i) {
		return end, 1
	}
	for _, c := range t.t.children[i] {
		var l int
		end, l = t.Subtree(c)
		leaves += l
	}
	return end, leaves
}
