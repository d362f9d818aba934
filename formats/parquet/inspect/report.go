package inspect

import (
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/internal/safeopen"
)

// Options configures Inspect.
type Options struct {
	// Name names the file in errors and in the report.
	Name string
	// VectorID is the LogicalType union id read as VECTOR; 0 means
	// footer.DefaultVectorID.
	VectorID int16
	// MaxValueLen bounds key/value values and statistics renderings, in
	// characters (bytes for hex); 0 means DefaultMaxValueLen.
	MaxValueLen int
	// FullKeyValue keeps key/value metadata values whole: a JSON report is
	// read by programs (an Iceberg schema, an Arrow schema), which a cut
	// value breaks.
	FullKeyValue bool
	// FullStatistics keeps statistics min and max whole, for the same
	// readers: a VECTOR bound is thousands of bytes. The text view cuts
	// them to its own width either way.
	FullStatistics bool
	// RowGroups selects the row groups the report holds; the zero value is
	// the first DefaultRowGroups. Inspect decodes no others: a footer of
	// 100,000 row groups costs what is printed, plus one walk over its bytes.
	RowGroups RowGroupRange
}

// DefaultMaxValueLen is the default cut for long values.
const DefaultMaxValueLen = 64

// DefaultRowGroups is how many row groups a report holds unless
// Options.RowGroups says otherwise: every row group of most files, and a
// screenful of one with thousands.
const DefaultRowGroups = 20

// RowGroupRange selects row groups by index (from 0).
type RowGroupRange struct {
	First int
	// Count is how many from First: 0 means DefaultRowGroups, a negative
	// count every one.
	Count int
}

// AllRowGroups selects every row group.
var AllRowGroups = RowGroupRange{Count: -1}

// ParseRowGroupRange reads a row group selection: "all", "N" (one row
// group), "FIRST-LAST" (inclusive) or "FIRST-" (FIRST to the end); ""
// is the default (the first DefaultRowGroups).
func ParseRowGroupRange(s string) (RowGroupRange, error) {
	bad := func() (RowGroupRange, error) {
		return RowGroupRange{}, fmt.Errorf("row groups %q: want all, N, FIRST-LAST or FIRST- (indexes from 0)", s)
	}
	index := func(t string) (int, bool) {
		n, err := strconv.Atoi(t)
		return n, err == nil && n >= 0 && t != "" && t[0] != '+'
	}
	switch s {
	case "":
		return RowGroupRange{}, nil
	case "all":
		return AllRowGroups, nil
	}
	first, last, isRange := strings.Cut(s, "-")
	a, ok := index(first)
	if !ok {
		return bad()
	}
	if !isRange {
		return RowGroupRange{First: a, Count: 1}, nil
	}
	if last == "" {
		return RowGroupRange{First: a, Count: -1}, nil
	}
	b, ok := index(last)
	if !ok || b < a {
		return bad()
	}
	return RowGroupRange{First: a, Count: b - a + 1}, nil
}

// window is the range with the default applied, as footer's window.
func (g RowGroupRange) window() footer.RowGroupWindow {
	if g.Count == 0 {
		g.Count = DefaultRowGroups
	}
	return footer.RowGroupWindow{First: g.First, Count: g.Count}
}

// Report is what a file's footer says. See the package documentation for
// the JSON field names.
type Report struct {
	File         string  `json:"file,omitempty"`
	Size         int64   `json:"size"`
	FooterOffset int64   `json:"footer_offset"`
	FooterLength int64   `json:"footer_length"`
	Version      int32   `json:"version"`
	NumRows      int64   `json:"num_rows"`
	NumColumns   int     `json:"num_columns"`
	CreatedBy    *string `json:"created_by,omitempty"`
	VectorID     int16   `json:"vector_id"`
	Encrypted    bool    `json:"encrypted"`
	Schema       *Node   `json:"schema"`
	// NumRowGroups is the file's row group count. RowGroups holds those
	// Options.RowGroups selected, each with its index; RowGroupsOmitted
	// counts the others.
	NumRowGroups     int          `json:"num_row_groups"`
	RowGroupsOmitted int          `json:"row_groups_omitted"`
	RowGroups        []RowGroup   `json:"row_groups"`
	KeyValue         []KeyValue   `json:"key_value_metadata"`
	Annotations      []Annotation `json:"annotations"`
	ColumnOrders     []string     `json:"column_orders,omitempty"`
	// Warnings are findings that did not stop the inspection: a mirror
	// that does not parse, a column chunk whose path is not in the schema.
	Warnings []string `json:"warnings,omitempty"`
}

// Node is one schema element, with its children.
type Node struct {
	Name          string       `json:"name"`
	Path          []string     `json:"path"`
	Repetition    string       `json:"repetition,omitempty"`
	PhysicalType  string       `json:"physical_type,omitempty"`
	TypeLength    *int32       `json:"type_length,omitempty"`
	FieldID       *int32       `json:"field_id,omitempty"`
	ConvertedType string       `json:"converted_type,omitempty"`
	LogicalType   *LogicalType `json:"logical_type,omitempty"`
	VectorLength  *int32       `json:"vector_length,omitempty"`
	// Column is the leaf's index among the leaves, which is its column
	// chunk's index in every row group; nil for groups.
	Column   *int    `json:"column,omitempty"`
	Children []*Node `json:"children,omitempty"`

	el *footer.SchemaElement
}

// IsLeaf reports whether the node is a primitive column.
func (n *Node) IsLeaf() bool { return n.Column != nil }

// Find returns the node at path (names below this node), or nil.
func (n *Node) Find(path []string) *Node {
	for _, name := range path {
		var next *Node
		for _, c := range n.Children {
			if c.Name == name {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// LogicalType is a LogicalType union member with its parameters.
type LogicalType struct {
	Name                 string   `json:"name"`
	ID                   int16    `json:"id"`
	Text                 string   `json:"text"`
	Precision            *int32   `json:"precision,omitempty"`
	Scale                *int32   `json:"scale,omitempty"`
	Unit                 string   `json:"unit,omitempty"`
	AdjustedToUTC        *bool    `json:"adjusted_to_utc,omitempty"`
	BitWidth             int8     `json:"bit_width,omitempty"`
	Signed               *bool    `json:"signed,omitempty"`
	CRS                  *string  `json:"crs,omitempty"`
	Algorithm            string   `json:"algorithm,omitempty"`
	SpecificationVersion *int8    `json:"specification_version,omitempty"`
	Vector               *Vector  `json:"vector,omitempty"`
	Variant              *Variant `json:"variant,omitempty"`
	Raw                  string   `json:"raw,omitempty"`
}

// Vector describes a VECTOR annotation's parameters as the schema (and the
// key/value mirror) give them.
type Vector struct {
	// Element is float32, float64, float16 or int8 (types/vector's names)
	// when the element leaf is one of those, else its physical description
	// ("INT64", "GROUP", ...); empty when the structure has no element.
	Element string `json:"element"`
	// Dim is the vector length: the middle group's vector_length with
	// VECTOR repetition, else the mirror's; 0 when neither holds it.
	Dim       int32  `json:"dim,omitempty"`
	DimSource string `json:"dim_source,omitempty"` // "vector_length", "mirror" or "type_length" (flba)
	// Layout is "flba" (PR #241: a FIXED_LEN_BYTE_ARRAY leaf),
	// "vector-repetition" (PR #592: middle group VECTOR),
	// "list" (middle group REPEATED) or "invalid: <why>".
	Layout string `json:"layout"`
}

// Variant describes a VARIANT group.
type Variant struct {
	Shredded bool `json:"shredded"`
	// Summary is the compact layout, e.g. {a:int32,b:[string]}.
	Summary string         `json:"summary,omitempty"`
	Layout  *VariantLayout `json:"layout,omitempty"`
	// Error says why the group is not a valid (shredded) variant.
	Error string `json:"error,omitempty"`
}

// VariantLayout is one value/typed_value pair of a shredded variant.
type VariantLayout struct {
	Kind    string         `json:"kind"` // unshredded, primitive, object, array
	Type    string         `json:"type,omitempty"`
	Value   bool           `json:"value"` // the pair has a value column
	Fields  []VariantField `json:"fields,omitempty"`
	Element *VariantLayout `json:"element,omitempty"`
}

// VariantField is a shredded object field.
type VariantField struct {
	Name   string         `json:"name"`
	Layout *VariantLayout `json:"layout"`
}

// RowGroup is one row group.
type RowGroup struct {
	Index               int           `json:"index"`
	NumRows             int64         `json:"num_rows"`
	TotalByteSize       int64         `json:"total_byte_size"`
	TotalCompressedSize *int64        `json:"total_compressed_size,omitempty"`
	FileOffset          *int64        `json:"file_offset,omitempty"`
	Ordinal             *int16        `json:"ordinal,omitempty"`
	Columns             []ColumnChunk `json:"columns"`
}

// ColumnChunk is one column chunk of a row group.
type ColumnChunk struct {
	Path                  []string    `json:"path"`
	FilePath              *string     `json:"file_path,omitempty"`
	FileOffset            int64       `json:"file_offset"`
	PhysicalType          string      `json:"physical_type,omitempty"`
	Encodings             []string    `json:"encodings,omitempty"`
	Codec                 string      `json:"codec,omitempty"`
	NumValues             int64       `json:"num_values"`
	TotalCompressedSize   int64       `json:"total_compressed_size"`
	TotalUncompressedSize int64       `json:"total_uncompressed_size"`
	DataPageOffset        int64       `json:"data_page_offset"`
	DictionaryPageOffset  *int64      `json:"dictionary_page_offset,omitempty"`
	IndexPageOffset       *int64      `json:"index_page_offset,omitempty"`
	Statistics            *Statistics `json:"statistics,omitempty"`
	ColumnIndex           *Range      `json:"column_index,omitempty"`
	OffsetIndex           *Range      `json:"offset_index,omitempty"`
	BloomFilter           *Range      `json:"bloom_filter,omitempty"`
	Encrypted             bool        `json:"encrypted,omitempty"`
	// NoMetaData is set when the chunk carries no (plaintext) ColumnMetaData.
	NoMetaData bool `json:"no_metadata,omitempty"`
}

// Range is where a page index or bloom filter sits.
type Range struct {
	Offset int64  `json:"offset"`
	Length *int32 `json:"length,omitempty"`
}

// Statistics are a column chunk's statistics; Min and Max are display
// strings (see the package documentation).
type Statistics struct {
	NullCount     *int64 `json:"null_count,omitempty"`
	DistinctCount *int64 `json:"distinct_count,omitempty"`
	NaNCount      *int64 `json:"nan_count,omitempty"`
	Min           string `json:"min,omitempty"`
	Max           string `json:"max,omitempty"`
	MinExact      *bool  `json:"min_exact,omitempty"`
	MaxExact      *bool  `json:"max_exact,omitempty"`
	// LegacyMinMax is set when min and max come from the deprecated
	// min/max fields (signed byte-wise order, unreliable for strings).
	LegacyMinMax bool `json:"legacy_min_max,omitempty"`

	// minBytes and maxBytes are the encoded values' lengths, which the
	// text view states when it cuts a value.
	minBytes, maxBytes int
	// minText and maxText are the bounds as the column's registered type
	// formats them (typedValue), which the text view shows instead.
	minText, maxText string
}

// KeyValue is one key/value metadata entry.
type KeyValue struct {
	Key string `json:"key"`
	// Value is cut to Options.MaxValueLen; nil when the entry has none.
	Value     *string `json:"value,omitempty"`
	Length    int     `json:"length"` // of the full value, in bytes
	Truncated bool    `json:"truncated,omitempty"`
}

// Annotation is an extension annotation as footer.ReadAnnotations finds it.
type Annotation struct {
	Path             []string `json:"path"`
	Kind             string   `json:"kind"`
	ID               int16    `json:"id"`
	VectorLength     int32    `json:"vector_length,omitempty"`
	VectorRepetition bool     `json:"vector_repetition,omitempty"`
	Element          string   `json:"element,omitempty"`
	InFooter         bool     `json:"in_footer"`
	InKeyValue       bool     `json:"in_key_value"`
}

// InspectFile opens path and inspects it. The open refuses, without
// blocking, anything but a regular file: a FIFO would hang os.Open.
func InspectFile(path string, opts Options) (*Report, error) { return onFile(path, opts, Inspect) }

// onFile opens path, refusing without blocking anything but a regular file,
// and runs report on it, naming it path unless opts names it.
func onFile[T any](path string, opts Options, report func(io.ReaderAt, int64, Options) (T, error)) (T, error) {
	var zero T
	f, err := safeopen.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return zero, err
	}
	if opts.Name == "" {
		opts.Name = path
	}
	return report(f, st.Size(), opts)
}

// Inspect reads the footer of the size-byte Parquet file r and reports it.
// Errors name the file (Options.Name) and, for footer errors, the byte offset.
func Inspect(r io.ReaderAt, size int64, opts Options) (*Report, error) {
	name := opts.Name
	if name == "" {
		name = "parquet file"
	}
	var fopts []footer.Option
	vectorID := opts.VectorID
	if vectorID == 0 {
		vectorID = footer.DefaultVectorID
	} else {
		fopts = append(fopts, footer.WithVectorID(vectorID))
	}
	if opts.RowGroups.First < 0 {
		return nil, fmt.Errorf("inspect %s: row group %d does not exist: indexes start at 0", name, opts.RowGroups.First)
	}
	f, err := footer.ReadFooterRowGroups(r, size, opts.RowGroups.window(), fopts...)
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", name, err)
	}
	rep, err := FromFooter(f, opts)
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", name, err)
	}
	return rep, nil
}

// FromFooter reports an already read footer: its row groups that
// Options.RowGroups selects, which the footer must hold (ReadFooter holds
// them all, ReadFooterRowGroups those of its window).
func FromFooter(f *footer.Footer, opts Options) (_ *Report, err error) {
	defer func() {
		// Decode has validated the footer; should a path here still trip on
		// a hostile one, it is an error, never a crash.
		if p := recover(); p != nil {
			err = fmt.Errorf("footer at offset %d: internal error on this input (please report): %v", f.Offset, p)
		}
	}()
	if opts.MaxValueLen <= 0 {
		opts.MaxValueLen = DefaultMaxValueLen
	}
	if opts.VectorID == 0 {
		opts.VectorID = footer.DefaultVectorID
	}
	m := f.Meta
	first, end, err := selectRowGroups(f, opts.RowGroups)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		File:         opts.Name,
		Size:         f.FileSize,
		FooterOffset: f.Offset,
		FooterLength: f.Length,
		Version:      m.Version,
		NumRows:      m.NumRows,
		VectorID:     opts.VectorID,
		Encrypted:    m.Encrypted() || f.Signature != nil,
		RowGroups:    make([]RowGroup, 0, end-first),
		KeyValue:     []KeyValue{},
		Annotations:  []Annotation{},
	}
	if m.CreatedBy.Valid {
		s := m.CreatedBy.V
		rep.CreatedBy = &s
	}
	anns, err := footer.ReadAnnotations(m)
	if err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	}
	for _, a := range anns {
		rep.Annotations = append(rep.Annotations, Annotation{
			Path: a.Path, Kind: string(a.Kind), ID: a.ID, VectorLength: a.VectorLength,
			VectorRepetition: a.VectorRepetition, Element: a.Element, InFooter: a.InFooter, InKeyValue: a.InKeyValue,
		})
	}
	b, err := newBuilder(opts, m, anns)
	if err != nil {
		return nil, err
	}
	rep.Schema = b.root
	rep.NumColumns = b.columns
	rep.NumRowGroups = max(f.NumRowGroups, len(m.RowGroups))
	rep.RowGroupsOmitted = rep.NumRowGroups - (end - first)
	for i := first; i < end; i++ {
		rep.RowGroups = append(rep.RowGroups, b.rowGroup(i, &m.RowGroups[i-f.FirstRowGroup], &rep.Warnings))
	}
	for _, kv := range m.KeyValueMetadata {
		e := KeyValue{Key: kv.Key, Length: len(kv.Value.V)}
		if kv.Value.Valid {
			v, cut := kv.Value.V, false
			if !opts.FullKeyValue {
				v, cut = truncate(v, opts.MaxValueLen)
			}
			e.Value, e.Truncated = &v, cut
		}
		rep.KeyValue = append(rep.KeyValue, e)
	}
	for _, co := range m.ColumnOrders {
		rep.ColumnOrders = append(rep.ColumnOrders, columnOrderName(co))
	}
	return rep, nil
}

// selectRowGroups is the file's row group indexes [first, end) that sel
// selects, checked against those f holds.
func selectRowGroups(f *footer.Footer, sel RowGroupRange) (first, end int, err error) {
	total := max(f.NumRowGroups, len(f.Meta.RowGroups))
	w := sel.window()
	first = w.First
	switch {
	case first > 0 && first >= total && total == 0:
		return 0, 0, fmt.Errorf("row group %d does not exist: the file has no row groups", first)
	case first > 0 && first >= total:
		return 0, 0, fmt.Errorf("row group %d does not exist: the file has %d (0-%d)", first, total, total-1)
	}
	end = total
	if w.Count >= 0 && w.Count < total-first {
		end = first + w.Count
	}
	first = min(first, end)
	if held := f.FirstRowGroup + len(f.Meta.RowGroups); first < f.FirstRowGroup || end > held {
		return 0, 0, fmt.Errorf("the footer was read with row groups %d-%d, not %d-%d", f.FirstRowGroup, held-1, first, end-1)
	}
	return first, end, nil
}

type builder struct {
	opts        Options
	schema      []footer.SchemaElement
	annotations []footer.Annotation
	root        *Node
	leaves      map[string]*Node // by column path
	columns     int
}

// newBuilder builds the schema tree of meta. anns are its extension
// annotations (footer.ReadAnnotations), where a FIXED_LEN_BYTE_ARRAY
// VECTOR finds its element.
func newBuilder(opts Options, meta *footer.FileMetaData, anns []footer.Annotation) (*builder, error) {
	b := &builder{opts: opts, schema: meta.Schema, annotations: anns, leaves: map[string]*Node{}}
	root, err := b.tree()
	if err != nil {
		return nil, err
	}
	b.root = root
	return b, nil
}

func pathKey(path []string) string { return strings.Join(path, "\x00") }

// tree builds the Node tree from the flat schema, walked by
// footer.SchemaTree, the footer's one schema walker (Decode has already
// checked that num_children describe one tree of bounded depth; FromFooter
// may be handed a footer Decode never saw).
func (b *builder) tree() (*Node, error) {
	st, err := footer.NewSchemaTree(b.schema)
	if err != nil {
		return nil, err
	}
	// The schema is depth-first, so a parent precedes its children, and a
	// leaf's column index is its rank among the leaves in schema order.
	nodes := make([]*Node, len(b.schema))
	for i := range b.schema {
		el := &b.schema[i]
		n := &Node{Name: el.Name, Path: []string{}, el: el}
		if p := st.Parent(i); p >= 0 {
			n.Path = append(slices.Clip(nodes[p].Path), el.Name)
		}
		if el.RepetitionType.Valid {
			n.Repetition = el.RepetitionType.V.String()
		}
		if el.Type.Valid {
			n.PhysicalType = physicalName(el.Type.V)
		}
		n.TypeLength = optional(el.TypeLength)
		n.FieldID = optional(el.FieldID)
		n.VectorLength = optional(el.VectorLength)
		n.ConvertedType = convertedName(el)
		if !el.IsGroup() {
			col := b.columns
			b.columns++
			n.Column = &col
			b.leaves[pathKey(n.Path)] = n
		}
		if c := st.Children(i); len(c) > 0 {
			n.Children = make([]*Node, 0, len(c))
		}
		if p := st.Parent(i); p >= 0 {
			nodes[p].Children = append(nodes[p].Children, n)
		}
		nodes[i] = n
	}
	// After the children: VECTOR and VARIANT describe their subtree, and
	// every descendant of i comes after i.
	for i := len(nodes) - 1; i >= 0; i-- {
		nodes[i].LogicalType = b.logicalType(nodes[i])
	}
	return nodes[0], nil
}

func (b *builder) logicalType(n *Node) *LogicalType {
	el := n.el
	v := el.LogicalType.Value
	if v == nil {
		return nil
	}
	lt := &LogicalType{ID: v.FieldID()}
	switch t := v.(type) {
	case *format.StringType:
		lt.Name = "STRING"
	case *format.MapType:
		lt.Name = "MAP"
	case *format.ListType:
		lt.Name = "LIST"
	case *format.EnumType:
		lt.Name = "ENUM"
	case *format.DecimalType:
		lt.Name = "DECIMAL"
		p, s := t.Precision, t.Scale
		lt.Precision, lt.Scale = &p, &s
		lt.Text = fmt.Sprintf("DECIMAL(%d,%d)", p, s)
	case *format.DateType:
		lt.Name = "DATE"
	case *format.TimeType:
		lt.Name = "TIME"
		lt.setTime(t.Unit, t.IsAdjustedToUTC)
	case *format.TimestampType:
		lt.Name = "TIMESTAMP"
		lt.setTime(t.Unit, t.IsAdjustedToUTC)
	case *format.IntType:
		lt.Name = "INT"
		signed := t.IsSigned
		lt.BitWidth, lt.Signed = t.BitWidth, &signed
		lt.Text = fmt.Sprintf("INT(%d, %s)", t.BitWidth, map[bool]string{true: "signed", false: "unsigned"}[signed])
	case *format.NullType:
		lt.Name = "NULL"
	case *format.JsonType:
		lt.Name = "JSON"
	case *format.BsonType:
		lt.Name = "BSON"
	case *format.UUIDType:
		lt.Name = "UUID"
	case *format.Float16Type:
		lt.Name = "FLOAT16"
	case *footer.VariantType:
		lt.Name = "VARIANT"
		lt.Text = "VARIANT"
		if t.SpecificationVersion.Valid {
			sv := t.SpecificationVersion.V
			lt.SpecificationVersion = &sv
			lt.Text = fmt.Sprintf("VARIANT(%d)", sv)
		}
		lt.Variant = variantOf(n)
		switch {
		case lt.Variant.Error != "":
			lt.Text += " invalid: " + lt.Variant.Error
		case lt.Variant.Shredded:
			lt.Text += " shredded " + lt.Variant.Summary
		default:
			lt.Text += " unshredded"
		}
	case *footer.GeometryType:
		lt.Name = "GEOMETRY"
		lt.Text = "GEOMETRY"
		if t.CRS.Valid {
			crs := t.CRS.V
			lt.CRS = &crs
			lt.Text = fmt.Sprintf("GEOMETRY(%q)", crs)
		}
	case *footer.GeographyType:
		lt.Name = "GEOGRAPHY"
		var params []string
		if t.CRS.Valid {
			crs := t.CRS.V
			lt.CRS = &crs
			params = append(params, fmt.Sprintf("%q", crs))
		}
		if t.Algorithm.Valid {
			lt.Algorithm = t.Algorithm.V.String()
			params = append(params, lt.Algorithm)
		}
		lt.Text = "GEOGRAPHY"
		if len(params) > 0 {
			lt.Text += "(" + strings.Join(params, ", ") + ")"
		}
	// FILE and VECTOR keep cases of their own because the footer codec
	// models their union members itself (*footer.FileType, *footer.VectorType:
	// VECTOR's id moves per file, footer/kind_vector.go), not because inspect
	// describes them differently: both are named by their footer.Kind and
	// described as a registered extension type is (extensionText), and
	// their values go through data/coltype like any registered type's
	// (typedValue).
	case *footer.FileType:
		lt.Name = string(footer.KindFile)
		lt.Raw = hex.EncodeToString(t.Unmodelled)
		lt.Text = extensionText(lt.Name, lt.ID)
	case *footer.VectorType:
		lt.Name = string(footer.KindVector)
		lt.Raw = hex.EncodeToString(t.Unmodelled)
		// The parameters are the schema's (PR #592's VECTOR repetition,
		// vector_length, the element leaf) and the mirror's, which only
		// the footer's VECTOR member has.
		lt.Vector = b.vectorOf(n, footer.KindVector)
		vec := lt.Vector
		parts := []string{fmt.Sprintf("id=%d", lt.ID)}
		if vec.Element != "" {
			parts = append(parts, "element="+vec.Element)
		}
		if vec.Dim > 0 {
			parts = append(parts, fmt.Sprintf("dim=%d", vec.Dim))
		}
		parts = append(parts, "layout="+vec.Layout)
		lt.Text = lt.Name + "(" + strings.Join(parts, ", ") + ")"
	case *footer.ExtensionType:
		// A type a package registered with the footer codec
		// (footer.RegisterLogicalType): named by its kind.
		lt.Name = string(t.Kind)
		lt.Raw = hex.EncodeToString(t.Unmodelled)
		lt.Text = extensionText(lt.Name, t.ID)
	case *footer.UnknownLogicalType:
		lt.Name = "UNKNOWN"
		lt.Raw = hex.EncodeToString(t.Raw)
		lt.Text = fmt.Sprintf("unknown (id %d)", t.ID)
	default:
		lt.Name = fmt.Sprintf("%T", v)
	}
	if lt.Text == "" {
		lt.Text = lt.Name
	}
	return lt
}

func (lt *LogicalType) setTime(u format.TimeUnit, utc bool) {
	lt.Unit = u.String()
	if lt.Unit == "" {
		lt.Unit = "unknown unit"
	}
	lt.AdjustedToUTC = &utc
	zone := "local"
	if utc {
		zone = "UTC"
	}
	lt.Text = fmt.Sprintf("%s(%s, %s)", lt.Name, lt.Unit, zone)
}

// extensionText describes an annotation the footer gives no parameters
// (FILE, a registered extension type): its kind and union id, "FILE(id=19)",
// "UNIT_INTERVAL(id=40)".
func extensionText(kind string, id int16) string {
	return fmt.Sprintf("%s(id=%d)", kind, id)
}

// flatVectorOf reads a VECTOR on a FIXED_LEN_BYTE_ARRAY leaf (PR #241's
// shape): the cell's bytes do not say what they are, so the element comes
// from the mirror entry of kind, and the length is the cell's size over the
// element's. The element's name is the one the type registered for the
// annotation gives it (data/coltype's Element hook).
func (b *builder) flatVectorOf(n *Node, kind footer.Kind) *Vector {
	v := &Vector{Layout: "flba"}
	if n.PhysicalType != "FIXED_LEN_BYTE_ARRAY" || n.TypeLength == nil {
		v.Layout = "invalid: " + string(kind) + " on a " + nodeType(n) + " leaf, not FIXED_LEN_BYTE_ARRAY"
		return v
	}
	t, _ := coltype.ByAnnotation(string(kind))
	for _, a := range b.annotations {
		if a.Kind != kind || !a.InKeyValue || !slices.Equal(a.Path, n.Path) {
			continue
		}
		// The widths are the footer's: the mirror's element names are
		// its vocabulary (FLOAT, DOUBLE, FLOAT16, INT8).
		width, ok := footer.VectorElementWidths[a.Element]
		if !ok {
			v.Layout = fmt.Sprintf("invalid: the mirror's element %q has no width", a.Element)
			return v
		}
		v.Element, _ = elementName(t, a.Element)
		v.Dim, v.DimSource = *n.TypeLength/width, "type_length"
		if *n.TypeLength%width != 0 || (a.VectorLength > 0 && a.VectorLength != v.Dim) {
			v.Layout = fmt.Sprintf("invalid: %d bytes do not hold %d %s elements", *n.TypeLength, a.VectorLength, v.Element)
		}
		return v
	}
	v.Layout = "invalid: FIXED_LEN_BYTE_ARRAY " + string(kind) + " without a mirror entry naming its element"
	return v
}

// vectorOf reads a VECTOR group's parameters from its subtree (and the
// mirror entries of kind, for the length in the list layout). The middle
// level's repetition is read against footer.Vector and footer.Repeated:
// PR #592's VECTOR repetition is a footer structure, which the footer
// models.
func (b *builder) vectorOf(n *Node, kind footer.Kind) *Vector {
	v := &Vector{}
	if n.IsLeaf() {
		return b.flatVectorOf(n, kind)
	}
	if len(n.Children) != 1 {
		v.Layout = fmt.Sprintf("invalid: %d children, not one middle group", len(n.Children))
		return v
	}
	middle := n.Children[0]
	switch {
	case middle.IsLeaf() || len(middle.Children) != 1:
		v.Layout = "invalid: the middle level is not a group with one element"
	case middle.Repetition == footer.Vector.String():
		v.Layout = "vector-repetition"
	case middle.Repetition == footer.Repeated.String():
		v.Layout = "list"
	default:
		v.Layout = "invalid: middle group is " + orUnset(middle.Repetition)
	}
	if middle.VectorLength != nil {
		v.Dim, v.DimSource = *middle.VectorLength, "vector_length"
	}
	if len(middle.Children) == 1 {
		t, _ := coltype.ByAnnotation(string(kind))
		v.Element = middle.Children[0].elementNameAs(t)
	}
	if v.Dim == 0 {
		for _, a := range b.annotations {
			if a.Kind == kind && a.InKeyValue && slices.Equal(a.Path, n.Path) && a.VectorLength > 0 {
				v.Dim, v.DimSource = a.VectorLength, "mirror"
			}
		}
	}
	return v
}

// ElementName names a vector element node as the registered VECTOR type
// does (types/vector: float32, float64, float16, int8) when it is one of
// those, and otherwise describes it ("INT64", "FIXED_LEN_BYTE_ARRAY(16)",
// "GROUP"). Its callers ask about VECTOR columns (formats/parquet/annotate
// checks a VECTOR layout with it), so it asks the type registered for the
// footer's VECTOR kind; the report itself asks the type registered for the
// column's annotation (elementNameAs).
func (n *Node) ElementName() string {
	t, _ := coltype.ByAnnotation(string(footer.KindVector))
	return n.elementNameAs(t)
}

// elementNameAs names an element node as t (nil: no type) spells its
// elements (coltype.Type.Element), else describes it as ElementName does.
func (n *Node) elementNameAs(t *coltype.Type) string {
	if !n.IsLeaf() {
		return "GROUP"
	}
	if p, ok := parquetElement(n); ok {
		if name, ok := elementName(t, p); ok {
			return name
		}
	}
	s := nodeType(n)
	if n.LogicalType != nil {
		s += " " + n.LogicalType.Text
	}
	return s
}

func (b *builder) rowGroup(i int, rg *footer.RowGroup, warnings *[]string) RowGroup {
	out := RowGroup{Index: i, NumRows: rg.NumRows, TotalByteSize: rg.TotalByteSize, Columns: []ColumnChunk{}}
	out.TotalCompressedSize = optional(rg.TotalCompressedSize)
	out.FileOffset = optional(rg.FileOffset)
	out.Ordinal = optional(rg.Ordinal)
	for j := range rg.Columns {
		cc := &rg.Columns[j]
		c := ColumnChunk{FileOffset: cc.FileOffset, Path: []string{}}
		c.FilePath = optional(cc.FilePath)
		c.Encrypted = cc.CryptoMetadata.Value != nil || cc.EncryptedColumnMetadata != nil
		c.ColumnIndex = rangeOf(cc.ColumnIndexOffset, cc.ColumnIndexLength)
		c.OffsetIndex = rangeOf(cc.OffsetIndexOffset, cc.OffsetIndexLength)
		md := cc.MetaData
		if md == nil {
			c.NoMetaData = true
			out.Columns = append(out.Columns, c)
			continue
		}
		c.Path = append(c.Path, md.PathInSchema...)
		c.PhysicalType = physicalName(md.Type)
		for _, e := range md.Encoding {
			c.Encodings = append(c.Encodings, encodingName(e))
		}
		c.Codec = codecName(md.Codec)
		c.NumValues = md.NumValues
		c.TotalCompressedSize = md.TotalCompressedSize
		c.TotalUncompressedSize = md.TotalUncompressedSize
		c.DataPageOffset = md.DataPageOffset
		c.DictionaryPageOffset = optional(md.DictionaryPageOffset)
		c.IndexPageOffset = optional(md.IndexPageOffset)
		c.BloomFilter = rangeOf(md.BloomFilterOffset, md.BloomFilterLength)
		leaf := b.leaves[pathKey(md.PathInSchema)]
		if leaf == nil {
			*warnings = append(*warnings, fmt.Sprintf("row group %d column %d: path %s is not a leaf of the schema",
				i, j, strings.Join(md.PathInSchema, ".")))
		} else if leaf.el.Type.Valid && leaf.el.Type.V != md.Type {
			*warnings = append(*warnings, fmt.Sprintf("row group %d column %s: chunk type %s, schema type %s",
				i, strings.Join(md.PathInSchema, "."), c.PhysicalType, leaf.PhysicalType))
		}
		if md.Statistics != nil {
			c.Statistics = b.statistics(md.Statistics, md.Type, leaf)
		}
		out.Columns = append(out.Columns, c)
	}
	return out
}

func (b *builder) statistics(s *footer.Statistics, phys format.Type, leaf *Node) *Statistics {
	out := &Statistics{
		NullCount:     nullPtr(s.NullCount.V, s.NullCount.Valid),
		DistinctCount: nullPtr(s.DistinctCount.V, s.DistinctCount.Valid),
		NaNCount:      nullPtr(s.NanCount.V, s.NanCount.Valid),
		MinExact:      nullPtr(s.IsMinValueExact.V, s.IsMinValueExact.Valid),
		MaxExact:      nullPtr(s.IsMaxValueExact.V, s.IsMaxValueExact.Valid),
	}
	el := leafElement(leaf, phys)
	minB, maxB := s.MinValue, s.MaxValue
	if minB == nil && maxB == nil && (s.Min != nil || s.Max != nil) {
		minB, maxB = s.Min, s.Max
		out.LegacyMinMax = true
	}
	maxLen := b.opts.MaxValueLen
	if b.opts.FullStatistics {
		maxLen = math.MaxInt
	}
	if minB != nil {
		out.Min, out.minText, out.minBytes = bound(leaf, el, minB, maxLen)
	}
	if maxB != nil {
		out.Max, out.maxText, out.maxBytes = bound(leaf, el, maxB, maxLen)
	}
	return out
}

// leafElement is the schema element that reads a chunk's values: its leaf
// in the schema, or, for a chunk whose path is not in the schema or whose
// type is not the leaf's, an element of the chunk's own type alone.
func leafElement(leaf *Node, phys format.Type) *footer.SchemaElement {
	if leaf != nil && leaf.el != nil && leaf.el.Type.Valid && leaf.el.Type.V == phys {
		return leaf.el
	}
	return &footer.SchemaElement{Type: nullOf(phys)}
}

// bound renders one PLAIN-encoded bound, a statistics value or a column
// index's, read as el (leafElement): the display string (formatValue, cut
// to maxLen), the rendering of the column's registered type ("" when none
// reads it: typedValue), and the encoded length. Statistics and page
// indexes share it, so lab inspect and lab pages show a bound alike.
func bound(leaf *Node, el *footer.SchemaElement, raw []byte, maxLen int) (display, typed string, n int) {
	typed, _ = typedValue(leaf, el, raw)
	return formatValue(el, raw, maxLen), typed, len(raw)
}

func rangeOf(off thrift.Null[int64], length thrift.Null[int32]) *Range {
	if !off.Valid {
		return nil
	}
	return &Range{Offset: off.V, Length: nullPtr(length.V, length.Valid)}
}

func nullPtr[T any](v T, valid bool) *T {
	if !valid {
		return nil
	}
	return &v
}

func nullOf[T any](v T) thrift.Null[T] { return thrift.New(v) }

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// truncate cuts s to at most n characters, appending "…" when it does.
func truncate(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…", true
}

// optional turns a thrift field's presence into a JSON-omittable pointer.
func optional[T any](n thrift.Null[T]) *T {
	if !n.Valid {
		return nil
	}
	v := n.V
	return &v
}
