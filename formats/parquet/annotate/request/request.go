// Package request is what an annotation request is and how it is read from
// text: COLUMN:TYPE..., with the parser each column type registers for its
// TYPE (doc:file, emb:vector<float32,768>;id=33). formats/parquet/annotate
// carries the requests out.
//
// It is a package of its own, below annotate, because column types register
// here from their packages and annotate cannot be imported by them:
// annotate reads files back with formats/parquet/inspect, whose tests
// import those column types (filecol), and Go refuses that cycle in tests.
package request

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// Request is one annotation to add (annotate.Request).
type Request struct {
	// Name is the request as the user gave it (a flag, say), so that
	// errors name what to change.
	Name       string
	Path       []string // the column, from the root
	Annotation footer.Annotation
	// Element, when not 0, is checked against a VECTOR list's element
	// column: the footer annotates the group and cannot tell float32 from
	// int32 on its own.
	Element vector.ElementType
	// FLBA asks for a VECTOR on a FIXED_LEN_BYTE_ARRAY leaf; the column
	// must be one.
	FLBA bool
}

// A Type reads the requests of one column type from text, so that a caller
// (lab annotate --type) annotates types it has never heard of. The type's
// package registers it from init(), as it registers its column binding
// with formats/parquet; this package never imports it.
type Type struct {
	// Name is the type as a spec spells it right after the column:
	// "vector" in emb:vector<float32,768>. A lower-case identifier.
	Name string
	// Syntax is the spec's grammar for help text, column included:
	// COLUMN:vector<ELEMENT,DIM>[;id=N][;layout=L].
	Syntax string
	// Usage says what the request annotates and what its settings mean,
	// in lines that help text indents under Syntax.
	Usage string
	// Parse reads a whole spec, column included. Its errors need not quote
	// the spec: callers say where it came from (lab annotate: --vector
	// "SPEC": ...).
	Parse func(spec string) (Request, error)
}

var registered struct {
	sync.RWMutex
	byName map[string]Type
}

// typeName is what specTypeName can return: a name with '<', ';', ':' or a
// space in it could never be picked.
var typeName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Register makes t's specs readable by Parse. It is meant for init
// functions and panics, as database/sql.Register does, on an empty or
// malformed name, a missing Parse or a name already taken: two parsers for
// one name would make a spec mean two things.
func Register(t Type) {
	switch {
	case t.Name == "":
		panic("request: Register: empty name")
	case !typeName.MatchString(t.Name):
		panic(fmt.Sprintf("request: Register: name %q is not a lower-case identifier", t.Name))
	case t.Parse == nil:
		panic(fmt.Sprintf("request: Register: %s has no Parse", t.Name))
	}
	registered.Lock()
	defer registered.Unlock()
	if registered.byName == nil {
		registered.byName = map[string]Type{}
	}
	if _, dup := registered.byName[t.Name]; dup {
		panic(fmt.Sprintf("request: Register: %s is already registered", t.Name))
	}
	registered.byName[t.Name] = t
}

// Lookup returns the registered type of a name.
func Lookup(name string) (Type, bool) {
	registered.RLock()
	defer registered.RUnlock()
	t, ok := registered.byName[name]
	return t, ok
}

// Types lists the registered types by name.
func Types() []Type {
	registered.RLock()
	defer registered.RUnlock()
	out := make([]Type, 0, len(registered.byName))
	for _, t := range registered.byName {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Type) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Parse reads COLUMN:TYPE..., the column a dotted path (ColumnPath), with
// the parser registered for TYPE: doc:file,
// emb:vector<float32,768>;id=33;layout=list. Request.Name is spec unless
// the parser names it.
func Parse(spec string) (Request, error) {
	name := specTypeName(spec)
	if name == "" {
		return Request{}, fmt.Errorf("no type after the column: want COLUMN:TYPE (registered types: %s)", registeredNames())
	}
	t, ok := Lookup(name)
	if !ok {
		return Request{}, fmt.Errorf("unknown annotation type %q (registered types: %s)", name, registeredNames())
	}
	r, err := t.Parse(spec)
	if err != nil {
		return Request{}, err
	}
	if r.Name == "" {
		r.Name = spec
	}
	return r, nil
}

// specTypeName is TYPE in COLUMN:TYPE..., where parameters (<...>),
// settings (;...) or a legacy spelling (:...) may follow it.
func specTypeName(spec string) string {
	_, rest, ok := strings.Cut(spec, ":")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "<;:"); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

// Names lists the registered types' names, sorted.
func Names() []string {
	var names []string
	for _, t := range Types() {
		names = append(names, t.Name)
	}
	return names
}

func registeredNames() string {
	if names := Names(); len(names) > 0 {
		return strings.Join(names, ", ")
	}
	return "none"
}

// ParsePlain reads COLUMN:TYPE for a type that takes no parameters or
// settings (doc:file) and returns the column. COLUMN is everything before
// the last ':', so that a column whose name holds a colon still reads as
// itself when a caller appends ":TYPE" to it (lab annotate --file).
func ParsePlain(spec, typeName string) ([]string, error) {
	i := strings.LastIndexByte(spec, ':')
	if i < 0 {
		return nil, fmt.Errorf("no type after the column: want COLUMN:%s", typeName)
	}
	if got := strings.TrimSpace(spec[i+1:]); got != typeName {
		return nil, fmt.Errorf("type %q: want COLUMN:%s (%s takes no parameters or settings)", got, typeName, typeName)
	}
	return ColumnPath(spec[:i])
}

// ColumnPath reads a dotted column path from the root (a.b.c). Names are
// taken as given, spaces included: they are matched against the schema
// exactly.
func ColumnPath(s string) ([]string, error) {
	if s == "" {
		return nil, errors.New("empty column path")
	}
	path := strings.Split(s, ".")
	if slices.Contains(path, "") {
		return nil, fmt.Errorf("column path %q has an empty name", s)
	}
	return path, nil
}
