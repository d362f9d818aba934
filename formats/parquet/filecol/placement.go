package filecol

import (
	"fmt"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/file"
)

// The footer models FILE's union member but imports no value-level type, so
// the rule for a FILE group's children is registered from here, the package
// that joins the two (DESIGN.md, "Layout"). types/file cannot register it:
// it has no Parquet import.
func init() { footer.RegisterFilePlacement(placeFile) }

// placeFile checks the children of the FILE group i with file.CheckChildren,
// the check ParseStruct applies when the lab reads the group, so that
// footer.Annotate refuses what the reader would: LogicalTypes.md (FILE,
// 2.14.0) says "any field that is present has a field repetition type of
// `OPTIONAL`" and gives uri, content_type and checksum as STRING. The footer
// has checked that element i is a group.
func placeFile(meta *footer.FileMetaData, i int) error {
	tree, err := footer.NewSchemaTree(meta.Schema)
	if err != nil {
		return err
	}
	kids := tree.Children(i)
	children := make([]file.Child, len(kids))
	for k, c := range kids {
		children[k] = fileChild(&meta.Schema[c])
	}
	_, err = file.CheckChildren(children, file.ParquetNames)
	return err
}

// fileChild describes a schema element in the FILE field table's terms:
// STRING is a BYTE_ARRAY annotated STRING (logical type, or the UTF8
// converted type of older writers); INT64 and BYTE_ARRAY carry no
// annotation, or for INT64 the signed 64-bit INT that means the same.
func fileChild(e *footer.SchemaElement) file.Child {
	c := file.Child{Name: e.Name, Repetition: "unset"}
	if e.RepetitionType.Valid {
		c.Repetition = e.RepetitionType.V.String()
	}
	if e.FieldID.Valid {
		c.ID, c.HasID = int(e.FieldID.V), true
	}
	c.Optional = e.RepetitionType.Valid && e.RepetitionType.V == footer.Optional
	if e.IsGroup() {
		c.Declared = "a group"
		return c
	}
	c.Declared = e.Type.V.String()
	lt := e.LogicalType.Value
	conv, hasConv := e.ConvertedType.V, e.ConvertedType.Valid
	if lt != nil {
		c.Declared += " (" + lt.String() + ")"
	} else if hasConv {
		c.Declared += fmt.Sprintf(" (converted type %d)", conv)
	}
	switch e.Type.V {
	case format.ByteArray:
		_, isString := lt.(*format.StringType)
		switch {
		case isString || lt == nil && hasConv && conv == deprecated.UTF8:
			c.Type = file.TypeString
		case lt == nil && !hasConv:
			c.Type = file.TypeByteArray
		}
	case format.Int64:
		it, isInt := lt.(*format.IntType)
		switch {
		case isInt && it.BitWidth == 64 && it.IsSigned, lt == nil && (!hasConv || conv == deprecated.Int64):
			c.Type = file.TypeInt64
		}
	}
	return c
}
