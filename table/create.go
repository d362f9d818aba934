package table

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data/schemaspec"
	// FILE columns (PropFileColumns) are written through its binding.
	_ "github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
	"github.com/coltype-lab/lab/types/vector"
)

// Table properties the lab sets or reads.
const (
	// PropFormatVersion is Iceberg's format-version; the lab creates v3
	// tables, because VARIANT needs v3.
	PropFormatVersion = "format-version"
	// PropFooterAnnotations opts a table in to FILE and VECTOR logical types
	// in its data files' footers (formats/parquet PropFooterAnnotations).
	// Off by default: arrow-go, and with it iceberg-go's scan, panics on a
	// logical type it does not know, and released parquet-java throws, so a
	// single annotated file would make the table unreadable to them. The
	// types stay in the table properties below and in each file's key/value
	// mirror, from which the lab reads them.
	PropFooterAnnotations = "write.parquet.footer-annotations"
	// PropFileColumns and PropVectorColumns declare the lab's column types
	// on the table, as the writer properties of the same names declare
	// them on a file: the table's schema holds only the Iceberg storage
	// types (a struct, fixed[L]).
	PropFileColumns   = file.PropColumns
	PropVectorColumns = vector.PropColumns
)

// DefaultFormatVersion is the format-version of tables the lab creates.
const DefaultFormatVersion = 3

// CreateOptions are what Create needs besides the table's name.
type CreateOptions struct {
	// Spec is the schema with the lab's column types (schemaspec.Load).
	//
	// Each lab type maps to the Iceberg type an engine computes on:
	//   - VECTOR is fixed[dim × element width], little-endian elements, as
	//     the lab writes it to files: one value per row with no repetition
	//     levels, so Spark, Trino and DuckDB read it as binary and the lab's
	//     kernels read the pages in place. list<float> would let engines use
	//     array functions, but costs a repetition level per element and
	//     per-element metrics; the VECTOR declaration (a table property)
	//     keeps dim and element for readers that know it.
	//   - VARIANT is Iceberg v3 variant.
	//   - FILE is the struct the lab uses (uri, offset, size, content_type,
	//     checksum, inline), which engines read as a plain struct.
	Spec *schemaspec.Spec
	// Partition is the partition spec, e.g. "region, day(ts), bucket(16, id)"
	// (ParsePartitionSpec); empty is unpartitioned.
	Partition string
	// Properties are table properties; they may also declare FILE and
	// VECTOR columns (write.parquet.file-columns, write.parquet.vector-columns).
	Properties map[string]string
	// Location overrides the table's location (default: the catalog's).
	Location string
}

// Create creates a table, and its namespace when the catalog lacks it. The
// table is format-version 3 unless Properties say otherwise; columns of a
// type with TableMetrics (VECTOR: counts) default to that metrics mode
// (write.metadata.metrics.column.<col>).
func (c *Catalog) Create(ctx context.Context, ident itable.Identifier, o CreateOptions) (*Table, error) {
	name := identString(ident)
	if o.Spec == nil || o.Spec.Schema == nil {
		return nil, fmt.Errorf("create table %s: a schema is required", name)
	}
	spec := &schemaspec.Spec{Schema: o.Spec.Schema, Decls: slices.Clone(o.Spec.Decls)}
	if err := spec.Declare(o.Properties); err != nil {
		return nil, fmt.Errorf("create table %s: %w", name, err)
	}
	props := tableProperties(spec, o.Properties)
	version, err := strconv.Atoi(props[PropFormatVersion])
	if err != nil || version < 1 {
		return nil, fmt.Errorf("create table %s: %s=%q is not a format version", name, PropFormatVersion, props[PropFormatVersion])
	}
	if version < 3 {
		if col, ok := firstVariant(spec.Schema); ok {
			return nil, fmt.Errorf("create table %s: column %q is variant, which needs format-version 3 (the table would be format-version %d)", name, col, version)
		}
	}
	if v, ok := props[PropFooterAnnotations]; ok {
		if _, err := strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return nil, fmt.Errorf("create table %s: %s=%q is not a boolean", name, PropFooterAnnotations, v)
		}
	}
	if _, err := registry.MetricsConfigFromProperties(props); err != nil {
		return nil, fmt.Errorf("create table %s: %w", name, err)
	}
	pspec, err := ParsePartitionSpec(o.Partition, spec.Schema)
	if err != nil {
		return nil, fmt.Errorf("create table %s: --partition: %w", name, err)
	}
	if err := c.ensureNamespace(ctx, ident[:len(ident)-1]); err != nil {
		return nil, err
	}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(props), catalog.WithPartitionSpec(&pspec)}
	if o.Location != "" {
		opts = append(opts, catalog.WithLocation(o.Location))
	}
	t, err := c.cat.CreateTable(ctx, ident, spec.Schema, opts...)
	if err != nil {
		if errors.Is(err, catalog.ErrTableAlreadyExists) {
			return nil, fmt.Errorf("create table %s: it already exists in %s", name, c.desc)
		}
		return nil, fmt.Errorf("create table %s in %s: %w", name, c.desc, err)
	}
	return &Table{cat: c, tbl: t, ident: ident}, nil
}

// tableProperties layers the table's properties: format-version 3, the
// metrics modes the declared columns' types ask for (coltype.Type's
// TableMetrics: counts for VECTOR), then the caller's, then the
// declarations.
func tableProperties(spec *schemaspec.Spec, given map[string]string) iceberg.Properties {
	props := iceberg.Properties{PropFormatVersion: strconv.Itoa(DefaultFormatVersion)}
	for _, d := range spec.Decls {
		if m := d.Type().TableMetrics; m != "" {
			props[registry.MetricsColumnKeyPrefix+d.ColumnName()] = m
		}
	}
	maps.Copy(props, given)
	maps.Copy(props, spec.Properties())
	return props
}

func firstVariant(s *iceberg.Schema) (string, bool) {
	for _, f := range s.Fields() {
		if hasVariant(f.Type) {
			return f.Name, true
		}
	}
	return "", false
}

func hasVariant(t iceberg.Type) bool {
	switch t := t.(type) {
	case iceberg.VariantType, *iceberg.VariantType:
		return true
	case *iceberg.StructType:
		return slices.ContainsFunc(t.FieldList, func(f iceberg.NestedField) bool { return hasVariant(f.Type) })
	case *iceberg.ListType:
		return hasVariant(t.Element)
	case *iceberg.MapType:
		return hasVariant(t.KeyType) || hasVariant(t.ValueType)
	}
	return false
}

// PartitionSyntax describes ParsePartitionSpec's input, for help texts.
const PartitionSyntax = `spec   = field { "," field }
field  = column                      identity
       | identity(column)
       | bucket(N, column)           also Iceberg's bucket[N](column)
       | truncate(W, column)         also truncate[W](column)
       | year(column) | month(column) | day(column) | hour(column)
       | void(column)
Partition fields are named as Iceberg Java names them: column, column_bucket,
column_trunc, column_year, column_month, column_day, column_hour, column_null.`

// ParsePartitionSpec reads a partition spec (PartitionSyntax) over schema.
func ParsePartitionSpec(text string, schema *iceberg.Schema) (iceberg.PartitionSpec, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return *iceberg.UnpartitionedSpec, nil
	}
	fields, err := splitTopLevel(text)
	if err != nil {
		return iceberg.PartitionSpec{}, err
	}
	var opts []iceberg.PartitionOption
	for _, f := range fields {
		transform, column, err := parsePartitionField(f)
		if err != nil {
			return iceberg.PartitionSpec{}, err
		}
		src, ok := schema.FindFieldByName(column)
		if !ok {
			return iceberg.PartitionSpec{}, fmt.Errorf("%q: no column %q in the schema", f, column)
		}
		if !transform.CanTransform(src.Type) {
			return iceberg.PartitionSpec{}, fmt.Errorf("%q: %s cannot transform column %q of type %s", f, transform, column, src.Type)
		}
		opts = append(opts, iceberg.AddPartitionFieldByName(column, partitionFieldName(column, transform), transform, schema, nil))
	}
	spec, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return iceberg.PartitionSpec{}, err
	}
	return spec, nil
}

// splitTopLevel splits at commas outside parentheses and brackets.
func splitTopLevel(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("%q: unbalanced %q at offset %d", s, r, i)
			}
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%q: unclosed parenthesis", s)
	}
	out = append(out, strings.TrimSpace(s[start:]))
	for _, f := range out {
		if f == "" {
			return nil, fmt.Errorf("%q: empty partition field", s)
		}
	}
	return out, nil
}

func parsePartitionField(f string) (iceberg.Transform, string, error) {
	open := strings.IndexByte(f, '(')
	if open < 0 {
		return iceberg.IdentityTransform{}, f, nil
	}
	if !strings.HasSuffix(f, ")") {
		return nil, "", fmt.Errorf("%q: want transform(column)", f)
	}
	name := strings.ToLower(strings.TrimSpace(f[:open]))
	args := strings.Split(f[open+1:len(f)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	var ts string
	var column string
	switch {
	case (name == "bucket" || name == "truncate") && len(args) == 2:
		if _, err := strconv.Atoi(args[0]); err != nil {
			return nil, "", fmt.Errorf("%q: %s takes (N, column) with N a positive integer", f, name)
		}
		ts, column = name+"["+args[0]+"]", args[1]
	case strings.HasPrefix(name, "bucket[") || strings.HasPrefix(name, "truncate["):
		if len(args) != 1 {
			return nil, "", fmt.Errorf("%q: %s takes one column", f, name)
		}
		ts, column = name, args[0]
	case len(args) == 1:
		ts, column = name, args[0]
	default:
		return nil, "", fmt.Errorf("%q: want transform(column), bucket(N, column) or truncate(W, column)", f)
	}
	if column == "" {
		return nil, "", fmt.Errorf("%q: no column", f)
	}
	t, err := iceberg.ParseTransform(ts)
	if err != nil {
		return nil, "", fmt.Errorf("%q: %w", f, err)
	}
	if _, unknown := t.(iceberg.UnknownTransform); unknown {
		return nil, "", fmt.Errorf("%q: unknown transform %q (want identity, bucket, truncate, year, month, day, hour or void)", f, name)
	}
	return t, column, nil
}

// partitionFieldName is the name Iceberg Java's PartitionSpec.Builder gives.
func partitionFieldName(column string, t iceberg.Transform) string {
	switch t.(type) {
	case iceberg.IdentityTransform:
		return column
	case iceberg.BucketTransform:
		return column + "_bucket"
	case iceberg.TruncateTransform:
		return column + "_trunc"
	case iceberg.YearTransform:
		return column + "_year"
	case iceberg.MonthTransform:
		return column + "_month"
	case iceberg.DayTransform:
		return column + "_day"
	case iceberg.HourTransform:
		return column + "_hour"
	case iceberg.VoidTransform:
		return column + "_null"
	}
	return column + "_" + t.String()
}
