package footer

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

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

func (*FixedSizeListType) memberKind() Kind { return KindFixedSizeList }

func (t *FixedSizeListType) checkID() error {
	id := t.FieldID()
	if isStandardID(id) && id != PR241FixedSizeListID {
		return fmt.Errorf("FIXED_SIZE_LIST union id %d collides with a parquet-format logical type id", id)
	}
	if id <= 0 {
		return fmt.Errorf("FIXED_SIZE_LIST union id %d is not positive", id)
	}
	return nil
}

// structBody is the member's struct as PR #241 defines it, in the compact
// protocol: field 1 (i32 type), field 2 (i32 num_values), STOP.
func (t *FixedSizeListType) structBody() []byte {
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
	if t, ok := v.(*FixedSizeListType); ok {
		return t, true, nil
	}
	m, ok := v.(extendedMember)
	if !ok {
		return nil, false, nil
	}
	body := m.structBody()
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

// fixedSizeListKind is FIXED_SIZE_LIST in the kinds registry. It is
// registered under DefaultFixedSizeListID, but a writer may choose PR
// #241's 19 or another free id (Annotate), so the decoder never produces it
// and recognise finds it by its struct.
type fixedSizeListKind struct{}

func (fixedSizeListKind) kind() Kind                     { return KindFixedSizeList }
func (fixedSizeListKind) id() int16                      { return DefaultFixedSizeListID }
func (fixedSizeListKind) decodeID(*config) (int16, bool) { return 0, false }

func (fixedSizeListKind) member(id int16, body []byte) LogicalTypeValue {
	return &UnknownLogicalType{ID: id, Raw: body}
}

func (fixedSizeListKind) place(meta *FileMetaData, _ *schemaTree, i int) error {
	el := &meta.Schema[i]
	t, ok := el.LogicalType.Value.(*FixedSizeListType)
	if !ok {
		return nil
	}
	return CheckFixedSizeList(t, el)
}

// fixedSizeListElements are the element types PR #241 allows, by the names
// Annotation.Element uses for them.
var fixedSizeListElements = map[string]format.Type{
	"INT32":                format.Int32,
	"INT64":                format.Int64,
	"FLOAT":                format.Float,
	"DOUBLE":               format.Double,
	"FIXED_LEN_BYTE_ARRAY": format.FixedLenByteArray,
}

// annotate puts PR #241's FIXED_SIZE_LIST on the leaf i:
// FixedSizeListType{type: a.Element, num_values: a.VectorLength} under
// a.ID (0: DefaultFixedSizeListID), checked by CheckFixedSizeList. The id
// may be PR #241's own 19, which parquet-format 2.14.0 gives to FILE (a
// 2.14.0 reader then sees FILE on a leaf, which FILE cannot annotate), or
// any id above 19 except the lab's VECTOR id, a registered extension's and
// an id another annotation of this footer uses.
func (fixedSizeListKind) annotate(meta *FileMetaData, tree *schemaTree, i int, a Annotation) (Annotation, error) {
	id := a.ID
	if id == 0 {
		id = DefaultFixedSizeListID
	}
	switch {
	case id < 0 || isStandardID(id) && id != PR241FixedSizeListID:
		return Annotation{}, fmt.Errorf("FIXED_SIZE_LIST union id %d is negative or one of parquet-format's ids 1-18 (19 is PR #241's own)", id)
	case id == DefaultVectorID:
		return Annotation{}, fmt.Errorf("FIXED_SIZE_LIST union id %d is the lab's VECTOR id; the lab's readers would read it as VECTOR", id)
	}
	if spec, taken := extensionAt(id); taken {
		return Annotation{}, fmt.Errorf("FIXED_SIZE_LIST union id %d is registered to %s; the lab's readers would read it as %s", id, spec.Kind, spec.Kind)
	}
	if a.VectorRepetition {
		return Annotation{}, fmt.Errorf("FIXED_SIZE_LIST is a primitive leaf and has no VECTOR repetition")
	}
	typ, ok := fixedSizeListElements[a.Element]
	if !ok {
		return Annotation{}, fmt.Errorf("FIXED_SIZE_LIST element type %q is not one PR #241 allows (INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY; not BOOLEAN, INT96 or BYTE_ARRAY)", a.Element)
	}
	el := &meta.Schema[i]
	t := &FixedSizeListType{ID: id, Type: typ, NumValues: a.VectorLength}
	if err := CheckFixedSizeList(t, el); err != nil {
		return Annotation{}, err
	}
	if el.LogicalType.Value != nil {
		if _, ok, _ := AsFixedSizeList(el.LogicalType.Value, id); !ok {
			return Annotation{}, fmt.Errorf("the leaf already has logical type %s", el.LogicalType.String())
		}
	}
	if el.ConvertedType.Valid {
		return Annotation{}, fmt.Errorf("the leaf has a converted type (%d); FIXED_SIZE_LIST has none (PR #241: \"no compatible ConvertedType\")", el.ConvertedType.V)
	}
	m, err := readMirror(meta)
	if err != nil {
		return Annotation{}, err
	}
	path := tree.path(i)
	for _, e := range m.Annotations {
		if e.ID == id && e.Kind != KindFixedSizeList && !slices.Equal(e.Path, path) {
			return Annotation{}, fmt.Errorf("union id %d is already the %s of column %s in this footer", id, e.Kind, pathString(e.Path))
		}
	}
	el.LogicalType = LogicalType{Value: t}
	return Annotation{Kind: KindFixedSizeList, ID: id, VectorLength: a.VectorLength, Element: a.Element}, nil
}

// recognise reads the logical type of leaf i as PR #241's FIXED_SIZE_LIST.
// It is one under the id the mirror records for the column, under PR #241's
// 19 (FILE annotates groups, so a 19 with FixedSizeListType's fields on a
// leaf is not FILE) and under DefaultFixedSizeListID. Under any other id a
// member unknown to this model is one when its struct decodes as
// FixedSizeListType and fits the leaf (CheckFixedSizeList): the id is not
// assigned, and a writer may have picked another. Members that do not
// decode as FixedSizeListType are left to the other kinds.
func (fixedSizeListKind) recognise(meta *FileMetaData, tree *schemaTree, m *mirror, i int) (Annotation, bool) {
	el := &meta.Schema[i]
	if el.IsGroup() || el.LogicalType.Value == nil {
		return Annotation{}, false
	}
	ids := []int16{PR241FixedSizeListID, DefaultFixedSizeListID}
	if m != nil {
		path := tree.path(i)
		for _, e := range m.Annotations {
			if e.Kind == KindFixedSizeList && slices.Equal(e.Path, path) {
				ids = append([]int16{e.ID}, ids...)
			}
		}
	}
	found := func(t *FixedSizeListType) (Annotation, bool) {
		return Annotation{Kind: KindFixedSizeList, ID: t.FieldID(), VectorLength: t.NumValues, Element: t.Type.String()}, true
	}
	for _, id := range ids {
		if t, ok, err := AsFixedSizeList(el.LogicalType.Value, id); ok && err == nil {
			return found(t)
		}
	}
	if u, isUnknown := el.LogicalType.Value.(*UnknownLogicalType); isUnknown {
		if t, ok, err := AsFixedSizeList(u, u.ID); ok && err == nil && CheckFixedSizeList(t, el) == nil {
			return found(t)
		}
	}
	return Annotation{}, false
}
