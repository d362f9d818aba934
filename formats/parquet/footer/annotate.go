package footer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
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
	k := kindByName(a.Kind)
	if k == nil {
		return fmt.Errorf("annotate column %s: Annotate writes FILE, VECTOR, FIXED_SIZE_LIST or a registered extension type (RegisterLogicalType), not %q", where, a.Kind)
	}
	entry, err := k.annotate(meta, tree, i, a)
	if err != nil {
		return fmt.Errorf("annotate column %s: %w", where, err)
	}
	entry.Path = slices.Clone(columnPath)
	return setMirrorEntry(meta, entry)
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
		if a, ok := recognise(meta, tree, m, i); ok {
			a.Path, a.InFooter = tree.path(i), true
			out = append(out, a)
		}
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

// recognise is the annotation schema element i carries: the first
// registered kind's that claims it (registration order, see registry.go),
// else the member's own kind and id (an unknown member is KindUnknown).
func recognise(meta *FileMetaData, tree *schemaTree, m *mirror, i int) (Annotation, bool) {
	for _, k := range registeredKinds() {
		if a, ok := k.recognise(meta, tree, m, i); ok {
			return a, true
		}
	}
	if v, ok := meta.Schema[i].LogicalType.Value.(extendedMember); ok {
		return Annotation{Kind: v.memberKind(), ID: v.FieldID()}, true
	}
	return Annotation{}, false
}
