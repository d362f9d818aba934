package parquet

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// PropFooterAnnotations (default true) puts the bindings' annotations (FILE,
// VECTOR) in the footer's LogicalType union. With false they are written to
// the key/value mirror only (footer.MirrorKey), which the lab reads back the
// same way, and the union keeps the types every reader knows: arrow-go, and
// with it iceberg-go's scan, panics on a member it does not know, and
// released parquet-java throws. The table package sets it from the table
// property of the same name, off unless the table opts in. parquet-go writes
// the columns in a layout every reader knows; on Close the writer rewrites
// the footer with the annotations (DESIGN.md, "New logical types"), so a
// caller only declares them.
const PropFooterAnnotations = "write.parquet.footer-annotations"

// annotationPlan is what the writer annotates on Close and checks per record.
type annotationPlan struct {
	// bound are the columns of registered bindings (binding.go): FILE and
	// the types other packages plug in.
	bound []boundColumn
	// paged are the columns of bindings that write their own pages
	// (PageBinding: VECTOR), in the bindings' order, then declaration order.
	paged []pagedColumn
	// footerOptions configure the footer codec for the annotations
	// (PagePlan.FooterOptions).
	footerOptions []footer.Option
	// mirrorOnly leaves the annotations out of the LogicalType union
	// (PropFooterAnnotations=false).
	mirrorOnly bool
}

// pagedColumn is a declared column of a PageBinding.
type pagedColumn struct {
	PageColumn
	pos int // among the top-level fields
}

func (p *annotationPlan) empty() bool { return len(p.bound) == 0 && len(p.paged) == 0 }

// planAnnotations reads the declaration properties against the schema. Every
// mistake is an error naming the column, before anything is written.
func planAnnotations(schema *iceberg.Schema, props map[string]string) (*annotationPlan, error) {
	p := &annotationPlan{}
	if v, ok := props[PropFooterAnnotations]; ok && strings.TrimSpace(v) != "" {
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a boolean", PropFooterAnnotations, v)
		}
		p.mirrorOnly = !on
	}
	st := schema.AsStruct()
	declared := map[string]string{}
	// declare finds a top-level column a property declares and reserves it
	// for that property.
	declare := func(prop, name string) (int, iceberg.NestedField, error) {
		i := slices.IndexFunc(st.FieldList, func(f iceberg.NestedField) bool { return f.Name == name })
		if i < 0 {
			return 0, iceberg.NestedField{}, fmt.Errorf("%s: column %q is not a top-level column of the schema", prop, name)
		}
		if other, dup := declared[name]; dup {
			return 0, iceberg.NestedField{}, fmt.Errorf("%s: column %q is already declared in %s", prop, name, other)
		}
		declared[name] = prop
		return i, st.FieldList[i], nil
	}
	var paging []PageBinding
	for _, b := range ColumnBindings() {
		if pb, ok := b.(PageBinding); ok {
			paging = append(paging, pb)
			continue
		}
		prop := b.Property()
		for _, name := range data.ParseColumnList(props[prop]) {
			i, f, err := declare(prop, name)
			if err != nil {
				return nil, err
			}
			check, err := b.Bind(f)
			if err != nil {
				return nil, fmt.Errorf("%s: column %q (field id %d): %w", prop, name, f.ID, err)
			}
			p.bound = append(p.bound, boundColumn{name: name, pos: i, binding: b, check: check})
		}
	}
	// The bindings with their own pages come after, so that a column both
	// declare is refused by theirs, as it always was.
	for _, b := range paging {
		positions := map[string]int{}
		planner := &PagePlanner{Schema: schema, Properties: props, MirrorOnly: p.mirrorOnly,
			declare: func(prop, name string) (int, iceberg.NestedField, error) {
				i, f, err := declare(prop, name)
				positions[name] = i
				return i, f, err
			}}
		plan, err := b.PlanPages(planner)
		if err != nil {
			return nil, err
		}
		p.footerOptions = append(p.footerOptions, plan.FooterOptions...)
		for _, c := range plan.Columns {
			pos, ok := positions[c.Name()]
			if !ok {
				return nil, fmt.Errorf("%s: column %q was not declared with PagePlanner.Column", b.Property(), c.Name())
			}
			p.paged = append(p.paged, pagedColumn{PageColumn: c, pos: pos})
		}
	}
	return p, nil
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

// annotate is the footer edit: the bindings' annotations on the declared
// columns, mirrored in the key/value metadata by footer.Annotate.
func (p *annotationPlan) annotate(meta *footer.FileMetaData) error {
	for _, bc := range p.bound {
		if err := footer.Annotate(meta, []string{bc.name}, footer.Annotation{Kind: bc.binding.Kind()}); err != nil {
			return err
		}
	}
	for _, pc := range p.paged {
		if err := footer.Annotate(meta, []string{pc.Name()}, pc.Annotation()); err != nil {
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
		return footer.RewriteFooter(src, size, dst, p.annotate, p.footerOptions...)
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
