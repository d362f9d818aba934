package data_test

import (
	"math"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

var scalars = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "b", Type: iceberg.PrimitiveTypes.Bool},
	iceberg.NestedField{ID: 2, Name: "i", Type: iceberg.PrimitiveTypes.Int32},
	iceberg.NestedField{ID: 3, Name: "l", Type: iceberg.PrimitiveTypes.Int64},
	iceberg.NestedField{ID: 4, Name: "f", Type: iceberg.PrimitiveTypes.Float32},
	iceberg.NestedField{ID: 5, Name: "d", Type: iceberg.PrimitiveTypes.Float64},
	iceberg.NestedField{ID: 6, Name: "s", Type: iceberg.PrimitiveTypes.String},
)

// typedRecord sets every field through its typed setter, with the values
// that break a careless bit conversion: false, negative numbers, the
// extremes, NaN with a payload, negative zero and a non-ASCII string.
func typedRecord() (*data.Record, []any) {
	nan32 := math.Float32frombits(0x7fc00001)
	want := []any{false, int32(math.MinInt32), int64(math.MinInt64), nan32, math.Copysign(0, -1), "Ωmega"}
	r := data.NewRecord(scalars)
	r.SetBool(0, false)
	r.SetInt32(1, math.MinInt32)
	r.SetInt64(2, math.MinInt64)
	r.SetFloat32(3, nan32)
	r.SetFloat64(4, math.Copysign(0, -1))
	r.SetString(5, "Ωmega")
	return r, want
}

func TestTypedSettersMeanWhatSetMeans(t *testing.T) {
	r, want := typedRecord()
	boxed := data.Of(scalars, want...)
	for pos, w := range want {
		if got := r.Get(pos); !data.ValuesEqual(got, w) {
			t.Errorf("Get(%d) = %#v, want %#v", pos, got, w)
		}
	}
	if math.Float32bits(r.Get(3).(float32)) != 0x7fc00001 {
		t.Error("the float's NaN payload was lost")
	}
	if !r.Equal(boxed) || !boxed.Equal(r) {
		t.Errorf("typed %s is not equal to boxed %s", r, boxed)
	}
	if r.String() != boxed.String() {
		t.Errorf("String: typed %s, boxed %s", r, boxed)
	}
	if v, ok := r.GetField("s"); !ok || v != "Ωmega" {
		t.Errorf("GetField(s) = %v %v", v, ok)
	}
	// The typed getters read both forms, and refuse other types and null.
	for _, rec := range []*data.Record{r, boxed} {
		if v, ok := rec.GetBool(0); !ok || v {
			t.Errorf("GetBool = %v %v", v, ok)
		}
		if v, ok := rec.GetInt32(1); !ok || v != math.MinInt32 {
			t.Errorf("GetInt32 = %v %v", v, ok)
		}
		if v, ok := rec.GetInt64(2); !ok || v != math.MinInt64 {
			t.Errorf("GetInt64 = %v %v", v, ok)
		}
		if v, ok := rec.GetFloat32(3); !ok || v == v {
			t.Errorf("GetFloat32 = %v %v", v, ok)
		}
		if v, ok := rec.GetFloat64(4); !ok || v != 0 || !math.Signbit(v) {
			t.Errorf("GetFloat64 = %v %v", v, ok)
		}
		if v, ok := rec.GetString(5); !ok || v != "Ωmega" {
			t.Errorf("GetString = %v %v", v, ok)
		}
		if _, ok := rec.GetInt64(1); ok {
			t.Error("GetInt64 read an int32")
		}
		if _, ok := rec.GetString(2); ok {
			t.Error("GetString read an int64")
		}
		if _, ok := rec.GetInt32(0); ok {
			t.Error("GetInt32 read a bool")
		}
	}
	null := data.NewRecord(scalars)
	if _, ok := null.GetInt64(2); ok {
		t.Error("GetInt64 read a null")
	}
}

func TestTypedSetterThenSet(t *testing.T) {
	r, _ := typedRecord()
	r.Set(2, nil)
	if r.Get(2) != nil {
		t.Errorf("Set(nil) after SetInt64 left %v", r.Get(2))
	}
	if _, ok := r.GetInt64(2); ok {
		t.Error("GetInt64 still reads the value Set replaced")
	}
	if err := r.SetField("s", "plain"); err != nil || r.Get(5) != "plain" {
		t.Errorf("SetField after SetString: %v, value %v", err, r.Get(5))
	}
	r.SetString(2, "a long field holding a string, as Set would allow")
	if _, ok := r.GetInt64(2); ok {
		t.Error("GetInt64 read a string")
	}
	if v, ok := r.GetString(2); !ok || v != "a long field holding a string, as Set would allow" {
		t.Errorf("GetString = %q %v", v, ok)
	}
}

func TestValuesBoxesTypedValues(t *testing.T) {
	r, want := typedRecord()
	vals := r.Values()
	for pos, w := range want {
		if !data.ValuesEqual(vals[pos], w) {
			t.Errorf("Values()[%d] = %#v, want %#v", pos, vals[pos], w)
		}
	}
	// The slice is the record's own: a write to it sets the field, and no
	// typed value hides it.
	vals[2] = int64(42)
	if r.Get(2) != int64(42) {
		t.Errorf("write through Values: Get(2) = %v", r.Get(2))
	}
	if v, ok := r.GetInt64(2); !ok || v != 42 {
		t.Errorf("write through Values: GetInt64 = %v %v", v, ok)
	}
}

func TestCopyKeepsTypedValues(t *testing.T) {
	r, want := typedRecord()
	c := r.Copy()
	r.SetString(5, "changed")
	r.SetInt64(2, 1)
	if got := c.Get(5); got != want[5] {
		t.Errorf("copy's string = %v after the original changed", got)
	}
	if v, ok := c.GetInt64(2); !ok || v != math.MinInt64 {
		t.Errorf("copy's long = %v %v after the original changed", v, ok)
	}
}

// A typed setter exists to avoid the allocation of boxing; so does the
// writer's read of the value back.
func TestTypedSettersDoNotAllocate(t *testing.T) {
	r := data.NewRecord(scalars)
	r.SetInt64(2, 0) // the first typed set allocates the record's slots
	s := "not a constant" + string(rune('0'+len(scalars.Fields())))
	allocs := testing.AllocsPerRun(100, func() {
		r.SetInt64(2, 1<<40)
		r.SetString(5, s)
		r.SetFloat64(4, 1.5)
		if _, ok := r.GetInt64(2); !ok {
			t.Fatal("lost the long")
		}
		if _, ok := r.GetString(5); !ok {
			t.Fatal("lost the string")
		}
	})
	if allocs != 0 {
		t.Errorf("typed set and get allocate %v times per row, want 0", allocs)
	}
}
