package parquet

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
)

// rowGroupFilter decides from column-chunk statistics whether a row group
// can hold a row matching a filter. It answers "might match" whenever the
// statistics cannot prove otherwise: skipping is an optimisation, the
// caller applies the filter to the rows again.
type rowGroupFilter struct {
	location string
	expr     iceberg.BooleanExpression
	columns  map[int]filterColumn // by field id: non-repeated primitive file columns
	orders   []format.ColumnOrder
	// variants are the top-level variant groups by field id, for
	// predicates on a variant path (iceberg.Extract); paths caches how
	// each path is shredded, warnings say which were not pushed down.
	variants map[int]*fnode
	paths    map[string]*extractPlan
	warnings []string
	// touched are the columns whose statistics the filter reads, with the
	// maximum definition level when it reads their definition-level
	// histogram (-1 otherwise): what page-level pruning needs the page
	// index of (keptRanges).
	touched map[int]int
}

// touch records that the filter reads column col's statistics.
func (f *rowGroupFilter) touch(col, maxDef int) {
	if f.touched == nil {
		f.touched = map[int]int{}
	}
	if old, ok := f.touched[col]; !ok || maxDef > old {
		f.touched[col] = maxDef
	}
}

// extractPlan is how a predicate on a variant path reads statistics: from
// the path's typed_value leaf, when the path is shredded to a type the
// predicate's type promotes from (nil stops otherwise).
type extractPlan struct {
	stops *pathStops
	col   filterColumn
}

type filterColumn struct {
	col  int
	info leafInfo
}

// newRowGroupFilter binds expr to the projection, or to the file's schema
// when the filter names columns the projection leaves out.
func newRowGroupFilter(location string, expr iceberg.BooleanExpression, projection, fileSch *iceberg.Schema, caseSensitive bool, root *fview, meta *format.FileMetaData, constants map[int]any) (*rowGroupFilter, error) {
	bound, err := iceberg.BindExpr(projection, expr, caseSensitive)
	if err != nil && fileSch != nil {
		if b2, err2 := iceberg.BindExpr(fileSch, expr, caseSensitive); err2 == nil {
			bound, err = b2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: filter %s: %w", location, expr, err)
	}
	if bound, err = iceberg.RewriteNotExpr(bound); err != nil {
		return nil, fmt.Errorf("read %s: filter %s: %w", location, expr, err)
	}
	f := &rowGroupFilter{location: location, expr: bound, columns: map[int]filterColumn{}, orders: meta.ColumnOrders,
		variants: map[int]*fnode{}, paths: map[string]*extractPlan{}}
	for _, c := range root.children {
		if c.shape == fVariant && c.id != noID {
			f.variants[c.id] = c.node
		}
	}
	var walk func(v *fview, repeated bool)
	walk = func(v *fview, repeated bool) {
		switch v.shape {
		case fPrimitive:
			if v.id != noID && !repeated && v.leaf.rep == 0 {
				// Unsigned columns keep unsigned statistics and INTERVAL has
				// no order: neither may prune.
				if info, err := leafType(v.leaf.elem); err == nil && !info.unsigned && !isInterval(v.leaf.elem) {
					f.columns[v.id] = filterColumn{col: v.leaf.col, info: info}
				}
			}
		case fStruct:
			for _, c := range v.children {
				walk(c, repeated)
			}
		case fList, fMap:
			for _, c := range v.children {
				walk(c, true)
			}
		}
	}
	walk(root, false)
	// Fields read as constants do not come from the file: its statistics
	// say nothing about the values the reader returns for them.
	for id := range constants {
		delete(f.columns, id)
	}
	return f, nil
}

func (f *rowGroupFilter) mightMatch(rg *format.RowGroup) (might bool, err error) {
	ev := &statsEvaluator{f: f, rg: rg}
	might, err = iceberg.VisitExpr(f.expr, iceberg.BooleanExprVisitor[bool](ev))
	if err != nil {
		return true, fmt.Errorf("read %s: evaluate filter on row group statistics: %w", f.location, err)
	}
	return might, nil
}

// chunkStats is what a column chunk's statistics prove.
type chunkStats struct {
	allNull    bool
	noNulls    bool
	min, max   any // in the bound term's Go representation; nil when unknown
	hasBounds  bool
	stringType bool
}

type statsEvaluator struct {
	f  *rowGroupFilter
	rg *format.RowGroup
}

func (e *statsEvaluator) stats(term iceberg.BoundTerm) *chunkStats {
	field := term.Ref().Field()
	if ext, ok := term.(iceberg.BoundExtract); ok {
		return e.extractStats(ext)
	}
	fc, ok := e.f.columns[field.ID]
	if !ok {
		return nil
	}
	return e.columnStats(fc, term)
}

// extractStats are the statistics of a variant path's typed_value leaf,
// or nil when they prove nothing about the path: the path is not shredded
// to a primitive, its shredded type is not one the predicate's type
// promotes from (the filter is then not pushed down, and the reader warns),
// or a residual value column in this row group may hold it
// (pathStops.residualEmpty): rows not shredded for the path are never
// pruned by the typed column's statistics.
func (e *statsEvaluator) extractStats(ext iceberg.BoundExtract) *chunkStats {
	id := ext.Ref().Field().ID
	key := fmt.Sprintf("%d %s %s", id, ext.Path(), ext.Type())
	plan, ok := e.f.paths[key]
	if !ok {
		plan = &extractPlan{}
		e.f.paths[key] = plan
		g := e.f.variants[id]
		steps, err := parseVariantPath(ext.Path())
		if g != nil && err == nil {
			if ps := shreddedStops(g, steps); ps != nil {
				info, err := leafType(ps.leaf.elem)
				switch {
				case err != nil || info.unsigned:
				case !data.Promotable(info.typ, ext.Type()):
					e.f.warnings = append(e.f.warnings, fmt.Sprintf("filter on %s at %s as %s: the path is shredded as %s, which does not promote to %s: not pushed down",
						ext.Ref().Field().Name, ext.Path(), ext.Type(), info.typ, ext.Type()))
				default:
					plan.stops, plan.col = ps, filterColumn{col: ps.leaf.col, info: info}
				}
			}
		}
	}
	if plan.stops == nil {
		return nil
	}
	e.f.touch(plan.stops.leaf.col, plan.stops.def)
	for _, p := range plan.stops.pairs {
		if p.valueCol >= 0 {
			e.f.touch(p.valueCol, -1)
		}
	}
	if !plan.stops.residualEmpty(e.rg) {
		return nil
	}
	return e.columnStats(plan.col, ext)
}

// columnStats are the statistics of the file column fc read as term.
func (e *statsEvaluator) columnStats(fc filterColumn, term iceberg.BoundTerm) *chunkStats {
	if fc.col >= len(e.rg.Columns) {
		return nil
	}
	e.f.touch(fc.col, -1)
	md := &e.rg.Columns[fc.col].MetaData
	st := &md.Statistics
	// Writers that keep statistics always write null_count with min/max;
	// a zero null_count without either may just be missing.
	nullsKnown := st.NullCount > 0 || st.MinValue != nil || st.MaxValue != nil
	out := &chunkStats{}
	if nullsKnown {
		out.noNulls = st.NullCount == 0
		out.allNull = st.NullCount >= md.NumValues
	}
	_, out.stringType = term.Type().(iceberg.StringType)
	if st.MinValue == nil || st.MaxValue == nil || !e.trustBounds(fc) || !data.Promotable(fc.info.typ, term.Type()) {
		return out
	}
	conv, err := readConverter(fc.info, term.Type())
	if err != nil {
		return out
	}
	lo, err1 := statValue(fc.info.physical, st.MinValue, conv)
	hi, err2 := statValue(fc.info.physical, st.MaxValue, conv)
	if err1 != nil || err2 != nil || isNaN(lo) || isNaN(hi) {
		return out
	}
	out.min, out.max, out.hasBounds = lo, hi, true
	return out
}

// trustBounds keeps min_value/max_value only where their order is the
// Iceberg order: type-defined column order, and not decimals stored as
// bytes (parquet-go orders those unsigned) or INT96 timestamps.
func (e *statsEvaluator) trustBounds(fc filterColumn) bool {
	if fc.col >= len(e.f.orders) {
		return false
	}
	if _, ok := e.f.orders[fc.col].Value.(*format.TypeDefinedOrder); !ok {
		return false
	}
	switch fc.info.physical {
	case format.Int96:
		return false
	case format.ByteArray, format.FixedLenByteArray:
		if _, ok := fc.info.typ.(iceberg.DecimalType); ok {
			return false
		}
	}
	return true
}

func statValue(phys format.Type, raw []byte, conv readConv) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("statistics value: %v", r)
		}
	}()
	return conv(pq.Kind(phys).Value(raw))
}

func isNaN(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return math.IsNaN(x)
	}
	return false
}

// compareValues orders two values of the same record type; ok is false when
// they cannot be compared.
func compareValues(a, b any) (int, bool) {
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	case int32:
		return cmpOrdered(x, b)
	case int64:
		return cmpOrdered(x, b)
	case float32:
		return cmpOrdered(x, b)
	case float64:
		return cmpOrdered(x, b)
	case iceberg.Date:
		return cmpOrdered(x, b)
	case iceberg.Time:
		return cmpOrdered(x, b)
	case iceberg.Timestamp:
		return cmpOrdered(x, b)
	case iceberg.TimestampNano:
		return cmpOrdered(x, b)
	case string:
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	case []byte:
		y, ok := b.([]byte)
		return bytes.Compare(x, y), ok
	case uuid.UUID:
		y, ok := b.(uuid.UUID)
		return bytes.Compare(x[:], y[:]), ok
	case iceberg.Decimal:
		y, ok := b.(iceberg.Decimal)
		if !ok || x.Scale != y.Scale {
			return 0, false
		}
		return x.Val.Cmp(y.Val), true
	}
	return 0, false
}

func cmpOrdered[T cmp.Ordered](x T, b any) (int, bool) {
	y, ok := b.(T)
	if !ok {
		return 0, false
	}
	return cmp.Compare(x, y), true
}

// literalValue is the literal's Go value, or ok=false for literals outside
// the type's range and NaN, which bounds cannot rule out.
func literalValue(lit iceberg.Literal) (any, bool) {
	switch lit.(type) {
	case iceberg.AboveMaxLiteral, iceberg.BelowMinLiteral:
		return nil, false
	}
	v := lit.Any()
	if isNaN(v) {
		return nil, false
	}
	return v, true
}

func (e *statsEvaluator) VisitTrue() bool                { return true }
func (e *statsEvaluator) VisitFalse() bool               { return false }
func (e *statsEvaluator) VisitNot(bool) bool             { return true } // not rewritten away: stay safe
func (e *statsEvaluator) VisitAnd(left, right bool) bool { return left && right }
func (e *statsEvaluator) VisitOr(left, right bool) bool  { return left || right }
func (e *statsEvaluator) VisitUnbound(iceberg.UnboundPredicate) bool {
	return true
}

func (e *statsEvaluator) VisitBound(pred iceberg.BoundPredicate) bool {
	return iceberg.VisitBoundPredicate(pred, iceberg.BoundBooleanExprVisitor[bool](e))
}

func (e *statsEvaluator) VisitIsNull(t iceberg.BoundTerm) bool {
	s := e.stats(t)
	return s == nil || !s.noNulls
}

func (e *statsEvaluator) VisitNotNull(t iceberg.BoundTerm) bool {
	s := e.stats(t)
	return s == nil || !s.allNull
}

// NaN never enters parquet-go's bounds, so bounds prove nothing about it;
// only an all-null chunk has no NaN.
func (e *statsEvaluator) VisitIsNan(t iceberg.BoundTerm) bool {
	s := e.stats(t)
	return s == nil || !s.allNull
}

func (e *statsEvaluator) VisitNotNan(iceberg.BoundTerm) bool { return true }

// bounded runs test against the chunk's bounds and the literal; any
// missing piece means "might match".
func (e *statsEvaluator) bounded(t iceberg.BoundTerm, lit iceberg.Literal, test func(min, max, v any) bool) bool {
	s := e.stats(t)
	if s == nil {
		return true
	}
	if s.allNull {
		return false // comparisons never match null
	}
	v, ok := literalValue(lit)
	if !ok || !s.hasBounds {
		return true
	}
	return test(s.min, s.max, v)
}

// below reports a < b, or false when they cannot be compared.
func below(a, b any) bool {
	c, ok := compareValues(a, b)
	return ok && c < 0
}

func (e *statsEvaluator) VisitLess(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	return e.bounded(t, lit, func(min, _, v any) bool { return below(min, v) || !orderable(min, v) })
}

func (e *statsEvaluator) VisitLessEqual(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	return e.bounded(t, lit, func(min, _, v any) bool { return !below(v, min) })
}

func (e *statsEvaluator) VisitGreater(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	return e.bounded(t, lit, func(_, max, v any) bool { return below(v, max) || !orderable(max, v) })
}

func (e *statsEvaluator) VisitGreaterEqual(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	return e.bounded(t, lit, func(_, max, v any) bool { return !below(max, v) })
}

func (e *statsEvaluator) VisitEqual(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	return e.bounded(t, lit, func(min, max, v any) bool { return !below(v, min) && !below(max, v) })
}

func (e *statsEvaluator) VisitNotEqual(iceberg.BoundTerm, iceberg.Literal) bool { return true }

func (e *statsEvaluator) VisitIn(t iceberg.BoundTerm, lits iceberg.Set[iceberg.Literal]) bool {
	members := lits.Members()
	if len(members) == 0 {
		return false
	}
	for _, lit := range members {
		if e.VisitEqual(t, lit) {
			return true
		}
	}
	return false
}

func (e *statsEvaluator) VisitNotIn(iceberg.BoundTerm, iceberg.Set[iceberg.Literal]) bool {
	return true
}

func (e *statsEvaluator) VisitStartsWith(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	s := e.stats(t)
	if s == nil {
		return true
	}
	if s.allNull {
		return false
	}
	prefix, ok := lit.Any().(string)
	if !ok || !s.hasBounds || !s.stringType {
		return true
	}
	lo, ok1 := s.min.(string)
	hi, ok2 := s.max.(string)
	if !ok1 || !ok2 {
		return true
	}
	// Every value lies in [lo, hi]; those starting with prefix lie in
	// [prefix, prefix+∞), so compare the bounds cut to the prefix length.
	if len(lo) > len(prefix) {
		lo = lo[:len(prefix)]
	}
	if len(hi) > len(prefix) {
		hi = hi[:len(prefix)]
	}
	return lo <= prefix && prefix <= hi
}

func (e *statsEvaluator) VisitNotStartsWith(iceberg.BoundTerm, iceberg.Literal) bool { return true }

func orderable(a, b any) bool {
	_, ok := compareValues(a, b)
	return ok
}

func isInterval(e *format.SchemaElement) bool {
	return e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Interval
}
