package footer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// MirrorKey is the key/value metadata key under which Annotate mirrors every
// annotation it writes, so that readers which drop unknown logical types (or
// rewrite footers without them) can still recover them. The value is JSON:
//
//	{"version":1,"annotations":[
//	  {"path":["doc"],"kind":"FILE","id":19},
//	  {"path":["emb"],"kind":"VECTOR","id":20,"vector_length":3,"element":"FLOAT"}]}
//
// Paths are arrays of names (names may contain dots). "vector_repetition" is
// true when the middle group uses VECTOR repetition (the PR #592 layout)
// instead of the REPEATED list layout. A FIXED_SIZE_LIST (PR #241) entry has
// kind "FIXED_SIZE_LIST", its id, "vector_length" = num_values and
// "element" = its type, e.g. "FLOAT".
const MirrorKey = "coltype.annotations"

const mirrorVersion = 1

// Kind names an extension annotation.
type Kind string

const (
	KindFile   Kind = "FILE"
	KindVector Kind = "VECTOR"
	// KindFixedSizeList is parquet-format PR #241's FIXED_SIZE_LIST on a
	// FIXED_LEN_BYTE_ARRAY leaf (FixedSizeListType). Its parameters live in
	// the thrift struct; the mirror repeats them and records the union id.
	KindFixedSizeList Kind = "FIXED_SIZE_LIST"
	// KindUnknown is a LogicalType member this model does not know; it is
	// only ever read, never written by Annotate.
	KindUnknown Kind = "UNKNOWN"
)

// Annotation is an extension annotation on one column (schema node).
type Annotation struct {
	Path []string `json:"path"`
	Kind Kind     `json:"kind"`
	// ID is the LogicalType union id: 19 for FILE, the VECTOR id (default
	// 20), the FIXED_SIZE_LIST id (default 21), or the unknown member's id.
	// For Annotate, 0 means the default.
	ID int16 `json:"id"`
	// VectorLength is the number of element slots per VECTOR value, and
	// FIXED_SIZE_LIST's num_values.
	VectorLength int32 `json:"vector_length,omitempty"`
	// VectorRepetition selects the PR #592 layout: Annotate also sets the
	// middle group's repetition to VECTOR and its vector_length (a shape
	// change RewriteFooter accepts only with AllowVectorRepetition). When
	// false the REPEATED list layout stays, readable by every reader, and
	// the length lives in the mirror only.
	VectorRepetition bool `json:"vector_repetition,omitempty"`
	// Element describes the VECTOR element: its physical type, or "GROUP".
	// Annotate fills it in from the schema. For FIXED_SIZE_LIST it is the
	// struct's type (INT32, INT64, FLOAT, DOUBLE or FIXED_LEN_BYTE_ARRAY),
	// which Annotate needs.
	Element string `json:"element,omitempty"`

	// Where ReadAnnotations found the annotation (not part of the mirror).
	InFooter   bool `json:"-"`
	InKeyValue bool `json:"-"`
}

type mirror struct {
	Version     int          `json:"version"`
	Annotations []Annotation `json:"annotations"`
}

// Annotate puts a FILE or VECTOR annotation on the schema node at columnPath
// and mirrors it in the key/value metadata under MirrorKey.
//
// FILE goes on a group whose children are a subset of the spec's field
// table, each OPTIONAL: uri, content_type and checksum BYTE_ARRAY annotated
// STRING, offset and size INT64, inline BYTE_ARRAY. The FILE binding
// (formats/parquet/filecol) registers that rule (RegisterFilePlacement), the
// check types/file applies on read; without it FILE is refused
// (ErrNoFilePlacement).
//
// VECTOR goes on the outer group of a 3-level structure as PR #592 shapes it:
// a non-repeated group with one child, the middle group (REPEATED, or VECTOR
// already), with one non-repeated child and no repeated field below it. The
// outer group's LIST logical type is replaced; its LIST converted type stays
// in the REPEATED layout, so readers that drop the unknown annotation still
// read a list, and is cleared with VectorRepetition (a VECTOR group is not a
// LIST).
//
// VECTOR also goes on a FIXED_LEN_BYTE_ARRAY leaf (the flat layout): then
// a.Element names the element type (a key of VectorElementWidths) and the
// leaf's type length must be VectorLength × its width.
func Annotate(meta *FileMetaData, columnPath []string, a Annotation) (err error) {
	defer guard(&err, "annotate")
	if meta == nil {
		return errors.New("annotate: nil FileMetaData")
	}
	for _, name := range columnPath {
		if !utf8.ValidString(name) {
			return fmt.Errorf("annotate column %q: the name %q is not valid UTF-8, which the JSON mirror cannot hold", columnPath, name)
		}
	}
	tree, err := newSchemaTree(meta.Schema)
	if err != nil {
		return fmt.Errorf("annotate column %s: %w", pathString(columnPath), err)
	}
	i, err := tree.find(columnPath)
	if err != nil {
		return fmt.Errorf("annotate: %w", err)
	}
	where := pathString(columnPath)
	el := &meta.Schema[i]
	if a.Kind == KindFixedSizeList {
		return annotateFixedSizeList(meta, i, columnPath, a)
	}
	if spec, ok := LookupLogicalType(a.Kind); ok {
		return annotateExtension(meta, i, columnPath, spec, a)
	}
	if !el.IsGroup() && (a.Kind == KindVector || a.Kind == KindFile) {
		if a.Kind == KindVector {
			return annotateVectorLeaf(meta, tree, i, columnPath, a)
		}
		return fmt.Errorf("annotate column %s: %s annotates a group, and this is a %s leaf", where, a.Kind, el.Type.V)
	}
	entry := Annotation{Path: slices.Clone(columnPath), Kind: a.Kind}
	switch a.Kind {
	case KindFile:
		if a.ID != 0 && a.ID != FileID {
			return fmt.Errorf("annotate column %s: FILE has union id %d, not %d", where, FileID, a.ID)
		}
		if err := checkFileGroup(meta, i); err != nil {
			return fmt.Errorf("annotate column %s: %w", where, err)
		}
		entry.ID = FileID
		el.LogicalType = LogicalType{Value: &FileType{}}
	case KindVector:
		id := a.ID
		if id == 0 {
			id = DefaultVectorID
		}
		if (isStandardID(id) && !(id == VectorProposalID && a.VectorRepetition)) || id < 0 {
			return fmt.Errorf("annotate column %s: VECTOR union id %d collides with parquet-format's ids 1-19 or is negative "+
				"(19, the id of PR #592 and arrow-go's prototype, only with VectorRepetition, where the VECTOR middle group tells it from FILE)", where, id)
		}
		if spec, taken := extensionByID(id); taken {
			return fmt.Errorf("annotate column %s: VECTOR union id %d is registered to %s", where, id, spec.Kind)
		}
		if a.VectorLength <= 0 {
			return fmt.Errorf("annotate column %s: VECTOR needs a positive vector length, got %d", where, a.VectorLength)
		}
		middle, element, err := checkVectorGroup(tree, i)
		if err != nil {
			return fmt.Errorf("annotate column %s: %w", where, err)
		}
		entry.ID, entry.VectorLength, entry.VectorRepetition = id, a.VectorLength, a.VectorRepetition
		entry.Element = "GROUP"
		if e := &meta.Schema[element]; !e.IsGroup() {
			entry.Element = e.Type.V.String()
		}
		el.LogicalType = LogicalType{Value: &VectorType{ID: id}}
		m := &meta.Schema[middle]
		if a.VectorRepetition || m.RepetitionType.V == Vector {
			// PR #592: "The middle level, named `list`, must be a group
			// with `repetition_type = VECTOR`, exactly one field named
			// `element`". The REPEATED list layout keeps whatever names
			// its writer chose.
			if m.Name != "list" || meta.Schema[element].Name != "element" {
				return fmt.Errorf("annotate column %s: VECTOR repetition needs the middle group named \"list\" and its field \"element\" (PR #592), not %q and %q",
					where, m.Name, meta.Schema[element].Name)
			}
		}
		if a.VectorRepetition {
			m.RepetitionType = thrift.New(Vector)
			m.VectorLength = thrift.New(a.VectorLength)
			if el.ConvertedType.Valid && el.ConvertedType.V == deprecated.List {
				el.ConvertedType = thrift.Null[deprecated.ConvertedType]{}
			}
		} else if m.RepetitionType.V == Vector {
			return fmt.Errorf("annotate column %s: the middle group already has VECTOR repetition; set VectorRepetition", where)
		}
	default:
		return fmt.Errorf("annotate column %s: Annotate writes FILE, VECTOR, FIXED_SIZE_LIST or a registered extension type (RegisterLogicalType), not %q", where, a.Kind)
	}
	return setMirrorEntry(meta, entry)
}

// annotateExtension puts a registered extension type on element i, where its
// own placement rule allows it, over no other logical type.
func annotateExtension(meta *FileMetaData, i int, columnPath []string, spec ExtensionSpec, a Annotation) error {
	where := pathString(columnPath)
	switch {
	case a.ID != 0 && a.ID != spec.ID:
		return fmt.Errorf("annotate column %s: %s is registered under union id %d, not %d", where, spec.Kind, spec.ID, a.ID)
	case a.VectorLength != 0 || a.VectorRepetition || a.Element != "":
		return fmt.Errorf("annotate column %s: %s takes no vector length, repetition or element", where, spec.Kind)
	}
	el := &meta.Schema[i]
	if v := el.LogicalType.Value; v != nil {
		if x, ok := v.(*ExtensionType); !ok || x.Kind != spec.Kind {
			return fmt.Errorf("annotate column %s: the column already has logical type %s", where, el.LogicalType.String())
		}
	}
	if err := spec.Place(meta, i); err != nil {
		return fmt.Errorf("annotate column %s: %s: %w", where, spec.Kind, err)
	}
	el.LogicalType = LogicalType{Value: &ExtensionType{Kind: spec.Kind, ID: spec.ID}}
	return setMirrorEntry(meta, Annotation{Path: slices.Clone(columnPath), Kind: spec.Kind, ID: spec.ID})
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

// annotateFixedSizeList puts PR #241's FIXED_SIZE_LIST on the leaf i:
// FixedSizeListType{type: a.Element, num_values: a.VectorLength} under
// a.ID (0: DefaultFixedSizeListID), checked by CheckFixedSizeList. The id
// may be PR #241's own 19, which parquet-format 2.14.0 gives to FILE (a
// 2.14.0 reader then sees FILE on a leaf, which FILE cannot annotate), or
// any id above 19 except the lab's VECTOR id and an id another annotation
// of this footer uses.
func annotateFixedSizeList(meta *FileMetaData, i int, columnPath []string, a Annotation) error {
	where := pathString(columnPath)
	id := a.ID
	if id == 0 {
		id = DefaultFixedSizeListID
	}
	switch {
	case id < 0 || isStandardID(id) && id != PR241FixedSizeListID:
		return fmt.Errorf("annotate column %s: FIXED_SIZE_LIST union id %d is negative or one of parquet-format's ids 1-18 (19 is PR #241's own)", where, id)
	case id == DefaultVectorID:
		return fmt.Errorf("annotate column %s: FIXED_SIZE_LIST union id %d is the lab's VECTOR id; the lab's readers would read it as VECTOR", where, id)
	}
	if spec, taken := extensionByID(id); taken {
		return fmt.Errorf("annotate column %s: FIXED_SIZE_LIST union id %d is registered to %s; the lab's readers would read it as %s", where, id, spec.Kind, spec.Kind)
	}
	if a.VectorRepetition {
		return fmt.Errorf("annotate column %s: FIXED_SIZE_LIST is a primitive leaf and has no VECTOR repetition", where)
	}
	typ, ok := fixedSizeListElements[a.Element]
	if !ok {
		return fmt.Errorf("annotate column %s: FIXED_SIZE_LIST element type %q is not one PR #241 allows (INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY; not BOOLEAN, INT96 or BYTE_ARRAY)", where, a.Element)
	}
	el := &meta.Schema[i]
	t := &FixedSizeListType{ID: id, Type: typ, NumValues: a.VectorLength}
	if err := CheckFixedSizeList(t, el); err != nil {
		return fmt.Errorf("annotate column %s: %w", where, err)
	}
	if el.LogicalType.Value != nil {
		if _, ok, _ := AsFixedSizeList(el.LogicalType.Value, id); !ok {
			return fmt.Errorf("annotate column %s: the leaf already has logical type %s", where, el.LogicalType.String())
		}
	}
	if el.ConvertedType.Valid {
		return fmt.Errorf("annotate column %s: the leaf has a converted type (%d); FIXED_SIZE_LIST has none (PR #241: \"no compatible ConvertedType\")", where, el.ConvertedType.V)
	}
	m, err := readMirror(meta)
	if err != nil {
		return err
	}
	for _, e := range m.Annotations {
		if e.ID == id && e.Kind != KindFixedSizeList && !slices.Equal(e.Path, columnPath) {
			return fmt.Errorf("annotate column %s: union id %d is already the %s of column %s in this footer", where, id, e.Kind, pathString(e.Path))
		}
	}
	el.LogicalType = LogicalType{Value: t}
	return setMirrorEntry(meta, Annotation{Path: slices.Clone(columnPath), Kind: KindFixedSizeList, ID: id,
		VectorLength: a.VectorLength, Element: a.Element})
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

// annotateVectorLeaf puts VECTOR on a FIXED_LEN_BYTE_ARRAY leaf: the lab's
// own flat layout (flba; not PR #241, whose FIXED_SIZE_LIST carries its
// parameters in the thrift struct, see annotateFixedSizeList), where the
// annotation says the fixed bytes are VectorLength elements of type
// a.Element. Nothing in the empty VectorType struct holds the element type
// or the length, so they live in the mirror.
func annotateVectorLeaf(meta *FileMetaData, tree *schemaTree, i int, columnPath []string, a Annotation) error {
	where := pathString(columnPath)
	id := a.ID
	if id == 0 {
		id = DefaultVectorID
	}
	if isStandardID(id) || id < 0 {
		return fmt.Errorf("annotate column %s: VECTOR union id %d collides with parquet-format's ids 1-19 or is negative", where, id)
	}
	if a.VectorRepetition {
		return fmt.Errorf("annotate column %s: a FIXED_LEN_BYTE_ARRAY vector has no middle group to give VECTOR repetition", where)
	}
	if err := checkVectorLeaf(tree, i, a.VectorLength, a.Element); err != nil {
		return fmt.Errorf("annotate column %s: %w", where, err)
	}
	meta.Schema[i].LogicalType = LogicalType{Value: &VectorType{ID: id}}
	return setMirrorEntry(meta, Annotation{Path: slices.Clone(columnPath), Kind: KindVector, ID: id,
		VectorLength: a.VectorLength, Element: a.Element})
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

// checkFileGroup checks that element i of meta may carry FILE: a group
// (what the union member annotates), whose children the registered rule
// accepts (RegisterFilePlacement: filecol's, types/file's CheckChildren, the
// check ParseStruct applies when the lab reads the group, so Annotate refuses
// what the reader would). Without a rule it refuses with ErrNoFilePlacement.
func checkFileGroup(meta *FileMetaData, i int) error {
	if e := &meta.Schema[i]; !e.IsGroup() {
		return fmt.Errorf("FILE annotates a group, and this is a %s leaf", e.Type.V)
	}
	place := lookupFilePlacement()
	if place == nil {
		return ErrNoFilePlacement
	}
	return place(meta, i)
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

// fixedSizeListAt reads the logical type of leaf i as PR #241's
// FIXED_SIZE_LIST, or returns nil. It is one under the id the mirror
// records for the column, under PR #241's 19 (FILE annotates groups, so a
// 19 with FixedSizeListType's fields on a leaf is not FILE) and under
// DefaultFixedSizeListID. Under any other id a member unknown to this model
// is one when its struct decodes as FixedSizeListType and fits the leaf
// (CheckFixedSizeList): the id is not assigned, and a writer may have
// picked another. Members that do not decode as FixedSizeListType are left
// as they are.
func fixedSizeListAt(meta *FileMetaData, tree *schemaTree, m *mirror, i int) *FixedSizeListType {
	el := &meta.Schema[i]
	if el.IsGroup() || el.LogicalType.Value == nil {
		return nil
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
	for _, id := range ids {
		if t, ok, err := AsFixedSizeList(el.LogicalType.Value, id); ok && err == nil {
			return t
		}
	}
	if u, isUnknown := el.LogicalType.Value.(*UnknownLogicalType); isUnknown {
		if t, ok, err := AsFixedSizeList(u, u.ID); ok && err == nil && CheckFixedSizeList(t, el) == nil {
			return t
		}
	}
	return nil
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

// readMirror parses the mirror; absent is not an error.
func readMirror(meta *FileMetaData) (*mirror, error) {
	v, ok := meta.KeyValue(MirrorKey)
	if !ok {
		return &mirror{Version: mirrorVersion}, nil
	}
	var m mirror
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return nil, fmt.Errorf("key/value metadata %q is not the annotation mirror: %w", MirrorKey, err)
	}
	if m.Version != mirrorVersion {
		return nil, fmt.Errorf("key/value metadata %q has version %d; this code reads version %d", MirrorKey, m.Version, mirrorVersion)
	}
	return &m, nil
}

func setMirrorEntry(meta *FileMetaData, entry Annotation) error {
	m, err := readMirror(meta)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(m.Annotations, func(a Annotation) bool { return slices.Equal(a.Path, entry.Path) })
	if i >= 0 {
		m.Annotations[i] = entry
	} else {
		m.Annotations = append(m.Annotations, entry)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	meta.SetKeyValue(MirrorKey, string(b))
	return nil
}

// ReadAnnotations returns the extension annotations of a footer: FILE, VECTOR
// and unknown LogicalType members found in the schema, merged with the
// entries of the key/value mirror (by path and kind), in schema order and then
// mirror order. InFooter and InKeyValue say where each was found; an entry
// only in the mirror is what a reader that dropped the annotation left.
func ReadAnnotations(meta *FileMetaData) (_ []Annotation, err error) {
	defer guard(&err, "read annotations")
	if meta == nil {
		return nil, errors.New("read annotations: nil FileMetaData")
	}
	tree, err := newSchemaTree(meta.Schema)
	if err != nil {
		return nil, err
	}
	m, err := readMirror(meta)
	if err != nil {
		m = nil
	}
	var out []Annotation
	for i := range meta.Schema {
		el := &meta.Schema[i]
		a := Annotation{Path: tree.path(i), InFooter: true}
		if fsl := fixedSizeListAt(meta, tree, m, i); fsl != nil {
			a.Kind, a.ID, a.VectorLength, a.Element = KindFixedSizeList, fsl.FieldID(), fsl.NumValues, fsl.Type.String()
			out = append(out, a)
			continue
		}
		switch v := el.LogicalType.Value.(type) {
		case *FileType:
			a.Kind, a.ID = KindFile, FileID
			if v.Unmodelled == nil && vectorRepeatedChild(tree, i) >= 0 {
				// 19 over a VECTOR-repeated group: PR #592's (and
				// arrow-go#854's) VECTOR id, not FILE, whose children
				// are the leaves of its field table.
				a.Kind, a.ID = KindVector, VectorProposalID
				describeVectorGroup(meta, tree, i, &a)
			}
		case *VectorType:
			a.Kind, a.ID = KindVector, v.FieldID()
			describeVectorGroup(meta, tree, i, &a)
		case *ExtensionType:
			a.Kind, a.ID = v.Kind, v.ID
		case *UnknownLogicalType:
			a.Kind, a.ID = KindUnknown, v.ID
		default:
			continue
		}
		out = append(out, a)
	}
	if m == nil {
		_, err := readMirror(meta)
		return out, err
	}
	for _, e := range m.Annotations {
		i := slices.IndexFunc(out, func(a Annotation) bool { return a.Kind == e.Kind && slices.Equal(a.Path, e.Path) })
		if i < 0 {
			e.InFooter, e.InKeyValue = false, true
			out = append(out, e)
			continue
		}
		out[i].InKeyValue = true
		if out[i].VectorLength == 0 {
			out[i].VectorLength = e.VectorLength
		}
		if out[i].Element == "" {
			out[i].Element = e.Element
		}
	}
	return out, nil
}
