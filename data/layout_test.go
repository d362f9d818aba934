package data

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/apache/iceberg-go"
)

func TestRecordsOfOneSchemaShareItsLayout(t *testing.T) {
	s := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String})
	a, b := NewRecord(s), Of(s, int64(1), "x")
	if a.Struct() != b.Struct() {
		t.Error("two records of one schema have two struct types")
	}
	if a.Position("name") != 1 || b.Position("id") != 0 {
		t.Error("shared index gives wrong positions")
	}
	other := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int32})
	if c := NewRecord(other); c.Struct() == a.Struct() || c.Position("x") != 0 || c.Position("id") != -1 {
		t.Error("records of another schema share the first one's layout")
	}
}

func TestChangedStructTypeIsIndexedAnew(t *testing.T) {
	st := &iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.Int32}}}
	if NewStructRecord(st).Position("a") != 0 {
		t.Fatal("position of a")
	}
	st.FieldList = []iceberg.NestedField{{ID: 2, Name: "b", Type: iceberg.PrimitiveTypes.Int32}, {ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.Int32}}
	r := NewStructRecord(st)
	if r.Position("a") != 1 || r.Position("b") != 0 || r.Len() != 2 {
		t.Errorf("after the fields changed: a at %d, b at %d, %d fields", r.Position("a"), r.Position("b"), r.Len())
	}
}

// The caches must not keep a schema alive, nor its entry once the schema
// is gone: a process that makes schemas as it goes would grow forever.
func TestLayoutCachesForgetCollectedSchemas(t *testing.T) {
	const n = 200
	before := cacheLen(&schemaLayouts) + cacheLen(&structIndexes)
	keys := make([]weak.Pointer[iceberg.Schema], n)
	for i := range n {
		s := iceberg.NewSchema(i, iceberg.NestedField{ID: 1, Name: "f", Type: iceberg.PrimitiveTypes.Int32})
		st := s.AsStruct()
		NewRecord(s)
		NewStructRecord(&st)
		keys[i] = weak.Make(s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		left := cacheLen(&schemaLayouts) + cacheLen(&structIndexes) - before
		if left <= 0 {
			break
		}
		if time.Now().After(deadline) {
			alive := 0
			for _, k := range keys {
				if k.Value() != nil {
					alive++
				}
			}
			t.Fatalf("%d cache entries left after collection, %d of %d schemas still alive", left, alive, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func cacheLen(m *sync.Map) int {
	n := 0
	m.Range(func(any, any) bool { n++; return true })
	return n
}

func TestConcurrentNewRecord(t *testing.T) {
	s := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "f", Type: iceberg.PrimitiveTypes.Int32})
	structs := make([]*iceberg.StructType, 8)
	var wg sync.WaitGroup
	for g := range structs {
		wg.Go(func() {
			for range 1000 {
				structs[g] = NewRecord(s).Struct()
			}
		})
	}
	wg.Wait()
	for _, st := range structs {
		if st != structs[0] {
			t.Fatal("goroutines got different struct types for one schema")
		}
	}
}
