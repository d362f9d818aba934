// Package schemaspec declares table schemas for the lab's tools: an Iceberg
// schema plus the lab's column types, FILE and VECTOR, that the Parquet
// model's writer properties put on top-level columns.
//
// Two forms are accepted. The compact form is for the command line:
//
//	id:long!,name:string,emb:vector<float32,768>,doc:variant,img:file
//
// and the JSON form is Iceberg's schema JSON (spec.md, Appendix C, "Schemas")
// whose top-level fields may also use the lab's type names "file",
// "file<child,...>" and "vector<element,dim>". Both produce the same Spec:
// the Iceberg schema, where a FILE column is a struct of FILE children
// (types/file) and a VECTOR column is fixed[dim × element width], and the
// declarations that formats/parquet reads from write.parquet.file-columns
// and write.parquet.vector-columns. There is no second mechanism: Properties
// returns exactly those writer properties.
package schemaspec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/types/file"
	"github.com/coltype-lab/lab/types/vector"
)

// The Parquet model's declaration properties (formats/parquet
// PropFileColumns and PropVectorColumns). They are repeated here, not
// imported, so that declaring a schema does not pull in a format.
const (
	PropFileColumns   = "write.parquet.file-columns"
	PropVectorColumns = "write.parquet.vector-columns"
)

// Spec is a declared schema: the Iceberg schema and the top-level columns
// that carry the lab's types.
type Spec struct {
	Schema  *iceberg.Schema
	Files   []string // FILE columns, in schema order
	Vectors []Vector // VECTOR columns, in schema order
	// Typed are the columns of registered column types (RegisterColumnType),
	// in schema order.
	Typed []Typed
}

// Vector is one VECTOR column: dim elements of one type, stored as
// fixed[dim × width] bytes, each element little-endian (types/vector).
type Vector = vector.Declaration

// Vector returns the VECTOR declaration of a top-level column.
func (s *Spec) Vector(column string) (Vector, bool) {
	i := slices.IndexFunc(s.Vectors, func(v Vector) bool { return v.Column == column })
	if i < 0 {
		return Vector{}, false
	}
	return s.Vectors[i], true
}

// IsFile reports whether a top-level column is declared FILE.
func (s *Spec) IsFile(column string) bool { return slices.Contains(s.Files, column) }

// Properties are the Parquet writer properties that declare the FILE and
// VECTOR columns; empty when there are none.
func (s *Spec) Properties() map[string]string {
	props := map[string]string{}
	if len(s.Files) > 0 {
		props[PropFileColumns] = strings.Join(s.Files, ",")
	}
	if len(s.Vectors) > 0 {
		decls := make([]string, len(s.Vectors))
		for i, v := range s.Vectors {
			decls[i] = v.String()
		}
		props[PropVectorColumns] = strings.Join(decls, ",")
	}
	for _, d := range s.Typed {
		if t, ok := lookupColumnType(d.Type); ok {
			if props[t.Property] != "" {
				props[t.Property] += ","
			}
			props[t.Property] += d.Column
		}
	}
	return props
}

// Declare adds the FILE and VECTOR columns that writer properties declare
// (write.parquet.file-columns, write.parquet.vector-columns), so a schema
// given in plain Iceberg JSON can be typed by properties instead. A column
// declared both ways must agree.
func (s *Spec) Declare(props map[string]string) error {
	for _, name := range data.ParseColumnList(props[PropFileColumns]) {
		if err := s.addFile(PropFileColumns, name); err != nil {
			return err
		}
	}
	vectors, err := vector.ParseDeclarations(props[PropVectorColumns])
	if err != nil {
		return fmt.Errorf("%s: %w", PropVectorColumns, err)
	}
	for _, v := range vectors {
		if err := s.addVector(PropVectorColumns, v); err != nil {
			return err
		}
	}
	for _, t := range registeredColumnTypes() {
		for _, name := range data.ParseColumnList(props[t.Property]) {
			if err := s.addTyped(t.Property, name, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Spec) addFile(source, name string) error {
	f, err := s.topLevel(source, name)
	if err != nil {
		return err
	}
	if _, ok := s.Vector(name); ok {
		return fmt.Errorf("%s: column %q is declared VECTOR and FILE", source, name)
	}
	st, ok := f.Type.(*iceberg.StructType)
	if !ok {
		return fmt.Errorf("%s: column %q (field id %d) has type %s; a FILE column is a struct of FILE children", source, name, f.ID, f.Type)
	}
	if _, err := file.ParseStruct(st); err != nil {
		return fmt.Errorf("%s: column %q (field id %d): %w", source, name, f.ID, err)
	}
	if !s.IsFile(name) {
		s.Files = append(s.Files, name)
		s.sortDeclarations()
	}
	return nil
}

func (s *Spec) addVector(source string, v Vector) error {
	f, err := s.topLevel(source, v.Column)
	if err != nil {
		return err
	}
	if s.IsFile(v.Column) {
		return fmt.Errorf("%s: column %q is declared FILE and VECTOR", source, v.Column)
	}
	want := v.Element.VectorBytes(v.Dim)
	if ft, ok := f.Type.(iceberg.FixedType); !ok || ft.Len() != want {
		return fmt.Errorf("%s: column %q (field id %d) has type %s; %s needs fixed[%d]", source, v.Column, f.ID, f.Type, v.TypeName(), want)
	}
	if old, ok := s.Vector(v.Column); ok {
		if old != v {
			return fmt.Errorf("%s: column %q is declared %s and %s", source, v.Column, old.TypeName(), v.TypeName())
		}
		return nil
	}
	s.Vectors = append(s.Vectors, v)
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
	slices.SortFunc(s.Files, func(a, b string) int { return pos[a] - pos[b] })
	slices.SortFunc(s.Vectors, func(a, b Vector) int { return pos[a.Column] - pos[b.Column] })
	slices.SortFunc(s.Typed, func(a, b Typed) int { return pos[a.Column] - pos[b.Column] })
}

// FromSchema builds a Spec for a schema read from a file, declaring the
// given FILE columns and VECTOR columns (as from the file's annotations).
func FromSchema(schema *iceberg.Schema, files []string, vectors []Vector) (*Spec, error) {
	s := &Spec{Schema: schema}
	for _, name := range files {
		if err := s.addFile("FILE annotation", name); err != nil {
			return nil, err
		}
	}
	for _, v := range vectors {
		if err := s.addVector("VECTOR annotation", v); err != nil {
			return nil, err
		}
	}
	return s, nil
}
