// Package filecol binds FILE (parquet-format 2.14.0) to the Parquet format
// models: a program that imports it, even blank, writes FILE columns
// declared with PropColumns, checks FILE groups on read, and gives the footer
// codec FILE's placement rule, without which footer.Annotate refuses FILE.
// Neither the format nor the footer imports it (DESIGN.md, "Layout"). Lookup
// finds a FILE column in a file's schema and plans a read of that column
// alone (lab file resolve).
package filecol

import (
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/file"
)

// PropColumns lists top-level columns, comma-separated, whose Iceberg type
// is a FILE struct (types/file: children a subset of uri, offset, size,
// content_type, checksum, inline, all optional). Their groups are annotated
// FILE (union id 19) and every value is validated on write.
const PropColumns = file.PropColumns

// binding is FILE as a column binding (parquet.ColumnBinding).
type binding struct{}

func init() { parquet.RegisterColumnBinding(binding{}) }

func (binding) Kind() footer.Kind { return footer.KindFile }
func (binding) Property() string  { return PropColumns }

func (binding) Bind(f iceberg.NestedField) (parquet.ValueCheck, error) {
	st, ok := f.Type.(*iceberg.StructType)
	if !ok {
		return nil, fmt.Errorf("has type %s, a FILE column needs a struct of FILE children", f.Type)
	}
	// ParseStruct checks names, optionality and Iceberg types; the write
	// plan maps those types to exactly the physical types of
	// file.FieldSpec (string and binary to BYTE_ARRAY, long to INT64).
	layout, err := file.ParseStruct(st)
	if err != nil {
		return nil, err
	}
	return func(x any) error {
		r, _ := x.(*data.Record)
		v, err := layout.Decode(r)
		if err != nil {
			return err
		}
		if err := v.Validate(); err != nil {
			return fmt.Errorf("invalid FILE value %s: %w", v, err)
		}
		return nil
	}, nil
}

// Recognize checks a FILE group of the file as types/file reads it:
// children found by name in any order, any of them missing; an unknown,
// required or mistyped child is an error (spec/FILE.md, S4).
func (binding) Recognize(t iceberg.Type) error {
	st, ok := t.(*iceberg.StructType)
	if !ok {
		return fmt.Errorf("annotated FILE but read as %s", t)
	}
	_, err := file.ParseStruct(st)
	return err
}
