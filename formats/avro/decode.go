package avro

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	hamba "github.com/hamba/avro/v2"
)

// decoder reads Avro binary values from one decompressed block. Every
// length is checked against the bytes left, so a corrupt block gives an
// error, never an allocation larger than the block.
type decoder struct {
	buf []byte
	pos int
	// rowPos is the position in the file of the row being decoded, for the
	// _pos metadata column.
	rowPos int64
	// zeroSizeItems counts array and map items that take no bytes, across
	// the block: bytes cannot bound them, so this does.
	zeroSizeItems int64
}

var errShort = errors.New("unexpected end of block data")

func (d *decoder) remaining() int { return len(d.buf) - d.pos }

func (d *decoder) long() (int64, error) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if d.pos >= len(d.buf) {
			return 0, errShort
		}
		b := d.buf[d.pos]
		d.pos++
		if shift == 63 && b > 1 {
			return 0, errors.New("varint overflows a long")
		}
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

func (d *decoder) int() (int32, error) {
	x, err := d.long()
	if err != nil {
		return 0, err
	}
	if x < math.MinInt32 || x > math.MaxInt32 {
		return 0, fmt.Errorf("int value %d is out of range", x)
	}
	return int32(x), nil
}

func (d *decoder) boolean() (bool, error) {
	if d.pos >= len(d.buf) {
		return false, errShort
	}
	b := d.buf[d.pos]
	d.pos++
	if b > 1 {
		return false, fmt.Errorf("invalid boolean byte %d", b)
	}
	return b == 1, nil
}

func (d *decoder) fixed(n int) ([]byte, error) {
	if n < 0 || n > d.remaining() {
		return nil, errShort
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *decoder) float32() (float32, error) {
	b, err := d.fixed(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

func (d *decoder) float64() (float64, error) {
	b, err := d.fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// bytes returns a view into the block; callers copy what they keep.
func (d *decoder) bytes() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(d.remaining()) {
		return nil, fmt.Errorf("length %d exceeds the %d bytes left", n, d.remaining())
	}
	return d.fixed(int(n))
}

// blockCount reads an array or map block header. A negative count is
// followed by the block's byte size, which is read and checked.
func (d *decoder) blockCount(minItemSize int) (int64, error) {
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, errors.New("invalid block count")
		}
		n = -n
		size, err := d.long()
		if err != nil {
			return 0, err
		}
		if size < 0 || size > int64(d.remaining()) {
			return 0, fmt.Errorf("block size %d exceeds the %d bytes left", size, d.remaining())
		}
	}
	// Items take at least minItemSize bytes each, so a forged count cannot
	// make a reader allocate more than the block holds. Items of no bytes at
	// all (nulls of type unknown, empty records) get a fixed cap instead.
	if minItemSize > 0 {
		if n > int64(d.remaining()/minItemSize) {
			return 0, fmt.Errorf("count %d exceeds what the %d bytes left can hold", n, d.remaining())
		}
		return n, nil
	}
	d.zeroSizeItems += n
	if d.zeroSizeItems > maxZeroSizeItems {
		return 0, fmt.Errorf("more than %d items that take no bytes in one block", maxZeroSizeItems)
	}
	return n, nil
}

// maxZeroSizeItems caps the items (and rows) of one block that take no
// bytes: a tiny file could otherwise declare billions of them.
const maxZeroSizeItems = 1 << 20

// maxSkipDepth bounds recursion when skipping values of recursive types.
const maxSkipDepth = 512

// skip consumes one value of node n without building it.
func (n *fnode) skip(d *decoder, depth int) error {
	if depth > maxSkipDepth {
		return errors.New("value nesting is too deep")
	}
	if n.recursive != nil {
		n = n.recursive
	}
	switch n.kind {
	case hamba.Null:
		return nil
	case hamba.Boolean:
		_, err := d.fixed(1)
		return err
	case hamba.Int, hamba.Long, hamba.Enum:
		_, err := d.long()
		return err
	case hamba.Float:
		_, err := d.fixed(4)
		return err
	case hamba.Double:
		_, err := d.fixed(8)
		return err
	case hamba.Bytes, hamba.String:
		_, err := d.bytes()
		return err
	case hamba.Fixed:
		_, err := d.fixed(n.size)
		return err
	case hamba.Record:
		for _, f := range n.fields {
			if err := f.node.skip(d, depth+1); err != nil {
				return err
			}
		}
		return nil
	case hamba.Union:
		i, err := d.long()
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(n.branches)) {
			return fmt.Errorf("union branch %d out of range", i)
		}
		return n.branches[i].skip(d, depth+1)
	case hamba.Array, hamba.Map:
		min := 0
		if n.kind == hamba.Map {
			min = 1 // the key's length
		} else {
			min = n.items.minSize(0)
		}
		for {
			count, err := d.blockCount(min)
			if err != nil {
				return err
			}
			if count == 0 {
				return nil
			}
			for range count {
				if n.kind == hamba.Map {
					if _, err := d.bytes(); err != nil {
						return err
					}
					if err := n.values.skip(d, depth+1); err != nil {
						return err
					}
				} else if err := n.items.skip(d, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return fmt.Errorf("cannot skip Avro %s", n.kind)
}

// minSize is the fewest bytes a value of n takes.
func (n *fnode) minSize(depth int) int {
	if n.recursive != nil || depth > 64 {
		return 0
	}
	switch n.kind {
	case hamba.Boolean, hamba.Int, hamba.Long, hamba.Enum, hamba.Bytes, hamba.String, hamba.Union, hamba.Array, hamba.Map:
		return 1
	case hamba.Float:
		return 4
	case hamba.Double:
		return 8
	case hamba.Fixed:
		return n.size
	case hamba.Record:
		total := 0
		for _, f := range n.fields {
			total += f.node.minSize(depth + 1)
		}
		return total
	}
	return 0
}
