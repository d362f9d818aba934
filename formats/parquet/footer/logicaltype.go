package footer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Union ids of the LogicalType members this package treats specially.
const (
	// FileID is FILE's id in parquet-format 2.14.0.
	FileID int16 = 19
	// DefaultVectorID is the lab's id for VECTOR. PR #592 proposes 19, which
	// parquet-format 2.14.0 gave to FILE, so the lab moves VECTOR aside; the
	// id is configurable with WithVectorID.
	DefaultVectorID int16 = 20
	// VectorProposalID is the id PR #592 (head 94d5ced: "19: VectorType
	// VECTOR") and arrow-go's prototype (apache/arrow-go#854, head fcad933:
	// `thrift:"VECTOR,19"`) give VECTOR. A footer may be written with it
	// (Annotate, for files that test against that prototype); a 2.14.0
	// reader sees it as FILE, and ReadAnnotations reports it as VECTOR only
	// where the schema rules FILE out (a group over a VECTOR-repeated group).
	VectorProposalID int16 = 19
	// PR241FixedSizeListID is the id parquet-format PR #241 (head bc3df18)
	// gives FIXED_SIZE_LIST: "19: FixedSizeListType FIXED_SIZE_LIST". It is
	// also FILE's id in 2.14.0 and the id PR #592 and arrow-go's prototype
	// (apache/arrow-go#854) give VECTOR.
	PR241FixedSizeListID int16 = 19
	// DefaultFixedSizeListID is the lab's default id for FIXED_SIZE_LIST,
	// moved aside from 19 as VECTOR is (20 being the lab's VECTOR). A writer
	// may choose 19 to write PR #241's bytes exactly (Annotate).
	DefaultFixedSizeListID int16 = 21
)

// LogicalTypeValue is a member of the LogicalType union: one of parquet-go's
// format annotation types (*format.StringType, *format.DecimalType, ...),
// *VariantType, *GeometryType, *GeographyType, *FileType, *VectorType,
// *ExtensionType (a registered extension, registry.go) or
// *UnknownLogicalType.
type LogicalTypeValue interface {
	FieldID() int16
	String() string
}

// VariantType is id 16, copied from parquet-go so that an absent
// specification_version stays absent.
type VariantType struct {
	SpecificationVersion thrift.Null[int8] `thrift:"1,optional"`
}

func (*VariantType) FieldID() int16 { return 16 }
func (*VariantType) String() string { return "VARIANT" }

// GeometryType is id 17, copied so that an explicit empty crs stays explicit.
type GeometryType struct {
	CRS thrift.Null[string] `thrift:"1,optional"`
}

func (*GeometryType) FieldID() int16 { return 17 }
func (t *GeometryType) String() string {
	return fmt.Sprintf("GEOMETRY(%q)", t.CRS.V)
}

// GeographyType is id 18, copied so that an explicit SPHERICAL (0) stays explicit.
type GeographyType struct {
	CRS       thrift.Null[string]                            `thrift:"1,optional"`
	Algorithm thrift.Null[format.EdgeInterpolationAlgorithm] `thrift:"2,optional"`
}

func (*GeographyType) FieldID() int16 { return 18 }
func (t *GeographyType) String() string {
	return fmt.Sprintf("GEOGRAPHY(%q, %s)", t.CRS.V, t.Algorithm.V)
}

// FileType is the FILE annotation of parquet-format 2.14.0 (id 19) on a group
// whose children are a subset of uri, offset, size, content_type, checksum
// and inline. Its thrift struct has no fields.
type FileType struct {
	// Unmodelled is the encoded struct body (fields and the closing STOP)
	// when a writer put fields in it that this model does not know; a round
	// trip writes it back verbatim. Nil for the empty struct.
	Unmodelled []byte
}

func (*FileType) FieldID() int16 { return FileID }
func (*FileType) String() string { return "FILE" }

// VectorType is the VECTOR annotation of PR #592. As in the PR its thrift
// struct has no fields: the element type is the "element" child in the
// schema, and the length is SchemaElement.VectorLength of the middle group
// when that group's repetition is VECTOR (or the key/value mirror when the
// data keeps the REPEATED list layout; see Annotate).
type VectorType struct {
	// ID is the union id the annotation is written under; 0 means
	// DefaultVectorID. Decode fills it with the id it was read under.
	ID int16
	// Unmodelled: as in FileType.
	Unmodelled []byte
}

func (t *VectorType) FieldID() int16 {
	if t == nil || t.ID == 0 {
		return DefaultVectorID
	}
	return t.ID
}
func (t *VectorType) String() string { return fmt.Sprintf("VECTOR(id=%d)", t.FieldID()) }

// FixedSizeListType is parquet-format PR #241's FIXED_SIZE_LIST, at its head
// (bc3df18):
//
//	struct FixedSizeListType {
//	    1: required Type type;
//	    2: required i32 num_values;
//	}
//
// on a FIXED_LEN_BYTE_ARRAY leaf whose type_length is num_values elements of
// type in their PLAIN representation (little-endian for INT32, INT64, FLOAT
// and DOUBLE). Decode never produces it, because the id it sits under is the
// writer's choice (19 in the PR, which 2.14.0 gives to FILE): a decoded
// member is *UnknownLogicalType, *FileType (id 19) or *VectorType (the
// decode's VECTOR id), and AsFixedSizeList reads it under a given id.
type FixedSizeListType struct {
	// ID is the union id; 0 means DefaultFixedSizeListID.
	ID        int16
	Type      format.Type
	NumValues int32
}

func (t *FixedSizeListType) FieldID() int16 {
	if t == nil || t.ID == 0 {
		return DefaultFixedSizeListID
	}
	return t.ID
}

func (t *FixedSizeListType) String() string {
	return fmt.Sprintf("FIXED_SIZE_LIST(type=%s, num_values=%d, id=%d)", t.Type, t.NumValues, t.FieldID())
}

// body is the member's struct as PR #241 defines it, in the compact
// protocol: field 1 (i32 type), field 2 (i32 num_values), STOP.
func (t *FixedSizeListType) body() []byte {
	b := []byte{0x15} // field id delta 1, type I32 (5)
	b = binary.AppendUvarint(b, zigzag32(int32(t.Type)))
	b = append(b, 0x15) // delta 1 again: field 2, I32
	b = binary.AppendUvarint(b, zigzag32(t.NumValues))
	return append(b, 0) // STOP
}

func zigzag32(v int32) uint64 { return uint64(uint32((v << 1) ^ (v >> 31))) }

// fixedSizeListFields is what AsFixedSizeList decodes a member body into.
type fixedSizeListFields struct {
	Type      int32 `thrift:"1,required"`
	NumValues int32 `thrift:"2,required"`
}

// AsFixedSizeList reads a decoded LogicalType member as PR #241's
// FIXED_SIZE_LIST under union id id. ok is false when the member does not
// sit under id, or is a struct without fields (a FILE or VECTOR, whose
// structs are empty); err is set when it sits under id with fields that are
// not FixedSizeListType's. The result is not validated: see
// CheckFixedSizeList.
func AsFixedSizeList(v LogicalTypeValue, id int16) (t *FixedSizeListType, ok bool, err error) {
	if v == nil || v.FieldID() != id {
		return nil, false, nil
	}
	var body []byte
	switch m := v.(type) {
	case *FixedSizeListType:
		return m, true, nil
	case *UnknownLogicalType:
		body = m.Raw
	case *FileType:
		body = m.Unmodelled
	case *VectorType:
		body = m.Unmodelled
	default:
		return nil, false, nil
	}
	if body == nil || len(body) == 1 && body[0] == 0 {
		return nil, false, nil
	}
	var f fixedSizeListFields
	if err := thrift.Unmarshal(&compact, body, &f); err != nil {
		return nil, false, fmt.Errorf("logical type member %d is not PR #241's FixedSizeListType {1: required Type type; 2: required i32 num_values}: %w", id, err)
	}
	return &FixedSizeListType{ID: id, Type: format.Type(f.Type), NumValues: f.NumValues}, true, nil
}

// CheckFixedSizeList checks a FIXED_SIZE_LIST annotation against the leaf it
// annotates, by PR #241's LogicalTypes.md (head bc3df18): "It must annotate a
// FIXED_LEN_BYTE_ARRAY primitive type"; "`num_values` must be a positive
// integer. `type` must be a fixed-width primitive physical type and must not
// be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`"; "The annotated field's
// `type_length` must equal the encoded size, in bytes, of `num_values`
// elements using the PLAIN representation of `type`" (INT32 and FLOAT 4
// bytes each, INT64 and DOUBLE 8, FIXED_LEN_BYTE_ARRAY "`type_length` must
// be divisible by `num_values`"); and "Readers must treat violating metadata
// as invalid." The leaf must also be optional or required: the PR makes it a
// primitive leaf that "does not use the 3-level `LIST` structure".
func CheckFixedSizeList(t *FixedSizeListType, e *SchemaElement) error {
	if e.IsGroup() || !e.Type.Valid || e.Type.V != format.FixedLenByteArray {
		what := "a group"
		if !e.IsGroup() {
			what = nullString(e.Type.V, e.Type.Valid)
		}
		return fmt.Errorf("FIXED_SIZE_LIST must annotate a FIXED_LEN_BYTE_ARRAY leaf (PR #241), this one is %s", what)
	}
	if r := e.RepetitionType; r.Valid && r.V != Required && r.V != Optional {
		return fmt.Errorf("a FIXED_SIZE_LIST leaf must be optional or required, not %s", r.V)
	}
	if t.NumValues <= 0 {
		return fmt.Errorf("FIXED_SIZE_LIST num_values %d: PR #241 says \"`num_values` must be a positive integer\"", t.NumValues)
	}
	length := int64(e.TypeLength.V)
	n := int64(t.NumValues)
	var width int64
	switch t.Type {
	case format.Int32, format.Float:
		width = 4
	case format.Int64, format.Double:
		width = 8
	case format.FixedLenByteArray:
		if length <= 0 || length%n != 0 {
			return fmt.Errorf("FIXED_SIZE_LIST(type=FIXED_LEN_BYTE_ARRAY, num_values=%d) on FIXED_LEN_BYTE_ARRAY(%d): PR #241 says \"`type_length` must be divisible by `num_values`\"", n, length)
		}
		return nil
	default:
		return fmt.Errorf("FIXED_SIZE_LIST element type %s: PR #241 says \"`type` must be a fixed-width primitive physical type and must not be `BOOLEAN`, `INT96`, or `BYTE_ARRAY`\"", t.Type)
	}
	if length != n*width {
		return fmt.Errorf("FIXED_SIZE_LIST(type=%s, num_values=%d) on FIXED_LEN_BYTE_ARRAY(%d): PR #241 requires type_length = num_values × %d = %d", t.Type, n, length, width, n*width)
	}
	return nil
}

// UnknownLogicalType is a LogicalType member whose id this model does not
// know (nor is it the configured VECTOR id). It is kept, not dropped, so that
// inspection can report it and a rewrite writes it back unchanged.
type UnknownLogicalType struct {
	ID int16
	// Raw is the member's encoded struct body (fields and the closing STOP),
	// exactly as read. Nil encodes as an empty struct.
	Raw []byte
}

func (t *UnknownLogicalType) FieldID() int16 { return t.ID }
func (t *UnknownLogicalType) String() string {
	return fmt.Sprintf("UNKNOWN_ANNOTATION(id=%d)", t.ID)
}

// staticLogicalTypes are the members decoded by parquet-go's codec, by id.
var staticLogicalTypes = map[int16]reflect.Type{
	1:  reflect.TypeFor[format.StringType](),
	2:  reflect.TypeFor[format.MapType](),
	3:  reflect.TypeFor[format.ListType](),
	4:  reflect.TypeFor[format.EnumType](),
	5:  reflect.TypeFor[format.DecimalType](),
	6:  reflect.TypeFor[format.DateType](),
	7:  reflect.TypeFor[format.TimeType](),
	8:  reflect.TypeFor[format.TimestampType](),
	10: reflect.TypeFor[format.IntType](),
	11: reflect.TypeFor[format.NullType](),
	12: reflect.TypeFor[format.JsonType](),
	13: reflect.TypeFor[format.BsonType](),
	14: reflect.TypeFor[format.UUIDType](),
	15: reflect.TypeFor[format.Float16Type](),
	16: reflect.TypeFor[VariantType](),
	17: reflect.TypeFor[GeometryType](),
	18: reflect.TypeFor[GeographyType](),
}

// isStandardID reports whether parquet-format 2.14.0 assigns id (9 is
// reserved for INTERVAL): such ids cannot be used for VECTOR nor carried by
// an UnknownLogicalType.
func isStandardID(id int16) bool { return id >= 1 && id <= FileID }

// LogicalType is the LogicalType union of parquet-format 2.14.0 plus the
// lab's VECTOR. Unlike parquet-go's union (thrift.Union), which drops an
// unknown member and leaves the union unset, it implements thrift.Value with
// its own codec: unknown members are kept as *UnknownLogicalType with their
// bytes, and the VECTOR id is looked up per decode (see WithVectorID) rather
// than fixed per Go type.
type LogicalType struct {
	Value LogicalTypeValue
}

func (t *LogicalType) String() string {
	if t.Value == nil {
		return ""
	}
	return t.Value.String()
}

// Type implements thrift.Value.
func (LogicalType) Type() thrift.Type { return thrift.STRUCT }

// NullFunc implements thrift.Value: an unset union is an absent field.
func (LogicalType) NullFunc() thrift.NullFunc {
	return func(v reflect.Value) bool { return v.Field(0).IsNil() }
}

var emptyStructType = reflect.TypeFor[struct{}]()

// EncodeFunc implements thrift.Value.
func (LogicalType) EncodeFunc(cache thrift.EncodeFuncCache) thrift.EncodeFunc {
	encoders := make(map[reflect.Type]thrift.EncodeFunc, len(staticLogicalTypes))
	for _, t := range staticLogicalTypes {
		encoders[reflect.PointerTo(t)] = thrift.EncodeFuncOf(t, cache)
	}
	return func(w thrift.Writer, v reflect.Value, flags thrift.Flags) error {
		member, _ := v.Field(0).Interface().(LogicalTypeValue)
		if member == nil {
			return w.WriteField(thrift.Field{Type: thrift.STOP})
		}
		id := member.FieldID()
		var body []byte // a verbatim struct body, or nil to use enc
		var enc thrift.EncodeFunc
		switch m := member.(type) {
		case *FileType:
			body = m.Unmodelled
		case *VectorType:
			if isStandardID(id) && id != VectorProposalID {
				return fmt.Errorf("VECTOR union id %d collides with a parquet-format logical type id", id)
			}
			body = m.Unmodelled
		case *FixedSizeListType:
			if isStandardID(id) && id != PR241FixedSizeListID {
				return fmt.Errorf("FIXED_SIZE_LIST union id %d collides with a parquet-format logical type id", id)
			}
			if id <= 0 {
				return fmt.Errorf("FIXED_SIZE_LIST union id %d is not positive", id)
			}
			body = m.body()
		case *ExtensionType:
			if spec, ok := extensionByID(id); !ok || spec.Kind != m.Kind {
				return fmt.Errorf("logical type %s is not registered under union id %d (RegisterLogicalType)", m.Kind, id)
			}
			body = m.Unmodelled
		case *UnknownLogicalType:
			if staticLogicalTypes[id] != nil || id == FileID || id <= 0 {
				return fmt.Errorf("unknown logical type id %d is not encodable: it would decode as a known type, or is not positive", id)
			}
			body = m.Raw
		default:
			enc = encoders[reflect.TypeOf(member)]
			if enc == nil {
				return fmt.Errorf("%T is not a member of the LogicalType union", member)
			}
		}
		if err := w.WriteField(thrift.Field{ID: id, Type: thrift.STRUCT}); err != nil {
			return err
		}
		switch {
		case enc != nil:
			p := reflect.ValueOf(member)
			if p.IsNil() {
				p = reflect.New(p.Type().Elem())
			}
			if err := enc(w, p.Elem(), flags); err != nil {
				return err
			}
		case body == nil:
			if err := w.WriteField(thrift.Field{Type: thrift.STOP}); err != nil {
				return err
			}
		default:
			// Verbatim bytes must be exactly one struct, or the footer
			// would be corrupt from this point on.
			if n, err := ScanStruct(body); err != nil || n != len(body) {
				return fmt.Errorf("logical type %s: kept struct bytes are not one compact-protocol struct", member)
			}
			if _, err := w.Writer().Write(body); err != nil {
				return err
			}
		}
		return w.WriteField(thrift.Field{Type: thrift.STOP})
	}
}

// DecodeFunc implements thrift.Value.
func (LogicalType) DecodeFunc(cache thrift.DecodeFuncCache) thrift.DecodeFunc {
	decoders := make(map[int16]thrift.DecodeFunc, len(staticLogicalTypes))
	for id, t := range staticLogicalTypes {
		decoders[id] = thrift.DecodeFuncOf(t, cache)
	}
	skipStruct := thrift.DecodeFuncOf(emptyStructType, cache)
	return func(r thrift.Reader, v reflect.Value, flags thrift.Flags) error {
		var member LogicalTypeValue
		var lastID int16
		for {
			f, err := r.ReadField()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			if f.Type == thrift.STOP {
				v.Field(0).Set(reflect.ValueOf(&member).Elem())
				return nil
			}
			if f.Delta {
				f.ID += lastID
			}
			lastID = f.ID
			if member != nil {
				return fmt.Errorf("logical type union holds two members (ids %d and %d)", member.FieldID(), f.ID)
			}
			if f.ID <= 0 {
				return fmt.Errorf("logical type member id %d is not positive", f.ID)
			}
			if f.Type != thrift.STRUCT {
				return fmt.Errorf("logical type member %d has thrift type %s, not STRUCT", f.ID, f.Type)
			}
			if dec := decoders[f.ID]; dec != nil {
				p := reflect.New(staticLogicalTypes[f.ID])
				if err := dec(r, p.Elem(), flags); err != nil {
					return fmt.Errorf("logical type member %d: %w", f.ID, err)
				}
				member = p.Interface().(LogicalTypeValue)
				continue
			}
			body, err := captureStruct(r, skipStruct, flags)
			if err != nil {
				return fmt.Errorf("logical type member %d: %w", f.ID, err)
			}
			switch f.ID {
			case FileID:
				member = &FileType{Unmodelled: unmodelled(body)}
			case vectorIDOf(r):
				member = &VectorType{ID: f.ID, Unmodelled: unmodelled(body)}
			default:
				if spec, ok := extensionByID(f.ID); ok {
					member = &ExtensionType{Kind: spec.Kind, ID: f.ID, Unmodelled: unmodelled(body)}
					continue
				}
				member = &UnknownLogicalType{ID: f.ID, Raw: body}
			}
		}
	}
}

// captureStruct consumes one struct and returns its bytes, when the reader is
// one of ours (see footerReader); with any other reader the bytes are skipped
// and nil is returned.
func captureStruct(r thrift.Reader, skip thrift.DecodeFunc, flags thrift.Flags) ([]byte, error) {
	fr, ok := r.(*footerReader)
	start := r.BytesRead()
	if err := skip(r, reflect.New(emptyStructType).Elem(), flags); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if !ok {
		return nil, nil
	}
	return append([]byte(nil), fr.data[start:r.BytesRead()]...), nil
}

// unmodelled returns the struct body unless it is the empty struct.
func unmodelled(body []byte) []byte {
	if len(body) == 1 && body[0] == 0 {
		return nil
	}
	return body
}

func vectorIDOf(r thrift.Reader) int16 {
	if fr, ok := r.(*footerReader); ok {
		return fr.cfg.vectorID
	}
	return DefaultVectorID
}
