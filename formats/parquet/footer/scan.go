package footer

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// maxNesting bounds how deep thrift containers may nest in a footer. The
// parquet-format model nests at most 7 deep; the bound only has to stop
// hostile input from driving the decoder's recursive skipping of unknown
// fields into a stack overflow, which no recover can catch.
const maxNesting = 64

// Compact-protocol type ids (thrift-compact-protocol.md).
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
	ctUUID   = 13
)

// scanError is a structural fault at a byte offset of the scanned input.
type scanError struct {
	offset int
	msg    string
}

func (e *scanError) Error() string { return e.msg }

type scanFrame struct {
	kind      byte // ctStruct, ctList (also sets) or ctMap
	elem, val byte // element (list) or key/value (map) types
	remaining int  // elements (list) or keys+values (map) still to read
	lastID    int
	// shape is a struct's expected shape (scanShaped), elemField a list's
	// expected element; nil where nothing is expected. seen marks the
	// shape's required fields read so far.
	shape     *wireShape
	elemField *wireField
	seen      uint64
	size      int    // a list's element count
	noun      string // what a list's elements are called in errors
}

// shapeError is a departure from the strict decode's shape at offset at,
// prefixed with the list elements (row groups) it lies in.
func shapeError(stack []scanFrame, at int, format string, args ...any) error {
	var where strings.Builder
	for _, f := range stack {
		if f.kind == ctList && f.noun != "" {
			fmt.Fprintf(&where, "%s %d: ", f.noun, f.size-f.remaining-1)
		}
	}
	return &scanError{offset: at, msg: where.String() + fmt.Sprintf(format, args...)}
}

// ScanStruct walks one compact-protocol struct at the start of data without
// recursion and returns how many bytes it spans. It checks what parquet-go's
// decoder trusts: every length and container size against the bytes left (so
// the decoder never allocates for elements that are not there), the types,
// and the nesting depth.
func ScanStruct(data []byte) (int, error) { return scanShaped(data, nil, nil) }

// scanShaped is ScanStruct that also holds the struct to shape, as the
// strict decode does (wireShape): a known field of another wire type, a
// list of another element type or a missing required field is an error,
// and every 16- or 32-bit integer must fit its width. When ends is not
// nil, it receives where the elements of the shape's named list (the row
// groups) end, so that a decoder can step over them without scanning them
// again.
func scanShaped(data []byte, shape *wireShape, ends *[]int) (int, error) {
	pos := 0
	fail := func(at int, format string, args ...any) (int, error) {
		return 0, &scanError{offset: at, msg: fmt.Sprintf(format, args...)}
	}
	uvarint := func(what string) (uint64, bool, error) {
		v, n := binary.Uvarint(data[pos:])
		switch {
		case n == 0:
			return 0, false, &scanError{offset: pos, msg: fmt.Sprintf("%s is cut off by the end of the footer", what)}
		case n < 0:
			return 0, false, &scanError{offset: pos, msg: fmt.Sprintf("%s varint overflows 64 bits", what)}
		}
		pos += n
		return v, true, nil
	}
	need := func(n uint64, what string) error {
		if n > uint64(len(data)-pos) {
			return &scanError{offset: pos, msg: fmt.Sprintf("%s needs %d bytes, %d are left", what, n, len(data)-pos)}
		}
		pos += int(n)
		return nil
	}

	stack := []scanFrame{{kind: ctStruct, shape: shape}}
	// value consumes one value of type t, pushing a frame for containers;
	// want is what the shape expects of it (nil: nothing).
	value := func(t byte, inContainer bool, want *wireField) error {
		at := pos
		switch t {
		case ctTrue, ctFalse:
			if inContainer { // a field's bool lives in its header
				return need(1, "bool")
			}
			return nil
		case ctByte:
			return need(1, "byte")
		case ctI16, ctI32, ctI64:
			v, _, err := uvarint("integer")
			// The decoder reads (or skips) a 16- or 32-bit integer as
			// that width, and refuses one that does not fit.
			if err == nil && shape != nil && t != ctI64 {
				x, bits := int64(v>>1)^-int64(v&1), 32
				if t == ctI16 {
					bits = 16
				}
				if x < -1<<(bits-1) || x >= 1<<(bits-1) {
					return &scanError{offset: at, msg: fmt.Sprintf("int%d value %d is out of range", bits, x)}
				}
			}
			return err
		case ctDouble:
			return need(8, "double")
		case ctUUID:
			return need(16, "uuid")
		case ctBinary:
			n, _, err := uvarint("binary length")
			if err != nil {
				return err
			}
			if n > math.MaxInt32 {
				return &scanError{offset: at, msg: fmt.Sprintf("binary length %d is out of range", n)}
			}
			return need(n, "binary value")
		case ctList, ctSet, ctMap, ctStruct:
			if len(stack) >= maxNesting {
				return &scanError{offset: at, msg: fmt.Sprintf("containers nest deeper than %d levels", maxNesting)}
			}
		default:
			return &scanError{offset: at, msg: fmt.Sprintf("unknown thrift type %d", t)}
		}
		switch t {
		case ctStruct:
			f := scanFrame{kind: ctStruct}
			if want != nil {
				f.shape = want.sub
			}
			stack = append(stack, f)
		case ctList, ctSet:
			if pos >= len(data) {
				return &scanError{offset: pos, msg: "list header is cut off by the end of the footer"}
			}
			b := data[pos]
			pos++
			size, elem := uint64(b>>4), b&0x0f
			if size == 15 {
				var err error
				if size, _, err = uvarint("list size"); err != nil {
					return err
				}
			}
			// Every element takes at least one byte.
			if size > uint64(len(data)-pos) {
				return &scanError{offset: at, msg: fmt.Sprintf("list of %d elements exceeds the %d bytes left", size, len(data)-pos)}
			}
			if size > 0 && (elem == ctStop || elem > ctUUID) {
				return &scanError{offset: at, msg: fmt.Sprintf("list element type %d is not a thrift type", elem)}
			}
			f := scanFrame{kind: ctList, elem: elem, remaining: int(size)}
			if want != nil && want.elem != nil {
				// The strict decode checks the element type of an empty
				// list too.
				if !want.elem.accepts(elem) && (size > 0 || !want.anyEmpty) {
					return shapeError(stack, at, "type mismatch: a list of %s holds %s elements", compactTypeName(want.elem.typ), compactTypeName(elem))
				}
				f.elemField, f.size, f.noun = want.elem, int(size), want.noun
			}
			stack = append(stack, f)
		case ctMap:
			size, _, err := uvarint("map size")
			if err != nil {
				return err
			}
			var kv byte
			if size > 0 {
				if size > uint64(len(data)-pos)/2 {
					return &scanError{offset: at, msg: fmt.Sprintf("map of %d entries exceeds the %d bytes left", size, len(data)-pos)}
				}
				kv = data[pos]
				pos++
				if k, v := kv>>4, kv&0x0f; k == ctStop || k > ctUUID || v == ctStop || v > ctUUID {
					return &scanError{offset: at, msg: fmt.Sprintf("map key/value types %d/%d are not thrift types", k, v)}
				}
			}
			stack = append(stack, scanFrame{kind: ctMap, elem: kv >> 4, val: kv & 0x0f, remaining: int(2 * size)})
		}
		return nil
	}

	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		switch top.kind {
		case ctStruct:
			if pos >= len(data) {
				return fail(pos, "struct is cut off by the end of the footer (no STOP)")
			}
			at := pos
			b := data[pos]
			pos++
			if b == ctStop {
				if sh := top.shape; sh != nil && top.seen != sh.required {
					return 0, shapeError(stack, at, "missing field: %s lacks a required field (%s)", sh.name, sh.missing(top.seen))
				}
				stack = stack[:len(stack)-1]
				if k := len(stack) - 1; ends != nil && k >= 0 && stack[k].noun != "" {
					*ends = append(*ends, pos)
				}
				continue
			}
			id := top.lastID + int(b>>4)
			if b>>4 == 0 {
				v, _, err := uvarint("field id")
				if err != nil {
					return 0, err
				}
				id = int(int64(v>>1) ^ -int64(v&1))
			}
			if id < math.MinInt16 || id > math.MaxInt16 {
				return fail(at, "field id %d is out of range", id)
			}
			top.lastID = id
			t := b & 0x0f
			var want, wrong *wireField
			sh := top.shape
			if sh != nil {
				if want = sh.field(id); want != nil {
					if want.accepts(t) {
						top.seen |= want.bit
					} else {
						want, wrong = nil, want
					}
				}
			}
			// A value's own faults (a length past the end) come first.
			if err := value(t, false, want); err != nil {
				return 0, err
			}
			if wrong != nil {
				return 0, shapeError(stack, at, "type mismatch: field %d of %s is %s, not %s", id, sh.name, compactTypeName(t), compactTypeName(wrong.typ))
			}
		case ctList:
			if top.remaining == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			top.remaining--
			if err := value(top.elem, true, top.elemField); err != nil {
				return 0, err
			}
		case ctMap:
			if top.remaining == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			t := top.val
			if top.remaining%2 == 0 {
				t = top.elem
			}
			top.remaining--
			if err := value(t, true, nil); err != nil {
				return 0, err
			}
		}
	}
	return pos, nil
}
