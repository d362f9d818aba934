package registry

// Reserved metadata column ids (Iceberg's MetadataColumns) that a format
// model's reader fills in itself when a projection asks for them, rather
// than reading a column of the file. iceberg-go does not name them.
const (
	// RowPositionFieldID is _pos: the row's 0-based position in its data
	// file, counted over every row group, including those a split or a
	// filter skips. Position deletes and deletion vectors refer to it.
	RowPositionFieldID = 2147483645
	// IsDeletedFieldID is _deleted.
	IsDeletedFieldID = 2147483644
)
