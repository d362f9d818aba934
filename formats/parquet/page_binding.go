package parquet

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// A PageBinding is a ColumnBinding whose columns the record model does not
// hand to parquet-go: the binding writes their pages itself, because
// parquet-go cannot express their layout (PR #592's VECTOR repetition) or
// writes it too slowly (one parquet.Value per element), and the record
// writer splices its chunks into parquet-go's file (page_write.go).
// VECTOR's binding, formats/parquet/vectorcol, is one.
//
// The split follows what each side knows. The binding owns its type: the
// grammar of its property, its other properties (layouts, encodings), its
// columns' Iceberg types, their values, their pages, their schema elements
// and their annotation. The format owns the file: where each chunk's bytes
// go, the offsets of parquet-go's chunks shifted past them, the merged
// schema, row groups and page index, the annotation rewrite and its
// key/value mirror. Neither imports the other's code; the binding
// registers with RegisterColumnBinding from its init, as every binding
// does, so a program without the binding's package does not write its
// columns: it refuses their property (unboundProperties).
//
// Bind is not called for a PageBinding's columns, nor their values checked
// with a ValueCheck: PlanPages declares the columns and PageWriter.Stage
// checks each value as it converts it.
type PageBinding interface {
	ColumnBinding
	// Properties are the writer properties the binding reads besides
	// Property: keys, or prefixes ending in "." of per-column keys. The
	// record model honours them when the binding is registered (its
	// PropertySet); the binding refuses a malformed one, naming the key.
	Properties() []string
	// PlanPages reads the binding's properties against the schema. It
	// returns the declared columns, in declaration order, each checked
	// before anything is written, and the footer codec options its
	// annotations need (footer.WithVectorID). Its errors name the
	// property and the column.
	PlanPages(p *PagePlanner) (PagePlan, error)
}

// A FixedListBinding is a ColumnBinding whose annotation on a top-level
// LIST can say that every present list of the column holds the same number
// of elements (VECTOR's list layout: vector_length). The reader then reads
// such a column as fixed[L] too, L the length times the element's width
// in the leaf's physical type (read_vector.go), as it reads PR #592's
// VECTOR repetition, which needs no binding: the repetition is the
// schema's, the annotation the binding's.
type FixedListBinding interface {
	ColumnBinding
	// FixedListLength is the length a's lists have; false when a fixes
	// none.
	FixedListLength(a footer.Annotation) (int, bool)
}

// PagePlan is a PageBinding's plan of one file.
type PagePlan struct {
	Columns []PageColumn
	// FooterOptions are passed to the footer codec when the annotated
	// footer is written (footer.RewriteFooter).
	FooterOptions []footer.Option
}

// PagePlanner is what a PageBinding plans its columns against: the schema,
// the writer properties, and the format's settings its layouts depend on.
type PagePlanner struct {
	Schema     *iceberg.Schema
	Properties map[string]string
	// MirrorOnly is write.parquet.footer-annotations=false: the
	// annotations go to the key/value mirror only, so a layout that
	// readers can only read with the annotation cannot be written.
	MirrorOnly bool
	declare    func(prop, name string) (int, iceberg.NestedField, error)
}

// Column finds the top-level column name that the binding's property prop
// declares, and reserves it: a column declared twice, by this property or
// another binding's, is an error naming both.
func (p *PagePlanner) Column(prop, name string) (iceberg.NestedField, error) {
	_, f, err := p.declare(prop, name)
	return f, err
}

// A PageColumn is one declared column of a PageBinding: a top-level
// column with one leaf (the merged footer places one chunk per row group
// for it).
type PageColumn interface {
	// Name is the top-level column's name.
	Name() string
	// Annotation is the footer annotation of the column's top-level
	// element (Path is the format's to fill).
	Annotation() footer.Annotation
	// NewWriter starts the column's chunks in a file written by the
	// record model: every page goes to w (the file itself or a buffer,
	// as the format decides), pages of about pageBytes, compressed as
	// props say (PageCodec).
	NewWriter(w io.Writer, props map[string]string, pageBytes int) (PageWriter, error)
}

// A PageWriter writes one column's chunks, a row group at a time.
type PageWriter interface {
	// Stage converts the column's value of the record being added (nil
	// for null) for Commit, or says why the record is refused, naming the
	// column. A refused record is not committed; the file stays writable.
	Stage(v any) error
	// Commit appends the staged value.
	Commit() error
	// RowBytes is what a row adds to the row group, uncompressed: its
	// share of write.parquet.row-group-size-bytes.
	RowBytes() int
	// Finish ends the row group's chunk, every page of it written to w;
	// the next row group's pages follow in w.
	Finish() (PageChunk, error)
	// SchemaElements are the column's elements in the file's schema, in
	// their order: a chain of groups down to one leaf.
	SchemaElements() []footer.SchemaElement
	// MetricsLeaf is, when the leaf written is not the one the column's
	// Iceberg type maps to (a fixed[L] column written as elements), that
	// one leaf: the metrics collector sees it in place of
	// SchemaElements, with a value per row and a null per null row. nil
	// when the written leaf is it.
	MetricsLeaf() []footer.SchemaElement
}

// A PageChunk is a finished column chunk of a PageWriter.
type PageChunk interface {
	// Rows and NullRows count the chunk's rows and its null ones.
	Rows() int64
	NullRows() int64
	// Size is the chunk's bytes, uncompressed and as written.
	Size() (uncompressed, compressed int64)
	// MetaData is its column metadata, its first page at file offset at.
	MetaData(at int64) *footer.ColumnMetaData
	// ColumnIndex is its encoded ColumnIndex, nil for none.
	ColumnIndex() ([]byte, error)
	// OffsetIndex is its encoded OffsetIndex, its first page at at.
	OffsetIndex(at int64) ([]byte, error)
}

// PageCodec is the codec a PageBinding compresses its pages with: the
// file's, as write.parquet.compression-codec and -level name it (shared
// with the rest of the file, codecs.go), at zstdLevel for zstd when no
// level is set.
func PageCodec(props map[string]string, zstdLevel int) (compress.Codec, error) {
	name := strings.ToLower(strings.TrimSpace(registry.Property(props, PropCompressionCodec, defaultCompression)))
	level := -1
	if v, ok := props[PropCompressionLevel]; ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an integer", PropCompressionLevel, v)
		}
		level = n
	}
	if name == "zstd" && level < 0 {
		level = zstdLevel
	}
	return sharedCodec(name, level)
}

// pageBindings are the registered bindings that write their own pages.
func pageBindings() []PageBinding {
	var out []PageBinding
	for _, b := range ColumnBindings() {
		if pb, ok := b.(PageBinding); ok {
			out = append(out, pb)
		}
	}
	return out
}

// unboundProperties are the writer properties of the lab's bindings that
// register from other packages, with that package. A program that sets one
// without importing the package is refused with a note saying so
// (withBindings), not told the key is no property, and never writes the
// column unannotated.
var unboundProperties = map[string]string{
	"write.parquet.file-columns":            "formats/parquet/filecol",
	"write.parquet.vector-columns":          "formats/parquet/vectorcol",
	"write.parquet.vector-logical-type-id":  "formats/parquet/vectorcol",
	"write.parquet.vector-layout.default":   "formats/parquet/vectorcol",
	"write.parquet.vector-layout.column.":   "formats/parquet/vectorcol",
	"write.parquet.vector-encoding.default": "formats/parquet/vectorcol",
	"write.parquet.vector-encoding.column.": "formats/parquet/vectorcol",
	"write.parquet.stats-enabled.column.":   "formats/parquet/vectorcol",
}

// UnboundPropertyNote is why a binding's property is refused when its
// package is not imported.
func UnboundPropertyNote(pkg string) string {
	return "no column binding is registered for it: import " + pkg
}
