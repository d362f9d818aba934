// Package schemaspec declares table schemas for the lab's tools: an Iceberg
// schema plus the top-level columns of the lab's value-level types (FILE,
// VECTOR, and any type a package registers with data/coltype), which the
// Parquet model's writer properties declare.
//
// Two forms are accepted. The compact form is for the command line:
//
//	id:long!,name:string,emb:vector<float32,768>,doc:variant,img:file
//
// and the JSON form is Iceberg's schema JSON (spec.md, Appendix C) whose
// top-level fields may also use a registered type's spelling, such as
// "file", "file<child,...>" and "vector<element,dim>". Both produce the same
// Spec: the Iceberg schema, where each registered type's column has the
// Iceberg type the type gives it (a FILE column is a struct of FILE
// children, a VECTOR column fixed[dim × element width]), and the
// declarations that the types' writer properties carry
// (write.parquet.file-columns, write.parquet.vector-columns, ...). There is
// no second mechanism: Properties returns exactly those writer properties.
//
// This package knows no column type itself; it reads and writes them
// through data/coltype. A program that declares FILE or VECTOR columns
// links types/file and types/vector (a blank import does).
package schemaspec

import (
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data/coltype"
)

// Spec is a declared schema: the Iceberg schema and the top-level columns
// that carry registered types.
type Spec struct {
	Schema *iceberg.Schema
	// Decls are the columns of registered types, bound to their fields, in
	// schema order (types/vector Columns and types/file Columns pick out
	// VECTOR and FILE).
	Decls []coltype.Decl
}

// Decl returns the declaration of a top-level column.
func (s *Spec) Decl(column string) (coltype.Decl, bool) {
	i := slices.IndexFunc(s.Decls, func(d coltype.Decl) bool { return d.ColumnName() == column })
	if i < 0 {
		return nil, false
	}
	return s.Decls[i], true
}

// Properties are the writer properties that declare the columns of
// registered types; empty when there are none. Each type's property lists
// its columns in schema order (coltype.PropertyEntry).
func (s *Spec) Properties() map[string]string {
	props := map[string]string{}
	for _, d := range s.Decls {
		p := d.Type().Property
		if props[p] != "" {
			props[p] += ","
		}
		props[p] += coltype.PropertyEntry(d)
	}
	return props
}

// Declare adds the columns that writer properties declare (each registered
// type's property), so a schema given in plain Iceberg JSON can be typed by
// properties instead. A column declared both ways must agree.
func (s *Spec) Declare(props map[string]string) error {
	for _, t := range coltype.Types() {
		for _, e := range coltype.ParseEntries(props[t.Property]) {
			d, err := s.parseEntry(t, e)
			if err != nil {
				return err
			}
			if err := s.add(t.Property, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseEntry reads one property entry: a bare column name for a type its
// field declares (FromField), COLUMN:SPELLING for the others.
func (s *Spec) parseEntry(t *coltype.Type, e coltype.Entry) (coltype.Decl, error) {
	switch {
	case e.Column == "":
		return nil, fmt.Errorf("%s: %q has no column name", t.Property, e.Column+":"+e.Spelling)
	case t.FromField != nil && e.Spelling != "":
		return nil, fmt.Errorf("%s: %q: the property lists column names (a %s column's field says the rest)", t.Property, e.Column+":"+e.Spelling, t.Display())
	case t.FromField != nil:
		f, err := s.topLevel(t.Property, e.Column)
		if err != nil {
			return nil, err
		}
		if old, ok := s.Decl(e.Column); ok && old.Type() != t {
			return nil, fmt.Errorf("%s: column %q is declared %s and %s", t.Property, e.Column, old.Type().Display(), t.Display())
		}
		d, err := t.FromField(f)
		if err != nil {
			return nil, fmt.Errorf("%s: column %q (field id %d) %w", t.Property, e.Column, f.ID, err)
		}
		return d, nil
	}
	d, err := t.Parse(e.Column, e.Spelling)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Property, err)
	}
	return d, nil
}

// add declares a column of a registered type, binding d to the schema's
// field of that name; source names the declaration in errors.
func (s *Spec) add(source string, d coltype.Decl) error {
	name := d.ColumnName()
	f, err := s.topLevel(source, name)
	if err != nil {
		return err
	}
	old, declared := s.Decl(name)
	if declared && old.Type() != d.Type() {
		return fmt.Errorf("%s: column %q is declared %s and %s", source, name, old.Type().Display(), d.Type().Display())
	}
	bound, err := d.Bind(f)
	if err != nil {
		return fmt.Errorf("%s: column %q (field id %d) %w", source, name, f.ID, err)
	}
	if declared {
		if old.TypeName() != bound.TypeName() {
			return fmt.Errorf("%s: column %q is declared %s and %s", source, name, old.TypeName(), bound.TypeName())
		}
		return nil
	}
	s.Decls = append(s.Decls, bound)
	s.sortDeclarations()
	return nil
}

func (s *Spec) topLevel(source, name string) (iceberg.NestedField, error) {
	for _, f := range s.Schema.Fields() {
		if f.Name == name {
			return f, nil
		}
	}
	return iceberg.NestedField{}, fmt.Errorf("%s: %q is not a top-level column of the schema", source, name)
}

// sortDeclarations keeps declarations in schema order, so a Spec built from
// either form, or from a file's annotations, compares and prints the same.
func (s *Spec) sortDeclarations() {
	pos := map[string]int{}
	for i, f := range s.Schema.Fields() {
		pos[f.Name] = i
	}
	slices.SortStableFunc(s.Decls, func(a, b coltype.Decl) int { return pos[a.ColumnName()] - pos[b.ColumnName()] })
}

// FromSchema builds a Spec for a schema read from a file (or projected
// from another Spec's), declaring the given columns: each is bound to the
// schema's field of its name, so a FILE declaration takes the children
// that field has.
func FromSchema(schema *iceberg.Schema, decls []coltype.Decl) (*Spec, error) {
	s := &Spec{Schema: schema}
	for _, d := range decls {
		if err := s.add(d.Type().Display()+" annotation", d); err != nil {
			return nil, err
		}
	}
	return s, nil
}
