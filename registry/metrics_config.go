package registry

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
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

// Table properties that configure metrics, as Iceberg names them.
const (
	MetricsDefaultKey      = "write.metadata.metrics.default"
	MetricsColumnKeyPrefix = "write.metadata.metrics.column."
)

// MetricsConfig picks a mode per column, by the column's dotted name.
type MetricsConfig struct {
	Default MetricsMode
	Columns map[string]MetricsMode
}

// DefaultMetricsConfig is truncate(16) for every column.
func DefaultMetricsConfig() MetricsConfig { return MetricsConfig{Default: DefaultMetricsMode} }

// MetricsConfigFromProperties reads write.metadata.metrics.* properties.
func MetricsConfigFromProperties(props map[string]string) (MetricsConfig, error) {
	cfg := DefaultMetricsConfig()
	if v, ok := props[MetricsDefaultKey]; ok {
		m, err := ParseMetricsMode(v)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", MetricsDefaultKey, err)
		}
		cfg.Default = m
	}
	for k, v := range props {
		col, ok := strings.CutPrefix(k, MetricsColumnKeyPrefix)
		if !ok {
			continue
		}
		m, err := ParseMetricsMode(v)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", k, err)
		}
		if cfg.Columns == nil {
			cfg.Columns = map[string]MetricsMode{}
		}
		cfg.Columns[col] = m
	}
	return cfg, nil
}

// ColumnMode is the mode for a column's dotted name.
func (c MetricsConfig) ColumnMode(name string) MetricsMode {
	if m, ok := c.Columns[name]; ok {
		return m
	}
	return c.Default
}

// promoteSortColumns raises sort-order columns to at least truncate(16), as
// Iceberg's MetricsConfig does: bounds on sorted columns are what make
// file pruning work, so none or counts is not honoured for them.
func promoteSortColumns(cfg MetricsConfig, schema *iceberg.Schema, order *table.SortOrder) MetricsConfig {
	if order == nil || schema == nil || order.IsUnsorted() {
		return cfg
	}
	cols := maps.Clone(cfg.Columns)
	for _, f := range order.Fields() {
		for _, id := range f.SourceIDs {
			name, ok := schema.FindColumnName(id)
			if !ok {
				continue
			}
			if m := cfg.ColumnMode(name); m.Kind == MetricsNone || m.Kind == MetricsCounts {
				if cols == nil {
					cols = map[string]MetricsMode{}
				}
				cols[name] = DefaultMetricsMode
			}
		}
	}
	cfg.Columns = cols
	return cfg
}
