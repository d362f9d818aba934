package data

import (
	"runtime"
	"sync"
	"weak"

	"github.com/apache/iceberg-go"
)

// Records of one struct type share its name index, and records made from
// one schema share one copy of its struct type. Building them per record
// was most of what a record cost: iceberg-go's Schema.AsStruct clones the
// field list and the index is a map, so NewRecord took about 1.2 µs and
// six allocations, eight times what writing the row then costs. Sharing
// the struct type also lets a writer recognise a record's type by pointer
// instead of comparing every field.
//
// The caches hold their keys weakly: an entry goes when its schema or
// struct type is collected, so a program that builds schemas as it goes
// does not grow them without bound.

var (
	schemaLayouts sync.Map // weak.Pointer[iceberg.Schema] -> *schemaLayout
	structIndexes sync.Map // weak.Pointer[iceberg.StructType] -> *nameIndex
)

// schemaLayout is what records of one schema share.
type schemaLayout struct {
	st    *iceberg.StructType
	index map[string]int
}

// nameIndex maps a struct's field names to positions. fields is the field
// list it was built from, to notice a struct type changed after its first
// record.
type nameIndex struct {
	fields []iceberg.NestedField
	byName map[string]int
}

// layoutOf is schema's struct type and name index, one copy per schema.
func layoutOf(schema *iceberg.Schema) *schemaLayout {
	key := weak.Make(schema)
	if l, ok := schemaLayouts.Load(key); ok {
		return l.(*schemaLayout)
	}
	st := schema.AsStruct()
	return cacheWeakly(&schemaLayouts, schema, key, &schemaLayout{st: &st, index: buildIndex(&st).byName})
}

// indexOf is the name index of st, built once per struct type.
func indexOf(st *iceberg.StructType) map[string]int {
	key := weak.Make(st)
	if v, ok := structIndexes.Load(key); ok {
		if idx := v.(*nameIndex); sameFields(idx.fields, st.FieldList) {
			return idx.byName
		}
		// The struct type changed since: index it anew.
		idx := buildIndex(st)
		structIndexes.Store(key, idx)
		return idx.byName
	}
	return cacheWeakly(&structIndexes, st, key, buildIndex(st)).byName
}

func buildIndex(st *iceberg.StructType) *nameIndex {
	idx := &nameIndex{fields: st.FieldList, byName: make(map[string]int, len(st.FieldList))}
	for i, f := range st.FieldList {
		idx.byName[f.Name] = i
	}
	return idx
}

// sameFields reports whether two field lists are one slice of one array.
// A struct type's fields are meant not to change; when a caller does
// change them, it builds a new list or slice, which this notices.
func sameFields(a, b []iceberg.NestedField) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// cacheWeakly stores v under key, the weak pointer of owner, unless
// another goroutine stored one first, and removes the entry once owner is
// collected. It returns the value cached.
func cacheWeakly[K, V any](cache *sync.Map, owner *K, key weak.Pointer[K], v *V) *V {
	actual, loaded := cache.LoadOrStore(key, v)
	if !loaded {
		runtime.AddCleanup(owner, func(key weak.Pointer[K]) { cache.Delete(key) }, key)
	}
	return actual.(*V)
}
