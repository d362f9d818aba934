package footer

import (
	"slices"
	"strings"
	"testing"
)

// TestRowGroupShape pins what the reflection reads off the model at a few
// places a mistake would show: a column chunk's metadata and its required
// fields, an optional bool, a list's element type, a union's members.
func TestRowGroupShape(t *testing.T) {
	chunks := rowGroupShape.field(1)
	if chunks == nil || chunks.typ != ctList || chunks.elem == nil || chunks.elem.typ != ctStruct {
		t.Fatalf("RowGroup field 1 is not a list of structs: %+v", chunks)
	}
	meta := chunks.elem.sub.field(3)
	if meta == nil || meta.typ != ctStruct || meta.bit != 0 {
		t.Fatalf("ColumnChunk field 3 is not an optional struct: %+v", meta)
	}
	md := meta.sub
	var required []int
	for id, f := range md.fields {
		if f != nil && f.bit != 0 {
			required = append(required, id)
		}
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 9}; !slices.Equal(required, want) {
		t.Errorf("ColumnMetaData's required fields %v, want %v", required, want)
	}
	if f := md.field(2); f == nil || f.typ != ctList || f.elem.typ != ctI32 {
		t.Errorf("ColumnMetaData field 2 (encodings) is %+v, want a list of i32", f)
	}
	if f := md.field(12).sub.field(7); f == nil || f.typ != ctFalse || !f.accepts(ctTrue) || f.accepts(ctByte) {
		t.Errorf("Statistics field 7 (is_max_value_exact) is %+v, want a bool", f)
	}
	if md.field(18) != nil {
		t.Error("ColumnMetaData has a field 18, which the model lacks")
	}
	crypto := chunks.elem.sub.field(8)
	if crypto == nil || crypto.sub.field(1) == nil || crypto.sub.field(2) == nil || crypto.sub.field(2).sub.field(1).typ != ctList {
		t.Errorf("ColumnChunk field 8 is not the ColumnCryptoMetaData union: %+v", crypto)
	}
	if got := md.missing(0); !strings.HasPrefix(got, "field 1, 2, 3") {
		t.Errorf("missing(0) = %q", got)
	}
}
