package file

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
)

// LogicalTypeID is FILE's member id in parquet-format's LogicalType union.
const LogicalTypeID = 19

// Field names one child of a FILE group.
type Field int

// The children in spec order. The order is also the Iceberg mirror's
// field-id offset minus one.
const (
	FieldURI Field = iota
	FieldOffset
	FieldSize
	FieldContentType
	FieldChecksum
	FieldInline
)

// AllFields lists every child in spec order.
var AllFields = []Field{FieldURI, FieldOffset, FieldSize, FieldContentType, FieldChecksum, FieldInline}

// ParquetPhysical is the Parquet physical type of a FILE child.
type ParquetPhysical string

// The two physical types FILE children use.
const (
	ByteArray ParquetPhysical = "BYTE_ARRAY"
	Int64     ParquetPhysical = "INT64"
)

// FieldSpec describes one child: its name, its place in the Iceberg mirror
// and its types in Iceberg and Parquet.
type FieldSpec struct {
	Name string
	// IDOffset is added to the FILE column's field id to give this child's
	// id in the Iceberg mirror.
	IDOffset int
	Iceberg  iceberg.PrimitiveType
	Physical ParquetPhysical
	// StringAnnotated is true when the Parquet leaf carries the STRING
	// logical type.
	StringAnnotated bool
}

var fieldSpecs = [...]FieldSpec{
	FieldURI:         {"uri", 1, iceberg.PrimitiveTypes.String, ByteArray, true},
	FieldOffset:      {"offset", 2, iceberg.PrimitiveTypes.Int64, Int64, false},
	FieldSize:        {"size", 3, iceberg.PrimitiveTypes.Int64, Int64, false},
	FieldContentType: {"content_type", 4, iceberg.PrimitiveTypes.String, ByteArray, true},
	FieldChecksum:    {"checksum", 5, iceberg.PrimitiveTypes.String, ByteArray, true},
	FieldInline:      {"inline", 6, iceberg.PrimitiveTypes.Binary, ByteArray, false},
}

func (f Field) valid() bool { return f >= FieldURI && f <= FieldInline }

// Spec returns the child's description; the zero FieldSpec for a Field
// outside the constants above.
func (f Field) Spec() FieldSpec {
	if !f.valid() {
		return FieldSpec{}
	}
	return fieldSpecs[f]
}

// Name is the child's name in the group.
func (f Field) Name() string {
	if !f.valid() {
		return fmt.Sprintf("Field(%d)", int(f))
	}
	return fieldSpecs[f].Name
}

func (f Field) String() string { return f.Name() }

// FieldByName returns the child with the given name; names match exactly,
// because the spec identifies children by name and does not fold case.
func FieldByName(name string) (Field, bool) {
	for _, f := range AllFields {
		if fieldSpecs[f].Name == name {
			return f, true
		}
	}
	return 0, false
}

// ChildID is the field id of child f in the Iceberg mirror of a FILE column
// whose own id is parentID; -1 for a Field outside the constants.
func ChildID(parentID int, f Field) int {
	if !f.valid() {
		return -1
	}
	return parentID + fieldSpecs[f].IDOffset
}

// ReservedIDs are the ids the Iceberg mirror reserves for a FILE column's
// implicit children, whether or not a file declares them.
func ReservedIDs(parentID int) []int {
	ids := make([]int, len(AllFields))
	for i, f := range AllFields {
		ids[i] = ChildID(parentID, f)
	}
	return ids
}

// NewStruct returns the struct type of a FILE group that declares only the
// given children: all optional, in spec order, with ids parentID+offset. At
// least one child is needed (a Parquet group cannot be empty); naming a child
// twice is an error.
func NewStruct(parentID int, fields ...Field) (*iceberg.StructType, error) {
	if len(fields) == 0 {
		return nil, fmt.Errorf("FILE column %d: a FILE group needs at least one child", parentID)
	}
	seen := map[Field]bool{}
	for _, f := range fields {
		if !f.valid() {
			return nil, fmt.Errorf("FILE column %d: unknown child %s", parentID, f)
		}
		if seen[f] {
			return nil, fmt.Errorf("FILE column %d: child %s named twice", parentID, f)
		}
		seen[f] = true
	}
	st := &iceberg.StructType{}
	for _, f := range AllFields {
		if seen[f] {
			s := fieldSpecs[f]
			st.FieldList = append(st.FieldList, iceberg.NestedField{
				ID: ChildID(parentID, f), Name: s.Name, Type: s.Iceberg, Required: false,
			})
		}
	}
	return st, nil
}

// MirrorStruct is the Iceberg mirror's view of a FILE column: every implicit
// child, at its fixed id offset.
func MirrorStruct(parentID int) *iceberg.StructType {
	st, _ := NewStruct(parentID, AllFields...) // cannot fail: all fields, once each
	return st
}

// Column returns a schema field for a FILE column declaring the given children.
func Column(id int, name string, required bool, fields ...Field) (iceberg.NestedField, error) {
	st, err := NewStruct(id, fields...)
	if err != nil {
		return iceberg.NestedField{}, err
	}
	return iceberg.NestedField{ID: id, Name: name, Type: st, Required: required}, nil
}

// Layout says where each FILE child sits in a struct type. Readers build it
// once per column with ParseStruct and decode every row with it.
type Layout struct {
	st  *iceberg.StructType
	pos [len(fieldSpecs)]int // -1 when the group does not declare the child
}

// ParseStruct finds the FILE children of st by name, in any order, any of
// them missing, and checks them with CheckChildren: a child of the wrong
// type, a required child, a duplicate name and an unknown name are refused.
func ParseStruct(st *iceberg.StructType) (*Layout, error) {
	if st == nil {
		return nil, fmt.Errorf("FILE group: no struct type")
	}
	children := make([]Child, len(st.FieldList))
	for i, nf := range st.FieldList {
		c := Child{Name: nf.Name, ID: nf.ID, HasID: true, Optional: !nf.Required, Repetition: "optional"}
		if nf.Required {
			c.Repetition = "required"
		}
		if nf.Type != nil {
			c.Declared = nf.Type.String()
			for _, f := range AllFields {
				if nf.Type.Equals(fieldSpecs[f].Iceberg) {
					c.Type = fieldSpecs[f].TableType()
					break
				}
			}
		}
		children[i] = c
	}
	fields, err := CheckChildren(children, IcebergNames)
	if err != nil {
		return nil, err
	}
	l := &Layout{st: st}
	for i := range l.pos {
		l.pos[i] = -1
	}
	for i, f := range fields {
		l.pos[f] = i
	}
	return l, nil
}

// ChildType is a FILE child's type as the spec's field table writes it.
type ChildType string

// The types of the field table: "| `uri` | STRING |", "| `offset` | INT64 |",
// "| `inline` | BYTE_ARRAY |" (LogicalTypes.md, FILE, 2.14.0). STRING is a
// BYTE_ARRAY annotated STRING; INT64 and BYTE_ARRAY carry no logical type.
const (
	TypeString    ChildType = "STRING"
	TypeInt64     ChildType = "INT64"
	TypeByteArray ChildType = "BYTE_ARRAY"
)

// TableType is the child's type in the spec's field table.
func (s FieldSpec) TableType() ChildType {
	switch {
	case s.Physical == Int64:
		return TypeInt64
	case s.StringAnnotated:
		return TypeString
	}
	return TypeByteArray
}

// Child is one child of a FILE-annotated group as a schema declares it,
// described in the spec's terms so that one check (CheckChildren) serves
// Iceberg struct types (ParseStruct) and Parquet schemas
// (formats/parquet/filecol's placement rule, which formats/parquet/footer
// calls before it writes the annotation).
type Child struct {
	Name string
	// ID is the child's field id, when HasID.
	ID    int
	HasID bool
	// Type is what the declaration amounts to in the field table's terms,
	// or "" when it is none of them (another physical or logical type, a
	// group, a struct).
	Type ChildType
	// Declared spells the declared type for messages ("int", "BYTE_ARRAY").
	Declared string
	// Optional is true when the child's repetition is OPTIONAL; Repetition
	// spells the repetition for messages ("required", "REPEATED").
	Optional   bool
	Repetition string
}

// Spelling says which type names CheckChildren's errors use: the schema's
// own, so a message names types as the caller declared them.
type Spelling int

const (
	// IcebergNames: string, long, binary.
	IcebergNames Spelling = iota
	// ParquetNames: STRING, INT64, BYTE_ARRAY, as the field table does.
	ParquetNames
)

// CheckChildren checks the children of a FILE-annotated group against the
// spec and returns the Field each child is. LogicalTypes.md (FILE, 2.14.0):
// "The annotated group may contain the following fields, identified by name
// case sensitively, not by field order." and "any field that is present has
// a field repetition type of `OPTIONAL`", with the types of the field table.
// Refused: no children (a Parquet group cannot be empty), a name outside the
// table (extra metadata "must be stored adjacent to this group", and
// dropping it would lose data silently), a name twice, a type other than
// the table's, and a repetition other than OPTIONAL.
func CheckChildren(children []Child, names Spelling) ([]Field, error) {
	if len(children) == 0 {
		return nil, fmt.Errorf("FILE group has no children; it needs at least one of %s", allNames())
	}
	out := make([]Field, len(children))
	seen := map[Field]int{}
	for i, c := range children {
		where := fmt.Sprintf("FILE group child %q", c.Name)
		if c.HasID {
			where += fmt.Sprintf(" (field id %d)", c.ID)
		}
		f, ok := FieldByName(c.Name)
		if !ok {
			return nil, fmt.Errorf("%s is not one of %s (names match case-sensitively; other metadata belongs beside the group)", where, allNames())
		}
		if j, dup := seen[f]; dup {
			ids := ""
			if c.HasID && children[j].HasID {
				ids = fmt.Sprintf(" (field ids %d and %d)", children[j].ID, c.ID)
			}
			return nil, fmt.Errorf("FILE group declares child %q twice%s", c.Name, ids)
		}
		seen[f] = i
		spec := fieldSpecs[f]
		if c.Type != spec.TableType() {
			want := spec.Iceberg.String()
			if names == ParquetNames {
				want = string(spec.TableType())
			}
			declared := c.Declared
			if declared == "" {
				declared = "none"
			}
			return nil, fmt.Errorf("%s has type %s, want %s", where, declared, want)
		}
		if !c.Optional {
			return nil, fmt.Errorf("%s is %s; FILE children must be optional (\"any field that is present has a field repetition type of OPTIONAL\")", where, c.Repetition)
		}
		out[i] = f
	}
	return out, nil
}

func allNames() string {
	names := make([]string, len(AllFields))
	for i, f := range AllFields {
		names[i] = f.Name()
	}
	return strings.Join(names, ", ")
}

// Struct is the struct type the layout was built from.
func (l *Layout) Struct() *iceberg.StructType { return l.st }

// Has reports whether the group declares child f.
func (l *Layout) Has(f Field) bool { return f.valid() && l.pos[f] >= 0 }

// Position is child f's position in the struct, or -1.
func (l *Layout) Position(f Field) int {
	if !f.valid() {
		return -1
	}
	return l.pos[f]
}

// Fields lists the declared children in spec order.
func (l *Layout) Fields() []Field {
	var out []Field
	for _, f := range AllFields {
		if l.pos[f] >= 0 {
			out = append(out, f)
		}
	}
	return out
}

// Decode turns a row of the FILE group into a Value; a nil record is a null
// FILE value and decodes to nil.
func (l *Layout) Decode(r *data.Record) (*Value, error) {
	if r == nil {
		return nil, nil
	}
	if r.Len() != len(l.st.FieldList) {
		return nil, fmt.Errorf("FILE record has %d values, its struct declares %d children", r.Len(), len(l.st.FieldList))
	}
	v := &Value{}
	for _, f := range AllFields {
		p := l.pos[f]
		if p < 0 {
			continue
		}
		x := r.Get(p)
		if x == nil {
			continue
		}
		bad := func() error {
			return fmt.Errorf("FILE child %q (field id %d) holds %T, want %s", f.Name(), l.st.FieldList[p].ID, x, goTypeName(f))
		}
		switch f {
		case FieldURI, FieldContentType, FieldChecksum:
			s, ok := x.(string)
			if !ok {
				return nil, bad()
			}
			switch f {
			case FieldURI:
				v.URI = &s
			case FieldContentType:
				v.ContentType = &s
			default:
				v.Checksum = &s
			}
		case FieldOffset, FieldSize:
			n, ok := x.(int64)
			if !ok {
				return nil, bad()
			}
			if f == FieldOffset {
				v.Offset = &n
			} else {
				v.Size = &n
			}
		case FieldInline:
			b, ok := x.([]byte)
			if !ok {
				return nil, bad()
			}
			if b == nil {
				b = []byte{} // a non-null binary is set even when empty
			}
			v.Inline = b
		}
	}
	return v, nil
}

func goTypeName(f Field) string {
	switch fieldSpecs[f].Physical {
	case Int64:
		return "int64"
	}
	if fieldSpecs[f].StringAnnotated {
		return "string"
	}
	return "[]byte"
}

// Encode turns a Value into a row of the FILE group; a nil value encodes to
// a nil record (a null FILE value). A child the value holds but the group
// does not declare is an error rather than a silent drop.
func (l *Layout) Encode(v *Value) (*data.Record, error) {
	if v == nil {
		return nil, nil
	}
	var missing []string
	for _, f := range v.Fields() {
		if l.pos[f] < 0 {
			missing = append(missing, f.Name())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("FILE value %s holds %s, which the group does not declare (declared: %s)",
			v, strings.Join(missing, ", "), strings.Join(fieldNames(l.Fields()), ", "))
	}
	r := data.NewStructRecord(l.st)
	set := func(f Field, x any) {
		if p := l.pos[f]; p >= 0 {
			r.Set(p, x)
		}
	}
	if v.URI != nil {
		set(FieldURI, *v.URI)
	}
	if v.Offset != nil {
		set(FieldOffset, *v.Offset)
	}
	if v.Size != nil {
		set(FieldSize, *v.Size)
	}
	if v.ContentType != nil {
		set(FieldContentType, *v.ContentType)
	}
	if v.Checksum != nil {
		set(FieldChecksum, *v.Checksum)
	}
	if v.Inline != nil {
		set(FieldInline, slices.Clone(v.Inline))
	}
	return r, nil
}

func fieldNames(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name()
	}
	return out
}

// FromRecord decodes one FILE record, finding children by name in the
// record's own struct type. Decoding many rows of one column is cheaper with
// a Layout.
func FromRecord(r *data.Record) (*Value, error) {
	if r == nil {
		return nil, nil
	}
	l, err := ParseStruct(r.Struct())
	if err != nil {
		return nil, err
	}
	return l.Decode(r)
}

// ToRecord encodes v as a record of st, a FILE group's struct type.
func (v *Value) ToRecord(st *iceberg.StructType) (*data.Record, error) {
	if v == nil {
		return nil, nil
	}
	l, err := ParseStruct(st)
	if err != nil {
		return nil, err
	}
	return l.Encode(v)
}

// CheckMirror checks the Iceberg mirror of the FILE column with id columnID
// in schema: its children sit at their fixed id offsets, and no other field
// of the schema uses an id the column reserves for its implicit children.
func CheckMirror(schema *iceberg.Schema, columnID int) error {
	col, ok := schema.FindFieldByID(columnID)
	if !ok {
		return fmt.Errorf("FILE column: schema has no field id %d", columnID)
	}
	st, ok := col.Type.(*iceberg.StructType)
	if !ok {
		return fmt.Errorf("FILE column %q (field id %d) has type %v, want a struct of FILE children", col.Name, columnID, col.Type)
	}
	l, err := ParseStruct(st)
	if err != nil {
		return fmt.Errorf("FILE column %q (field id %d): %w", col.Name, columnID, err)
	}
	own := map[int]bool{}
	for _, f := range l.Fields() {
		got, want := st.FieldList[l.pos[f]].ID, ChildID(columnID, f)
		if got != want {
			return fmt.Errorf("FILE column %q (field id %d): child %q has field id %d, want %d (column id + %d)",
				col.Name, columnID, f.Name(), got, want, fieldSpecs[f].IDOffset)
		}
		own[got] = true
	}
	ids, err := iceberg.IndexByID(schema)
	if err != nil {
		return err
	}
	for _, id := range ReservedIDs(columnID) {
		if own[id] {
			continue
		}
		if other, taken := ids[id]; taken {
			return fmt.Errorf("FILE column %q (field id %d) reserves field id %d for an implicit child, but field %q uses it",
				col.Name, columnID, id, other.Name)
		}
	}
	return nil
}
