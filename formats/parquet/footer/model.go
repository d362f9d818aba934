package footer

import (
	"strconv"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The model below is an extended copy of parquet-go's format package, down to
// the FileMetaData footer. Types are copied only where they must change; the
// rest (enums, SortingColumn, PageEncodingStats, BoundingBox, the encryption
// unions) are parquet-go's own.
//
// Two reasons force a copy:
//
//   - New members: SchemaElement.vector_length (field 11), FieldRepetitionType
//     VECTOR = 3, and a LogicalType union that knows FILE, VECTOR and keeps
//     unknown members (see logicaltype.go).
//   - Byte-identical round trips: parquet-go stores several optional fields as
//     plain values, so "absent" and "zero" collapse (an explicit field_id 0,
//     an empty created_by, unencoded_byte_array_data_bytes 0), and it writes
//     some fields that were absent (Statistics.null_count, RowGroup.ordinal).
//     Here every optional scalar is a thrift.Null, every optional struct a
//     pointer and every optional list a nil-able thrift.Slice, so a decoded
//     footer encodes back to the bytes it came from. Fields of parquet-format
//     2.14.0 that parquet-go lacks (Statistics 7-9, ColumnOrder members 2 and
//     3) are added for the same reason.

// FieldRepetitionType extends parquet-format's enum with VECTOR = 3 of the
// open VECTOR proposal (apache/parquet-format PR #592).
type FieldRepetitionType int32

const (
	Required FieldRepetitionType = 0
	Optional FieldRepetitionType = 1
	Repeated FieldRepetitionType = 2
	// Vector marks the middle group of a VECTOR-annotated 3-level structure:
	// a fixed number (SchemaElement.VectorLength) of element slots per parent
	// occurrence, with no repetition level. Readers that predate PR #592 do
	// not know it; see Sanitize.
	Vector FieldRepetitionType = 3
)

func (t FieldRepetitionType) String() string {
	switch t {
	case Required:
		return "REQUIRED"
	case Optional:
		return "OPTIONAL"
	case Repeated:
		return "REPEATED"
	case Vector:
		return "VECTOR"
	default:
		return "FieldRepetitionType(" + strconv.Itoa(int(t)) + ")"
	}
}

// SchemaElement is parquet-format's SchemaElement plus vector_length (PR #592).
type SchemaElement struct {
	Type           thrift.Null[format.Type]              `thrift:"1,optional"`
	TypeLength     thrift.Null[int32]                    `thrift:"2,optional"`
	RepetitionType thrift.Null[FieldRepetitionType]      `thrift:"3,optional"`
	Name           string                                `thrift:"4,required"`
	NumChildren    thrift.Null[int32]                    `thrift:"5,optional"`
	ConvertedType  thrift.Null[deprecated.ConvertedType] `thrift:"6,optional"`
	Scale          thrift.Null[int32]                    `thrift:"7,optional"`
	Precision      thrift.Null[int32]                    `thrift:"8,optional"`
	FieldID        thrift.Null[int32]                    `thrift:"9,optional"`
	LogicalType    LogicalType                           `thrift:"10,optional"`
	// VectorLength is the number of element slots per parent occurrence of a
	// group whose repetition is VECTOR; PR #592 requires it there, positive,
	// and forbids it elsewhere.
	VectorLength thrift.Null[int32] `thrift:"11,optional"`
}

// IsGroup reports whether the element is an inner node of the schema tree.
func (e *SchemaElement) IsGroup() bool { return e.NumChildren.Valid || !e.Type.Valid }

// Statistics is parquet-format's Statistics with presence kept for every field.
type Statistics struct {
	Max             []byte             `thrift:"1,optional"`
	Min             []byte             `thrift:"2,optional"`
	NullCount       thrift.Null[int64] `thrift:"3,optional"`
	DistinctCount   thrift.Null[int64] `thrift:"4,optional"`
	MaxValue        []byte             `thrift:"5,optional"`
	MinValue        []byte             `thrift:"6,optional"`
	IsMaxValueExact thrift.Null[bool]  `thrift:"7,optional"`
	IsMinValueExact thrift.Null[bool]  `thrift:"8,optional"`
	NanCount        thrift.Null[int64] `thrift:"9,optional"`
}

// SizeStatistics is parquet-format's SizeStatistics with presence kept.
type SizeStatistics struct {
	UnencodedByteArrayDataBytes thrift.Null[int64]  `thrift:"1,optional"`
	RepetitionLevelHistogram    thrift.Slice[int64] `thrift:"2,optional"`
	DefinitionLevelHistogram    thrift.Slice[int64] `thrift:"3,optional"`
}

// GeospatialStatistics is parquet-format's GeospatialStatistics with presence kept.
type GeospatialStatistics struct {
	BBox            *format.BoundingBox `thrift:"1,optional"`
	GeospatialTypes thrift.Slice[int32] `thrift:"2,optional"`
}

// KeyValue is parquet-format's KeyValue. The value is optional in the spec
// (parquet-go requires it and fails on footers that omit it).
type KeyValue struct {
	Key   string              `thrift:"1,required"`
	Value thrift.Null[string] `thrift:"2,optional"`
}

// ColumnMetaData is parquet-format's ColumnMetaData with presence kept.
type ColumnMetaData struct {
	Type                  format.Type                            `thrift:"1,required"`
	Encoding              thrift.Slice[format.Encoding]          `thrift:"2,required"`
	PathInSchema          thrift.Slice[string]                   `thrift:"3,required"`
	Codec                 format.CompressionCodec                `thrift:"4,required"`
	NumValues             int64                                  `thrift:"5,required"`
	TotalUncompressedSize int64                                  `thrift:"6,required"`
	TotalCompressedSize   int64                                  `thrift:"7,required"`
	KeyValueMetadata      thrift.Slice[KeyValue]                 `thrift:"8,optional"`
	DataPageOffset        int64                                  `thrift:"9,required"`
	IndexPageOffset       thrift.Null[int64]                     `thrift:"10,optional"`
	DictionaryPageOffset  thrift.Null[int64]                     `thrift:"11,optional"`
	Statistics            *Statistics                            `thrift:"12,optional"`
	EncodingStats         thrift.Slice[format.PageEncodingStats] `thrift:"13,optional"`
	BloomFilterOffset     thrift.Null[int64]                     `thrift:"14,optional"`
	BloomFilterLength     thrift.Null[int32]                     `thrift:"15,optional"`
	SizeStatistics        *SizeStatistics                        `thrift:"16,optional"`
	GeospatialStatistics  *GeospatialStatistics                  `thrift:"17,optional"`
}

// ColumnChunk is parquet-format's ColumnChunk with presence kept.
type ColumnChunk struct {
	FilePath                thrift.Null[string]         `thrift:"1,optional"`
	FileOffset              int64                       `thrift:"2,required"`
	MetaData                *ColumnMetaData             `thrift:"3,optional"`
	OffsetIndexOffset       thrift.Null[int64]          `thrift:"4,optional"`
	OffsetIndexLength       thrift.Null[int32]          `thrift:"5,optional"`
	ColumnIndexOffset       thrift.Null[int64]          `thrift:"6,optional"`
	ColumnIndexLength       thrift.Null[int32]          `thrift:"7,optional"`
	CryptoMetadata          format.ColumnCryptoMetaData `thrift:"8,optional"`
	EncryptedColumnMetadata []byte                      `thrift:"9,optional"`
}

// RowGroup is parquet-format's RowGroup with presence kept.
type RowGroup struct {
	Columns             thrift.Slice[ColumnChunk]          `thrift:"1,required"`
	TotalByteSize       int64                              `thrift:"2,required"`
	NumRows             int64                              `thrift:"3,required"`
	SortingColumns      thrift.Slice[format.SortingColumn] `thrift:"4,optional"`
	FileOffset          thrift.Null[int64]                 `thrift:"5,optional"`
	TotalCompressedSize thrift.Null[int64]                 `thrift:"6,optional"`
	Ordinal             thrift.Null[int16]                 `thrift:"7,optional"`
}

// IEEE754TotalOrder is ColumnOrder member 2 (parquet-format 2.12.0 and later).
type IEEE754TotalOrder struct{}

// Int96TimestampOrder is ColumnOrder member 3 (parquet-format 2.14.0).
type Int96TimestampOrder struct{}

func (*IEEE754TotalOrder) FieldID() int16   { return 2 }
func (*Int96TimestampOrder) FieldID() int16 { return 3 }

var columnOrderMembers = []thrift.UnionMember{
	(*format.TypeDefinedOrder)(nil), // 1
	(*IEEE754TotalOrder)(nil),       // 2
	(*Int96TimestampOrder)(nil),     // 3
}

// ColumnOrder is parquet-format 2.14.0's ColumnOrder union. An unknown member
// decodes as an unset union; such a footer does not re-encode identically and
// RewriteFooter refuses it.
type ColumnOrder struct {
	Value thrift.UnionMember
}

func (*ColumnOrder) UnionMembers() []thrift.UnionMember { return columnOrderMembers }

// FileMetaData is the footer: parquet-format's FileMetaData over the types above.
type FileMetaData struct {
	Version                  int32                       `thrift:"1,required"`
	Schema                   thrift.Slice[SchemaElement] `thrift:"2,required"`
	NumRows                  int64                       `thrift:"3,required"`
	RowGroups                thrift.Slice[RowGroup]      `thrift:"4,required"`
	KeyValueMetadata         thrift.Slice[KeyValue]      `thrift:"5,optional"`
	CreatedBy                thrift.Null[string]         `thrift:"6,optional"`
	ColumnOrders             thrift.Slice[ColumnOrder]   `thrift:"7,optional"`
	EncryptionAlgorithm      format.EncryptionAlgorithm  `thrift:"8,optional"`
	FooterSigningKeyMetadata []byte                      `thrift:"9,optional"`
}

// Encrypted reports whether the footer belongs to an encrypted file (plaintext
// footer mode, or any encrypted column): such files are read but never
// rewritten, since the footer signature and column keys would no longer match.
func (m *FileMetaData) Encrypted() bool {
	if m.EncryptionAlgorithm.Value != nil || m.FooterSigningKeyMetadata != nil {
		return true
	}
	for _, rg := range m.RowGroups {
		for _, cc := range rg.Columns {
			if cc.CryptoMetadata.Value != nil || cc.EncryptedColumnMetadata != nil {
				return true
			}
		}
	}
	return false
}

// KeyValue returns the value stored under key in the file's key/value
// metadata and whether it is there (with a value).
func (m *FileMetaData) KeyValue(key string) (string, bool) {
	for _, kv := range m.KeyValueMetadata {
		if kv.Key == key {
			return kv.Value.V, kv.Value.Valid
		}
	}
	return "", false
}

// SetKeyValue sets key to value, replacing the first entry with that key.
func (m *FileMetaData) SetKeyValue(key, value string) {
	for i := range m.KeyValueMetadata {
		if m.KeyValueMetadata[i].Key == key {
			m.KeyValueMetadata[i].Value = thrift.New(value)
			return
		}
	}
	m.KeyValueMetadata = append(m.KeyValueMetadata, KeyValue{Key: key, Value: thrift.New(value)})
}
