package footer

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// An extension logical type is a LogicalType union member that released
// parquet-format does not define and this codec does not model itself: a
// column type prototyped in its own package. The package registers it here
// from init, as image/png registers with image (DESIGN.md, "Layout"), and
// the codec then decodes it under its id as an *ExtensionType, encodes it
// back, lets Annotate place it (with the package's own placement rule),
// mirrors it under MirrorKey, reports it from ReadAnnotations and takes it
// out in Sanitize, since arrow-go and released parquet-java crash on members
// they do not know.
//
// FILE (parquet-format 2.14.0's 19), the lab's VECTOR and PR #241's
// FIXED_SIZE_LIST stay modelled here (*FileType, *VectorType,
// *FixedSizeListType): their ids move per file (WithVectorID, Annotate's
// FIXED_SIZE_LIST id) and 19 means different things under different specs,
// which a fixed id per kind cannot express.

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

func (t *ExtensionType) FieldID() int16 { return t.ID }
func (t *ExtensionType) String() string { return fmt.Sprintf("%s(id=%d)", t.Kind, t.ID) }

var extensions struct {
	sync.RWMutex
	byKind map[Kind]ExtensionSpec
	byID   map[int16]ExtensionSpec
}

var kindPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// builtinKinds are the kinds this package models itself or reserves.
var builtinKinds = map[Kind]bool{KindFile: true, KindVector: true, KindFixedSizeList: true, KindUnknown: true}

// RegisterLogicalType makes an extension type known to the codec. It is
// meant for init functions and panics, as database/sql.Register does, when
// the spec is malformed or its kind or id is taken: two packages claiming
// one id would make every footer that uses it ambiguous.
func RegisterLogicalType(spec ExtensionSpec) {
	switch {
	case !kindPattern.MatchString(string(spec.Kind)):
		panic(fmt.Sprintf("footer: RegisterLogicalType: kind %q is not an upper-case name", spec.Kind))
	case builtinKinds[spec.Kind]:
		panic(fmt.Sprintf("footer: RegisterLogicalType: kind %s is modelled by the footer codec itself", spec.Kind))
	case spec.ID <= FileID:
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s: union id %d is not above parquet-format's ids 1-%d", spec.Kind, spec.ID, FileID))
	case spec.ID == DefaultVectorID || spec.ID == DefaultFixedSizeListID:
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s: union id %d is the lab's VECTOR or FIXED_SIZE_LIST id", spec.Kind, spec.ID))
	case spec.Place == nil:
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s has no placement rule", spec.Kind))
	}
	extensions.Lock()
	defer extensions.Unlock()
	if extensions.byKind == nil {
		extensions.byKind = map[Kind]ExtensionSpec{}
		extensions.byID = map[int16]ExtensionSpec{}
	}
	if other, dup := extensions.byKind[spec.Kind]; dup {
		panic(fmt.Sprintf("footer: RegisterLogicalType: kind %s is already registered (id %d)", spec.Kind, other.ID))
	}
	if other, dup := extensions.byID[spec.ID]; dup {
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s: union id %d is already registered to %s", spec.Kind, spec.ID, other.Kind))
	}
	extensions.byKind[spec.Kind] = spec
	extensions.byID[spec.ID] = spec
}

// LookupLogicalType returns the registered extension type of a kind.
func LookupLogicalType(kind Kind) (ExtensionSpec, bool) {
	extensions.RLock()
	defer extensions.RUnlock()
	s, ok := extensions.byKind[kind]
	return s, ok
}

// RegisteredLogicalTypes lists the registered extension types by id.
func RegisteredLogicalTypes() []ExtensionSpec {
	extensions.RLock()
	defer extensions.RUnlock()
	out := make([]ExtensionSpec, 0, len(extensions.byID))
	for _, s := range extensions.byID {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func extensionByID(id int16) (ExtensionSpec, bool) {
	extensions.RLock()
	defer extensions.RUnlock()
	s, ok := extensions.byID[id]
	return s, ok
}

// FILE's union member is modelled here (*FileType, parquet-format 2.14.0's
// 19), but which children its group may have is types/file's rule, and the
// FILE binding registers it (RegisterFilePlacement), so that this package
// imports no value-level type. Without it Annotate and RewriteFooter refuse
// FILE, naming the package to import, rather than write a FILE group no lab
// reader would accept.
var filePlacement struct {
	sync.RWMutex
	place func(meta *FileMetaData, i int) error
}

// ErrNoFilePlacement is why FILE is refused when no placement rule is
// registered: the program links no FILE binding.
var ErrNoFilePlacement = errors.New("FILE cannot be placed (no placement rule is registered for it: import formats/parquet/filecol)")

// RegisterFilePlacement makes place FILE's placement rule: it checks that
// the group at schema element i of meta may carry FILE (its children, as
// the field table gives them) and says why not, as ExtensionSpec.Place does
// for an extension type. Annotate and RewriteFooter call it after checking
// that element i is a group; its error follows the column's name. It is
// meant for the init function of the FILE binding and panics when place is
// nil or a rule is already registered.
func RegisterFilePlacement(place func(meta *FileMetaData, i int) error) {
	if place == nil {
		panic("footer: RegisterFilePlacement: nil placement rule")
	}
	filePlacement.Lock()
	defer filePlacement.Unlock()
	if filePlacement.place != nil {
		panic("footer: RegisterFilePlacement: FILE's placement rule is already registered")
	}
	filePlacement.place = place
}

func lookupFilePlacement() func(meta *FileMetaData, i int) error {
	filePlacement.RLock()
	defer filePlacement.RUnlock()
	return filePlacement.place
}

// IsExtension reports whether a union member is one only the lab's extended
// model knows: FILE, VECTOR, a registered extension type, or an unknown id.
// arrow-go v18.8.0 panics on these and released parquet-java throws, so
// every path that hands a footer to them checks or removes exactly these
// (Sanitize).
func IsExtension(v LogicalTypeValue) bool {
	switch v.(type) {
	case *FileType, *VectorType, *ExtensionType, *UnknownLogicalType:
		return true
	}
	return false
}
