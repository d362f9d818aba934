package data_test

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/coltype-lab/lab/data"
)

var addr = iceberg.StructType{FieldList: []iceberg.NestedField{
	{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String},
}}

var schema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "addr", Type: &addr},
	iceberg.NestedField{ID: 4, Name: "tags", Type: &iceberg.ListType{ElementID: 5, Element: iceberg.PrimitiveTypes.String}},
	iceberg.NestedField{ID: 6, Name: "score", Type: iceberg.PrimitiveTypes.Float64},
	iceberg.NestedField{ID: 7, Name: "attrs", Type: &iceberg.MapType{KeyID: 8, KeyType: iceberg.PrimitiveTypes.Binary, ValueID: 9, ValueType: iceberg.PrimitiveTypes.Int32}},
)

func sample() *data.Record {
	a := data.NewStructRecord(&addr)
	a.Set(0, "Oslo")
	return data.Of(schema, int64(7), a, []any{"x", nil}, math.NaN(), data.Map{{Key: []byte{1}, Value: int32(2)}})
}

func TestRecordAccess(t *testing.T) {
	r := sample()
	if v, ok := r.GetField("id"); !ok || v != int64(7) {
		t.Fatalf("GetField id = %v %v", v, ok)
	}
	if _, ok := r.GetField("nope"); ok {
		t.Fatal("GetField of unknown name succeeded")
	}
	if err := r.SetField("nope", 1); err == nil || !strings.Contains(err.Error(), `no field "nope" (fields: id, addr, tags, score, attrs)`) {
		t.Fatalf("SetField error: %v", err)
	}
	if r.Position("score") != 3 || r.Position("x") != -1 || r.Len() != 5 {
		t.Fatal("Position/Len")
	}
	if v, ok := r.Get(4).(data.Map).Get([]byte{1}); !ok || v != int32(2) {
		t.Fatalf("Map.Get = %v %v", v, ok)
	}
	want := `{id: 7, addr: {city: "Oslo"}, tags: ["x", null], score: NaN, attrs: {0x01 => 2}}`
	if got := r.String(); got != want {
		t.Fatalf("String = %s\nwant     %s", got, want)
	}
}

func TestRecordCopyAndEqual(t *testing.T) {
	r := sample()
	c := r.Copy()
	if !r.Equal(c) {
		t.Fatal("copy not equal (NaN must equal NaN)")
	}
	c.Get(1).(*data.Record).Set(0, "Bergen")
	c.Get(2).([]any)[0] = "y"
	c.Get(4).(data.Map)[0].Key.([]byte)[0] = 9
	if r.Get(1).(*data.Record).Get(0) != "Oslo" || r.Get(2).([]any)[0] != "x" || r.Get(4).(data.Map)[0].Key.([]byte)[0] != 1 {
		t.Fatal("Copy shares nested containers")
	}
	if r.Equal(c) {
		t.Fatal("different records compare equal")
	}
}

func TestValuesEqual(t *testing.T) {
	u := uuid.MustParse("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true}, {nil, int32(0), false},
		{int32(1), int64(1), false}, {int64(1), int64(1), true},
		{math.NaN(), math.NaN(), true}, {float32(math.NaN()), float32(math.NaN()), true},
		{0.0, math.Copysign(0, -1), false}, {math.Inf(1), math.Inf(1), true},
		{[]byte{}, []byte{}, true}, {[]byte{1}, []byte{2}, false},
		{u, u, true}, {iceberg.Date(3), iceberg.Date(3), true}, {iceberg.Date(3), int32(3), false},
		{[]any{int32(1)}, []any{int32(1), nil}, false},
	}
	for i, tt := range tests {
		if got := data.ValuesEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("%d: ValuesEqual(%v, %v) = %v", i, tt.a, tt.b, got)
		}
	}
}

func TestPositionDelete(t *testing.T) {
	a := data.PositionDelete{FilePath: "a", Pos: 5}
	b := data.PositionDelete{FilePath: "b", Pos: 0}
	if !a.Less(b) || b.Less(a) || !(data.PositionDelete{FilePath: "a", Pos: 1}).Less(a) {
		t.Fatal("Less order")
	}
	s := data.PositionDeleteSchemaWithRow(schema)
	if f, ok := s.FindFieldByID(data.DeleteFileRowID); !ok || f.Required || f.Name != "row" {
		t.Fatalf("row field %v %v", f, ok)
	}
	if f, _ := s.FindFieldByID(data.DeleteFilePosID); f.Name != "pos" || !f.Required {
		t.Fatalf("pos field %v", f)
	}
}
