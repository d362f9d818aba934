package filecol

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/file"
)

// Column is one FILE column of a Parquet file, planned for a read of that
// column alone.
type Column struct {
	Name   string // the dotted path from the root
	ID     int    // its field id
	Layout *file.Layout
	// Annotated: the footer annotates the column FILE. A column that is only
	// FILE-shaped is still a Column; the caller decides whether to warn.
	Annotated bool
	// Projection reads only this column; path gives the position at each
	// struct level of the projected record on the way to it.
	Projection *iceberg.Schema
	path       []int
}

// ColumnError is a readable file without the FILE column asked for: the
// caller named the wrong column (a usage error, not a bad file).
type ColumnError struct{ msg string }

func (e *ColumnError) Error() string { return e.msg }

// Lookup finds the FILE column named column (a top-level name, or a dotted
// path through structs) in a Parquet file's schema, as a reader without
// projection reads it, and its footer annotations. A column that is
// missing, not a group of FILE children, or inside a list or map (many
// values per row) is a *ColumnError naming it.
func Lookup(schema *iceberg.Schema, anns []footer.Annotation, column string) (*Column, error) {
	bad := func(format string, args ...any) error { return &ColumnError{fmt.Sprintf(format, args...)} }
	field, ok := schema.FindFieldByName(column)
	if !ok {
		names := make([]string, 0, len(schema.Fields()))
		for _, f := range schema.Fields() {
			names = append(names, f.Name)
		}
		return nil, bad("no column %q (columns: %s)", column, strings.Join(names, ", "))
	}
	full, _ := schema.FindColumnName(field.ID)
	st, ok := field.Type.(*iceberg.StructType)
	if !ok {
		return nil, bad("column %q (field id %d) has type %s; a FILE column is a group of FILE children (%s)",
			full, field.ID, field.Type, file.FieldNames())
	}
	annotated := slices.ContainsFunc(anns, func(a footer.Annotation) bool {
		return a.Kind == footer.KindFile && strings.Join(a.Path, ".") == full
	})
	layout, err := file.ParseStruct(st)
	if err != nil {
		if annotated {
			return nil, bad("column %q (field id %d) is annotated FILE but its group is not FILE-shaped: %v", full, field.ID, err)
		}
		return nil, bad("column %q (field id %d) is not a FILE column: %v", full, field.ID, err)
	}
	proj, err := iceberg.PruneColumns(schema, map[int]iceberg.Void{field.ID: {}}, true)
	if err != nil {
		return nil, fmt.Errorf("projecting column %q (field id %d): %w", full, field.ID, err)
	}
	path, err := structPath(proj.AsStruct(), field.ID)
	if err != nil {
		return nil, bad("column %q (field id %d): %v", full, field.ID, err)
	}
	return &Column{Name: full, ID: field.ID, Layout: layout, Annotated: annotated, Projection: proj, path: path}, nil
}

// Value is the column's value in rec, a record read with c.Projection:
// nil for a null value (or a null struct on the way to it).
func (c *Column) Value(rec *data.Record) (*file.Value, error) {
	var x any = rec
	for _, p := range c.path {
		r, _ := x.(*data.Record)
		if r == nil {
			return nil, nil
		}
		x = r.Get(p)
	}
	if x == nil {
		return nil, nil
	}
	group, ok := x.(*data.Record)
	if !ok {
		return nil, fmt.Errorf("column %q holds %T, want a FILE group", c.Name, x)
	}
	return c.Layout.Decode(group)
}

// structPath finds the field id in a pruned struct, through structs only:
// a FILE column inside a list or map has many values per row.
func structPath(st iceberg.StructType, id int) ([]int, error) {
	for i, f := range st.FieldList {
		if f.ID == id {
			return []int{i}, nil
		}
		inner, ok := f.Type.(*iceberg.StructType)
		if !ok {
			if containsID(f.Type, id) {
				return nil, fmt.Errorf("it sits inside %s %q, which holds many values per row; only columns reached through structs can be resolved", f.Type, f.Name)
			}
			continue
		}
		if rest, err := structPath(*inner, id); err != nil {
			return nil, err
		} else if rest != nil {
			return append([]int{i}, rest...), nil
		}
	}
	return nil, nil
}

func containsID(t iceberg.Type, id int) bool {
	nt, ok := t.(iceberg.NestedType)
	if !ok {
		return false
	}
	for _, f := range nt.Fields() {
		if f.ID == id || containsID(f.Type, id) {
			return true
		}
	}
	return false
}
