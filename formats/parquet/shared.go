package parquet

import (
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/registry"
)

// What the Parquet models outside this package (formats/parquet/arrow)
// share with the record model: the property check that knows the column
// bindings, the annotation plan written into the footer on Close, and the
// default codec. They are the same code, not copies, so the models cannot
// disagree on what a property means.

// DefaultCompression is the codec every Parquet model writes with when
// write.parquet.compression-codec is not set: Iceberg's default, zstd.
const DefaultCompression = defaultCompression

// DefaultRowGroupBytes and DefaultPageBytes are Iceberg's defaults of
// write.parquet.row-group-size-bytes (128 MiB) and page-size-bytes (1 MiB).
const (
	DefaultRowGroupBytes = defaultRowGroupBytes
	DefaultPageBytes     = defaultPageBytes
)

// CheckProperties checks props against a model's PropertySet, which also
// knows the registered bindings' properties (binding.go).
func CheckProperties(set registry.PropertySet, props map[string]string) error {
	return withBindings(set).Check(props)
}

// AnnotationPlan is what a writer puts in the footer on Close: the columns
// of the registered bindings (PageBindings' too: VECTOR's, whose flba
// columns a model that writes FIXED_LEN_BYTE_ARRAY itself only annotates)
// that props declare on the schema, checked before anything is written.
type AnnotationPlan struct{ p *annotationPlan }

// PlanAnnotations reads the declaration properties against the schema;
// every mistake is an error naming the column and property.
func PlanAnnotations(schema *iceberg.Schema, props map[string]string) (*AnnotationPlan, error) {
	p, err := planAnnotations(schema, props)
	if err != nil {
		return nil, err
	}
	return &AnnotationPlan{p}, nil
}

// Empty reports whether nothing is declared.
func (a *AnnotationPlan) Empty() bool { return a.p.empty() }

// Bindings are the bindings with declared columns, in planning order.
func (a *AnnotationPlan) Bindings() []ColumnBinding {
	var out []ColumnBinding
	for _, bc := range a.p.bound {
		out = append(out, bc.binding)
	}
	return out
}

// Rewrite replaces the footer of the pending file with the annotated one;
// every byte before the footer is copied unchanged.
func (a *AnnotationPlan) Rewrite(pending *registry.PendingFile) error { return a.p.rewrite(pending) }
