package file

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
)

// PropColumns is the writer property that declares FILE columns (the
// Parquet model's write.parquet.file-columns): top-level column names,
// comma-separated; each column's struct says its children.
const PropColumns = "write.parquet.file-columns"

// TypeName is FILE's name in schemas: "file" (every child) or
// "file<uri,size>" (the children named).
const TypeName = "file"

// Type is FILE's entry in the value-level registry (data/coltype): the
// schema forms, JSON rows and lab inspect know FILE through it.
var Type = &coltype.Type{
	Name:        TypeName,
	Property:    PropColumns,
	Annotation:  "FILE",
	ReservedIDs: len(AllFields), // the mirror's child ids, declared or not
	Parse:       parseDecl,
	FromField: func(f iceberg.NestedField) (coltype.Decl, error) {
		return Decl{column: f.Name}.Bind(f)
	},
}

func init() { coltype.Register(Type) }

// Decl is a FILE column's declaration: the children it declares and, once
// bound to its field, where they sit.
type Decl struct {
	column string
	fields []Field
	layout *Layout
}

func parseDecl(column, spelling string) (coltype.Decl, error) {
	s := strings.TrimSpace(spelling)
	rest, ok := strings.CutPrefix(s, TypeName)
	if !ok {
		return nil, fmt.Errorf("column %q: %q is not file or file<child,...>", column, s)
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return Decl{column: column, fields: AllFields}, nil
	}
	inner, ok := strings.CutPrefix(rest, "<")
	if !ok || !strings.HasSuffix(inner, ">") {
		return nil, fmt.Errorf("column %q: %q is not file or file<child,...>", column, s)
	}
	var fields []Field
	for _, name := range strings.Split(strings.TrimSuffix(inner, ">"), ",") {
		name = strings.TrimSpace(name)
		f, ok := FieldByName(name)
		if !ok {
			return nil, fmt.Errorf("column %q: %q is not a FILE child (uri, offset, size, content_type, checksum, inline)", column, name)
		}
		for _, g := range fields {
			if g == f {
				return nil, fmt.Errorf("column %q: FILE child %s named twice", column, f)
			}
		}
		fields = append(fields, f)
	}
	return Decl{column: column, fields: fields}, nil
}

// Columns are the FILE columns among decls (a schemaspec.Spec's), in order.
func Columns(decls []coltype.Decl) []string {
	var out []string
	for _, d := range decls {
		if _, ok := d.(Decl); ok {
			out = append(out, d.ColumnName())
		}
	}
	return out
}

// Type is the registered FILE type.
func (d Decl) Type() *coltype.Type { return Type }

// ColumnName is the declared column.
func (d Decl) ColumnName() string { return d.column }

// TypeName is file<children>, the children in spec order.
func (d Decl) TypeName() string {
	names := make([]string, 0, len(d.fields))
	for _, f := range AllFields {
		for _, g := range d.fields {
			if f == g {
				names = append(names, f.Name())
			}
		}
	}
	return TypeName + "<" + strings.Join(names, ",") + ">"
}

// IcebergType is the struct of the declared children at the mirror's ids
// after id.
func (d Decl) IcebergType(id int) (iceberg.Type, error) { return NewStruct(id, d.fields...) }

// Bind checks that f is a struct of FILE children (ParseStruct).
func (d Decl) Bind(f iceberg.NestedField) (coltype.Decl, error) {
	st, ok := f.Type.(*iceberg.StructType)
	if !ok {
		return nil, fmt.Errorf("has type %s; a FILE column is a struct of FILE children", f.Type)
	}
	layout, err := ParseStruct(st)
	if err != nil {
		return nil, fmt.Errorf("is not a FILE group: %w", err)
	}
	return Decl{column: f.Name, fields: layout.Fields(), layout: layout}, nil
}

// Layout is where the bound field's children sit; nil before Bind.
func (d Decl) Layout() *Layout { return d.layout }

// Value decodes a value of the bound column (a *data.Record of its struct).
func (d Decl) Value(v any) (*Value, error) {
	r, ok := v.(*data.Record)
	if !ok {
		return nil, fmt.Errorf("FILE value holds a Go %T, not a record", v)
	}
	if d.layout == nil {
		return nil, fmt.Errorf("FILE column %q is not bound to its field", d.column)
	}
	return d.layout.Decode(r)
}

// DecodeJSON reads an object with the FILE children ({"uri", "offset",
// "size", "content_type", "checksum", "inline"}, inline in hex: the
// struct's own JSON) and applies the FILE spec's validation rules. The spec
// lets a writer store an invalid value as null; the lab refuses it instead,
// as formats/parquet does, so no data is lost.
func (d Decl) DecodeJSON(text []byte, plain coltype.Decoder) (any, error) {
	v, err := plain(text)
	if err != nil {
		return nil, err
	}
	fv, err := d.Value(v)
	if err != nil {
		return nil, err
	}
	if err := fv.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}

// AppendJSON writes the struct's own JSON.
func (d Decl) AppendJSON(dst []byte, v any, plain coltype.Encoder) ([]byte, error) {
	return plain(dst, v)
}

// formatWidth is about how many columns Format takes.
const formatWidth = 60

// Format is the value as Value.String renders it, cut to a line.
func (d Decl) Format(v any) string {
	fv, err := d.Value(v)
	if err != nil {
		return "not a FILE value"
	}
	s := fv.String()
	if utf8.RuneCountInString(s) > formatWidth {
		s = string([]rune(s)[:formatWidth-1]) + "…"
	}
	return s
}
