package vectorcol

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// Layout is one of the candidate Parquet layouts of a VECTOR column. Every
// layout file the lab writes holds a single column, emb, whose row numbers
// are the vector ids (no separate id column: a row number is what Take and
// the searches return, and a second column would only add bytes that every
// layout shares).
type Layout uint8

const (
	// LayoutFLBA is the lab's own variant: FIXED_LEN_BYTE_ARRAY(dim × width)
	// annotated with the lab's VECTOR logical type (an empty struct under
	// the VECTOR id) in the footer, the element type and dimension in
	// the key/value mirror only. It is not PR #241; LayoutFixedSizeList is.
	LayoutFLBA Layout = iota + 1
	// LayoutFLBARaw is the same bytes without the annotation.
	LayoutFLBARaw
	// LayoutList is the 3-level LIST baseline:
	// emb (LIST) { repeated group list { required|optional float element } }.
	LayoutList
	// LayoutVectorRepetition is PR #592's layout:
	// emb (VECTOR) { vector group list [N] { required|optional float element } },
	// the middle group with FieldRepetitionType VECTOR = 3 and vector_length N.
	LayoutVectorRepetition
	// LayoutFixedSizeList is parquet-format PR #241's layout: the same
	// FIXED_LEN_BYTE_ARRAY(dim × width) cells as flba, annotated
	// FIXED_SIZE_LIST(type=FLOAT|DOUBLE, num_values=dim), the
	// FixedSizeListType struct in the footer carrying both parameters, under
	// WriteOptions.FixedSizeListID. Only float32 and float64 elements: the
	// struct names a physical type, and no physical type is float16, int8
	// or bfloat16.
	LayoutFixedSizeList
)

// Layouts lists every layout in declaration order.
func Layouts() []Layout {
	return []Layout{LayoutFLBA, LayoutFLBARaw, LayoutList, LayoutVectorRepetition, LayoutFixedSizeList}
}

// flat reports whether l stores a vector as one FIXED_LEN_BYTE_ARRAY cell.
func (l Layout) flat() bool {
	return l == LayoutFLBA || l == LayoutFLBARaw || l == LayoutFixedSizeList
}

// Flat reports whether l stores a vector as one FIXED_LEN_BYTE_ARRAY cell
// (flba, flba-raw, fixed-size-list), not as element values (list,
// vector-repetition).
func (l Layout) Flat() bool { return l.flat() }

func (l Layout) String() string {
	switch l {
	case LayoutFLBA:
		return "flba"
	case LayoutFLBARaw:
		return "flba-raw"
	case LayoutList:
		return "list"
	case LayoutVectorRepetition:
		return "vector-repetition"
	case LayoutFixedSizeList:
		return "fixed-size-list"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// ParseLayout parses a name as printed by String.
func ParseLayout(name string) (Layout, error) {
	for _, l := range Layouts() {
		if strings.EqualFold(strings.TrimSpace(name), l.String()) {
			return l, nil
		}
	}
	return 0, fmt.Errorf("vector: unknown layout %q (want flba, flba-raw, list, vector-repetition or fixed-size-list)", name)
}

// ValueEncoding is how the float bytes of a page are encoded.
type ValueEncoding uint8

const (
	EncodingPlain ValueEncoding = iota + 1
	EncodingByteStreamSplit
)

// ValueEncodings lists the supported value encodings.
func ValueEncodings() []ValueEncoding {
	return []ValueEncoding{EncodingPlain, EncodingByteStreamSplit}
}

func (e ValueEncoding) String() string {
	switch e {
	case EncodingPlain:
		return "plain"
	case EncodingByteStreamSplit:
		return "bss"
	}
	return fmt.Sprintf("ValueEncoding(%d)", uint8(e))
}

func (e ValueEncoding) format() format.Encoding {
	if e == EncodingByteStreamSplit {
		return format.ByteStreamSplit
	}
	return format.Plain
}

// ParseValueEncoding parses plain, or bss (byte_stream_split), ignoring case.
func ParseValueEncoding(name string) (ValueEncoding, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "plain":
		return EncodingPlain, nil
	case "bss", "byte_stream_split", "byte-stream-split":
		return EncodingByteStreamSplit, nil
	}
	return 0, fmt.Errorf("vector: unknown value encoding %q (want plain or bss)", name)
}

// Codec is a page compression codec.
type Codec uint8

const (
	CodecNone Codec = iota + 1
	CodecSnappy
	CodecZstd
	CodecLZ4 // LZ4_RAW, the Parquet codec that is plain LZ4 block format
)

// Codecs lists the supported codecs.
func Codecs() []Codec { return []Codec{CodecNone, CodecSnappy, CodecZstd, CodecLZ4} }

func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecSnappy:
		return "snappy"
	case CodecZstd:
		return "zstd"
	case CodecLZ4:
		return "lz4"
	}
	return fmt.Sprintf("Codec(%d)", uint8(c))
}

// ParseCodec parses none (uncompressed), snappy, zstd or lz4 (lz4_raw),
// ignoring case.
func ParseCodec(name string) (Codec, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "none", "uncompressed":
		return CodecNone, nil
	case "snappy":
		return CodecSnappy, nil
	case "zstd":
		return CodecZstd, nil
	case "lz4", "lz4_raw":
		return CodecLZ4, nil
	}
	return 0, fmt.Errorf("vector: unknown codec %q (want none, snappy, zstd or lz4)", name)
}

// codec returns parquet-go's implementation of c.
func (c Codec) codec() (compress.Codec, error) {
	switch c {
	case CodecNone:
		return parquetCodecs[format.Uncompressed], nil
	case CodecSnappy:
		return parquetCodecs[format.Snappy], nil
	case CodecZstd:
		return Zstd{Other: parquetCodecs[format.Zstd]}, nil
	case CodecLZ4:
		return parquetCodecs[format.Lz4Raw], nil
	}
	return nil, fmt.Errorf("vector: unknown codec %v", c)
}

// WriteOptions configure WriteFile.
type WriteOptions struct {
	Layout   Layout
	Encoding ValueEncoding // default plain
	Codec    Codec         // default none
	// PageBytes is the target size of a data page's values before
	// compression (default 1 MiB). Take reads whole pages unless they are
	// uncompressed PLAIN, so smaller pages make Take cheaper and the file
	// slightly larger.
	PageBytes int
	// VectorID is the VECTOR logical type's union id (default
	// footer.DefaultVectorID). flba takes an id above 19; vector-repetition
	// also takes 19 (footer.VectorProposalID), the id of PR #592 and of
	// arrow-go's prototype, which a parquet-format 2.14.0 reader sees as FILE.
	VectorID int16
	// FixedSizeListID is the fixed-size-list layout's FIXED_SIZE_LIST union
	// id (default footer.DefaultFixedSizeListID, 21). 19 is PR #241's own id
	// (footer.PR241FixedSizeListID), and FILE's in parquet-format 2.14.0.
	FixedSizeListID int16
	// Element is the element type stored in the file (default Float32).
	// Column.Data is converted on write (ElementType.EncodeAppend: float16
	// and bfloat16 round to nearest even, int8 fails on values that do not
	// fit) and back to float32 on read. The list and vector-repetition
	// layouts store float64 as DOUBLE, float16 as FIXED_LEN_BYTE_ARRAY(2)
	// with the FLOAT16 logical type, int8 as INT32 annotated INT(8, signed)
	// and bfloat16 as FIXED_LEN_BYTE_ARRAY(2) with no logical type. flba
	// cannot hold bfloat16 (the VECTOR annotation has no name for it);
	// flba-raw can. fixed-size-list holds float32 and float64 only.
	Element vector.ElementType
}

// ElementKey is the key/value metadata key under which WriteFile records
// the element type (ElementType.String) of a layout file whose elements
// are not float32. It is the only place a reader finds the element type of
// a flba-raw file, and of bfloat16 anywhere: no Parquet type names it.
const ElementKey = "coltype.vector.element"

const defaultPageBytes = 1 << 20

func (o WriteOptions) withDefaults() (WriteOptions, error) {
	if o.Encoding == 0 {
		o.Encoding = EncodingPlain
	}
	if o.Codec == 0 {
		o.Codec = CodecNone
	}
	if o.PageBytes <= 0 {
		o.PageBytes = defaultPageBytes
	}
	if o.Element == 0 {
		o.Element = vector.Float32
	}
	switch {
	case !o.Element.Valid():
		return o, fmt.Errorf("vector: unknown element type %v", o.Element)
	case o.Element == vector.BFloat16 && o.Layout == LayoutFLBA:
		return o, fmt.Errorf("vector: layout flba cannot hold bfloat16: the VECTOR annotation names FLOAT, DOUBLE, FLOAT16 or INT8 and no Parquet type holds bfloat16; write flba-raw (the element type then lives in the %s key/value entry)", ElementKey)
	case o.Layout < LayoutFLBA || o.Layout > LayoutFixedSizeList:
		return o, fmt.Errorf("vector: unknown layout %v", o.Layout)
	case o.Layout == LayoutFixedSizeList && o.Element != vector.Float32 && o.Element != vector.Float64:
		return o, fixedSizeListElementError(o.Element)
	case o.VectorID < 0 || o.VectorID > 0 && o.VectorID < footer.VectorProposalID,
		o.VectorID == footer.VectorProposalID && o.Layout != LayoutVectorRepetition:
		return o, fmt.Errorf("vector: VECTOR union id %d: want an id above 19, or 19 (PR #592's and arrow-go's prototype's) for vector-repetition only, where the VECTOR middle group tells it from FILE", o.VectorID)
	case o.FixedSizeListID < 0 || o.FixedSizeListID > 0 && o.FixedSizeListID < footer.PR241FixedSizeListID,
		o.FixedSizeListID == footer.DefaultVectorID:
		return o, fmt.Errorf("vector: FIXED_SIZE_LIST union id %d: want 19 (PR #241's) or an id above 20 (20 is the lab's VECTOR)", o.FixedSizeListID)
	case o.Encoding != EncodingPlain && o.Encoding != EncodingByteStreamSplit:
		return o, fmt.Errorf("vector: unknown value encoding %v", o.Encoding)
	case o.Codec < CodecNone || o.Codec > CodecLZ4:
		return o, fmt.Errorf("vector: unknown codec %v", o.Codec)
	}
	return o, nil
}

// fixedSizeListElementError says why t cannot be a fixed-size-list element.
// PR #241's FixedSizeListType is {1: required Type type; 2: required i32
// num_values}: the element is a physical type (not BOOLEAN, INT96 or
// BYTE_ARRAY) in its PLAIN bytes, with no field for a logical type.
func fixedSizeListElementError(t vector.ElementType) error {
	why := "it is not one of the lab's element types"
	switch t {
	case vector.Float16:
		why = "Parquet's FLOAT16 is a logical type on FIXED_LEN_BYTE_ARRAY(2), and FixedSizeListType has no field for the element's logical type (type=FIXED_LEN_BYTE_ARRAY would say only \"2 opaque bytes\")"
	case vector.Int8:
		why = "Parquet has no 1-byte physical type (INT(8) is a logical type on 4-byte INT32), and FixedSizeListType has no field for the element's logical type"
	case vector.BFloat16:
		why = "no Parquet type, physical or logical, is bfloat16"
	}
	return fmt.Errorf("vector: layout fixed-size-list cannot hold %v elements: PR #241's FIXED_SIZE_LIST names the element by its physical type only (INT32, INT64, FLOAT, DOUBLE or FIXED_LEN_BYTE_ARRAY), and %s; write float32 or float64, or the lab's flba layout (float16, int8) or flba-raw (bfloat16)", t, why)
}

// Column is the data of one vector column, in float32 whatever the element
// type stored (WriteOptions.Element): Rows() vectors of Dim elements,
// row-major. Null (optional) marks null vectors; their slots in
// Data are ignored but present. ElementNull (optional, rows × dim) marks
// null elements, which only the list and vector-repetition layouts can hold.
type Column struct {
	Dim         int
	Data        []float32
	Null        []bool
	ElementNull []bool
	// Nullable makes the vector column optional even when Null is nil;
	// NullableElements does the same for the elements.
	Nullable, NullableElements bool
}

// Rows is the number of vectors.
func (c Column) Rows() int {
	if c.Dim <= 0 {
		return 0
	}
	return len(c.Data) / c.Dim
}

func (c Column) nullable() bool         { return c.Nullable || c.Null != nil }
func (c Column) nullableElements() bool { return c.NullableElements || c.ElementNull != nil }
func (c Column) isNull(i int) bool      { return c.Null != nil && c.Null[i] }
func (c Column) elemNull(i int) bool    { return c.ElementNull != nil && c.ElementNull[i] }

func (c Column) check() error {
	if err := vector.CheckDim(c.Dim); err != nil {
		return err
	}
	if len(c.Data)%c.Dim != 0 {
		return fmt.Errorf("vector: column data of %d elements is not a multiple of dimension %d", len(c.Data), c.Dim)
	}
	if c.Null != nil && len(c.Null) != c.Rows() {
		return fmt.Errorf("vector: %d null flags for %d rows", len(c.Null), c.Rows())
	}
	if c.ElementNull != nil && len(c.ElementNull) != len(c.Data) {
		return fmt.Errorf("vector: %d element null flags for %d elements", len(c.ElementNull), len(c.Data))
	}
	return nil
}
