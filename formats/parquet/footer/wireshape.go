package footer

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// A wireShape is what the strict decode (parquet-go's thrift decoder with
// SetStrict) expects of a struct on the wire: the compact type of each
// known field, the element type of each list, the shape of each nested
// struct, and which fields are required. ScanStruct checks a row group
// against it (scanShaped), which gives the strict decode's verdict on the
// row groups without decoding them: the strict decode was the only reason
// the lab decoded every row group of a file, and parquet-go decodes them
// again on open, so a reader paid for two reflective decodes of the
// biggest part of the footer (a tenth of a one-column read of a
// thirty-column file). The shapes are derived from the lab's own model by
// reflection, mirroring thrift.TypeOf, so they cannot drift from what the
// strict decode checks; FuzzShapedScanMatchesStrictDecode holds the two to
// the same verdicts.
type wireShape struct {
	name   string
	fields []*wireField // by field id; nil for ids the decoder skips
	// required is the set of required fields, as bits (wireField.bit).
	required uint64
}

// field is the shape's field id, nil when the decoder does not know it.
func (s *wireShape) field(id int) *wireField {
	if id < 0 || id >= len(s.fields) {
		return nil
	}
	return s.fields[id]
}

func (s *wireShape) add(id int16, f *wireField) {
	if id < 0 || id > 1024 {
		panic(fmt.Sprintf("footer: %s: field id %d is out of the shapes' range", s.name, id))
	}
	for len(s.fields) <= int(id) {
		s.fields = append(s.fields, nil)
	}
	s.fields[id] = f
}

// wireField is one field of a wireShape, or a list's element.
type wireField struct {
	typ  byte       // compact type id; ctFalse stands for bool (TRUE or FALSE)
	sub  *wireShape // a struct's shape, or a list's element struct's
	elem *wireField // a list's element
	// anyEmpty: an empty list of this field may declare any element type
	// (the row groups' own decoder checks the type of elements only).
	anyEmpty bool
	// noun names a list's elements in errors ("row group 3: …").
	noun string
	// bit marks a required field in its struct's seen set (0: optional).
	bit uint64
}

// rowGroupShape is the strict decode's shape of a RowGroup.
var rowGroupShape = shapeOfStruct(reflect.TypeFor[RowGroup](), map[reflect.Type]*wireShape{})

var (
	thriftValueType = reflect.TypeFor[thrift.Value]()
	thriftUnionType = reflect.TypeFor[thrift.Union]()
)

// fieldOf is the wire field of a Go type as parquet-go's decoder sees it.
func fieldOf(t reflect.Type, seen map[reflect.Type]*wireShape) *wireField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// thrift.Null[T] decodes as T.
	if t.Kind() == reflect.Struct && t.Implements(thriftValueType) {
		v, ok := t.FieldByName("V")
		if _, valid := t.FieldByName("Valid"); !ok || !valid {
			panic(fmt.Sprintf("footer: %v: a thrift.Value struct other than thrift.Null", t))
		}
		return fieldOf(v.Type, seen)
	}
	f := &wireField{typ: byte(thrift.TypeOf(t))}
	switch thrift.Type(f.typ) {
	case thrift.STRUCT:
		f.sub = shapeOfStruct(t, seen)
	case thrift.LIST:
		f.elem = fieldOf(t.Elem(), seen)
	case thrift.SET, thrift.MAP:
		panic(fmt.Sprintf("footer: %v: sets and maps are not in the footer model", t))
	}
	return f
}

// shapeOfStruct is the shape of struct t: its tagged fields, or a union's
// members (each a struct; ids the decoder does not know are skipped).
func shapeOfStruct(t reflect.Type, seen map[reflect.Type]*wireShape) *wireShape {
	if s, ok := seen[t]; ok {
		return s
	}
	s := &wireShape{name: t.String()}
	seen[t] = s
	if reflect.PointerTo(t).Implements(thriftUnionType) {
		for _, m := range reflect.New(t).Interface().(thrift.Union).UnionMembers() {
			mt := reflect.TypeOf(m)
			s.add(m.FieldID(), &wireField{typ: ctStruct, sub: shapeOfStruct(mt.Elem(), seen)})
		}
		return s
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("thrift")
		if !ok {
			if sf.Anonymous {
				panic(fmt.Sprintf("footer: %v: embedded fields are not in the footer model", t))
			}
			continue
		}
		parts := strings.Split(tag, ",")
		id, err := strconv.ParseInt(parts[0], 10, 16)
		if err != nil {
			panic(fmt.Sprintf("footer: %v.%s: thrift tag %q", t, sf.Name, tag))
		}
		f := fieldOf(sf.Type, seen)
		if slices.Contains(parts[1:], "required") {
			n := bits.OnesCount64(s.required)
			if n == 64 {
				panic(fmt.Sprintf("footer: %v has more required fields than a scan frame tracks", t))
			}
			f.bit = 1 << n
			s.required |= f.bit
		}
		s.add(int16(id), f)
	}
	return s
}

// rowGroupsShape is the strict decode's shape of a FileMetaData's row
// groups; the rest of the footer is decoded strictly, so the scan leaves it
// unshaped.
var rowGroupsShape = func() *wireShape {
	s := &wireShape{name: "FileMetaData"}
	s.add(4, &wireField{typ: ctList, elem: &wireField{typ: ctStruct, sub: rowGroupShape}, anyEmpty: true, noun: "row group"})
	return s
}()

// accepts reports whether wire type got is what f expects: a field's bool
// is TRUE or FALSE, a list's bool elements are typed TRUE or BOOL (FALSE),
// which the decoder treats alike.
func (f *wireField) accepts(got byte) bool {
	if f.typ == ctFalse {
		return got == ctTrue || got == ctFalse
	}
	return got == f.typ
}

// compactTypeNames are the compact types' names in errors.
var compactTypeNames = [...]string{"stop", "bool", "bool", "byte", "i16", "i32", "i64", "double", "binary", "list", "set", "map", "struct", "uuid"}

func compactTypeName(t byte) string {
	if int(t) < len(compactTypeNames) {
		return compactTypeNames[t]
	}
	return fmt.Sprintf("type %d", t)
}

// missing lists the ids of the required fields that seen lacks.
func (s *wireShape) missing(seen uint64) string {
	var ids []string
	for id, f := range s.fields {
		if f != nil && f.bit != 0 && seen&f.bit == 0 {
			ids = append(ids, strconv.Itoa(id))
		}
	}
	return "field " + strings.Join(ids, ", ")
}
