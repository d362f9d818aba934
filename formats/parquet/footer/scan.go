package footer

import (
	"encoding/binary"
	"fmt"
	"math"
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
}

// ScanStruct walks one compact-protocol struct at the start of data without
// recursion and returns how many bytes it spans. It checks what parquet-go's
// decoder trusts: every length and container size against the bytes left (so
// the decoder never allocates for elements that are not there), the types,
// and the nesting depth.
func ScanStruct(data []byte) (int, error) {
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

	stack := []scanFrame{{kind: ctStruct}}
	// value consumes one value of type t, pushing a frame for containers.
	value := func(t byte, inContainer bool) error {
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
			_, _, err := uvarint("integer")
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
			stack = append(stack, scanFrame{kind: ctStruct})
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
			stack = append(stack, scanFrame{kind: ctList, elem: elem, remaining: int(size)})
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
				stack = stack[:len(stack)-1]
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
			if err := value(b&0x0f, false); err != nil {
				return 0, err
			}
		case ctList:
			if top.remaining == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			top.remaining--
			if err := value(top.elem, true); err != nil {
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
			if err := value(t, true); err != nil {
				return 0, err
			}
		}
	}
	return pos, nil
}
