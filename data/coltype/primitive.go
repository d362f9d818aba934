package coltype

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
)

// Primitive describes a type whose columns hold one Iceberg primitive and
// whose JSON is that primitive's (a score in [0, 1] is a double), so that
// registering it takes a few fields instead of a Decl implementation.
type Primitive struct {
	// Name, Property and Annotation are the Type's.
	Name, Property, Annotation string
	// Iceberg is the columns' Iceberg type.
	Iceberg iceberg.PrimitiveType
	// Check, when set, refuses a decoded JSON value outside the type.
	Check func(v any) error
	// Format, when set, renders a value for lab inspect; the default is
	// the Go value's %v.
	Format func(v any) string
}

// RegisterPrimitive registers p as a Type (Register) and returns it. Its
// only spelling is its name, and its property lists bare column names:
// the field's type is the whole declaration.
func RegisterPrimitive(p Primitive) *Type {
	if p.Iceberg == nil {
		panic(fmt.Sprintf("coltype: RegisterPrimitive: %s has no Iceberg type", p.Name))
	}
	t := &Type{Name: p.Name, Property: p.Property, Annotation: p.Annotation}
	t.Parse = func(column, spelling string) (Decl, error) {
		if s := strings.TrimSpace(spelling); s != p.Name {
			return nil, fmt.Errorf("column %q: %q is not %s (the type has no parameters)", column, s, p.Name)
		}
		return primitiveDecl{t: t, p: &p, column: column}, nil
	}
	t.FromField = func(f iceberg.NestedField) (Decl, error) {
		return primitiveDecl{t: t, p: &p, column: f.Name}.Bind(f)
	}
	Register(t)
	return t
}

type primitiveDecl struct {
	t      *Type
	p      *Primitive
	column string
}

func (d primitiveDecl) Type() *Type        { return d.t }
func (d primitiveDecl) ColumnName() string { return d.column }
func (d primitiveDecl) TypeName() string   { return d.p.Name }

func (d primitiveDecl) IcebergType(int) (iceberg.Type, error) { return d.p.Iceberg, nil }

func (d primitiveDecl) Bind(f iceberg.NestedField) (Decl, error) {
	if !f.Type.Equals(d.p.Iceberg) {
		return nil, fmt.Errorf("has type %s; %s is %s", f.Type, d.p.Name, d.p.Iceberg)
	}
	d.column = f.Name
	return d, nil
}

func (d primitiveDecl) DecodeJSON(text []byte, plain Decoder) (any, error) {
	v, err := plain(text)
	if err != nil || d.p.Check == nil {
		return v, err
	}
	if err := d.p.Check(v); err != nil {
		return nil, err
	}
	return v, nil
}

func (d primitiveDecl) AppendJSON(dst []byte, v any, plain Encoder) ([]byte, error) {
	return plain(dst, v)
}

func (d primitiveDecl) Format(v any) string {
	if d.p.Format != nil {
		return d.p.Format(v)
	}
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return fmt.Sprint(v)
}
