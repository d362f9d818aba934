package data

import (
	"fmt"

	"github.com/apache/iceberg-go"
)

// Reserved field ids and names of position-delete files (Iceberg spec,
// "Position Delete Files").
const (
	DeleteFilePathID   = 2147483546
	DeleteFilePosID    = 2147483545
	DeleteFileRowID    = 2147483544
	DeleteFilePathName = "file_path"
	DeleteFilePosName  = "pos"
	DeleteFileRowName  = "row"
)

// PositionDelete deletes row Pos of the data file at FilePath. Row is the
// deleted row, optional and deprecated by the spec; nil omits it.
type PositionDelete struct {
	FilePath string
	Pos      int64
	Row      *Record
}

// PositionDeleteSchema is the (file_path, pos) schema of position-delete files.
func PositionDeleteSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: DeleteFilePathID, Name: DeleteFilePathName, Type: iceberg.PrimitiveTypes.String, Required: true,
			Doc: "Path of a file in which a deleted row is stored"},
		iceberg.NestedField{ID: DeleteFilePosID, Name: DeleteFilePosName, Type: iceberg.PrimitiveTypes.Int64, Required: true,
			Doc: "Ordinal position of a deleted row in the data file"},
	)
}

// PositionDeleteSchemaWithRow adds the optional row column of a table schema.
func PositionDeleteSchemaWithRow(rowSchema *iceberg.Schema) *iceberg.Schema {
	base := PositionDeleteSchema().Fields()
	row := rowSchema.AsStruct()
	return iceberg.NewSchema(0, append(base, iceberg.NestedField{ID: DeleteFileRowID, Name: DeleteFileRowName, Type: &row,
		Doc: "Deleted row values"})...)
}

func (d PositionDelete) String() string {
	if d.Row != nil {
		return fmt.Sprintf("{file_path: %q, pos: %d, row: %s}", d.FilePath, d.Pos, d.Row)
	}
	return fmt.Sprintf("{file_path: %q, pos: %d}", d.FilePath, d.Pos)
}

// Less orders deletes as Iceberg requires them in a file: by path, then position.
func (d PositionDelete) Less(o PositionDelete) bool {
	if d.FilePath != o.FilePath {
		return d.FilePath < o.FilePath
	}
	return d.Pos < o.Pos
}
