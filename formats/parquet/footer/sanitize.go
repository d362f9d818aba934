package footer

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Sanitize returns a copy of meta that arrow-go v18.8.0 can open: logical
// types it does not know (FILE, VECTOR, unknown ids) are removed and
// vector_length is cleared, while the physical layout, converted types and
// the key/value metadata (with the annotation mirror) stay. arrow-go panics
// on an unknown logical type and reads an unknown repetition type as if it
// were another one, so a repetition other than REQUIRED, OPTIONAL or
// REPEATED (VECTOR = 3 above all) is an error naming the column, as is a TIME
// or TIMESTAMP without a known unit (arrow-go panics on it, and dropping the
// annotation would silently turn times into integers).
func Sanitize(meta *FileMetaData) (_ *FileMetaData, err error) {
	defer guard(&err, "sanitize")
	if meta == nil {
		return nil, fmt.Errorf("sanitize: nil FileMetaData")
	}
	b, err := Encode(meta)
	if err != nil {
		return nil, fmt.Errorf("sanitize: %w", err)
	}
	out, err := Decode(b) // a deep copy
	if err != nil {
		return nil, fmt.Errorf("sanitize: %w", err)
	}
	tree, err := newSchemaTree(out.Schema)
	if err != nil {
		return nil, fmt.Errorf("sanitize: %w", err)
	}
	for i := range out.Schema {
		el := &out.Schema[i]
		where := func() string { return fmt.Sprintf("column %s (schema element %d)", pathString(tree.path(i)), i) }
		if r := el.RepetitionType; r.Valid && r.V != Required && r.V != Optional && r.V != Repeated {
			return nil, fmt.Errorf("sanitize for arrow-go: %s has repetition %s (%d), which arrow-go v18.8.0 would misread", where(), r.V, int32(r.V))
		}
		if IsExtension(el.LogicalType.Value) {
			el.LogicalType = LogicalType{}
		}
		switch v := el.LogicalType.Value.(type) {
		case *format.TimeType:
			if v.Unit.Value == nil {
				return nil, fmt.Errorf("sanitize for arrow-go: %s is TIME with a unit this model does not know", where())
			}
		case *format.TimestampType:
			if v.Unit.Value == nil {
				return nil, fmt.Errorf("sanitize for arrow-go: %s is TIMESTAMP with a unit this model does not know", where())
			}
		}
		el.VectorLength = thrift.Null[int32]{}
	}
	return out, nil
}

// SanitizedFooterBytes returns the encoded footer of Sanitize(meta): the bytes
// arrow-go's metadata.NewFileMetaData parses for file.WithMetadata.
func SanitizedFooterBytes(meta *FileMetaData) ([]byte, error) {
	s, err := Sanitize(meta)
	if err != nil {
		return nil, err
	}
	return Encode(s)
}

// ArrowFileMetaData parses the sanitized footer with arrow-go, ready for
// file.NewParquetReader(r, file.WithMetadata(md)), so that arrow-go never
// parses the original footer itself. fileSize is the size of the file the
// footer belongs to (arrow-go uses it to bound bloom filter reads). A panic
// inside arrow-go becomes an error.
func ArrowFileMetaData(meta *FileMetaData, fileSize int64) (md *metadata.FileMetaData, err error) {
	b, err := SanitizedFooterBytes(meta)
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			md, err = nil, fmt.Errorf("arrow-go panicked on the sanitized footer: %v", p)
		}
	}()
	md, err = metadata.NewFileMetaData(b, nil)
	if err != nil {
		return nil, fmt.Errorf("arrow-go rejected the sanitized footer: %w", err)
	}
	md.SetSourceFileSize(fileSize)
	return md, nil
}
