package footer

import "fmt"

// An extension logical type is a LogicalType union member that released
// parquet-format does not define and this codec does not model itself: a
// column type prototyped in its own package. The package registers it from
// init (RegisterLogicalType), and the codec then decodes it under its id as
// an *ExtensionType, encodes it back, lets Annotate place it (with the
// package's own placement rule), mirrors it under MirrorKey, reports it from
// ReadAnnotations and takes it out in Sanitize, since arrow-go and released
// parquet-java crash on members they do not know.

// ExtensionSpec describes a registered extension logical type.
type ExtensionSpec struct {
	// Kind names the type in the mirror, in inspect and in errors. It is
	// upper case, as parquet-format names its types.
	Kind Kind
	// ID is its LogicalType union id: above parquet-format's 1-19, and not
	// the ids the lab gives VECTOR (DefaultVectorID) and FIXED_SIZE_LIST
	// (DefaultFixedSizeListID).
	ID int16
	// Place checks that schema element i of meta may carry the type, before
	// Annotate sets it; the error says why not. It is the type's own rule
	// (a leaf of some physical type, a group of some shape), so the footer
	// codec needs no knowledge of it. Required.
	Place func(meta *FileMetaData, i int) error
}

// ExtensionType is the union member of a registered extension type.
type ExtensionType struct {
	Kind Kind
	ID   int16
	// Unmodelled is the encoded struct body when it is not the empty struct
	// (as in FileType): a round trip writes it back verbatim.
	Unmodelled []byte
}

func (t *ExtensionType) FieldID() int16   { return t.ID }
func (t *ExtensionType) String() string   { return fmt.Sprintf("%s(id=%d)", t.Kind, t.ID) }
func (t *ExtensionType) memberKind() Kind { return t.Kind }

func (t *ExtensionType) structBody() []byte { return t.Unmodelled }

func (t *ExtensionType) checkID() error {
	if spec, ok := LookupLogicalType(t.Kind); !ok || spec.ID != t.ID {
		return fmt.Errorf("logical type %s is not registered under union id %d (RegisterLogicalType)", t.Kind, t.ID)
	}
	return nil
}

// extensionKind is a registered ExtensionSpec in the kinds registry.
type extensionKind struct{ spec ExtensionSpec }

func (x extensionKind) kind() Kind                                        { return x.spec.Kind }
func (x extensionKind) id() int16                                         { return x.spec.ID }
func (x extensionKind) decodeID(*config) (int16, bool)                    { return x.spec.ID, true }
func (x extensionKind) place(m *FileMetaData, _ *schemaTree, i int) error { return x.spec.Place(m, i) }

func (x extensionKind) member(id int16, body []byte) LogicalTypeValue {
	return &ExtensionType{Kind: x.spec.Kind, ID: id, Unmodelled: unmodelled(body)}
}

// annotate puts the type on element i, where its own placement rule allows
// it, over no other logical type.
func (x extensionKind) annotate(meta *FileMetaData, _ *schemaTree, i int, a Annotation) (Annotation, error) {
	spec := x.spec
	switch {
	case a.ID != 0 && a.ID != spec.ID:
		return Annotation{}, fmt.Errorf("%s is registered under union id %d, not %d", spec.Kind, spec.ID, a.ID)
	case a.VectorLength != 0 || a.VectorRepetition || a.Element != "":
		return Annotation{}, fmt.Errorf("%s takes no vector length, repetition or element", spec.Kind)
	}
	el := &meta.Schema[i]
	if v := el.LogicalType.Value; v != nil {
		if t, ok := v.(*ExtensionType); !ok || t.Kind != spec.Kind {
			return Annotation{}, fmt.Errorf("the column already has logical type %s", el.LogicalType.String())
		}
	}
	if err := spec.Place(meta, i); err != nil {
		return Annotation{}, fmt.Errorf("%s: %w", spec.Kind, err)
	}
	el.LogicalType = LogicalType{Value: &ExtensionType{Kind: spec.Kind, ID: spec.ID}}
	return Annotation{Kind: spec.Kind, ID: spec.ID}, nil
}

func (x extensionKind) recognise(meta *FileMetaData, _ *schemaTree, _ *mirror, i int) (Annotation, bool) {
	t, ok := meta.Schema[i].LogicalType.Value.(*ExtensionType)
	if !ok || t.Kind != x.spec.Kind {
		return Annotation{}, false
	}
	return Annotation{Kind: t.Kind, ID: t.ID}, true
}
