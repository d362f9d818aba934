package colmetrics

import (
	"strings"

	"github.com/parquet-go/parquet-go/format"
)

// leafFieldIDs maps the path of every leaf in a footer's flattened,
// depth-first schema to the leaf's field id. Leaves without a field id are
// left out, and so are ids carried by more than one leaf, whose chunks could
// not be told apart. parquet-go encodes field id 0 as absent, so 0 counts as
// no id. A malformed element list stops the walk instead of panicking.
func leafFieldIDs(elems []format.SchemaElement) map[string]int {
	return fieldIDs(elems, true)
}

// groupFieldIDs is leafFieldIDs for groups: the path of every group with a
// field id (a struct, list, map or variant) to that id.
func groupFieldIDs(elems []format.SchemaElement) map[string]int {
	return fieldIDs(elems, false)
}

func fieldIDs(elems []format.SchemaElement, leaves bool) map[string]int {
	ids := map[string]int{}
	seen := map[int]int{}
	walkSchema(elems, func(i int, path []string, leaf bool) {
		if e := &elems[i]; leaf == leaves && e.FieldID != 0 {
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

// walkSchema calls visit for every element below the root of a flattened
// schema, with its path (the root's name is not part of any
// path_in_schema) and whether it is a leaf. A path is only valid during the
// call.
func walkSchema(elems []format.SchemaElement, visit func(i int, path []string, leaf bool)) {
	if len(elems) == 0 {
		return
	}
	var walk func(i int, path []string) int
	walk = func(i int, path []string) int {
		e := &elems[i]
		// Clip so that siblings never share the appended name.
		path = append(path[:len(path):len(path)], e.Name)
		if n := int(e.NumChildren.V); e.NumChildren.Valid && n > 0 {
			visit(i, path, false)
			next := i + 1
			for k := 0; k < n && next < len(elems); k++ {
				next = walk(next, path)
			}
			return next
		}
		if e.Type.Valid {
			visit(i, path, true)
		}
		return i + 1
	}
	root := elems[0]
	next := 1
	for k := 0; k < int(root.NumChildren.V) && next < len(elems); k++ {
		next = walk(next, nil)
	}
}

// pathKey joins path elements with a byte that Parquet names do not contain
// in practice, unlike ".", which field names may.
func pathKey(path []string) string { return strings.Join(path, "\x00") }
