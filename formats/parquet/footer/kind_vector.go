package footer

import (
	"fmt"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

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
func (*VectorType) memberKind() Kind { return KindVector }

func (t *VectorType) structBody() []byte { return t.Unmodelled }

func (t *VectorType) checkID() error {
	if id := t.FieldID(); isStandardID(id) && id != VectorProposalID {
		return fmt.Errorf("VECTOR union id %d collides with a parquet-format logical type id", id)
	}
	return nil
}

// vectorKind is VECTOR in the kinds registry, under DefaultVectorID unless
// a decode says otherwise (WithVectorID) or a writer chose another id.
type vectorKind struct{}

func (vectorKind) kind() Kind { return KindVector }
func (vectorKind) id() int16  { return DefaultVectorID }

func (vectorKind) decodeID(c *config) (int16, bool) {
	if c == nil {
		return DefaultVectorID, true
	}
	return c.vectorID, true
}

func (vectorKind) member(id int16, body []byte) LogicalTypeValue {
	return &VectorType{ID: id, Unmodelled: unmodelled(body)}
}

func (vectorKind) place(meta *FileMetaData, tree *schemaTree, i int) error {
	if meta.Schema[i].IsGroup() {
		_, _, err := checkVectorGroup(tree, i)
		return err
	}
	return checkVectorLeaf(tree, i, 0, "")
}

// annotate puts VECTOR on the outer group of a 3-level structure as PR #592
// shapes it, or on a FIXED_LEN_BYTE_ARRAY leaf (the lab's flat layout); see
// Annotate.
func (vectorKind) annotate(meta *FileMetaData, tree *schemaTree, i int, a Annotation) (Annotation, error) {
	id := a.ID
	if id == 0 {
		id = DefaultVectorID
	}
	if spec, taken := extensionAt(id); taken {
		return Annotation{}, fmt.Errorf("VECTOR union id %d is registered to %s", id, spec.Kind)
	}
	if !meta.Schema[i].IsGroup() {
		return annotateVectorLeaf(meta, tree, i, id, a)
	}
	if (isStandardID(id) && !(id == VectorProposalID && a.VectorRepetition)) || id < 0 {
		return Annotation{}, fmt.Errorf("VECTOR union id %d collides with parquet-format's ids 1-19 or is negative "+
			"(19, the id of PR #592 and arrow-go's prototype, only with VectorRepetition, where the VECTOR middle group tells it from FILE)", id)
	}
	if a.VectorLength <= 0 {
		return Annotation{}, fmt.Errorf("VECTOR needs a positive vector length, got %d", a.VectorLength)
	}
	middle, element, err := checkVectorGroup(tree, i)
	if err != nil {
		return Annotation{}, err
	}
	m := &meta.Schema[middle]
	if a.VectorRepetition || m.RepetitionType.V == Vector {
		// PR #592: "The middle level, named `list`, must be a group
		// with `repetition_type = VECTOR`, exactly one field named
		// `element`". The REPEATED list layout keeps whatever names
		// its writer chose.
		if m.Name != "list" || meta.Schema[element].Name != "element" {
			return Annotation{}, fmt.Errorf("VECTOR repetition needs the middle group named \"list\" and its field \"element\" (PR #592), not %q and %q",
				m.Name, meta.Schema[element].Name)
		}
	}
	if !a.VectorRepetition && m.RepetitionType.V == Vector {
		return Annotation{}, fmt.Errorf("the middle group already has VECTOR repetition; set VectorRepetition")
	}
	entry := Annotation{Kind: KindVector, ID: id, VectorLength: a.VectorLength, VectorRepetition: a.VectorRepetition, Element: "GROUP"}
	if e := &meta.Schema[element]; !e.IsGroup() {
		entry.Element = e.Type.V.String()
	}
	el := &meta.Schema[i]
	el.LogicalType = LogicalType{Value: &VectorType{ID: id}}
	if a.VectorRepetition {
		m.RepetitionType = thrift.New(Vector)
		m.VectorLength = thrift.New(a.VectorLength)
		if el.ConvertedType.Valid && el.ConvertedType.V == deprecated.List {
			el.ConvertedType = thrift.Null[deprecated.ConvertedType]{}
		}
	}
	return entry, nil
}

// recognise reports VECTOR under the id it was decoded under, and under 19
// over a VECTOR-repeated group: PR #592's (and arrow-go#854's) VECTOR id,
// not FILE, whose children are the leaves of its field table.
func (vectorKind) recognise(meta *FileMetaData, tree *schemaTree, _ *mirror, i int) (Annotation, bool) {
	a := Annotation{Kind: KindVector}
	switch v := meta.Schema[i].LogicalType.Value.(type) {
	case *VectorType:
		a.ID = v.FieldID()
	case *FileType:
		if v.Unmodelled != nil || vectorRepeatedChild(tree, i) < 0 {
			return Annotation{}, false
		}
		a.ID = VectorProposalID
	default:
		return Annotation{}, false
	}
	describeVectorGroup(meta, tree, i, &a)
	return a, true
}

// VectorElementWidths are the element types of the lab's own
// FIXED_LEN_BYTE_ARRAY VECTOR layout, flba (one cell holds vector_length
// little-endian elements, the PLAIN bytes PR #241's FIXED_SIZE_LIST also
// uses), and their widths in bytes. The names
// are the mirror's "element" values. bfloat16 is absent: Parquet has no type
// for it, so no reader could tell its bytes from float16.
var VectorElementWidths = map[string]int32{
	"FLOAT":   4,
	"DOUBLE":  8,
	"FLOAT16": 2,
	"INT8":    1,
}

// annotateVectorLeaf puts VECTOR under id on a FIXED_LEN_BYTE_ARRAY leaf:
// the lab's own flat layout (flba; not PR #241, whose FIXED_SIZE_LIST
// carries its parameters in the thrift struct, see fixedSizeListKind), where
// the annotation says the fixed bytes are VectorLength elements of type
// a.Element. Nothing in the empty VectorType struct holds the element type
// or the length, so they live in the mirror.
func annotateVectorLeaf(meta *FileMetaData, tree *schemaTree, i int, id int16, a Annotation) (Annotation, error) {
	if isStandardID(id) || id < 0 {
		return Annotation{}, fmt.Errorf("VECTOR union id %d collides with parquet-format's ids 1-19 or is negative", id)
	}
	if a.VectorRepetition {
		return Annotation{}, fmt.Errorf("a FIXED_LEN_BYTE_ARRAY vector has no middle group to give VECTOR repetition")
	}
	if err := checkVectorLeaf(tree, i, a.VectorLength, a.Element); err != nil {
		return Annotation{}, err
	}
	meta.Schema[i].LogicalType = LogicalType{Value: &VectorType{ID: id}}
	return Annotation{Kind: KindVector, ID: id, VectorLength: a.VectorLength, Element: a.Element}, nil
}

// checkVectorLeaf checks the flat VECTOR layout: a non-repeated
// FIXED_LEN_BYTE_ARRAY leaf of length × width bytes. length 0 skips the size
// check (RewriteFooter sees the annotation without its mirror entry).
func checkVectorLeaf(tree *schemaTree, i int, length int32, element string) error {
	e := &tree.schema[i]
	if !e.Type.Valid || e.Type.V != format.FixedLenByteArray {
		return fmt.Errorf("VECTOR on a leaf needs FIXED_LEN_BYTE_ARRAY, this one is %s", nullString(e.Type.V, e.Type.Valid))
	}
	if r := e.RepetitionType; r.Valid && r.V != Required && r.V != Optional {
		return fmt.Errorf("a VECTOR leaf must be optional or required, not %s", r.V)
	}
	if e.LogicalType.Value != nil {
		if _, ok := e.LogicalType.Value.(*VectorType); !ok {
			return fmt.Errorf("the leaf already has logical type %s", e.LogicalType.String())
		}
	}
	if length == 0 && element == "" {
		return nil
	}
	width, ok := VectorElementWidths[element]
	if !ok {
		return fmt.Errorf("VECTOR element %q is not one of FLOAT, DOUBLE, FLOAT16, INT8 (bfloat16 has no Parquet type)", element)
	}
	if length <= 0 {
		return fmt.Errorf("VECTOR needs a positive vector length, got %d", length)
	}
	if int64(e.TypeLength.V) != int64(length)*int64(width) {
		return fmt.Errorf("FIXED_LEN_BYTE_ARRAY(%d) cannot hold %d %s elements of %d bytes", e.TypeLength.V, length, element, width)
	}
	return nil
}

// describeVectorGroup fills in what the schema says of the VECTOR group i:
// the middle group's VECTOR repetition and vector_length, and the element.
func describeVectorGroup(meta *FileMetaData, tree *schemaTree, i int, a *Annotation) {
	c := tree.children[i]
	if len(c) != 1 {
		return
	}
	m := &meta.Schema[c[0]]
	if m.RepetitionType.Valid && m.RepetitionType.V == Vector {
		a.VectorRepetition, a.VectorLength = true, m.VectorLength.V
	}
	if e := tree.children[c[0]]; len(e) == 1 {
		a.Element = "GROUP"
		if x := &meta.Schema[e[0]]; !x.IsGroup() {
			a.Element = x.Type.V.String()
		}
	}
}

// vectorRepeatedChild is the index of group i's only child when that child
// is a group with VECTOR repetition, else -1.
func vectorRepeatedChild(tree *schemaTree, i int) int {
	c := tree.children[i]
	if !tree.schema[i].IsGroup() || len(c) != 1 {
		return -1
	}
	m := &tree.schema[c[0]]
	if !m.IsGroup() || !m.RepetitionType.Valid || m.RepetitionType.V != Vector {
		return -1
	}
	return c[0]
}

// checkVectorGroup checks the 3-level VECTOR structure under the outer group
// i and returns the middle and element indexes.
func checkVectorGroup(tree *schemaTree, i int) (middle, element int, err error) {
	outer := &tree.schema[i]
	if r := outer.RepetitionType; r.Valid && r.V != Required && r.V != Optional {
		return 0, 0, fmt.Errorf("a VECTOR group must be optional or required, not %s", r.V)
	}
	if len(tree.children[i]) != 1 {
		return 0, 0, fmt.Errorf("a VECTOR group has exactly one child (the middle group), this one has %d", len(tree.children[i]))
	}
	middle = tree.children[i][0]
	m := &tree.schema[middle]
	if !m.IsGroup() || len(tree.children[middle]) != 1 {
		return 0, 0, fmt.Errorf("the middle level %q must be a group with exactly one child (the element)", m.Name)
	}
	if r := m.RepetitionType; !r.Valid || (r.V != Repeated && r.V != Vector) {
		return 0, 0, fmt.Errorf("the middle group %q must be repeated (list layout) or VECTOR, not %s", m.Name, repetitionString(m))
	}
	if m.LogicalType.Value != nil {
		return 0, 0, fmt.Errorf("the middle group %q must not have a logical type (it has %s)", m.Name, m.LogicalType.String())
	}
	if m.ConvertedType.Valid {
		// PR #592, of the middle level: "It must not have a logical type or
		// converted type."
		return 0, 0, fmt.Errorf("the middle group %q must not have a converted type (it has %d)", m.Name, m.ConvertedType.V)
	}
	element = tree.children[middle][0]
	// No repeated field anywhere in the element subtree.
	stack := []int{element}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r := tree.schema[n].RepetitionType; r.Valid && r.V != Required && r.V != Optional {
			return 0, 0, fmt.Errorf("%s inside the vector element is %s; only required and optional fields may be", pathString(tree.path(n)), r.V)
		}
		stack = append(stack, tree.children[n]...)
	}
	return middle, element, nil
}
