package parquet

import (
	"fmt"
	"slices"

	"github.com/coltype-lab/lab/formats/parquet/footer"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/registry"
)

// openedFile is a Parquet file whose footer has been checked.
type openedFile struct {
	location string
	src      registry.ReaderAtSeeker
	size     int64
	// footerEnd is where the footer starts: column chunks must end before it.
	footerEnd int64
	meta      *format.FileMetaData
	file      *pq.File
	// annotations are the extension annotations (FILE, VECTOR, unknown
	// ids) of the footer and its key/value mirror. parquet-go drops a
	// logical-type member it does not know and reads the column by its
	// physical layout, so the lab's codec is where they are seen.
	annotations []footer.Annotation
	// fieldIDs holds each schema element's field_id, or noID where the
	// footer has none; parquet-go's model cannot tell an id of 0 from none.
	fieldIDs []int
	// vectorLengths holds the vector_length of each VECTOR-repeated schema
	// element (PR #592), 0 elsewhere; parquet-go's model has no field 11.
	vectorLengths []int32
}

func (o *openedFile) Close() error { return o.src.Close() }

// openParquet opens in and checks everything parquet-go would trust before
// handing the file to it: the magic at both ends, a footer length inside the
// file, a footer whose thrift lists cannot declare more elements than it
// has bytes, and column chunks inside the data region. parquet-go would
// otherwise allocate whatever a corrupt footer declares, or panic.
func openParquet(in registry.InputFile) (*openedFile, error) {
	src, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	o := &openedFile{location: in.Location, src: src, size: size}
	if err := o.check(); err != nil {
		src.Close()
		return nil, err
	}
	if err := guard(in.Location, "open", func() error {
		f, err := pq.OpenFile(src, size, pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
		if err != nil {
			return fmt.Errorf("open %s: %w", in.Location, err)
		}
		o.file = f
		o.meta = f.Metadata()
		return checkFooter(in.Location, o.meta, o.footerEnd)
	}); err != nil {
		src.Close()
		return nil, err
	}
	return o, nil
}

func (o *openedFile) check() error {
	// The row groups are decoded strictly, which is the check, but not
	// kept: parquet-go decodes them again, and what the lab uses of them
	// comes from there.
	f, err := footer.ReadFooterRowGroups(o.src, o.size, footer.RowGroupWindow{Strict: true})
	if err != nil {
		return fmt.Errorf("read %s: %w", o.location, err)
	}
	o.footerEnd = f.Offset
	// The codec has checked that the schema is one tree; this is its walker.
	tree, err := footer.NewSchemaTree(f.Meta.Schema)
	if err != nil {
		return fmt.Errorf("read %s: %w", o.location, err)
	}
	o.fieldIDs = make([]int, len(f.Meta.Schema))
	o.vectorLengths = make([]int32, len(f.Meta.Schema))
	for i, el := range f.Meta.Schema {
		o.fieldIDs[i] = noID
		if el.FieldID.Valid && el.FieldID.V >= 0 {
			o.fieldIDs[i] = int(el.FieldID.V)
		}
		// parquet-go reads PR #592's VECTOR repetition (3) as if it were
		// REQUIRED, one row per element slot: only a VECTOR group the
		// lab's vector reading assembles (read_vector.go) is let through.
		if r := el.RepetitionType; r.Valid && r.V != footer.Required && r.V != footer.Optional && r.V != footer.Repeated {
			why := ""
			if r.V == footer.Vector {
				if why = vectorRepetitionShape(tree, f.Meta.Schema, i); why == "" {
					o.vectorLengths[i] = el.VectorLength.V
					continue
				}
				why = ": " + why
			}
			return fmt.Errorf("read %s: schema element %d (%q) has repetition %s, which this reader cannot read%s", o.location, i, el.Name, r.V, why)
		}
	}
	// A mirror this code cannot parse costs the annotations, not the read.
	o.annotations, _ = footer.ReadAnnotations(f.Meta)
	return nil
}

// vectorRepetitionShape says what keeps the VECTOR-repeated element i of
// schema s, whose tree is t, from being PR #592's middle group over a
// vector element the lab reads: a group of one element leaf, with a
// positive vector_length, the only child of a non-repeated group below the
// root. "" when nothing does.
func vectorRepetitionShape(t *footer.SchemaTree, s []footer.SchemaElement, i int) string {
	p := t.Parent(i)
	if p <= 0 || len(t.Children(p)) != 1 {
		return "it is not the only child of its group"
	}
	if r := s[p].RepetitionType; r.Valid && r.V != footer.Required && r.V != footer.Optional {
		return fmt.Sprintf("its parent %q is %s, not optional or required", s[p].Name, r.V)
	}
	kids := t.Children(i)
	if len(kids) != 1 || s[kids[0]].IsGroup() {
		return "it is not a group of one element leaf"
	}
	if !s[i].VectorLength.Valid || s[i].VectorLength.V <= 0 {
		return "it has no positive vector_length"
	}
	e := &s[kids[0]]
	if r := e.RepetitionType; r.Valid && r.V != footer.Required && r.V != footer.Optional {
		return fmt.Sprintf("its element is %s", r.V)
	}
	switch e.Type.V {
	case format.Float, format.Double, format.Int32:
	case format.FixedLenByteArray:
		if e.TypeLength.V == 2 {
			break
		}
		fallthrough
	default:
		return fmt.Sprintf("its element %q is %s, not a VECTOR element (FLOAT, DOUBLE, FLOAT16, INT(8))", e.Name, e.Type.V)
	}
	return ""
}

// boundGroups finds the schema nodes annotated with a registered binding's
// kind (binding.go), in the footer or only in its key/value mirror (left by
// a tool that dropped the annotation).
func (o *openedFile) boundGroups(root *fnode) map[*fnode]ColumnBinding {
	out := map[*fnode]ColumnBinding{}
	for _, a := range o.annotations {
		b := bindingOf(a.Kind)
		if b == nil {
			continue
		}
		n := root
		for _, name := range a.Path {
			i := slices.IndexFunc(n.children, func(c *fnode) bool { return c.name == name })
			if i < 0 {
				n = nil
				break
			}
			n = n.children[i]
		}
		if n != nil && n != root {
			out[n] = b
		}
	}
	return out
}

// checkFooter checks the footer fields that parquet-go uses as sizes and
// offsets: the schema tree and every column chunk's byte range.
func checkFooter(loc string, meta *format.FileMetaData, dataEnd int64) error {
	if len(meta.Schema) == 0 {
		return fmt.Errorf("read %s: corrupt footer: empty schema", loc)
	}
	// The lab's codec has checked these bytes already (check); the tree is
	// built again over parquet-go's decoding, which the reader walks.
	tree, err := footer.NewFormatSchemaTree(meta.Schema)
	if err != nil {
		return fmt.Errorf("read %s: corrupt footer: %w", loc, err)
	}
	// One column chunk per column: a group without children has none.
	leaves := 0
	for i := 1; i < len(meta.Schema); i++ {
		if tree.Leaf(i) {
			leaves++
		}
	}
	if meta.NumRows < 0 {
		return fmt.Errorf("read %s: corrupt footer: negative row count %d", loc, meta.NumRows)
	}
	for i := range meta.RowGroups {
		rg := &meta.RowGroups[i]
		if rg.NumRows < 0 {
			return fmt.Errorf("read %s: corrupt footer: row group %d has negative row count %d", loc, i, rg.NumRows)
		}
		if len(rg.Columns) != leaves {
			return fmt.Errorf("read %s: corrupt footer: row group %d has %d column chunks for %d columns", loc, i, len(rg.Columns), leaves)
		}
		for j := range rg.Columns {
			md := &rg.Columns[j].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset != 0 {
				start = md.DictionaryPageOffset
			}
			if start < 4 || md.DataPageOffset < 4 || md.TotalCompressedSize < 0 || md.NumValues < 0 ||
				start+md.TotalCompressedSize > dataEnd || md.DataPageOffset >= dataEnd {
				return fmt.Errorf("read %s: corrupt footer: column chunk %d of row group %d (%v) spans bytes [%d, %d) outside the data region [4, %d)",
					loc, j, i, md.PathInSchema, start, start+md.TotalCompressedSize, dataEnd)
			}
		}
	}
	return nil
}
