package footer

import (
	"errors"
	"fmt"
	"sync"
)

// FileType is the FILE annotation of parquet-format 2.14.0 (id 19) on a group
// whose children are a subset of uri, offset, size, content_type, checksum
// and inline. Its thrift struct has no fields.
type FileType struct {
	// Unmodelled is the encoded struct body (fields and the closing STOP)
	// when a writer put fields in it that this model does not know; a round
	// trip writes it back verbatim. Nil for the empty struct.
	Unmodelled []byte
}

func (*FileType) FieldID() int16       { return FileID }
func (*FileType) String() string       { return "FILE" }
func (*FileType) memberKind() Kind     { return KindFile }
func (*FileType) checkID() error       { return nil }
func (t *FileType) structBody() []byte { return t.Unmodelled }

// fileKind is FILE in the kinds registry: always id 19.
type fileKind struct{}

func (fileKind) kind() Kind                     { return KindFile }
func (fileKind) id() int16                      { return FileID }
func (fileKind) decodeID(*config) (int16, bool) { return FileID, true }

func (fileKind) member(_ int16, body []byte) LogicalTypeValue {
	return &FileType{Unmodelled: unmodelled(body)}
}

func (fileKind) place(meta *FileMetaData, _ *schemaTree, i int) error { return checkFileGroup(meta, i) }

func (fileKind) annotate(meta *FileMetaData, _ *schemaTree, i int, a Annotation) (Annotation, error) {
	if a.ID != 0 && a.ID != FileID {
		return Annotation{}, fmt.Errorf("FILE has union id %d, not %d", FileID, a.ID)
	}
	if err := checkFileGroup(meta, i); err != nil {
		return Annotation{}, err
	}
	meta.Schema[i].LogicalType = LogicalType{Value: &FileType{}}
	return Annotation{Kind: KindFile, ID: FileID}, nil
}

func (fileKind) recognise(meta *FileMetaData, _ *schemaTree, _ *mirror, i int) (Annotation, bool) {
	if _, ok := meta.Schema[i].LogicalType.Value.(*FileType); !ok {
		return Annotation{}, false
	}
	return Annotation{Kind: KindFile, ID: FileID}, true
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
