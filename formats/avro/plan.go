package avro

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	hamba "github.com/hamba/avro/v2"

	"github.com/coltype-lab/lab/data"
)

// readFn decodes one value of a file node into the Go value of its
// expected Iceberg type. reuse is the value the same slot held in the row
// returned last, non-nil only when the reader reuses containers.
type readFn func(d *decoder, reuse any) (any, error)

// planner builds the read plan of an expected Iceberg type against a file
// node, resolving fields by id as Iceberg's Avro read path does.
type planner struct {
	constants map[int]any
}

// structReader reads a record of the file into a *data.Record of the
// expected struct: file fields in file order (read or skipped), then the
// expected fields the file lacks (constants, defaults, nulls).
type structReader struct {
	template *data.Record
	steps    []readStep
	fills    []fillStep
}

type readStep struct {
	pos  int // -1: skip
	read readFn
	node *fnode
	name string
	id   int
}

type fillStep struct {
	pos    int
	value  any
	rowPos bool
}

func (p *planner) structReader(exp *iceberg.StructType, n *fnode, path string) (*structReader, error) {
	if n.kind != hamba.Record || n.recursive != nil {
		return nil, fmt.Errorf("%scannot read Avro %s as an Iceberg struct", path, n.describe())
	}
	sr := &structReader{template: data.NewStructRecord(exp)}
	byID := make(map[int]int, len(exp.FieldList))
	for i, f := range exp.FieldList {
		byID[f.ID] = i
	}
	found := make([]bool, len(exp.FieldList))
	for _, ff := range n.fields {
		step := readStep{pos: -1, node: ff.node, name: ff.name, id: ff.id}
		if i, ok := byID[ff.id]; ok && ff.hasID && !found[i] {
			found[i] = true
			ef := exp.FieldList[i]
			if _, constant := p.constants[ef.ID]; !constant {
				read, err := p.reader(ef.Type, ef.Required, ff.node, path+ef.Name+" (id "+strconv.Itoa(ef.ID)+"): ")
				if err != nil {
					return nil, err
				}
				step.pos, step.read, step.name = i, read, ef.Name
			}
		}
		sr.steps = append(sr.steps, step)
	}
	for i, ef := range exp.FieldList {
		if c, ok := p.constants[ef.ID]; ok {
			sr.fills = append(sr.fills, fillStep{pos: i, value: c})
			continue
		}
		if found[i] {
			continue
		}
		switch {
		case ef.ID == RowPositionFieldID:
			sr.fills = append(sr.fills, fillStep{pos: i, rowPos: true})
		case ef.ID == IsDeletedFieldID:
			sr.fills = append(sr.fills, fillStep{pos: i, value: false})
		case ef.InitialDefault != nil:
			v, err := convertDefault(ef.Type, ef.InitialDefault)
			if err != nil {
				return nil, fmt.Errorf("%sfield %s (id %d): initial-default: %w", path, ef.Name, ef.ID, err)
			}
			sr.fills = append(sr.fills, fillStep{pos: i, value: v})
		case ef.Required:
			return nil, fmt.Errorf("%smissing required field %s (id %d): it is not in the file and has no initial-default", path, ef.Name, ef.ID)
		}
	}
	return sr, nil
}

func (sr *structReader) read(d *decoder, reuse any) (any, error) {
	rec, ok := reuse.(*data.Record)
	if !ok || rec == nil || rec.Struct() != sr.template.Struct() {
		rec = sr.template.Copy()
	}
	vals := rec.Values()
	for i := range sr.steps {
		s := &sr.steps[i]
		if s.pos < 0 {
			if err := s.node.skip(d, 0); err != nil {
				return nil, within(&valueError{msg: err.Error()}, s.name, s.id)
			}
			continue
		}
		v, err := s.read(d, vals[s.pos])
		if err != nil {
			return nil, within(asValueError(err), s.name, s.id)
		}
		vals[s.pos] = v
	}
	for _, f := range sr.fills {
		if f.rowPos {
			vals[f.pos] = d.rowPos
		} else {
			vals[f.pos] = f.value
		}
	}
	return rec, nil
}

func asValueError(err error) error {
	if _, ok := err.(*valueError); ok {
		return err
	}
	return &valueError{msg: err.Error()}
}

// reader plans one value. path prefixes plan errors with the field at fault.
func (p *planner) reader(exp iceberg.Type, required bool, n *fnode, path string) (readFn, error) {
	if _, ok := exp.(iceberg.UnknownType); ok {
		// Spec: a column read as unknown is ignored and read as null.
		return func(d *decoder, _ any) (any, error) { return nil, n.skip(d, 0) }, nil
	}
	if n.kind == hamba.Union {
		value, nullIndex, _, err := n.option()
		if err != nil {
			return nil, fmt.Errorf("%s%w", path, err)
		}
		inner, err := p.reader(exp, required, value, path)
		if err != nil {
			return nil, err
		}
		branches := int64(len(n.branches))
		return func(d *decoder, reuse any) (any, error) {
			i, err := d.long()
			if err != nil {
				return nil, err
			}
			switch {
			case i < 0 || i >= branches:
				return nil, fmt.Errorf("union branch %d out of range", i)
			case i == nullIndex:
				if required {
					return nil, fmt.Errorf("null value in required field")
				}
				return nil, nil
			}
			return inner(d, reuse)
		}, nil
	}
	if n.kind == hamba.Null {
		if required {
			return nil, fmt.Errorf("%sthe field is required but the file stores it as Avro null", path)
		}
		return func(*decoder, any) (any, error) { return nil, nil }, nil
	}
	switch t := exp.(type) {
	case *iceberg.StructType:
		sr, err := p.structReader(t, n, path)
		if err != nil {
			return nil, err
		}
		return sr.read, nil
	case *iceberg.ListType:
		return p.listReader(t, n, path)
	case *iceberg.MapType:
		return p.mapReader(t, n, path)
	}
	return p.primitiveReader(exp, n, path)
}

func (p *planner) listReader(t *iceberg.ListType, n *fnode, path string) (readFn, error) {
	if n.kind != hamba.Array || n.isMap {
		return nil, fmt.Errorf("%scannot read Avro %s as an Iceberg list", path, n.describe())
	}
	elem, err := p.reader(t.Element, t.ElementRequired, n.items, path+"element: ")
	if err != nil {
		return nil, err
	}
	minSize := n.items.minSize(0)
	return func(d *decoder, reuse any) (any, error) {
		list, _ := reuse.([]any)
		list = list[:0]
		for {
			count, err := d.blockCount(minSize)
			if err != nil {
				return nil, err
			}
			if count == 0 {
				break
			}
			for range count {
				v, err := elem(d, nil)
				if err != nil {
					return nil, within(asValueError(err), "element["+strconv.Itoa(len(list))+"]", t.ElementID)
				}
				list = append(list, v)
			}
		}
		if list == nil {
			list = []any{} // an empty list is not null
		}
		return list, nil
	}, nil
}

func (p *planner) mapReader(t *iceberg.MapType, n *fnode, path string) (readFn, error) {
	var key, value readFn
	var err error
	var minSize int
	switch {
	case n.kind == hamba.Map:
		if _, ok := t.KeyType.(iceberg.StringType); !ok {
			return nil, fmt.Errorf("%scannot read an Avro map (string keys) as an Iceberg map with %s keys", path, t.KeyType)
		}
		key = func(d *decoder, _ any) (any, error) {
			b, err := d.bytes()
			return string(b), err
		}
		if value, err = p.reader(t.ValueType, t.ValueRequired, n.values, path+"value: "); err != nil {
			return nil, err
		}
		minSize = 1
	case n.kind == hamba.Array && n.isMap:
		kv := n.items
		if key, err = p.reader(t.KeyType, true, kv.fields[0].node, path+"key: "); err != nil {
			return nil, err
		}
		if value, err = p.reader(t.ValueType, t.ValueRequired, kv.fields[1].node, path+"value: "); err != nil {
			return nil, err
		}
		minSize = kv.minSize(0)
	default:
		return nil, fmt.Errorf("%scannot read Avro %s as an Iceberg map", path, n.describe())
	}
	return func(d *decoder, reuse any) (any, error) {
		m, _ := reuse.(data.Map)
		m = m[:0]
		for {
			count, err := d.blockCount(minSize)
			if err != nil {
				return nil, err
			}
			if count == 0 {
				break
			}
			for range count {
				k, err := key(d, nil)
				if err != nil {
					return nil, within(asValueError(err), "key["+strconv.Itoa(len(m))+"]", t.KeyID)
				}
				v, err := value(d, nil)
				if err != nil {
					return nil, within(asValueError(err), "value["+strconv.Itoa(len(m))+"]", t.ValueID)
				}
				m = append(m, data.MapEntry{Key: k, Value: v})
			}
		}
		if m == nil {
			m = data.Map{}
		}
		return m, nil
	}, nil
}

const (
	microsPerDay = int64(86_400_000_000)
	nanosPerDay  = microsPerDay * 1000
)

// primitiveReader reads a primitive as its expected type, allowing the
// promotions Iceberg allows (int to long, float to double, decimal to a
// wider precision, date to timestamp) and the time units other writers use.
func (p *planner) primitiveReader(exp iceberg.Type, n *fnode, path string) (readFn, error) {
	ft, err := n.primitiveType()
	if err != nil {
		return nil, fmt.Errorf("%s%w", path, err)
	}
	mismatch := func() error {
		return fmt.Errorf("%scannot read Avro %s (Iceberg %s) as Iceberg %s", path, n.describe(), ft, exp)
	}
	millis := n.logical == "timestamp-millis" || n.logical == "local-timestamp-millis" || n.logical == "time-millis"
	switch exp := exp.(type) {
	case iceberg.BooleanType:
		if _, ok := ft.(iceberg.BooleanType); ok {
			return func(d *decoder, _ any) (any, error) { return d.boolean() }, nil
		}
	case iceberg.Int32Type:
		if _, ok := ft.(iceberg.Int32Type); ok {
			return func(d *decoder, _ any) (any, error) { return d.int() }, nil
		}
	case iceberg.Int64Type:
		switch ft.(type) {
		case iceberg.Int64Type:
			return func(d *decoder, _ any) (any, error) { return d.long() }, nil
		case iceberg.Int32Type:
			return func(d *decoder, _ any) (any, error) {
				x, err := d.int()
				return int64(x), err
			}, nil
		}
	case iceberg.Float32Type:
		if _, ok := ft.(iceberg.Float32Type); ok {
			return func(d *decoder, _ any) (any, error) { return d.float32() }, nil
		}
	case iceberg.Float64Type:
		switch ft.(type) {
		case iceberg.Float64Type:
			return func(d *decoder, _ any) (any, error) { return d.float64() }, nil
		case iceberg.Float32Type:
			return func(d *decoder, _ any) (any, error) {
				x, err := d.float32()
				return float64(x), err
			}, nil
		}
	case iceberg.DateType:
		if _, ok := ft.(iceberg.DateType); ok {
			return func(d *decoder, _ any) (any, error) {
				x, err := d.int()
				return iceberg.Date(x), err
			}, nil
		}
	case iceberg.TimeType:
		if _, ok := ft.(iceberg.TimeType); ok {
			scale := int64(1)
			if millis {
				scale = 1000
			}
			return func(d *decoder, _ any) (any, error) {
				x, err := scaledLong(d, scale)
				return iceberg.Time(x), err
			}, nil
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		// adjust-to-utc is optional in files from other writers, so the
		// reader goes by the unit alone, as Java's reader does.
		switch ft.(type) {
		case iceberg.TimestampType, iceberg.TimestampTzType:
			scale := int64(1)
			if millis {
				scale = 1000
			}
			return func(d *decoder, _ any) (any, error) {
				x, err := scaledLong(d, scale)
				return iceberg.Timestamp(x), err
			}, nil
		case iceberg.DateType:
			return func(d *decoder, _ any) (any, error) {
				x, err := scaledLong(d, microsPerDay)
				return iceberg.Timestamp(x), err
			}, nil
		}
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		switch ft.(type) {
		case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
			return func(d *decoder, _ any) (any, error) {
				x, err := d.long()
				return iceberg.TimestampNano(x), err
			}, nil
		case iceberg.DateType:
			return func(d *decoder, _ any) (any, error) {
				x, err := scaledLong(d, nanosPerDay)
				return iceberg.TimestampNano(x), err
			}, nil
		}
	case iceberg.StringType:
		if _, ok := ft.(iceberg.StringType); ok {
			if n.kind == hamba.Enum {
				symbols := n.symbols
				return func(d *decoder, _ any) (any, error) {
					i, err := d.long()
					if err != nil {
						return nil, err
					}
					if i < 0 || i >= int64(len(symbols)) {
						return nil, fmt.Errorf("enum index %d out of range", i)
					}
					return symbols[i], nil
				}, nil
			}
			return func(d *decoder, _ any) (any, error) {
				b, err := d.bytes()
				return string(b), err
			}, nil
		}
	case iceberg.UUIDType:
		if _, ok := ft.(iceberg.UUIDType); ok {
			if n.kind == hamba.String {
				return func(d *decoder, _ any) (any, error) {
					b, err := d.bytes()
					if err != nil {
						return nil, err
					}
					return uuid.ParseBytes(b)
				}, nil
			}
			return func(d *decoder, _ any) (any, error) {
				b, err := d.fixed(16)
				if err != nil {
					return nil, err
				}
				return uuid.UUID(b), nil
			}, nil
		}
	case iceberg.FixedType:
		if ft.Equals(exp) {
			size := exp.Len()
			return func(d *decoder, _ any) (any, error) {
				b, err := d.fixed(size)
				return clone(b), err
			}, nil
		}
	case iceberg.BinaryType:
		if _, ok := ft.(iceberg.BinaryType); ok {
			return func(d *decoder, _ any) (any, error) {
				b, err := d.bytes()
				return clone(b), err
			}, nil
		}
	case iceberg.DecimalType:
		fd, ok := ft.(iceberg.DecimalType)
		if ok && fd.Scale() == exp.Scale() && fd.Precision() <= exp.Precision() {
			prec, scale, size, isFixed := int32(fd.Precision()), exp.Scale(), n.size, n.kind == hamba.Fixed
			return func(d *decoder, _ any) (any, error) {
				var b []byte
				var err error
				if isFixed {
					b, err = d.fixed(size)
				} else {
					b, err = d.bytes()
				}
				if err != nil {
					return nil, err
				}
				num, err := data.DecimalFromBytes(b)
				if err != nil {
					return nil, err
				}
				// A fixed holds more than P digits can reach; such a value is corrupt.
				if !num.FitsInPrecision(prec) {
					return nil, fmt.Errorf("decimal value %s has more than %d digits", num.ToString(int32(scale)), prec)
				}
				return iceberg.Decimal{Val: num, Scale: scale}, nil
			}, nil
		}
	default:
		return nil, fmt.Errorf("%sIceberg type %s is not supported by the Avro model", path, exp)
	}
	return nil, mismatch()
}

// scaledLong reads a long and multiplies it by scale, refusing overflow.
func scaledLong(d *decoder, scale int64) (int64, error) {
	x, err := d.long()
	if err != nil || scale == 1 {
		return x, err
	}
	if x > math.MaxInt64/scale || x < math.MinInt64/scale {
		return 0, fmt.Errorf("value %d overflows a long when converted to a finer unit", x)
	}
	return x * scale, nil
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
