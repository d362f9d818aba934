package footer

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// The codec knows parquet-format's LogicalType members 1-18 through
// parquet-go's model. Every other member it handles (FILE, VECTOR,
// FIXED_SIZE_LIST and each registered extension type) is one logicalKind in
// one registry: the decoder, Encode, Annotate, RewriteFooter's placement
// check, ReadAnnotations and Sanitize ask the registry, so no kind is a case
// of a switch. FILE, VECTOR and FIXED_SIZE_LIST live in this package, one
// file each (kind_file.go, kind_vector.go, kind_fixedsizelist.go), because
// their ids move per file and 19 means different things under different
// specs; a column type prototyped in its own package registers an
// ExtensionSpec (RegisterLogicalType, kind_extension.go), as image/png
// registers with image (DESIGN.md, "Layout").

// A logicalKind is what the codec knows of one union member beyond
// parquet-format's: how it is decoded, where it may sit, and what
// ReadAnnotations reports for it.
type logicalKind interface {
	kind() Kind
	// id is the union id the kind is registered under: its own, or its
	// default where a file may choose another.
	id() int16
	// decodeID is the id a decode configured by c reads as this kind; ok
	// is false when the decoder never produces the kind (FIXED_SIZE_LIST,
	// whose id is the writer's choice: ReadAnnotations finds it).
	decodeID(c *config) (id int16, ok bool)
	// member is the decoded member read under id, with its struct body as
	// read (fields and the closing STOP).
	member(id int16, body []byte) LogicalTypeValue
	// annotate checks that schema element i may carry the kind as a asks,
	// sets it, and returns the mirror entry (its Path is filled in by
	// Annotate, which also prefixes errors with the column).
	annotate(meta *FileMetaData, tree *schemaTree, i int, a Annotation) (Annotation, error)
	// place checks that element i, which carries a member of the kind,
	// may: RewriteFooter's check of edits that bypass Annotate.
	place(meta *FileMetaData, tree *schemaTree, i int) error
	// recognise is the annotation element i carries when it is of the
	// kind, with what the schema says of it.
	recognise(meta *FileMetaData, tree *schemaTree, m *mirror, i int) (Annotation, bool)
}

// extendedMember is a union member the codec writes from its own model
// rather than parquet-go's: the members of the registered kinds and
// *UnknownLogicalType.
type extendedMember interface {
	LogicalTypeValue
	// memberKind names the member's kind in the registry (KindUnknown
	// for an unknown member, which no kind models).
	memberKind() Kind
	// checkID says why the member may not be written under its id.
	checkID() error
	// structBody is the member's struct body, kept as read or built from
	// the model: nil for the empty struct, else fields and the closing
	// STOP.
	structBody() []byte
}

var kinds struct {
	sync.RWMutex
	// ordered is registration order, the order ReadAnnotations asks the
	// kinds in and the decoder matches ids in: the built-ins come first,
	// the most particular first (see init).
	ordered []logicalKind
	byKind  map[Kind]logicalKind
	byID    map[int16]logicalKind
}

// init registers the kinds this package models. FIXED_SIZE_LIST comes
// first because it is recognised by its struct's fields under any id,
// including 19 and the VECTOR id; VECTOR before FILE because 19 over a
// VECTOR-repeated group is PR #592's VECTOR, not FILE.
func init() {
	for _, k := range []logicalKind{fixedSizeListKind{}, vectorKind{}, fileKind{}} {
		registerKind(k)
	}
}

// registerKind adds k; it panics when k's kind or id is taken.
func registerKind(k logicalKind) {
	kinds.Lock()
	defer kinds.Unlock()
	if kinds.byKind == nil {
		kinds.byKind = map[Kind]logicalKind{}
		kinds.byID = map[int16]logicalKind{}
	}
	if other, dup := kinds.byKind[k.kind()]; dup {
		panic(fmt.Sprintf("footer: RegisterLogicalType: kind %s is already registered (id %d)", k.kind(), other.id()))
	}
	if other, dup := kinds.byID[k.id()]; dup {
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s: union id %d is already registered to %s", k.kind(), k.id(), other.kind()))
	}
	kinds.ordered = append(kinds.ordered, k)
	kinds.byKind[k.kind()] = k
	kinds.byID[k.id()] = k
}

func kindByName(kind Kind) logicalKind {
	kinds.RLock()
	defer kinds.RUnlock()
	return kinds.byKind[kind]
}

func kindByID(id int16) logicalKind {
	kinds.RLock()
	defer kinds.RUnlock()
	return kinds.byID[id]
}

// registeredKinds is the registry in registration order.
func registeredKinds() []logicalKind {
	kinds.RLock()
	defer kinds.RUnlock()
	return kinds.ordered
}

// decodedKind is the kind a decode configured by c reads under id, or nil
// (an unknown member).
func decodedKind(c *config, id int16) logicalKind {
	for _, k := range registeredKinds() {
		if at, ok := k.decodeID(c); ok && at == id {
			return k
		}
	}
	return nil
}

// kindOf is the registered kind of a member, or nil.
func kindOf(v LogicalTypeValue) logicalKind {
	if m, ok := v.(extendedMember); ok {
		return kindByName(m.memberKind())
	}
	return nil
}

// KnownKind reports whether Annotate can write kind: FILE, VECTOR,
// FIXED_SIZE_LIST or a registered extension type.
func KnownKind(kind Kind) bool { return kindByName(kind) != nil }

// IsExtension reports whether a union member is one only the lab's extended
// model knows: FILE, VECTOR, FIXED_SIZE_LIST, a registered extension type,
// or an unknown id. arrow-go v18.8.0 panics on these and released
// parquet-java throws, so every path that hands a footer to them checks or
// removes exactly these (Sanitize).
func IsExtension(v LogicalTypeValue) bool {
	_, ok := v.(extendedMember)
	return ok
}

var kindPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// RegisterLogicalType makes an extension type known to the codec. It is
// meant for init functions and panics, as database/sql.Register does, when
// the spec is malformed or its kind or id is taken: two packages claiming
// one id would make every footer that uses it ambiguous.
func RegisterLogicalType(spec ExtensionSpec) {
	builtin := func(k logicalKind) bool { _, ext := k.(extensionKind); return k != nil && !ext }
	switch {
	case !kindPattern.MatchString(string(spec.Kind)):
		panic(fmt.Sprintf("footer: RegisterLogicalType: kind %q is not an upper-case name", spec.Kind))
	case spec.Kind == KindUnknown || builtin(kindByName(spec.Kind)):
		panic(fmt.Sprintf("footer: RegisterLogicalType: kind %s is modelled by the footer codec itself", spec.Kind))
	case spec.ID <= FileID:
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s: union id %d is not above parquet-format's ids 1-%d", spec.Kind, spec.ID, FileID))
	case builtin(kindByID(spec.ID)):
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s: union id %d is the lab's %s id", spec.Kind, spec.ID, kindByID(spec.ID).kind()))
	case spec.Place == nil:
		panic(fmt.Sprintf("footer: RegisterLogicalType: %s has no placement rule", spec.Kind))
	}
	registerKind(extensionKind{spec})
}

// LookupLogicalType returns the registered extension type of a kind.
func LookupLogicalType(kind Kind) (ExtensionSpec, bool) {
	x, ok := kindByName(kind).(extensionKind)
	return x.spec, ok
}

// RegisteredLogicalTypes lists the registered extension types by id.
func RegisteredLogicalTypes() []ExtensionSpec {
	var out []ExtensionSpec
	for _, k := range registeredKinds() {
		if x, ok := k.(extensionKind); ok {
			out = append(out, x.spec)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// extensionAt is the extension type registered under id, if any: an id
// VECTOR and FIXED_SIZE_LIST may not be written under, since the lab's
// readers would read the registered type.
func extensionAt(id int16) (ExtensionSpec, bool) {
	x, ok := kindByID(id).(extensionKind)
	return x.spec, ok
}
