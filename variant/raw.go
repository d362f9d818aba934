package variant

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// Raw access to encoded values, for the shredding writer and the
// reconstructing reader: they move value bytes between the Parquet columns
// and the VARIANT encoding without building arrow-go Values or Builders
// per row, whose API allocates (a Builder from a Metadata builds a map of
// the whole dictionary; Value.Value boxes; Builder.Build copies the
// metadata). arrow-go stays the codec of record: every value byte read
// from a file is validated before it is returned, by
// variant.NewWithMetadata or by ExactChecker, which gives its verdict and
// is fuzzed against it (a value the reader assembles from typed columns
// around such bytes is the lab's own encoding, see Assembled), and every
// value written was validated by Decode or by the exact walks first. These
// helpers only walk headers and offsets (VariantEncoding.md "Value
// encoding"); they check bounds and return errors, never panic, on bytes
// that lie.

var errShort = errors.New("invalid variant value: truncated")

// The basic types of a value header's low two bits.
const (
	basicPrimitive = 0
	basicShortStr  = 1
	basicObject    = 2
	basicArray     = 3
)

// Primitive type ids of VariantEncoding.md, in the header's upper six bits.
const (
	primNull           = 0
	primTrue           = 1
	primFalse          = 2
	primInt8           = 3
	primInt16          = 4
	primInt32          = 5
	primInt64          = 6
	primDouble         = 7
	primDecimal4       = 8
	primDecimal8       = 9
	primDecimal16      = 10
	primDate           = 11
	primTimestamp      = 12
	primTimestampNTZ   = 13
	primFloat          = 14
	primBinary         = 15
	primString         = 16
	primTime           = 17
	primTimestampNs    = 18
	primTimestampNsNTZ = 19
	primUUID           = 20
)

// primTypes maps a primitive type id to arrow-go's Type.
var primTypes = [...]variant.Type{
	primNull: variant.Null, primTrue: variant.Bool, primFalse: variant.Bool,
	primInt8: variant.Int8, primInt16: variant.Int16, primInt32: variant.Int32, primInt64: variant.Int64,
	primDouble: variant.Double, primDecimal4: variant.Decimal4, primDecimal8: variant.Decimal8,
	primDecimal16: variant.Decimal16, primDate: variant.Date, primTimestamp: variant.TimestampMicros,
	primTimestampNTZ: variant.TimestampMicrosNTZ, primFloat: variant.Float, primBinary: variant.Binary,
	primString: variant.String, primTime: variant.Time, primTimestampNs: variant.TimestampNanos,
	primTimestampNsNTZ: variant.TimestampNanosNTZ, primUUID: variant.UUID,
}

// RawType is the type of an encoded value from its header, as
// variant.Value.Type says it; ok is false for an empty value or an unknown
// primitive id.
func RawType(b []byte) (variant.Type, bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] & 3 {
	case basicShortStr:
		return variant.String, true
	case basicObject:
		return variant.Object, true
	case basicArray:
		return variant.Array, true
	}
	id := int(b[0] >> 2)
	if id >= len(primTypes) {
		return 0, false
	}
	return primTypes[id], true
}

func le(b []byte) uint32 {
	switch len(b) {
	case 1:
		return uint32(b[0])
	case 2:
		return uint32(binary.LittleEndian.Uint16(b))
	case 3:
		return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	}
	return binary.LittleEndian.Uint32(b)
}

// RawSize is the size of the encoded value at the start of b.
func RawSize(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errShort
	}
	h := b[0]
	info := int(h >> 2)
	var n int
	switch h & 3 {
	case basicShortStr:
		n = 1 + info
	case basicObject:
		o, err := ParseObject(b)
		if err != nil {
			return 0, err
		}
		n = o.size
	case basicArray:
		a, err := ParseArray(b)
		if err != nil {
			return 0, err
		}
		n = a.size
	default:
		switch info {
		case primNull, primTrue, primFalse:
			n = 1
		case primInt8:
			n = 2
		case primInt16:
			n = 3
		case primInt32, primDate, primFloat:
			n = 5
		case primInt64, primDouble, primTimestamp, primTimestampNTZ, primTime, primTimestampNs, primTimestampNsNTZ:
			n = 9
		case primDecimal4:
			n = 6
		case primDecimal8:
			n = 10
		case primDecimal16:
			n = 18
		case primUUID:
			n = 17
		case primBinary, primString:
			if len(b) < 5 {
				return 0, errShort
			}
			n = 5 + int(binary.LittleEndian.Uint32(b[1:5]))
			if n < 5 {
				return 0, errShort
			}
		default:
			return 0, fmt.Errorf("invalid variant value: unknown primitive type %d", info)
		}
	}
	if n > len(b) {
		return 0, errShort
	}
	return n, nil
}

// RawObject is the layout of an encoded object.
type RawObject struct {
	b                         []byte
	n                         int
	idSize, offSize           int
	idStart, offStart, dataAt int
	size                      int // the whole object's size
}

// ParseObject reads the header of the object at the start of b.
func ParseObject(b []byte) (RawObject, error) {
	if len(b) == 0 || b[0]&3 != basicObject {
		return RawObject{}, errors.New("invalid variant value: not an object")
	}
	info := b[0] >> 2
	o := RawObject{b: b, idSize: int(info>>2&3) + 1, offSize: int(info&3) + 1}
	sizeBytes := 1
	if info>>4&1 == 1 {
		sizeBytes = 4
	}
	if len(b) < 1+sizeBytes {
		return RawObject{}, errShort
	}
	n := uint64(le(b[1 : 1+sizeBytes]))
	o.idStart = 1 + sizeBytes
	offStart := uint64(o.idStart) + n*uint64(o.idSize)
	dataAt := offStart + (n+1)*uint64(o.offSize)
	if dataAt > uint64(len(b)) {
		return RawObject{}, errShort
	}
	o.n, o.offStart, o.dataAt = int(n), int(offStart), int(dataAt)
	end := uint64(dataAt) + uint64(le(b[o.offStart+o.n*o.offSize:o.dataAt]))
	if end > uint64(len(b)) {
		return RawObject{}, errShort
	}
	o.size = int(end)
	return o, nil
}

// Len is the number of fields.
func (o *RawObject) Len() int { return o.n }

// Bytes are the object's own bytes.
func (o *RawObject) Bytes() []byte { return o.b[:o.size] }

// FieldID is the metadata id of field i.
func (o *RawObject) FieldID(i int) uint32 {
	at := o.idStart + i*o.idSize
	return le(o.b[at : at+o.idSize])
}

// Field is the encoded value of field i.
func (o *RawObject) Field(i int) ([]byte, error) {
	return rawValueAt(o.b, o.offStart, o.offSize, o.dataAt, o.size, i)
}

// rawValueAt is the encoded value at offset i of an object's or array's
// offset list (offSize bytes each, from offStart), relative to dataAt,
// within the container's size bytes of b.
func rawValueAt(b []byte, offStart, offSize, dataAt, size, i int) ([]byte, error) {
	at := offStart + i*offSize
	off := dataAt + int(le(b[at:at+offSize]))
	if off >= size {
		return nil, errShort
	}
	n, err := RawSize(b[off:size])
	if err != nil {
		return nil, err
	}
	return b[off : off+n], nil
}

// RawArray is the layout of an encoded array.
type RawArray struct {
	b                []byte
	n                int
	offSize          int
	offStart, dataAt int
	size             int
}

// ParseArray reads the header of the array at the start of b.
func ParseArray(b []byte) (RawArray, error) {
	if len(b) == 0 || b[0]&3 != basicArray {
		return RawArray{}, errors.New("invalid variant value: not an array")
	}
	info := b[0] >> 2
	a := RawArray{b: b, offSize: int(info&3) + 1}
	sizeBytes := 1
	if info>>2&1 == 1 {
		sizeBytes = 4
	}
	if len(b) < 1+sizeBytes {
		return RawArray{}, errShort
	}
	n := uint64(le(b[1 : 1+sizeBytes]))
	a.offStart = 1 + sizeBytes
	dataAt := uint64(a.offStart) + (n+1)*uint64(a.offSize)
	if dataAt > uint64(len(b)) {
		return RawArray{}, errShort
	}
	a.n, a.dataAt = int(n), int(dataAt)
	end := dataAt + uint64(le(b[a.offStart+a.n*a.offSize:a.dataAt]))
	if end > uint64(len(b)) {
		return RawArray{}, errShort
	}
	a.size = int(end)
	return a, nil
}

// Len is the number of elements.
func (a *RawArray) Len() int { return a.n }

// Elem is the encoded value of element i.
func (a *RawArray) Elem(i int) ([]byte, error) {
	return rawValueAt(a.b, a.offStart, a.offSize, a.dataAt, a.size, i)
}

// intSize is the bytes needed for an unsigned value up to v (1..4).
func intSize(v int) int {
	switch {
	case v <= math.MaxUint8:
		return 1
	case v <= math.MaxUint16:
		return 2
	case v <= 0xFFFFFF:
		return 3
	}
	return 4
}

func appendLE(dst []byte, v uint32, size int) []byte {
	for i := range size {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// AppendObject appends an object of the given fields: ids[i] is the
// metadata id of the field whose encoded value is values[i]; the caller
// gives them in the order of their names, as the spec requires. It is
// FinishObject's encoding (smallest id and offset sizes, values in field
// order) without a Builder.
func AppendObject(dst []byte, ids []uint32, values [][]byte) []byte {
	n := len(ids)
	var maxID uint32
	data := 0
	for i, id := range ids {
		maxID = max(maxID, id)
		data += len(values[i])
	}
	idSize, offSize := intSize(int(maxID)), intSize(data)
	h := byte((idSize-1)<<4|(offSize-1)<<2) | basicObject
	sizeBytes := 1
	if n > math.MaxUint8 {
		h |= 1 << 6
		sizeBytes = 4
	}
	dst = append(dst, h)
	dst = appendLE(dst, uint32(n), sizeBytes)
	for _, id := range ids {
		dst = appendLE(dst, id, idSize)
	}
	off := 0
	for _, v := range values {
		dst = appendLE(dst, uint32(off), offSize)
		off += len(v)
	}
	dst = appendLE(dst, uint32(off), offSize)
	for _, v := range values {
		dst = append(dst, v...)
	}
	return dst
}

// AppendObjectSpans appends an object whose field values lie in data:
// field i (in the order of the names, as the spec requires) has metadata
// id ids[i] and its value at offsets[i] in data. The values keep their
// order in data, as arrow-go's FinishObject keeps the order they were
// appended in, so the two encode an object the same way.
func AppendObjectSpans(dst []byte, ids []uint32, offsets []int, data []byte) []byte {
	return append(appendObjectHeader(dst, ids, offsets, len(data)), data...)
}

// AppendObjectParts is AppendObjectSpans for field values that lie in
// separate slices: data is the concatenation of parts, in their order.
func AppendObjectParts(dst []byte, ids []uint32, offsets []int, parts [][]byte) []byte {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	dst = appendObjectHeader(dst, ids, offsets, size)
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}

// appendObjectHeader appends an object's header, field ids and offsets,
// for field values of dataSize bytes.
func appendObjectHeader(dst []byte, ids []uint32, offsets []int, dataSize int) []byte {
	n := len(ids)
	var maxID uint32
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	idSize, offSize := intSize(int(maxID)), intSize(dataSize)
	h := byte((idSize-1)<<4|(offSize-1)<<2) | basicObject
	sizeBytes := 1
	if n > math.MaxUint8 {
		h |= 1 << 6
		sizeBytes = 4
	}
	dst = append(dst, h)
	dst = appendLE(dst, uint32(n), sizeBytes)
	if idSize == 1 && offSize == 1 {
		// The common case (ids and data under 256), a byte each.
		for _, id := range ids {
			dst = append(dst, byte(id))
		}
		for _, off := range offsets {
			dst = append(dst, byte(off))
		}
		return append(dst, byte(dataSize))
	}
	for _, id := range ids {
		dst = appendLE(dst, id, idSize)
	}
	for _, off := range offsets {
		dst = appendLE(dst, uint32(off), offSize)
	}
	return appendLE(dst, uint32(dataSize), offSize)
}

// AppendArrayHeader appends the header of an array of n elements whose
// values take dataSize bytes; AppendOffsets follows with the offsets.
func AppendArrayHeader(dst []byte, n, dataSize int) []byte {
	offSize := intSize(dataSize)
	h := byte(offSize-1)<<2 | basicArray
	sizeBytes := 1
	if n > math.MaxUint8 {
		h |= 1 << 4
		sizeBytes = 4
	}
	dst = append(dst, h)
	return appendLE(dst, uint32(n), sizeBytes)
}

// AppendOffsets appends an array's element offsets and its end, in the
// width AppendArrayHeader chose for dataSize.
func AppendOffsets(dst []byte, offs []int, dataSize int) []byte {
	offSize := intSize(dataSize)
	for _, o := range offs {
		dst = appendLE(dst, uint32(o), offSize)
	}
	return appendLE(dst, uint32(dataSize), offSize)
}
