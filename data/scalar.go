package data

import "math"

// Typed setters store a primitive without boxing it into an interface.
// Boxing is what a []any row costs: a string or an int64 outside the
// runtime's small-integer cache is a heap allocation, and on a 1M-row
// write of (long, string) the two allocations per row and the garbage
// collection behind them took about a third of the write, more than the
// registry and the record together. A writer reads the stored value with
// the matching typed getter, so it never exists as an interface; Get and
// Values box it on demand, so the record means the same either way.

// scalarKind says which typed setter stored a position's value.
type scalarKind uint8

const (
	inValues scalarKind = iota // the value is in Record.values
	scalarBool
	scalarInt32
	scalarInt64
	scalarFloat32
	scalarFloat64
	scalarString
)

// scalar is one unboxed value: bits for the fixed-width kinds, str for a
// string.
type scalar struct {
	kind scalarKind
	bits uint64
	str  string
}

// box returns the value as Set would have stored it.
func (s *scalar) box() any {
	switch s.kind {
	case scalarBool:
		return s.bits != 0
	case scalarInt32:
		return int32(s.bits)
	case scalarInt64:
		return int64(s.bits)
	case scalarFloat32:
		return math.Float32frombits(uint32(s.bits))
	case scalarFloat64:
		return math.Float64frombits(s.bits)
	case scalarString:
		return s.str
	}
	return nil
}

// setScalar stores s at pos and drops the boxed value there.
func (r *Record) setScalar(pos int, s scalar) {
	if r.scalars == nil {
		r.scalars = make([]scalar, len(r.values))
	}
	r.scalars[pos] = s
	r.values[pos] = nil
}

// scalarAt is the unboxed value at pos, or nil when the value is in values.
func (r *Record) scalarAt(pos int) *scalar {
	if r.scalars == nil {
		return nil
	}
	if s := &r.scalars[pos]; s.kind != inValues {
		return s
	}
	return nil
}

// SetBool sets a boolean field without boxing it; as Set(pos, v).
func (r *Record) SetBool(pos int, v bool) {
	var bits uint64
	if v {
		bits = 1
	}
	r.setScalar(pos, scalar{kind: scalarBool, bits: bits})
}

// SetInt32 sets an int field without boxing it; as Set(pos, v).
func (r *Record) SetInt32(pos int, v int32) {
	r.setScalar(pos, scalar{kind: scalarInt32, bits: uint64(uint32(v))})
}

// SetInt64 sets a long field without boxing it; as Set(pos, v).
func (r *Record) SetInt64(pos int, v int64) {
	r.setScalar(pos, scalar{kind: scalarInt64, bits: uint64(v)})
}

// SetFloat32 sets a float field without boxing it; as Set(pos, v).
func (r *Record) SetFloat32(pos int, v float32) {
	r.setScalar(pos, scalar{kind: scalarFloat32, bits: uint64(math.Float32bits(v))})
}

// SetFloat64 sets a double field without boxing it; as Set(pos, v).
func (r *Record) SetFloat64(pos int, v float64) {
	r.setScalar(pos, scalar{kind: scalarFloat64, bits: math.Float64bits(v)})
}

// SetString sets a string field without boxing it; as Set(pos, v).
func (r *Record) SetString(pos int, v string) {
	r.setScalar(pos, scalar{kind: scalarString, str: v})
}

// GetBool returns the value at pos when it is a bool, however it was set;
// ok is false for null or a value of another type.
func (r *Record) GetBool(pos int) (v bool, ok bool) {
	if s := r.scalarAt(pos); s != nil {
		return s.bits != 0, s.kind == scalarBool
	}
	v, ok = r.values[pos].(bool)
	return
}

// GetInt32 returns the value at pos when it is an int32, however it was set.
func (r *Record) GetInt32(pos int) (v int32, ok bool) {
	if s := r.scalarAt(pos); s != nil {
		return int32(s.bits), s.kind == scalarInt32
	}
	v, ok = r.values[pos].(int32)
	return
}

// GetInt64 returns the value at pos when it is an int64, however it was set.
func (r *Record) GetInt64(pos int) (v int64, ok bool) {
	if s := r.scalarAt(pos); s != nil {
		return int64(s.bits), s.kind == scalarInt64
	}
	v, ok = r.values[pos].(int64)
	return
}

// GetFloat32 returns the value at pos when it is a float32, however it was set.
func (r *Record) GetFloat32(pos int) (v float32, ok bool) {
	if s := r.scalarAt(pos); s != nil {
		return math.Float32frombits(uint32(s.bits)), s.kind == scalarFloat32
	}
	v, ok = r.values[pos].(float32)
	return
}

// GetFloat64 returns the value at pos when it is a float64, however it was set.
func (r *Record) GetFloat64(pos int) (v float64, ok bool) {
	if s := r.scalarAt(pos); s != nil {
		return math.Float64frombits(s.bits), s.kind == scalarFloat64
	}
	v, ok = r.values[pos].(float64)
	return
}

// GetString returns the value at pos when it is a string, however it was set.
func (r *Record) GetString(pos int) (v string, ok bool) {
	if s := r.scalarAt(pos); s != nil {
		return s.str, s.kind == scalarString
	}
	v, ok = r.values[pos].(string)
	return
}
