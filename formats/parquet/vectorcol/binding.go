package vectorcol

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// VECTOR's column binding, registered from init as FILE's is from filecol:
// the declarations of PropColumns, the layout settings (settings.go), the
// columns' Iceberg types, and the page writer behind the record model's
// VECTOR columns. It is a parquet.PageBinding because its layouts need
// their own pages (PR #592's VECTOR repetition cannot be written by
// parquet-go), and a parquet.FixedListBinding because its annotation on a
// list fixes the lists' length.

const (
	// PropColumns lists top-level fixed[L] columns as
	// COLUMN:vector<ELEMENT,DIM>, comma-separated (the legacy
	// COLUMN:ELEMENT:DIM is read too: types/vector ParseDeclarations), with
	// ELEMENT one of float32, float64, float16, int8 and L = DIM × the
	// element's width. They are annotated VECTOR, in the flat
	// FIXED_LEN_BYTE_ARRAY layout unless write.parquet.vector-layout.* says
	// otherwise (settings.go, where list<float> columns are allowed too).
	PropColumns = vector.PropColumns
	// PropLogicalTypeID is the LogicalType union id VECTOR is written
	// under (default footer.DefaultVectorID); the lab moves it aside because
	// PR #592's 19 now belongs to FILE. Readers need no setting: parquet-go
	// reads the column by its physical type; parquet.FileAnnotations takes the id
	// as footer.WithVectorID.
	PropLogicalTypeID = "write.parquet.vector-logical-type-id"
)

func init() { parquet.RegisterColumnBinding(vectorBinding{}) }

// vectorBinding is VECTOR as a parquet.PageBinding.
type vectorBinding struct{}

var (
	_ parquet.PageBinding      = vectorBinding{}
	_ parquet.FixedListBinding = vectorBinding{}
)

func (vectorBinding) Kind() footer.Kind { return footer.KindVector }
func (vectorBinding) Property() string  { return PropColumns }

func (vectorBinding) Properties() []string {
	return []string{PropLogicalTypeID, PropLayoutDefault, PropLayoutColumn,
		PropEncodingDefault, PropEncodingColumn, PropStatsEnabledColumn}
}

// Bind is not called for a parquet.PageBinding (PlanPages declares its columns).
func (vectorBinding) Bind(iceberg.NestedField) (parquet.ValueCheck, error) {
	return nil, fmt.Errorf("VECTOR columns are declared by %s", PropColumns)
}

// Recognize accepts every column the footer annotates VECTOR: the reader
// reads it by its physical layout, and refuses a vector it cannot assemble
// where it assembles it (formats/parquet, read_vector.go), naming the row.
func (vectorBinding) Recognize(iceberg.Type) error { return nil }

// FixedListLength: a list annotated VECTOR (not VECTOR-repeated) holds
// vector_length elements in every present row (spec/VECTOR.md's list
// layout).
func (vectorBinding) FixedListLength(a footer.Annotation) (int, bool) {
	if a.Kind != footer.KindVector || a.VectorRepetition || a.VectorLength <= 0 {
		return 0, false
	}
	return int(a.VectorLength), true
}

// PlanPages reads the VECTOR declarations and their layout settings.
func (vectorBinding) PlanPages(p *parquet.PagePlanner) (parquet.PagePlan, error) {
	id, err := vectorIDProperty(p.Properties)
	if err != nil {
		return parquet.PagePlan{}, err
	}
	plan := parquet.PagePlan{FooterOptions: []footer.Option{footer.WithVectorID(id)}}
	decls, err := vector.ParseDeclarations(p.Properties[PropColumns])
	if err != nil {
		return parquet.PagePlan{}, fmt.Errorf("%s: %w", PropColumns, err)
	}
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.Column
	}
	settings, err := planVectorSettings(p.Properties, names)
	if err != nil {
		return parquet.PagePlan{}, err
	}
	for _, d := range decls {
		f, err := p.Column(PropColumns, d.Column)
		if err != nil {
			return parquet.PagePlan{}, err
		}
		element, _ := d.Element.ParquetElement() // ParseDeclarations admits only elements that have one
		s := settings[d.Column]
		listTyped, err := checkVectorType(f, d, s)
		if err != nil {
			return parquet.PagePlan{}, err
		}
		if err := checkVectorLayout(d, s, p.MirrorOnly); err != nil {
			return parquet.PagePlan{}, err
		}
		plan.Columns = append(plan.Columns, &vectorColumn{name: d.Column, element: element, dim: int32(d.Dim),
			vectorID: id, field: f, decl: d, settings: s, listTyped: listTyped})
	}
	return plan, nil
}

func vectorIDProperty(props map[string]string) (int16, error) {
	v, ok := props[PropLogicalTypeID]
	if !ok || strings.TrimSpace(v) == "" {
		return footer.DefaultVectorID, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= int(footer.FileID) || n > math.MaxInt16 {
		return 0, fmt.Errorf("%s: %q must be an integer in %d..%d (1-19 are parquet-format's ids)", PropLogicalTypeID, v, footer.FileID+1, math.MaxInt16)
	}
	return int16(n), nil
}

// checkVectorLayout refuses the layouts a declaration cannot take, naming
// the property that chose the layout.
func checkVectorLayout(d vector.Declaration, s vectorSettings, mirrorOnly bool) error {
	key := PropLayoutColumn + d.Column
	switch {
	case s.layout == LayoutFixedSizeList && d.Element != vector.Float32 && d.Element != vector.Float64:
		return fmt.Errorf("%s: column %q: layout fixed-size-list holds float32 and float64 elements only (PR #241's FIXED_SIZE_LIST names the element by its physical type), not %s; write flba", key, d.Column, d.Element)
	case s.layout == LayoutVectorRepetition && mirrorOnly:
		return fmt.Errorf("%s: column %q: layout vector-repetition needs its VECTOR repetition in the footer, which %s=false keeps to the types every reader knows; a reader without it would misread the pages", key, d.Column, parquet.PropFooterAnnotations)
	}
	return nil
}

// vectorColumn is a declared VECTOR column.
type vectorColumn struct {
	name     string
	element  string // the mirror's element name, e.g. "FLOAT"
	dim      int32
	vectorID int16
	// What the page writer needs; the arrow model writes the flba layout
	// only, and uses the annotation alone.
	field     iceberg.NestedField
	decl      vector.Declaration
	settings  vectorSettings
	listTyped bool // Iceberg type list<float|double>, not fixed[L]
}

func (vc *vectorColumn) Name() string { return vc.name }

func (vc *vectorColumn) Annotation() footer.Annotation {
	switch vc.settings.layout {
	case LayoutFixedSizeList:
		// PR #241: the element's physical type, FLOAT or DOUBLE.
		return footer.Annotation{Kind: footer.KindFixedSizeList, VectorLength: vc.dim, Element: vc.element}
	case LayoutList:
		return footer.Annotation{Kind: footer.KindVector, ID: vc.vectorID, VectorLength: vc.dim}
	case LayoutVectorRepetition:
		return footer.Annotation{Kind: footer.KindVector, ID: vc.vectorID, VectorLength: vc.dim, VectorRepetition: true}
	}
	return footer.Annotation{Kind: footer.KindVector, ID: vc.vectorID, VectorLength: vc.dim, Element: vc.element}
}

// NewWriter starts the column's page writer (ChunkWriter, the
// one behind WriteFile's files). Every codec is allowed: the
// page stack reads them all (gzip and brotli stream into the declared
// size).
func (vc *vectorColumn) NewWriter(w io.Writer, props map[string]string, pageBytes int) (parquet.PageWriter, error) {
	codec, err := parquet.PageCodec(props, ZstdLevel)
	if err != nil {
		return nil, err
	}
	if codec.CompressionCodec() == format.Zstd && strings.TrimSpace(props[parquet.PropCompressionLevel]) == "" {
		// No level asked for: split pages get literal-only frames (Zstd),
		// the others ZstdLevel.
		codec = Zstd{Other: codec}
	}
	if vc.field.ID <= 0 {
		return nil, fmt.Errorf("column %q: field id %d cannot be written as a Parquet field_id (ids must be positive)", vc.name, vc.field.ID)
	}
	o := ChunkOptions{
		Layout: vc.settings.layout, Element: vc.decl.Element, Dim: vc.decl.Dim, Encoding: vc.settings.encoding,
		Codec: codec, PageBytes: pageBytes, Nullable: !vc.field.Required, Statistics: vc.settings.stats,
	}
	if lt, ok := vc.field.Type.(*iceberg.ListType); ok {
		if lt.ElementID <= 0 {
			return nil, fmt.Errorf("column %q: element id %d cannot be written as a Parquet field_id", vc.name, lt.ElementID)
		}
		o.NullableElements = !lt.ElementRequired
	}
	cw, err := NewChunkWriter(w, o)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", vc.name, err)
	}
	return &vectorColWriter{vc: vc, options: o, cw: cw}, nil
}

// vectorColWriter writes one VECTOR column's chunks.
type vectorColWriter struct {
	vc      *vectorColumn
	options ChunkOptions
	cw      *ChunkWriter

	// The record being added: its vector, nil for null, and its null
	// elements, nil for none.
	staged     []byte
	stagedNull []bool
	scratch    []byte
	nulls      []bool
}

func (c *vectorColWriter) Stage(v any) error {
	vc := c.vc
	c.staged, c.stagedNull = nil, nil
	if v == nil {
		if vc.field.Required {
			return fmt.Errorf("column %q: null value in required field", vc.name)
		}
		return nil
	}
	want := c.cw.VectorBytes()
	if !vc.listTyped {
		b, ok := v.([]byte)
		if !ok {
			return fmt.Errorf("column %q: %w", vc.name, wrongVectorType(fmt.Sprintf("[]byte of length %d", want), v))
		}
		if len(b) != want {
			return fmt.Errorf("column %q: expected %d bytes for fixed[%d] (VECTOR of %d %s), got %d", vc.name, want, want, vc.decl.Dim, vc.decl.Element, len(b))
		}
		c.staged = b
		return nil
	}
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("column %q: expected []any, got %T", vc.name, v)
	}
	dim := vc.decl.Dim
	if len(items) != dim {
		return fmt.Errorf("column %q: a VECTOR of dimension %d needs %d elements, got %d", vc.name, dim, dim, len(items))
	}
	c.scratch = slices.Grow(c.scratch[:0], want)[:want]
	anyNull := false
	for j, x := range items {
		switch vc.decl.Element {
		case vector.Float32:
			f, ok := x.(float32)
			if ok {
				binary.LittleEndian.PutUint32(c.scratch[4*j:], math.Float32bits(f))
				continue
			}
		case vector.Float64:
			f, ok := x.(float64)
			if ok {
				binary.LittleEndian.PutUint64(c.scratch[8*j:], math.Float64bits(f))
				continue
			}
		}
		if x != nil {
			want := "float32"
			if vc.decl.Element == vector.Float64 {
				want = "float64"
			}
			return fmt.Errorf("column %q: element %d: %w", vc.name, j, wrongVectorType(want, x))
		}
		if !c.options.NullableElements {
			return fmt.Errorf("column %q: element %d is null in a list of required elements", vc.name, j)
		}
		if !anyNull {
			c.nulls = slices.Grow(c.nulls[:0], dim)[:dim]
			clear(c.nulls)
			anyNull = true
		}
		c.nulls[j] = true
		clear(c.scratch[j*vc.decl.Element.Width() : (j+1)*vc.decl.Element.Width()])
	}
	c.staged = c.scratch
	if anyNull {
		c.stagedNull = c.nulls
	}
	return nil
}

// wrongVectorType is the record writer's wording of a value of the wrong Go
// type.
func wrongVectorType(want string, v any) error {
	return fmt.Errorf("expected %s, got %T", want, v)
}

func (c *vectorColWriter) Commit() error {
	if err := c.cw.Append(c.staged, c.stagedNull); err != nil {
		return fmt.Errorf("column %q: %w", c.vc.name, err)
	}
	return nil
}

func (c *vectorColWriter) RowBytes() int { return c.cw.VectorBytes() }

func (c *vectorColWriter) Finish() (parquet.PageChunk, error) {
	info, err := c.cw.Finish(nil)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", c.vc.name, err)
	}
	return vectorChunk{info: info, name: c.vc.name}, nil
}

func (c *vectorColWriter) SchemaElements() []footer.SchemaElement {
	var elemID thrift.Null[int32]
	if lt, ok := c.vc.field.Type.(*iceberg.ListType); ok {
		elemID = thrift.New(int32(lt.ElementID))
	}
	return SchemaElements(c.vc.name, c.options, thrift.New(int32(c.vc.field.ID)), elemID)
}

// MetricsLeaf: a fixed[L] column stored as list or vector-repetition is,
// to the metrics collector, the one FIXED_LEN_BYTE_ARRAY leaf its Iceberg
// type is, carrying the field id, as a flba column's chunk counts it.
func (c *vectorColWriter) MetricsLeaf() []footer.SchemaElement {
	if c.vc.listTyped || c.options.Layout.Flat() {
		return nil
	}
	return SchemaElements(c.vc.name, ChunkOptions{Layout: LayoutFLBA, Element: c.options.Element, Dim: c.options.Dim, Nullable: c.options.Nullable},
		thrift.New(int32(c.vc.field.ID)), thrift.Null[int32]{})
}

// vectorChunk is a finished chunk as the format places it.
type vectorChunk struct {
	info ChunkInfo
	name string
}

func (k vectorChunk) Rows() int64          { return k.info.Rows }
func (k vectorChunk) NullRows() int64      { return k.info.NullVectors }
func (k vectorChunk) Size() (int64, int64) { return k.info.Uncompressed, k.info.Compressed }
func (k vectorChunk) MetaData(at int64) *footer.ColumnMetaData {
	return k.info.ColumnMetaData(k.name, at)
}

func (k vectorChunk) ColumnIndex() ([]byte, error) {
	if k.info.ColumnIndex == nil {
		return nil, nil
	}
	return EncodeIndex(k.info.ColumnIndex)
}

func (k vectorChunk) OffsetIndex(at int64) ([]byte, error) {
	oi := k.info.OffsetIndex(at)
	return EncodeIndex(&oi)
}
