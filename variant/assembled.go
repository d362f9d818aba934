package variant

import (
	"reflect"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Assembled wraps bytes this package's encoders built as an arrow-go
// Value without validating them again.
//
// arrow-go's only constructors from bytes (New, NewWithMetadata) validate
// the whole value. That is right for bytes from a file, and wrong for a
// value the reconstructing reader assembled itself: its object and array
// headers, offsets and field ids come from this package's encoders, and its
// primitives from typed Parquet values it converted (AppendRawFromParquet).
// Validating such a value again cost a quarter of a shredded full read
// (about 1 µs a row on the event log). The reader still has arrow-go
// validate every byte it copies from the file (a residual value) before it
// uses it, and the tests validate every assembled value
// (formats/parquet's variantCheckAssembled), so what is skipped is only the
// check of the lab's own encoding.
//
// Value has no exported fields, so Assembled builds one with its layout:
// a value byte slice, then the Metadata. The layout is checked once, by
// reflection, against the arrow-go version this module pins; if a release
// changes it, ok is false and the caller validates as before
// (TestAssembledMatchesNewWithMetadata fails then too, so it is noticed).
func Assembled(meta variant.Metadata, value []byte) (v variant.Value, ok bool) {
	if !assembledLayoutOK || len(value) == 0 {
		return variant.Value{}, false
	}
	l := valueLayout{value: value, meta: meta}
	return *(*variant.Value)(unsafe.Pointer(&l)), true
}

// valueLayout is arrow-go v18.8.0's variant.Value.
type valueLayout struct {
	value []byte
	meta  variant.Metadata
}

var assembledLayoutOK = func() bool {
	t := reflect.TypeFor[variant.Value]()
	mine := reflect.TypeFor[valueLayout]()
	if t.Size() != mine.Size() || t.NumField() != mine.NumField() {
		return false
	}
	for i := range t.NumField() {
		f, g := t.Field(i), mine.Field(i)
		if f.Name != g.Name || f.Type != g.Type || f.Offset != g.Offset {
			return false
		}
	}
	return true
}()
