package parquet

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// Writer properties that declare extension annotations. parquet-go writes the
// columns in a layout every reader knows; on Close the writer rewrites the
// footer with the annotations (DESIGN.md, "New logical types"), so a caller
// only declares them.
const (
	// PropVectorColumns lists top-level fixed[L] columns as
	// COLUMN:vector<ELEMENT,DIM>, comma-separated (the legacy
	// COLUMN:ELEMENT:DIM is read too: types/vector ParseDeclarations), with
	// ELEMENT one of float32, float64, float16, int8 and L = DIM × the
	// element's width. They are annotated VECTOR, in the flat
	// FIXED_LEN_BYTE_ARRAY layout unless write.parquet.vector-layout.* says
	// otherwise (vector_layout.go, where list<float> columns are allowed too).
	PropVectorColumns = vector.PropColumns
	// PropVectorLogicalTypeID is the LogicalType union id VECTOR is written
	// under (default footer.DefaultVectorID); the lab moves it aside because
	// PR #592's 19 now belongs to FILE. Readers need no setting: parquet-go
	// reads the column by its physical type; FileAnnotations takes the id
	// as footer.WithVectorID.
	PropVectorLogicalTypeID = "write.parquet.vector-logical-type-id"
	// PropFooterAnnotations (default true) puts FILE and VECTOR in the
	// footer's LogicalType union. With false they are written to the
	// key/value mirror only (footer.MirrorKey), which the lab reads back the
	// same way, and the union keeps the types every reader knows: arrow-go,
	// and with it iceberg-go's scan, panics on a member it does not know, and
	// released parquet-java throws. The table package sets it from the table
	// property of the same name, off unless the table opts in.
	PropFooterAnnotations = "write.parquet.footer-annotations"
)

type vectorColumn struct {
	name    string
	element string // the mirror's element name, e.g. "FLOAT"
	dim     int32
	// What the record writer's page writer needs (vector_write.go); the
	// arrow model writes the flba layout only.
	pos       int // among the top-level fields
	field     iceberg.NestedField
	decl      vector.Declaration
	settings  vectorSettings
	listTyped bool // Iceberg type list<float|double>, not fixed[L]
}

// annotationPlan is what the writer annotates on Close and checks per record.
type annotationPlan struct {
	// bound are the columns of registered bindings (binding.go): FILE and
	// the types other packages plug in.
	bound    []boundColumn
	vectors  []vectorColumn
	vectorID int16
	// mirrorOnly leaves the annotations out of the LogicalType union
	// (PropFooterAnnotations=false).
	mirrorOnly bool
}

func (p *annotationPlan) empty() bool { return len(p.bound) == 0 && len(p.vectors) == 0 }

// planAnnotations reads the declaration properties against the schema. Every
// mistake is an error naming the column, before anything is written.
func planAnnotations(schema *iceberg.Schema, props map[string]string) (*annotationPlan, error) {
	p := &annotationPlan{vectorID: footer.DefaultVectorID}
	var err error
	if p.vectorID, err = vectorIDProperty(props); err != nil {
		return nil, err
	}
	if v, ok := props[PropFooterAnnotations]; ok && strings.TrimSpace(v) != "" {
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a boolean", PropFooterAnnotations, v)
		}
		p.mirrorOnly = !on
	}
	st := schema.AsStruct()
	top := func(prop, name string) (int, iceberg.NestedField, error) {
		i := slices.IndexFunc(st.FieldList, func(f iceberg.NestedField) bool { return f.Name == name })
		if i < 0 {
			return 0, iceberg.NestedField{}, fmt.Errorf("%s: column %q is not a top-level column of the schema", prop, name)
		}
		return i, st.FieldList[i], nil
	}
	declared := map[string]string{}
	declare := func(prop, name string) error {
		if other, dup := declared[name]; dup {
			return fmt.Errorf("%s: column %q is already declared in %s", prop, name, other)
		}
		declared[name] = prop
		return nil
	}
	for _, b := range ColumnBindings() {
		prop := b.Property()
		for _, name := range data.ParseColumnList(props[prop]) {
			i, f, err := top(prop, name)
			if err != nil {
				return nil, err
			}
			if err := declare(prop, name); err != nil {
				return nil, err
			}
			check, err := b.Bind(f)
			if err != nil {
				return nil, fmt.Errorf("%s: column %q (field id %d): %w", prop, name, f.ID, err)
			}
			p.bound = append(p.bound, boundColumn{name: name, pos: i, binding: b, check: check})
		}
	}
	decls, err := vector.ParseDeclarations(props[PropVectorColumns])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PropVectorColumns, err)
	}
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.Column
	}
	settings, err := planVectorSettings(props, names)
	if err != nil {
		return nil, err
	}
	for _, d := range decls {
		pos, f, err := top(PropVectorColumns, d.Column)
		if err != nil {
			return nil, err
		}
		if err := declare(PropVectorColumns, d.Column); err != nil {
			return nil, err
		}
		element, _ := d.Element.ParquetElement() // ParseDeclarations admits only elements that have one
		s := settings[d.Column]
		listTyped, err := checkVectorType(f, d, s)
		if err != nil {
			return nil, err
		}
		if err := checkVectorLayout(d, s, p.mirrorOnly); err != nil {
			return nil, err
		}
		p.vectors = append(p.vectors, vectorColumn{name: d.Column, element: element, dim: int32(d.Dim),
			pos: pos, field: f, decl: d, settings: s, listTyped: listTyped})
	}
	return p, nil
}

// checkVectorLayout refuses the layouts a declaration cannot take, naming
// the property that chose the layout.
func checkVectorLayout(d vector.Declaration, s vectorSettings, mirrorOnly bool) error {
	key := PropVectorLayoutColumn + d.Column
	switch {
	case s.layout == vectorcol.LayoutFixedSizeList && d.Element != vector.Float32 && d.Element != vector.Float64:
		return fmt.Errorf("%s: column %q: layout fixed-size-list holds float32 and float64 elements only (PR #241's FIXED_SIZE_LIST names the element by its physical type), not %s; write flba", key, d.Column, d.Element)
	case s.layout == vectorcol.LayoutVectorRepetition && mirrorOnly:
		return fmt.Errorf("%s: column %q: layout vector-repetition needs its VECTOR repetition in the footer, which %s=false keeps to the types every reader knows; a reader without it would misread the pages", key, d.Column, PropFooterAnnotations)
	}
	return nil
}

func vectorIDProperty(props map[string]string) (int16, error) {
	v, ok := props[PropVectorLogicalTypeID]
	if !ok || strings.TrimSpace(v) == "" {
		return footer.DefaultVectorID, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= int(footer.FileID) || n > math.MaxInt16 {
		return 0, fmt.Errorf("%s: %q must be an integer in %d..%d (1-19 are parquet-format's ids)", PropVectorLogicalTypeID, v, footer.FileID+1, math.MaxInt16)
	}
	return int16(n), nil
}

// check validates the bound columns' values of a record that shredded
// cleanly (so its fields match the schema by position), rejecting the
// record as any bad record is rejected (ValueCheck).
func (p *annotationPlan) check(rec *data.Record) error {
	for _, bc := range p.bound {
		x := rec.Get(bc.pos)
		if x == nil {
			continue
		}
		if err := bc.check(x); err != nil {
			return fmt.Errorf("column %q: %w", bc.name, err)
		}
	}
	return nil
}

// annotate is the footer edit: the bindings' kinds and VECTOR on the
// declared columns, mirrored in the key/value metadata by footer.Annotate.
func (p *annotationPlan) annotate(meta *footer.FileMetaData) error {
	for _, bc := range p.bound {
		if err := footer.Annotate(meta, []string{bc.name}, footer.Annotation{Kind: bc.binding.Kind()}); err != nil {
			return err
		}
	}
	for _, vc := range p.vectors {
		a := footer.Annotation{Kind: footer.KindVector, ID: p.vectorID, VectorLength: vc.dim, Element: vc.element}
		switch vc.settings.layout {
		case vectorcol.LayoutFixedSizeList:
			// PR #241: the element's physical type, FLOAT or DOUBLE.
			a = footer.Annotation{Kind: footer.KindFixedSizeList, VectorLength: vc.dim, Element: vc.element}
		case vectorcol.LayoutList:
			a = footer.Annotation{Kind: footer.KindVector, ID: p.vectorID, VectorLength: vc.dim}
		case vectorcol.LayoutVectorRepetition:
			a = footer.Annotation{Kind: footer.KindVector, ID: p.vectorID, VectorLength: vc.dim, VectorRepetition: true}
		}
		if err := footer.Annotate(meta, []string{vc.name}, a); err != nil {
			return err
		}
	}
	if p.mirrorOnly {
		// Annotate checked each annotation where it goes and wrote the
		// mirror; Sanitize takes them back out of the union, mirror kept.
		clean, err := footer.Sanitize(meta)
		if err != nil {
			return err
		}
		*meta = *clean
	}
	return nil
}

// rewrite replaces the footer parquet-go wrote in the pending file with the
// annotated one; every byte before the footer is copied unchanged.
func (p *annotationPlan) rewrite(pending *registry.PendingFile) error {
	return pending.Rewrite(func(src io.ReaderAt, size int64, dst io.Writer) error {
		return footer.RewriteFooter(src, size, dst, p.annotate, footer.WithVectorID(p.vectorID))
	})
}

// FileAnnotations returns the extension annotations of the Parquet file in:
// FILE, VECTOR and unknown logical types in its footer, merged with the
// key/value mirror (footer.ReadAnnotations). Callers find FILE columns with
// Kind == footer.KindFile; Path is the column path. Pass footer.WithVectorID
// for files whose VECTOR id is not the default.
func FileAnnotations(in registry.InputFile, opts ...footer.Option) ([]footer.Annotation, error) {
	src, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	// Annotations live in the schema and the key/value metadata: the row
	// groups are walked, not decoded.
	f, err := footer.ReadFooterRowGroups(src, size, footer.RowGroupWindow{}, opts...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", in.Location, err)
	}
	out, err := footer.ReadAnnotations(f.Meta)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", in.Location, err)
	}
	return out, nil
}
