package parquet

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// A ColumnBinding plugs a column type into the Parquet format models: it
// reads its writer property, checks every value written, names the footer
// annotation that marks its columns, and recognises those columns on read.
// A column type's package registers one from init with
// RegisterColumnBinding, and its footer annotation with
// footer.RegisterLogicalType, so adding a type is one package plus a blank
// import (DESIGN.md, "Layout"); this package never imports it.
//
// The data travels in a physical layout every reader knows (parquet-go
// writes it from the column's Iceberg type); only the footer says what the
// column is (DESIGN.md, "New logical types"). A binding whose layout needs
// its own pages (VECTOR's) implements PageBinding too (page_binding.go).
type ColumnBinding interface {
	// Kind is the footer annotation on the binding's columns: a kind the
	// footer codec writes (footer.KnownKind: FILE, VECTOR, FIXED_SIZE_LIST
	// or a kind registered with footer.RegisterLogicalType).
	Kind() footer.Kind
	// Property is the writer property that declares columns of the type:
	// top-level column names, comma-separated (data.ParseColumnList).
	Property() string
	// Bind checks that a declared column's field can hold the type and
	// returns the check each of its values gets. The error need not name
	// the column or property; the caller does.
	Bind(field iceberg.NestedField) (ValueCheck, error)
	// Recognize checks, on read, a column the footer annotates with Kind,
	// given the Iceberg type the file's column reads as. An error refuses
	// the read of that column, which the caller names: a column whose
	// annotation promises what its data cannot hold is not read as if the
	// annotation were absent.
	Recognize(t iceberg.Type) error
}

// ValueCheck validates one non-null value of a bound column, in the
// column's *data.Record representation (a *data.Record for a struct, the
// Go value of a primitive). The spec of a type may let a writer store an
// invalid value as null; the lab's writers fail instead, so a silent null
// never loses the caller's data.
type ValueCheck func(v any) error

var bindings struct {
	sync.RWMutex
	byKind map[footer.Kind]ColumnBinding
}

// RegisterColumnBinding makes a column type known to the Parquet models. It
// is meant for init functions and panics, as database/sql.Register does, on
// a binding whose kind or property another binding has, or whose kind the
// footer codec cannot write.
func RegisterColumnBinding(b ColumnBinding) {
	k := b.Kind()
	if !footer.KnownKind(k) {
		panic(fmt.Sprintf("parquet: RegisterColumnBinding: kind %s is not one the footer codec knows (footer.KnownKind; register it with footer.RegisterLogicalType)", k))
	}
	bindings.Lock()
	defer bindings.Unlock()
	if bindings.byKind == nil {
		bindings.byKind = map[footer.Kind]ColumnBinding{}
	}
	if _, dup := bindings.byKind[k]; dup {
		panic(fmt.Sprintf("parquet: RegisterColumnBinding: a binding for %s is already registered", k))
	}
	for _, other := range bindings.byKind {
		for _, p := range bindingKeys(b) {
			if slices.Contains(bindingKeys(other), p) {
				panic(fmt.Sprintf("parquet: RegisterColumnBinding: %s and %s both declare columns with %s", other.Kind(), k, p))
			}
		}
	}
	for _, p := range bindingKeys(b) {
		if slices.Contains(recordProperties.Known, p) {
			panic(fmt.Sprintf("parquet: RegisterColumnBinding: %s: %s is this package's own property", k, p))
		}
	}
	bindings.byKind[k] = b
}

// ColumnBindings lists the registered bindings by property, the order in
// which writers plan them (and so the order of their errors).
func ColumnBindings() []ColumnBinding {
	bindings.RLock()
	defer bindings.RUnlock()
	out := make([]ColumnBinding, 0, len(bindings.byKind))
	for _, b := range bindings.byKind {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Property() < out[j].Property() })
	return out
}

// bindingKeys are the writer properties b reads: its Property, and a
// PageBinding's others.
func bindingKeys(b ColumnBinding) []string {
	keys := []string{b.Property()}
	if pb, ok := b.(PageBinding); ok {
		keys = append(keys, pb.Properties()...)
	}
	return keys
}

func bindingOf(k footer.Kind) ColumnBinding {
	bindings.RLock()
	defer bindings.RUnlock()
	return bindings.byKind[k]
}

// bindingProperties are the registered bindings' writer properties, which
// the models' property checks know in addition to their own.
func bindingProperties() []string {
	var out []string
	for _, b := range ColumnBindings() {
		out = append(out, b.Property())
	}
	return out
}

// boundColumn is a declared column of a registered binding.
type boundColumn struct {
	name    string
	pos     int // among the top-level fields
	binding ColumnBinding
	check   ValueCheck
}
