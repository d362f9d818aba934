package schemaspec

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"sync"

	"github.com/apache/iceberg-go"
)

// A ColumnType is a column type a package declares in schemas beside FILE
// and VECTOR: a name the compact and JSON forms take as a type
// ("score:unit_interval"), the Iceberg type its columns have, and the writer
// property that declares them to the format (the property its
// formats/parquet column binding reads). The package registers it from init
// with RegisterColumnType, so `lab write --schema` and Properties know it
// without this package importing it (DESIGN.md, "Layout").
//
// It covers types whose data is one Iceberg primitive and whose JSON row
// form is that primitive's: the Iceberg type's own JSON codec (data/jsonrow)
// reads and writes its values, and the binding checks them on write.
type ColumnType struct {
	// Name is the type's name in schemas: lower case, as the compact
	// form's types are.
	Name string
	// Type is its columns' Iceberg type.
	Type iceberg.PrimitiveType
	// Property is the writer property that lists its columns,
	// comma-separated.
	Property string
}

var columnTypes struct {
	sync.RWMutex
	byName map[string]ColumnType
}

var typeNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// RegisterColumnType makes a column type known to the schema forms. It is
// meant for init functions and panics, as database/sql.Register does, on a
// malformed type or a name or property already taken, which would make a
// schema mean two things.
func RegisterColumnType(t ColumnType) {
	switch {
	case !typeNamePattern.MatchString(t.Name):
		panic(fmt.Sprintf("schemaspec: RegisterColumnType: name %q is not a lower-case identifier", t.Name))
	case primitiveTypes[t.Name] != nil || slices.Contains([]string{"file", "vector", "list", "map", "struct", "decimal", "fixed"}, t.Name):
		panic(fmt.Sprintf("schemaspec: RegisterColumnType: %q is a type of the schema forms", t.Name))
	case t.Type == nil:
		panic(fmt.Sprintf("schemaspec: RegisterColumnType: %s has no Iceberg type", t.Name))
	case t.Property == "" || t.Property == PropFileColumns || t.Property == PropVectorColumns:
		panic(fmt.Sprintf("schemaspec: RegisterColumnType: %s: property %q is empty or FILE's or VECTOR's", t.Name, t.Property))
	}
	columnTypes.Lock()
	defer columnTypes.Unlock()
	if columnTypes.byName == nil {
		columnTypes.byName = map[string]ColumnType{}
	}
	for _, other := range columnTypes.byName {
		if other.Name == t.Name || other.Property == t.Property {
			panic(fmt.Sprintf("schemaspec: RegisterColumnType: %s collides with %s (name or property %s)", t.Name, other.Name, other.Property))
		}
	}
	columnTypes.byName[t.Name] = t
}

func lookupColumnType(name string) (ColumnType, bool) {
	columnTypes.RLock()
	defer columnTypes.RUnlock()
	t, ok := columnTypes.byName[name]
	return t, ok
}

// registeredColumnTypes lists the registered types by name.
func registeredColumnTypes() []ColumnType {
	columnTypes.RLock()
	defer columnTypes.RUnlock()
	out := make([]ColumnType, 0, len(columnTypes.byName))
	for _, t := range columnTypes.byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Typed is a top-level column of a registered ColumnType.
type Typed struct {
	Column string
	Type   string // the ColumnType's name
}

// TypeOf returns the registered ColumnType a top-level column is declared
// with.
func (s *Spec) TypeOf(column string) (ColumnType, bool) {
	i := slices.IndexFunc(s.Typed, func(d Typed) bool { return d.Column == column })
	if i < 0 {
		return ColumnType{}, false
	}
	return lookupColumnType(s.Typed[i].Type)
}

// addTyped declares column as t, checking its Iceberg type and that no
// other declaration claims it.
func (s *Spec) addTyped(source, column string, t ColumnType) error {
	f, err := s.topLevel(source, column)
	if err != nil {
		return err
	}
	if s.IsFile(column) {
		return fmt.Errorf("%s: column %q is declared FILE and %s", source, column, t.Name)
	}
	if _, ok := s.Vector(column); ok {
		return fmt.Errorf("%s: column %q is declared VECTOR and %s", source, column, t.Name)
	}
	if !f.Type.Equals(t.Type) {
		return fmt.Errorf("%s: column %q (field id %d) has type %s; %s is %s", source, column, f.ID, f.Type, t.Name, t.Type)
	}
	if old, ok := s.TypeOf(column); ok {
		if old.Name != t.Name {
			return fmt.Errorf("%s: column %q is declared %s and %s", source, column, old.Name, t.Name)
		}
		return nil
	}
	s.Typed = append(s.Typed, Typed{Column: column, Type: t.Name})
	s.sortDeclarations()
	return nil
}
