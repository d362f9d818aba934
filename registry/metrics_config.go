package registry

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data"
)

// MetricsModeKind is how much of a column's statistics a DataFile keeps.
type MetricsModeKind int

const (
	MetricsNone MetricsModeKind = iota
	MetricsCounts
	MetricsTruncate
	MetricsFull
)

// MetricsMode is Iceberg's MetricsModes: none, counts, truncate(N), full.
type MetricsMode struct {
	Kind MetricsModeKind
	// Length is N for truncate(N).
	Length int
}

// DefaultMetricsMode is Iceberg's default, truncate(16).
var DefaultMetricsMode = MetricsMode{Kind: MetricsTruncate, Length: 16}

func (m MetricsMode) String() string {
	switch m.Kind {
	case MetricsNone:
		return "none"
	case MetricsCounts:
		return "counts"
	case MetricsFull:
		return "full"
	default:
		return fmt.Sprintf("truncate(%d)", m.Length)
	}
}

// ParseMetricsMode parses Iceberg's mode syntax, case-insensitively.
func ParseMetricsMode(s string) (MetricsMode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "none":
		return MetricsMode{Kind: MetricsNone}, nil
	case "counts":
		return MetricsMode{Kind: MetricsCounts}, nil
	case "full":
		return MetricsMode{Kind: MetricsFull}, nil
	}
	if inner, ok := strings.CutPrefix(t, "truncate("); ok {
		if n, ok := strings.CutSuffix(inner, ")"); ok {
			length, err := strconv.Atoi(n)
			if err == nil && length > 0 {
				return MetricsMode{Kind: MetricsTruncate, Length: length}, nil
			}
			return MetricsMode{}, fmt.Errorf("invalid metrics mode %q: truncate length must be a positive integer", s)
		}
	}
	return MetricsMode{}, fmt.Errorf("invalid metrics mode %q: want none, counts, truncate(N) or full", s)
}

// Table properties that configure metrics, as Iceberg names them
// (TableProperties.DEFAULT_WRITE_METRICS_MODE, METRICS_MODE_COLUMN_CONF_PREFIX
// and METRICS_MAX_INFERRED_COLUMN_DEFAULTS).
const (
	MetricsDefaultKey      = "write.metadata.metrics.default"
	MetricsColumnKeyPrefix = "write.metadata.metrics.column."
	MetricsMaxInferredKey  = "write.metadata.metrics.max-inferred-column-defaults"
	// DefaultMaxInferredColumns is METRICS_MAX_INFERRED_COLUMN_DEFAULTS_DEFAULT.
	DefaultMaxInferredColumns = 100
)

// MetricsConfig picks a mode per column, by the column's dotted name, as
// Iceberg's MetricsConfig does (core/src/main/java/org/apache/iceberg/MetricsConfig.java).
//
// A config built as a literal is taken as it is: its Default applies to
// every column not in Columns. DefaultMetricsConfig is Iceberg's built-in
// default instead, which a writer builder resolves against the schema as
// MetricsConfig.from(props, schema, sortOrder) does: beyond
// write.metadata.metrics.max-inferred-column-defaults columns the default
// becomes none (see resolveMetricsConfig).
type MetricsConfig struct {
	Default MetricsMode
	Columns map[string]MetricsMode
	// Warnings are the settings that were ignored while the config was
	// read: an invalid mode, a negative column limit. Iceberg's
	// MetricsConfig logs them (LOG.warn "Ignoring invalid metrics mode
	// ...") and carries on with the default; the lab has no logger, so it
	// keeps the messages for the caller to print (the writers' Warnings).
	Warnings []string

	// inferred is set while Default is Iceberg's built-in default and no
	// write.metadata.metrics.default has replaced it: only then does
	// MetricsConfig.from limit the columns that get it.
	inferred bool
	// maxInferred is the column limit for an inferred default.
	maxInferred int
	// fallback are columns whose configured mode was invalid: Iceberg gives
	// them the final default mode (parseMode's fallback), which the limit
	// may still change, and they keep the sort-order promotion off.
	fallback map[string]bool
}

// DefaultMetricsConfig is Iceberg's MetricsConfig.getDefault(): truncate(16)
// for every column. Resolved by a writer builder against a schema wider
// than write.metadata.metrics.max-inferred-column-defaults (default 100)
// columns, it keeps truncate(16) for the first ones and none for the rest,
// as MetricsConfig.from does.
func DefaultMetricsConfig() MetricsConfig {
	return MetricsConfig{Default: DefaultMetricsMode, inferred: true, maxInferred: DefaultMaxInferredColumns}
}

// PositionDeleteMetricsConfig is Iceberg's MetricsConfig.forPositionDelete():
// full metrics for file_path and pos, none for anything else (the deprecated
// row column). The writer then drops what Iceberg's PositionDeleteWriter
// drops (see PositionDeleteWriter.Close).
func PositionDeleteMetricsConfig() MetricsConfig {
	return MetricsConfig{
		Default: MetricsMode{Kind: MetricsNone},
		Columns: map[string]MetricsMode{
			data.DeleteFilePathName: {Kind: MetricsFull},
			data.DeleteFilePosName:  {Kind: MetricsFull},
		},
	}
}

// MetricsConfigFromProperties reads write.metadata.metrics.* properties
// without a schema, as Iceberg's MetricsConfig.fromProperties(props) does
// (from(props, null, null)): no column limit, no sort-order promotion. An
// invalid mode is ignored with a warning; only a
// max-inferred-column-defaults that is not an integer is an error, as
// PropertyUtil.propertyAsInt throws for it.
func MetricsConfigFromProperties(props map[string]string) (MetricsConfig, error) {
	return metricsFromPropertiesOver(DefaultMetricsConfig(), props)
}

// MetricsConfigFor is Iceberg's MetricsConfig.from(props, schema, order):
// the properties read over the built-in default, then resolved against the
// schema (column limit) and the sort order (promotion of sorted columns).
func MetricsConfigFor(props map[string]string, schema *iceberg.Schema, order *table.SortOrder) (MetricsConfig, error) {
	cfg, err := metricsFromPropertiesOver(DefaultMetricsConfig(), props)
	if err != nil {
		return cfg, err
	}
	return promoteSortColumns(cfg, schema, order), nil
}

// ColumnMode is the mode for a column's dotted name.
func (c MetricsConfig) ColumnMode(name string) MetricsMode {
	if m, ok := c.Columns[name]; ok {
		return m
	}
	return c.Default
}

func (c *MetricsConfig) warnf(format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
}

// metricsFromPropertiesOver reads the write.metadata.metrics.* properties
// over cfg, following MetricsConfig.from:
//   - write.metadata.metrics.default replaces the default; an invalid one is
//     ignored with a warning and the default becomes truncate(16)
//     (parseMode(configuredDefault, DEFAULT_MODE, "default")). Either way
//     the default counts as configured: the column limit no longer applies.
//   - write.metadata.metrics.column.<name> sets a column's mode; an invalid
//     one is ignored with a warning and the column gets the default mode
//     (parseMode(..., defaultMode, "column " + columnAlias)).
//   - write.metadata.metrics.max-inferred-column-defaults sets the column
//     limit; a negative one is ignored with a warning (the limit stays 100),
//     one that is not an integer is an error.
func metricsFromPropertiesOver(cfg MetricsConfig, props map[string]string) (MetricsConfig, error) {
	if len(props) == 0 {
		return cfg, nil
	}
	cfg.Columns = maps.Clone(cfg.Columns)
	cfg.Warnings = slices.Clone(cfg.Warnings)
	cfg.fallback = maps.Clone(cfg.fallback)
	if v, ok := props[MetricsMaxInferredKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cfg, fmt.Errorf("%s: %q is not an integer", MetricsMaxInferredKey, v)
		}
		if n < 0 {
			cfg.warnf("invalid value for %s (negative): %d, falling back to %d",
				MetricsMaxInferredKey, n, DefaultMaxInferredColumns)
			n = DefaultMaxInferredColumns
		}
		cfg.maxInferred = n
	}
	if v, ok := props[MetricsDefaultKey]; ok {
		m, err := ParseMetricsMode(v)
		if err != nil {
			cfg.warnf("ignoring invalid metrics mode (default): %s: %v; using %s", v, err, DefaultMetricsMode)
			m = DefaultMetricsMode
		}
		cfg.Default = m
		cfg.inferred = false
	}
	// Sorted, so that the warnings come in the same order on every run.
	for _, k := range slices.Sorted(maps.Keys(props)) {
		col, ok := strings.CutPrefix(k, MetricsColumnKeyPrefix)
		if !ok {
			continue
		}
		if cfg.Columns == nil {
			cfg.Columns = map[string]MetricsMode{}
		}
		m, err := ParseMetricsMode(props[k])
		if err != nil {
			cfg.warnf("ignoring invalid metrics mode (column %s): %s: %v; using the default mode", col, props[k], err)
			cfg.Columns[col] = cfg.Default
			if cfg.fallback == nil {
				cfg.fallback = map[string]bool{}
			}
			cfg.fallback[col] = true
			continue
		}
		cfg.Columns[col] = m
		delete(cfg.fallback, col)
	}
	return cfg, nil
}

// promoteSortColumns resolves cfg against the schema and sort order the
// writer was given: the second half of Iceberg's MetricsConfig.from. In
// Java's order:
//
//  1. Column limit. With the built-in default (no write.metadata.metrics.default),
//     a schema with more than max-inferred-column-defaults ids, counted as
//     TypeUtil.getProjectedIds counts them, keeps truncate(16) only for the
//     columns MetricsConfig.limitFieldIds picks, and the default becomes none.
//  2. Sort order. Columns of the sort order whose transform preserves order
//     (SortOrderUtil.orderPreservingSortedColumns: identity, truncate,
//     year, month, day, hour; not bucket or void) get
//     sortedColumnDefaultMode: truncate(16) when the default is none or
//     counts, else the default itself.
//  3. Explicit modes win: Java applies write.metadata.metrics.column.* after
//     both steps, so a column cfg already names (by property, by the
//     caller's Columns, or by an invalid mode that fell back to the
//     default) is neither limited nor promoted.
func promoteSortColumns(cfg MetricsConfig, schema *iceberg.Schema, order *table.SortOrder) MetricsConfig {
	explicit := cfg.Columns
	cols := maps.Clone(cfg.Columns)
	set := func(name string, m MetricsMode) {
		if _, ok := explicit[name]; ok {
			return
		}
		if cols == nil {
			cols = map[string]MetricsMode{}
		}
		cols[name] = m
	}
	if cfg.inferred && schema != nil {
		if len(projectedIDs(schema)) > cfg.maxInferred {
			for _, id := range limitFieldIDs(schema, cfg.maxInferred) {
				if name, ok := schema.FindColumnName(id); ok {
					set(name, DefaultMetricsMode)
				}
			}
			cfg.Default = MetricsMode{Kind: MetricsNone}
		}
		cfg.inferred = false
	}
	for col := range cfg.fallback {
		cols[col] = cfg.Default
	}
	cfg.fallback = nil
	if order != nil && schema != nil && !order.IsUnsorted() {
		mode := sortedColumnDefaultMode(cfg.Default)
		for _, f := range order.Fields() {
			if f.Transform == nil || !f.Transform.PreservesOrder() {
				continue
			}
			for _, id := range f.SourceIDs {
				if name, ok := schema.FindColumnName(id); ok {
					set(name, mode)
				}
			}
		}
	}
	cfg.Columns = cols
	return cfg
}

// sortedColumnDefaultMode is MetricsConfig.sortedColumnDefaultMode.
func sortedColumnDefaultMode(def MetricsMode) MetricsMode {
	if def.Kind == MetricsNone || def.Kind == MetricsCounts {
		return DefaultMetricsMode
	}
	return def
}

// projectedIDs are the ids TypeUtil.getProjectedIds(schema) returns, the
// count MetricsConfig.from compares with the limit: every struct,
// primitive and variant field of a struct, a list's element when it is a
// primitive or variant, a map's key and value when the value is one; the
// ids of list and map fields themselves are not counted.
func projectedIDs(schema *iceberg.Schema) map[int]bool {
	ids := map[int]bool{}
	st := schema.AsStruct()
	projectedIDsOf(&st, ids)
	return ids
}

// projectedIDsOf visits t as GetProjectedIds does and reports whether its
// result is non-null there: true for structs, lists and maps.
func projectedIDsOf(t iceberg.Type, ids map[int]bool) bool {
	switch t := t.(type) {
	case *iceberg.StructType:
		for _, f := range t.FieldList {
			projectedIDsOf(f.Type, ids)
			switch f.Type.(type) {
			case *iceberg.ListType, *iceberg.MapType:
			default:
				ids[f.ID] = true
			}
		}
		return true
	case *iceberg.ListType:
		if !projectedIDsOf(t.Element, ids) {
			ids[t.ElementID] = true
		}
		return true
	case *iceberg.MapType:
		projectedIDsOf(t.KeyType, ids)
		if !projectedIDsOf(t.ValueType, ids) {
			ids[t.KeyID] = true
			ids[t.ValueID] = true
		}
		return true
	}
	return false
}

// limitFieldIDs is MetricsConfig.limitFieldIds: up to limit ids of
// primitive and variant fields, breadth first per struct (a struct's own
// fields before anything nested in them), then a list's element, a map's
// key and value, each before what lies below it. The ids come in the order
// they were picked.
func limitFieldIDs(schema *iceberg.Schema, limit int) []int {
	var ids []int
	more := func() bool { return len(ids) < limit }
	var visit func(t iceberg.Type)
	visit = func(t iceberg.Type) {
		switch t := t.(type) {
		case *iceberg.StructType:
			for _, f := range t.FieldList {
				if !more() {
					break
				}
				if metricsEligible(f.Type) {
					ids = append(ids, f.ID)
				}
			}
			for _, f := range t.FieldList {
				if !more() {
					break
				}
				visit(f.Type)
			}
		case *iceberg.ListType:
			if more() && metricsEligible(t.Element) {
				ids = append(ids, t.ElementID)
			}
			visit(t.Element)
		case *iceberg.MapType:
			if more() && metricsEligible(t.KeyType) {
				ids = append(ids, t.KeyID)
			}
			if more() && metricsEligible(t.ValueType) {
				ids = append(ids, t.ValueID)
			}
			visit(t.KeyType)
			visit(t.ValueType)
		}
	}
	st := schema.AsStruct()
	visit(&st)
	return ids
}

// metricsEligible is limitFieldIds' metricsEligible: a primitive or a variant.
func metricsEligible(t iceberg.Type) bool {
	switch t.(type) {
	case *iceberg.StructType, *iceberg.ListType, *iceberg.MapType:
		return false
	}
	return true
}
