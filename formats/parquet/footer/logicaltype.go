package footer

import (
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
// *ExtensionType (a registered extension, kind_extension.go) or
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

// UnknownLogicalType is a LogicalType member whose id this model does not
// know (nor is it the configured VECTOR id). It is kept, not dropped, so that
// inspection can report it and a rewrite writes it back unchanged.
type UnknownLogicalType struct {
	ID int16
	// Raw is the member's encoded struct body (fields and the closing STOP),
	// exactly as read. Nil encodes as an empty struct.
	Raw []byte
}

func (t *UnknownLogicalType) FieldID() int16     { return t.ID }
func (*UnknownLogicalType) memberKind() Kind     { return KindUnknown }
func (t *UnknownLogicalType) structBody() []byte { return t.Raw }
func (t *UnknownLogicalType) String() string {
	return fmt.Sprintf("UNKNOWN_ANNOTATION(id=%d)", t.ID)
}

func (t *UnknownLogicalType) checkID() error {
	if staticLogicalTypes[t.ID] != nil || t.ID == FileID || t.ID <= 0 {
		return fmt.Errorf("unknown logical type id %d is not encodable: it would decode as a known type, or is not positive", t.ID)
	}
	return nil
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
		if m, ok := member.(extendedMember); ok {
			if err := m.checkID(); err != nil {
				return err
			}
			body = m.structBody()
		} else if enc = encoders[reflect.TypeOf(member)]; enc == nil {
			return fmt.Errorf("%T is not a member of the LogicalType union", member)
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
			if k := decodedKind(decodeConfig(r), f.ID); k != nil {
				member = k.member(f.ID, body)
				continue
			}
			member = &UnknownLogicalType{ID: f.ID, Raw: body}
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

// decodeConfig is the configuration of the decode r belongs to, or nil
// when r is not one of ours (see footerReader): the kinds' defaults.
func decodeConfig(r thrift.Reader) *config {
	if fr, ok := r.(*footerReader); ok {
		return fr.cfg
	}
	return nil
}
