package variant

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// AnalyzerConfig holds every constant of the analyzer. The defaults are
// Iceberg's (VariantShreddingAnalyzer in apache/iceberg parquet/).
type AnalyzerConfig struct {
	BufferRows        int     // rows buffered before the layout is inferred (100)
	MinFieldFrequency float64 // fields in fewer root rows than this share are pruned (0.10)
	MaxShreddedFields int     // fields kept per object, most frequent first (300)
	MaxDepth          int     // nesting levels traversed below the root (50)
	MaxTrackedFields  int     // distinct names tracked per object node (1000)
}

// DefaultAnalyzerConfig returns Iceberg's constants.
func DefaultAnalyzerConfig() AnalyzerConfig {
	return AnalyzerConfig{BufferRows: 100, MinFieldFrequency: 0.10, MaxShreddedFields: 300, MaxDepth: 50, MaxTrackedFields: 1000}
}

// Analyzer buffers rows and infers a shredding layout from them.
type Analyzer struct {
	cfg  AnalyzerConfig
	rows []variant.Value
}

// NewAnalyzer returns an analyzer with cfg.
func NewAnalyzer(cfg AnalyzerConfig) *Analyzer { return &Analyzer{cfg: cfg} }

// Add buffers one row (a nil *variant.Value is a SQL NULL row, which only
// counts towards Report.Rows) and reports whether the buffer is full.
func (a *Analyzer) Add(v *variant.Value) bool {
	if len(a.rows) < a.cfg.BufferRows {
		if v == nil {
			a.rows = append(a.rows, variant.Value{})
		} else {
			a.rows = append(a.rows, *v)
		}
	}
	return len(a.rows) >= a.cfg.BufferRows
}

// Layout infers the layout of the buffered rows.
func (a *Analyzer) Layout() (*Layout, *Report) { return Analyze(a.rows, a.cfg) }

// Report explains an analysis, one entry per tracked path.
type Report struct {
	Rows    int // rows analyzed
	NonNull int // rows whose value is not (SQL or Variant) null: the frequency denominator
	Paths   []PathReport
}

// PathReport describes one path of the path tree.
type PathReport struct {
	Path      string         // $ for the root, .name for fields, [] for elements
	Rows      int            // root rows in which the path holds a non-null value
	Frequency float64        // Rows / Report.NonNull
	Types     map[string]int // non-null observations per variant type
	Admitted  string         // the admitted typed_value, "" if none
	Reason    string         // why nothing was admitted, or why the path was dropped
	Untracked int            // distinct names ignored after MaxTrackedFields (objects)
}

func (r *Report) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "rows=%d non-null=%d\n", r.Rows, r.NonNull)
	for _, p := range r.Paths {
		fmt.Fprintf(&sb, "%-30s rows=%d freq=%.2f types=%v admitted=%q reason=%q\n", p.Path, p.Rows, p.Frequency, p.Types, p.Admitted, p.Reason)
	}
	return sb.String()
}

type pathNode struct {
	rows, lastRow int
	types         map[variant.Type]int
	maxScale      int
	maxIntDigits  int
	children      map[string]*pathNode
	element       *pathNode
	untracked     map[string]bool
	pruned        string
}

func newPathNode() *pathNode { return &pathNode{lastRow: -1, types: map[variant.Type]int{}} }

// Analyze infers a layout from (at most cfg.BufferRows of) values with the
// type-uniformity rule: a node gets a typed_value only when all of its
// non-null observations are of one family (integers widen int8 < int16 <
// int32 < int64, decimals widen by precision, true/false are boolean);
// anything mixed stays in the residual value. It returns a nil layout when
// the root itself is not shreddable.
func Analyze(values []variant.Value, cfg AnalyzerConfig) (*Layout, *Report) {
	if cfg.BufferRows > 0 && len(values) > cfg.BufferRows {
		values = values[:cfg.BufferRows]
	}
	root := newPathNode()
	rep := &Report{Rows: len(values)}
	for i, v := range values {
		if v.Bytes() == nil || v.Type() == variant.Null {
			continue
		}
		rep.NonNull++
		observe(root, v, 0, i, cfg)
	}
	reports := map[string]*PathReport{}
	prune(root, "$", rep.NonNull, cfg, reports)
	layout := build(root, "$", rep.NonNull, cfg, reports)
	for _, p := range reports {
		rep.Paths = append(rep.Paths, *p)
	}
	sort.Slice(rep.Paths, func(i, j int) bool { return rep.Paths[i].Path < rep.Paths[j].Path })
	if layout == nil || layout.Kind == Unshredded {
		return nil, rep
	}
	return layout, rep
}

func observe(n *pathNode, v variant.Value, depth, row int, cfg AnalyzerConfig) {
	t := v.Type()
	if t == variant.Null {
		return
	}
	n.types[t]++
	if n.lastRow != row {
		// Counted per root row, not per observation: a field inside a long
		// array in one row must not look frequent (see spec/VARIANT.md).
		n.rows++
		n.lastRow = row
	}
	if u, scale, ok := decimalParts(v); ok {
		n.maxScale = max(n.maxScale, scale)
		n.maxIntDigits = max(n.maxIntDigits, decimalDigits(u)-scale)
	}
	if depth >= cfg.MaxDepth {
		return
	}
	switch t {
	case variant.Object:
		if n.children == nil {
			n.children = map[string]*pathNode{}
		}
		for name, fv := range v.Value().(variant.ObjectValue).Values() {
			c := n.children[name]
			if c == nil {
				if len(n.children) >= cfg.MaxTrackedFields {
					if n.untracked == nil {
						n.untracked = map[string]bool{}
					}
					n.untracked[name] = true
					continue
				}
				c = newPathNode()
				n.children[name] = c
			}
			observe(c, fv, depth+1, row, cfg)
		}
	case variant.Array:
		if n.element == nil {
			n.element = newPathNode()
		}
		for e := range v.Value().(variant.ArrayValue).Values() {
			observe(n.element, e, depth+1, row, cfg)
		}
	}
}

func report(reports map[string]*PathReport, path string, n *pathNode, total int) *PathReport {
	r := reports[path]
	if r == nil {
		r = &PathReport{Path: path, Rows: n.rows, Types: map[string]int{}, Untracked: len(n.untracked)}
		if total > 0 {
			r.Frequency = float64(n.rows) / float64(total)
		}
		for t, c := range n.types {
			r.Types[typeName(t)] += c
		}
		reports[path] = r
	}
	return r
}

func sortedNames(m map[string]*pathNode) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// prune drops rare fields and caps the field count, as Iceberg does, with
// the root's non-null row count as denominator at every depth.
func prune(n *pathNode, path string, total int, cfg AnalyzerConfig, reports map[string]*PathReport) {
	for _, name := range sortedNames(n.children) {
		c := n.children[name]
		if total > 0 && float64(c.rows)/float64(total) < cfg.MinFieldFrequency {
			r := report(reports, path+"."+name, c, total)
			r.Reason = fmt.Sprintf("pruned: in %d of %d rows, below %.0f%%", c.rows, total, cfg.MinFieldFrequency*100)
			delete(n.children, name)
		}
	}
	if len(n.children) > cfg.MaxShreddedFields {
		names := sortedNames(n.children)
		sort.SliceStable(names, func(i, j int) bool { return n.children[names[i]].rows > n.children[names[j]].rows })
		for _, name := range names[cfg.MaxShreddedFields:] {
			r := report(reports, path+"."+name, n.children[name], total)
			r.Reason = fmt.Sprintf("dropped: more than %d fields in the object", cfg.MaxShreddedFields)
			delete(n.children, name)
		}
	}
	for _, name := range sortedNames(n.children) {
		prune(n.children[name], path+"."+name, total, cfg, reports)
	}
	if n.element != nil {
		prune(n.element, path+"[]", total, cfg, reports)
	}
}

// uniformType returns the single admitted type family of a node, widened.
func uniformType(n *pathNode) (variant.Type, string) {
	if len(n.types) == 0 {
		return 0, "no non-null values"
	}
	families := map[string]variant.Type{}
	for t := range n.types {
		switch {
		case isInteger(t):
			if cur, ok := families["int"]; !ok || t > cur {
				families["int"] = t // Int8 < Int16 < Int32 < Int64 in arrow-go's enum
			}
		case isDecimal(t):
			families["decimal"] = variant.Decimal4 // width chosen from precision below
		default:
			families[typeName(t)] = t
		}
	}
	if len(families) > 1 {
		names := make([]string, 0, len(n.types))
		for t := range n.types {
			names = append(names, typeName(t))
		}
		slices.Sort(names)
		return 0, "mixed types: " + strings.Join(names, ", ")
	}
	for _, t := range families {
		return t, ""
	}
	panic("unreachable")
}

func build(n *pathNode, path string, total int, cfg AnalyzerConfig, reports map[string]*PathReport) *Layout {
	r := report(reports, path, n, total)
	t, why := uniformType(n)
	if why != "" {
		r.Reason = why
		return nil
	}
	var l *Layout
	switch t {
	case variant.Object:
		l = &Layout{Kind: Object}
		for _, name := range sortedNames(n.children) {
			if fl := build(n.children[name], path+"."+name, total, cfg, reports); fl != nil {
				l.Fields = append(l.Fields, Field{Name: name, Layout: fl})
			}
		}
		if len(l.Fields) == 0 {
			r.Reason = "object without shreddable fields"
			if n.children == nil {
				r.Reason = fmt.Sprintf("object at depth limit %d", cfg.MaxDepth)
			}
			return nil
		}
	case variant.Array:
		if n.element == nil {
			r.Reason = fmt.Sprintf("array at depth limit %d", cfg.MaxDepth)
			return nil
		}
		el := build(n.element, path+"[]", total, cfg, reports)
		if el == nil {
			r.Reason = "array elements not shreddable"
			return nil
		}
		l = &Layout{Kind: Array, Element: el}
	default:
		l = &Layout{Kind: Primitive, Type: t}
		if isDecimal(t) {
			// Iceberg: precision = integer digits + scale, capped at 38,
			// scale reduced if needed to keep the integer digits.
			l.Precision = min(n.maxIntDigits+n.maxScale, 38)
			l.Scale = min(n.maxScale, max(0, 38-n.maxIntDigits))
			switch {
			case l.Precision <= 9:
				l.Type = variant.Decimal4
			case l.Precision <= 18:
				l.Type = variant.Decimal8
			default:
				l.Type = variant.Decimal16
			}
		}
	}
	r.Admitted = l.String()
	return l
}
