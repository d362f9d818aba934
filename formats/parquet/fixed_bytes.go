package parquet

import (
	"bytes"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// FIXED_LEN_BYTE_ARRAY columns (fixed(L), uuid, and decimal(P,S) with P
// over 18) go through fixedBytesType, which corrects two things parquet-go
// gets wrong for them in the statistics and the ColumnIndex it writes:
//
//   - Order. parquet-go compares FIXED_LEN_BYTE_ARRAY values as unsigned
//     bytes, which is right for fixed and uuid but not for DECIMAL:
//     LogicalTypes.md orders decimals as signed numbers, and their bytes
//     are big-endian two's complement. A row group of -1.00, 0.05 and 1.00
//     got min 0.05 and max -1.00, so a reader pruning with `d < 0` would
//     skip it. Decimal pages now compute their bounds as signed.
//   - Pages of nulls. parquet-go's ColumnIndex for the type drops the
//     min/max entry of a page without bounds while keeping its null_pages
//     entry, so the lists differ in length, which parquet.thrift forbids
//     ("so that all lists have the same length"): arrow-rs refuses the
//     file and parquet-go panics reading the index. fixedBytesIndexer
//     writes the empty entry the format asks for, and no truncated bounds:
//     a prefix of a FIXED_LEN_BYTE_ARRAY is not a value of the type, which
//     the format requires of bounds.
type fixedBytesType struct {
	pq.Type
	// signed marks DECIMAL: big-endian two's complement.
	signed bool
}

// fixedBytesLeaf wraps node's FIXED_LEN_BYTE_ARRAY type; node is a leaf.
func fixedBytesLeaf(node pq.Node, signed bool) pq.Node {
	return pq.Leaf(fixedBytesType{Type: node.Type(), signed: signed})
}

func (t fixedBytesType) Compare(a, b pq.Value) int {
	if t.signed {
		return compareSignedBigEndian(a.ByteArray(), b.ByteArray())
	}
	return t.Type.Compare(a, b)
}

func (t fixedBytesType) NewColumnIndexer(int) pq.ColumnIndexer {
	if t.signed {
		return &fixedBytesIndexer{compare: compareSignedBigEndian}
	}
	return &fixedBytesIndexer{compare: bytes.Compare}
}

func (t fixedBytesType) NewColumnBuffer(columnIndex, numValues int) pq.ColumnBuffer {
	b := t.Type.NewColumnBuffer(columnIndex, numValues)
	if !t.signed {
		return b
	}
	return signedBytesBuffer{b}
}

// compareSignedBigEndian compares two big-endian two's complement integers
// of one length: the sign bit first, then the bytes as unsigned.
func compareSignedBigEndian(a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return bytes.Compare(a, b)
	}
	if na, nb := a[0]&0x80 != 0, b[0]&0x80 != 0; na != nb {
		if na {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

// signedBytesBuffer makes its pages compute signed bounds.
type signedBytesBuffer struct{ pq.ColumnBuffer }

func (b signedBytesBuffer) Page() pq.Page { return signedBytesPage{b.ColumnBuffer.Page()} }

// signedBytesPage is a page of decimals whose bounds are signed.
type signedBytesPage struct{ pq.Page }

func (p signedBytesPage) Bounds() (min, max pq.Value, ok bool) {
	values := p.Page.Data()
	data, size := values.FixedLenByteArray()
	if size <= 0 || len(data) < size {
		return min, max, false
	}
	lo, hi := data[:size], data[:size]
	for i := size; i+size <= len(data); i += size {
		v := data[i : i+size]
		if compareSignedBigEndian(v, lo) < 0 {
			lo = v
		}
		if compareSignedBigEndian(v, hi) > 0 {
			hi = v
		}
	}
	col := p.Column()
	return pq.FixedLenByteArrayValue(lo).Level(0, 0, col), pq.FixedLenByteArrayValue(hi).Level(0, 0, col), true
}

// fixedBytesIndexer builds a ColumnIndex with one entry per page in every
// list: the page's bounds, or empty ones for a page without (all null).
type fixedBytesIndexer struct {
	compare    func(a, b []byte) int
	nullPages  []bool
	nullCounts []int64
	mins, maxs [][]byte
}

func (i *fixedBytesIndexer) Reset() {
	i.nullPages, i.nullCounts, i.mins, i.maxs = i.nullPages[:0], i.nullCounts[:0], i.mins[:0], i.maxs[:0]
}

func (i *fixedBytesIndexer) IndexPage(numValues, numNulls int64, min, max pq.Value) {
	allNull := numValues == numNulls || min.IsNull() || max.IsNull()
	i.nullPages = append(i.nullPages, allNull)
	i.nullCounts = append(i.nullCounts, numNulls)
	if allNull {
		i.mins, i.maxs = append(i.mins, []byte{}), append(i.maxs, []byte{})
		return
	}
	// Copies: the values point into page buffers that are reused.
	i.mins = append(i.mins, bytes.Clone(min.ByteArray()))
	i.maxs = append(i.maxs, bytes.Clone(max.ByteArray()))
}

func (i *fixedBytesIndexer) ColumnIndex() format.ColumnIndex {
	return format.ColumnIndex{
		NullPages:     append([]bool(nil), i.nullPages...),
		NullCounts:    append([]int64(nil), i.nullCounts...),
		MinValues:     append([][]byte(nil), i.mins...),
		MaxValues:     append([][]byte(nil), i.maxs...),
		BoundaryOrder: i.boundaryOrder(),
	}
}

// boundaryOrder is ASCENDING or DESCENDING when both lists are, over two
// or more pages that have bounds, and UNORDERED otherwise (as parquet-go
// says of a single page).
func (i *fixedBytesIndexer) boundaryOrder() format.BoundaryOrder {
	asc, desc := true, true
	last, bounded := -1, 0
	for p := range i.mins {
		if i.nullPages[p] {
			continue
		}
		if last >= 0 {
			cmpMin := i.compare(i.mins[last], i.mins[p])
			cmpMax := i.compare(i.maxs[last], i.maxs[p])
			asc = asc && cmpMin <= 0 && cmpMax <= 0
			desc = desc && cmpMin >= 0 && cmpMax >= 0
		}
		last = p
		bounded++
	}
	switch {
	case bounded < 2 || !asc && !desc:
		return format.Unordered
	case asc:
		return format.Ascending
	}
	return format.Descending
}
