// Package coltype is the registry of value-level column types: the lab's
// types beyond Iceberg's own (FILE, VECTOR, and whatever a package adds) as
// the schema forms (data/schemaspec), JSON rows (data/jsonrow) and lab
// inspect see them. A type's package registers it from init, as
// image/png registers with image; this package and its users never import
// the type's package, so adding a column type is one package plus a blank
// import (DESIGN.md, "Layout"). Its column binding registers with
// formats/parquet and footer the same way.
//
// The interface is two parts. A Type is the registry entry: the type's
// name in schemas, the writer property that lists its columns, the footer
// annotation that marks them, and two ways to declare a column:
//
//   - Parse reads a spelling: the type as schemas write it ("vector<float32,768>",
//     "file<uri,size>", "unit_interval"), or what follows "COLUMN:" in the
//     property, where a type may also read the spellings it once wrote.
//   - FromField declares a column from its Iceberg field alone, for types
//     whose field says everything (FILE: its struct's children). Such a
//     type's property lists bare column names; a type without it (VECTOR:
//     fixed[3072] is 768 float32 or 3072 int8) lists COLUMN:SPELLING.
//
// A type whose values are sequences of elements (VECTOR) also names them
// (Element), so that lab inspect can say what a file's element leaf holds
// in the type's own words.
//
// A Decl is one column's declaration: the type with its parameters. It
// gives the column's Iceberg type, binds to the field that holds it (which
// checks the field), converts values between JSON and the record model
// (the value data.Record carries), and formats a value in a few dozen
// characters for lab inspect. A Decl whose JSON is the Iceberg type's own
// calls the plain codec it is handed, so it only adds what differs
// (FILE checks the struct, VECTOR reads numbers into fixed bytes). A Decl
// whose columns' statistics bounds need not be values (a VECTOR's page
// index holds prefixes) also implements BoundFormatter.
package coltype

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
)

// Type is a registered value-level column type.
type Type struct {
	// Name is the type's name in schemas: a lower-case identifier, the
	// word its spellings start with ("vector" in "vector<float32,768>").
	Name string
	// Property is the writer property that lists the type's columns,
	// comma-separated (commas inside <> belong to a spelling).
	Property string
	// Annotation is the footer logical type that marks the type's columns
	// in Parquet files ("VECTOR"); "" when it has none. lab inspect uses
	// it to find the formatter, and errors use it to name the type.
	Annotation string
	// TableMetrics is the Iceberg metrics mode (spec.md "Metrics"; the
	// table property write.metadata.metrics.column.<col>) a table created
	// with columns of the type gives them unless its properties say
	// otherwise: "counts" where bounds would be large and prune nothing;
	// "" leaves the table's default.
	TableMetrics string
	// ReservedIDs is how many field ids after a column's own its Iceberg
	// type takes in the schema forms (FILE: its six children's).
	ReservedIDs int
	// Parse reads a spelling of the type for the named column.
	Parse func(column, spelling string) (Decl, error)
	// FromField declares a column from its field alone; nil when the
	// field does not say enough.
	FromField func(f iceberg.NestedField) (Decl, error)
	// Element names an element type as the type's spellings do, given
	// the name a Parquet footer gives it: the footer's key/value mirror
	// and footer.VectorElementWidths call elements FLOAT, DOUBLE, FLOAT16
	// and INT8, which VECTOR spells float32, float64, float16 and int8.
	// ok is false for a name the type has no element for. nil for a type
	// whose values are not sequences of elements. lab inspect names a
	// column's element with it, so that it knows no type's element names.
	Element func(parquet string) (name string, ok bool)
}

// Display names the type in messages: its annotation, else its name.
func (t *Type) Display() string {
	if t.Annotation != "" {
		return t.Annotation
	}
	return t.Name
}

// Decl is one column declared of a registered type.
type Decl interface {
	// Type is the registered type.
	Type() *Type
	// ColumnName is the declared column.
	ColumnName() string
	// TypeName is the declaration's canonical spelling, which Parse reads
	// back: "vector<float32,768>", "file<uri,size>", "unit_interval".
	TypeName() string
	// IcebergType is the column's Iceberg type for a column of field id
	// id (children take the ids after it).
	IcebergType(id int) (iceberg.Type, error)
	// Bind checks that f can hold the type and returns the declaration
	// for f. Its error reads after "column NAME (field id N) ", e.g.
	// "has type binary; vector<int8,4> needs fixed[4]".
	Bind(f iceberg.NestedField) (Decl, error)
	// DecodeJSON converts a JSON value, its text (valid JSON, not null),
	// into the value the record model carries; plain decodes text as the
	// bound field's Iceberg type.
	DecodeJSON(text []byte, plain Decoder) (any, error)
	// AppendJSON appends v (not nil) as JSON, in the form DecodeJSON
	// reads; plain encodes it as the bound field's Iceberg type.
	AppendJSON(dst []byte, v any, plain Encoder) ([]byte, error)
	// Format renders v (the record model's value) for a terminal: short,
	// one line, a few dozen characters at most.
	Format(v any) string
}

// BoundFormatter is a Decl that tells a bound from a value. parquet-format
// lets a writer store any lower and upper bounds as a column chunk's or a
// page index's min and max, not only values of the column: parquet-go cuts
// a page index's byte-array bounds to 16 bytes, which of a VECTOR is a
// prefix that Format can only call "16 bytes, not a vector<float32,768>".
// FormatBound renders v (the record model's form of a bound's bytes) as
// Format does when it is a whole value of the declaration, and reports
// false otherwise, so that lab inspect and lab pages show those bytes as
// bytes. lab inspect formats every bound of a Decl without it with Format.
type BoundFormatter interface {
	FormatBound(v any) (s string, ok bool)
}

// Decoder decodes a JSON text as an Iceberg type, as data/jsonrow does.
type Decoder func(text []byte) (any, error)

// Encoder appends a value as JSON of an Iceberg type, as data/jsonrow does.
type Encoder func(dst []byte, v any) ([]byte, error)

var registry struct {
	sync.RWMutex
	byName map[string]*Type
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// reserved are the names the schema forms give Iceberg's types.
var reserved = []string{"boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
	"timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "variant", "list", "map", "struct", "decimal", "fixed"}

// Register adds t to the registry. It is meant for init functions and
// panics, as database/sql.Register does, on a malformed entry or a name,
// property or annotation already taken, which would make a schema mean two
// things.
func Register(t *Type) {
	switch {
	case t == nil || !namePattern.MatchString(t.Name):
		panic(fmt.Sprintf("coltype: Register: name %q is not a lower-case identifier", nameOf(t)))
	case contains(reserved, t.Name):
		panic(fmt.Sprintf("coltype: Register: %q is an Iceberg type of the schema forms", t.Name))
	case t.Property == "":
		panic(fmt.Sprintf("coltype: Register: %s has no property", t.Name))
	case t.Parse == nil:
		panic(fmt.Sprintf("coltype: Register: %s has no Parse", t.Name))
	case t.ReservedIDs < 0:
		panic(fmt.Sprintf("coltype: Register: %s reserves %d ids", t.Name, t.ReservedIDs))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byName == nil {
		registry.byName = map[string]*Type{}
	}
	for _, o := range registry.byName {
		if o.Name == t.Name || o.Property == t.Property || t.Annotation != "" && o.Annotation == t.Annotation {
			panic(fmt.Sprintf("coltype: Register: %s collides with %s (name, property %s or annotation %q)", t.Name, o.Name, o.Property, o.Annotation))
		}
	}
	registry.byName[t.Name] = t
}

func nameOf(t *Type) string {
	if t == nil {
		return ""
	}
	return t.Name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Lookup is the type registered under name.
func Lookup(name string) (*Type, bool) {
	registry.RLock()
	defer registry.RUnlock()
	t, ok := registry.byName[name]
	return t, ok
}

// ByAnnotation is the type whose columns the footer annotation marks.
func ByAnnotation(annotation string) (*Type, bool) {
	registry.RLock()
	defer registry.RUnlock()
	for _, t := range registry.byName {
		if t.Annotation != "" && t.Annotation == annotation {
			return t, true
		}
	}
	return nil, false
}

// Types lists the registered types by name.
func Types() []*Type {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]*Type, 0, len(registry.byName))
	for _, t := range registry.byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SpellingName is the type name a spelling starts with: "vector" for
// "vector<float32,768>", "file" for "file".
func SpellingName(spelling string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(spelling), "<")
	return strings.TrimSpace(name)
}

// SplitList splits a property's value at the commas outside <>, trimming
// the entries and skipping blank ones: "emb:vector<float32,768>, b:x" is
// "emb:vector<float32,768>" and "b:x".
func SplitList(list string) []string {
	var out []string
	depth, start := 0, 0
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '<':
			depth++
		case '>':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				add(list[start:i])
				start = i + 1
			}
		}
	}
	add(list[start:])
	return out
}

// Entry is one entry of a type's property: COLUMN, or COLUMN:SPELLING.
type Entry struct {
	Column   string
	Spelling string // "" for a bare column name
}

// ParseEntries reads a property's value into its entries.
func ParseEntries(list string) []Entry {
	var out []Entry
	for _, s := range SplitList(list) {
		col, spelling, _ := strings.Cut(s, ":")
		out = append(out, Entry{Column: strings.TrimSpace(col), Spelling: strings.TrimSpace(spelling)})
	}
	return out
}

// PropertyEntry is how t's property lists the declaration d: the bare
// column name when the field says the rest (FromField), else
// COLUMN:SPELLING.
func PropertyEntry(d Decl) string {
	if d.Type().FromField != nil {
		return d.ColumnName()
	}
	return d.ColumnName() + ":" + d.TypeName()
}
