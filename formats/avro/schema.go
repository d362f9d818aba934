package avro

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	hamba "github.com/hamba/avro/v2"

	"github.com/coltype-lab/lab/data"
)

// Avro schema properties Iceberg defines (AvroSchemaUtil).
const (
	fieldIDProp          = "field-id"
	elementIDProp        = "element-id"
	keyIDProp            = "key-id"
	valueIDProp          = "value-id"
	adjustToUTCProp      = "adjust-to-utc"
	icebergFieldNameProp = "iceberg-field-name"
	logicalTypeProp      = "logicalType"
)

// SchemaJSON returns the Avro schema JSON the writer stores for s.
func SchemaJSON(s *iceberg.Schema) (string, error) {
	rec, err := ToAvroSchema(s)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return "", fmt.Errorf("avro schema: %w", err)
	}
	return string(b), nil
}

// ToAvroSchema converts an Iceberg schema into the Avro record schema
// Iceberg's Java writer produces (AvroSchemaUtil.convert(schema, "table")
// with the legacy timestamp mapping its writer uses).
func ToAvroSchema(s *iceberg.Schema) (*hamba.RecordSchema, error) {
	c := &schemaConverter{named: map[string]hamba.NamedSchema{}}
	st := s.AsStruct()
	return c.record("table", &st)
}

type schemaConverter struct {
	// named holds every named type defined so far: Avro forbids redefining
	// a name, so a second fixed(16) becomes a reference to the first.
	named map[string]hamba.NamedSchema
}

func (c *schemaConverter) record(name string, st *iceberg.StructType) (*hamba.RecordSchema, error) {
	if _, dup := c.named[name]; dup {
		return nil, fmt.Errorf("avro schema: record name %q is defined twice", name)
	}
	fields := make([]*hamba.Field, 0, len(st.FieldList))
	seen := make(map[string]string, len(st.FieldList))
	for _, f := range st.FieldList {
		fs, err := c.convert(f.Type, f.ID)
		if err != nil {
			return nil, fmt.Errorf("field %s (id %d): %w", f.Name, f.ID, err)
		}
		name := f.Name
		props := map[string]any{fieldIDProp: f.ID}
		if !validAvroName(name) {
			name = sanitizeName(name)
			props[icebergFieldNameProp] = f.Name
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("field %s (id %d): Avro name %q is also the name of field %s", f.Name, f.ID, name, prev)
		}
		seen[name] = f.Name
		opts := []hamba.SchemaOption{hamba.WithProps(props)}
		if f.Doc != "" {
			opts = append(opts, hamba.WithDoc(f.Doc))
		}
		def, hasDef, err := avroDefault(f)
		if err != nil {
			return nil, fmt.Errorf("field %s (id %d): %w", f.Name, f.ID, err)
		}
		switch {
		case !f.Required && hasDef:
			// Avro requires a union's default to match its first branch.
			fs, err = optionOf(fs, false)
			opts = append(opts, hamba.WithDefault(def))
		case !f.Required:
			fs, err = optionOf(fs, true)
			opts = append(opts, hamba.WithDefault(nil))
		case hasDef:
			opts = append(opts, hamba.WithDefault(def))
		}
		if err != nil {
			return nil, fmt.Errorf("field %s (id %d): %w", f.Name, f.ID, err)
		}
		field, err := hamba.NewField(name, fs, opts...)
		if err != nil {
			return nil, fmt.Errorf("field %s (id %d): %w", f.Name, f.ID, err)
		}
		fields = append(fields, field)
	}
	rec, err := hamba.NewRecordSchema(name, "", fields)
	if err != nil {
		return nil, err
	}
	c.named[name] = rec
	return rec, nil
}

// convert maps one Iceberg type; id is the id of the field, element, key
// or value holding it, which names nested records ("r<id>").
func (c *schemaConverter) convert(t iceberg.Type, id int) (hamba.Schema, error) {
	switch t := t.(type) {
	case *iceberg.StructType:
		return c.record("r"+strconv.Itoa(id), t)
	case *iceberg.ListType:
		elem, err := c.convert(t.Element, t.ElementID)
		if err != nil {
			return nil, fmt.Errorf("element (id %d): %w", t.ElementID, err)
		}
		if !t.ElementRequired {
			if elem, err = optionOf(elem, true); err != nil {
				return nil, err
			}
		}
		return hamba.NewArraySchema(elem, hamba.WithProps(map[string]any{elementIDProp: t.ElementID})), nil
	case *iceberg.MapType:
		key, err := c.convert(t.KeyType, t.KeyID)
		if err != nil {
			return nil, fmt.Errorf("key (id %d): %w", t.KeyID, err)
		}
		value, err := c.convert(t.ValueType, t.ValueID)
		if err != nil {
			return nil, fmt.Errorf("value (id %d): %w", t.ValueID, err)
		}
		if !t.ValueRequired {
			if value, err = optionOf(value, true); err != nil {
				return nil, err
			}
		}
		if _, ok := t.KeyType.(iceberg.StringType); ok {
			return hamba.NewMapSchema(value, hamba.WithProps(map[string]any{keyIDProp: t.KeyID, valueIDProp: t.ValueID})), nil
		}
		return c.keyValueArray(t, key, value)
	case iceberg.UnknownType:
		return &hamba.NullSchema{}, nil
	case iceberg.BooleanType:
		return hamba.NewPrimitiveSchema(hamba.Boolean, nil), nil
	case iceberg.Int32Type:
		return hamba.NewPrimitiveSchema(hamba.Int, nil), nil
	case iceberg.Int64Type:
		return hamba.NewPrimitiveSchema(hamba.Long, nil), nil
	case iceberg.Float32Type:
		return hamba.NewPrimitiveSchema(hamba.Float, nil), nil
	case iceberg.Float64Type:
		return hamba.NewPrimitiveSchema(hamba.Double, nil), nil
	case iceberg.DateType:
		return logicalPrimitive(hamba.Int, "date", nil), nil
	case iceberg.TimeType:
		return logicalPrimitive(hamba.Long, "time-micros", nil), nil
	case iceberg.TimestampType:
		return logicalPrimitive(hamba.Long, "timestamp-micros", map[string]any{adjustToUTCProp: false}), nil
	case iceberg.TimestampTzType:
		return logicalPrimitive(hamba.Long, "timestamp-micros", map[string]any{adjustToUTCProp: true}), nil
	case iceberg.TimestampNsType:
		return logicalPrimitive(hamba.Long, "timestamp-nanos", map[string]any{adjustToUTCProp: false}), nil
	case iceberg.TimestampTzNsType:
		return logicalPrimitive(hamba.Long, "timestamp-nanos", map[string]any{adjustToUTCProp: true}), nil
	case iceberg.StringType:
		return hamba.NewPrimitiveSchema(hamba.String, nil), nil
	case iceberg.BinaryType:
		return hamba.NewPrimitiveSchema(hamba.Bytes, nil), nil
	case iceberg.UUIDType:
		return c.fixed("uuid_fixed", 16, map[string]any{logicalTypeProp: "uuid"})
	case iceberg.FixedType:
		return c.fixed("fixed_"+strconv.Itoa(t.Len()), t.Len(), nil)
	case iceberg.DecimalType:
		return c.fixed(fmt.Sprintf("decimal_%d_%d", t.Precision(), t.Scale()), data.DecimalRequiredBytes(t.Precision()),
			map[string]any{logicalTypeProp: "decimal", "precision": t.Precision(), "scale": t.Scale()})
	default:
		// variant, geometry and geography have no value representation in
		// data.Record yet.
		return nil, fmt.Errorf("Iceberg type %s is not supported by the Avro model", t)
	}
}

// logicalPrimitive annotates a primitive. The logical type goes in as a
// plain property so every annotation serializes the same way (hamba drops
// "scale": 0 and reorders recognized logical types otherwise).
func logicalPrimitive(t hamba.Type, logical string, extra map[string]any) hamba.Schema {
	props := map[string]any{logicalTypeProp: logical}
	for k, v := range extra {
		props[k] = v
	}
	return hamba.NewPrimitiveSchema(t, nil, hamba.WithProps(props))
}

func (c *schemaConverter) fixed(name string, size int, props map[string]any) (hamba.Schema, error) {
	if prev, ok := c.named[name]; ok {
		return hamba.NewRefSchema(prev), nil
	}
	f, err := hamba.NewFixedSchema(name, "", size, nil, hamba.WithProps(props))
	if err != nil {
		return nil, err
	}
	c.named[name] = f
	return f, nil
}

// keyValueArray is AvroSchemaUtil.createMap: an array of "k<K>_v<V>"
// records with logicalType "map".
func (c *schemaConverter) keyValueArray(t *iceberg.MapType, key, value hamba.Schema) (hamba.Schema, error) {
	name := fmt.Sprintf("k%d_v%d", t.KeyID, t.ValueID)
	if _, dup := c.named[name]; dup {
		return nil, fmt.Errorf("avro schema: record name %q is defined twice", name)
	}
	keyField, err := hamba.NewField("key", key, hamba.WithProps(map[string]any{fieldIDProp: t.KeyID}))
	if err != nil {
		return nil, err
	}
	valueOpts := []hamba.SchemaOption{hamba.WithProps(map[string]any{fieldIDProp: t.ValueID})}
	if !t.ValueRequired {
		valueOpts = append(valueOpts, hamba.WithDefault(nil))
	}
	valueField, err := hamba.NewField("value", value, valueOpts...)
	if err != nil {
		return nil, err
	}
	rec, err := hamba.NewRecordSchema(name, "", []*hamba.Field{keyField, valueField})
	if err != nil {
		return nil, err
	}
	c.named[name] = rec
	return hamba.NewArraySchema(rec, hamba.WithProps(map[string]any{logicalTypeProp: "map"})), nil
}

// optionOf wraps s in a union with null, null first unless a non-null
// default must lead. The null type itself (Iceberg unknown) stays as is.
func optionOf(s hamba.Schema, nullFirst bool) (hamba.Schema, error) {
	if s.Type() == hamba.Null {
		return s, nil
	}
	if nullFirst {
		return hamba.NewUnionSchema([]hamba.Schema{&hamba.NullSchema{}, s})
	}
	return hamba.NewUnionSchema([]hamba.Schema{s, &hamba.NullSchema{}})
}

// validAvroName reports whether name is a valid Avro name.
func validAvroName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// sanitizeName is AvroSchemaUtil.sanitize: a leading digit gets a '_'
// prefix, a leading other invalid character and any later invalid
// character become "_x" and the character's upper-case hex code.
func sanitizeName(name string) string {
	var sb strings.Builder
	for i, r := range name {
		valid := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		switch {
		case valid:
			sb.WriteRune(r)
		case i == 0 && r >= '0' && r <= '9':
			sb.WriteByte('_')
			sb.WriteRune(r)
		default:
			sb.WriteString("_x")
			sb.WriteString(strings.ToUpper(strconv.FormatInt(int64(r), 16)))
		}
	}
	return sb.String()
}

// avroDefault converts a field's Iceberg initial default into the Avro
// default the spec asks for ("Fields with a non-null Iceberg default must
// convert the default to an equivalent Avro default"). Only types whose
// Avro default hamba serializes faithfully are converted (numbers,
// booleans, strings, dates, times, timestamps); others are left without an
// Avro default, which changes no Iceberg read: readers project by field id
// and take the default from the Iceberg schema.
func avroDefault(f iceberg.NestedField) (any, bool, error) {
	if f.InitialDefault == nil {
		return nil, false, nil
	}
	v, err := convertDefault(f.Type, f.InitialDefault)
	if err != nil {
		return nil, false, fmt.Errorf("initial-default: %w", err)
	}
	switch x := v.(type) {
	case bool, string:
		return x, true, nil
	case int32:
		return int(x), true, nil
	case int64:
		return x, true, nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, false, nil
		}
		return x, true, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false, nil
		}
		return x, true, nil
	case iceberg.Date:
		return int(x), true, nil
	case iceberg.Time:
		return int64(x), true, nil
	case iceberg.Timestamp:
		return int64(x), true, nil
	case iceberg.TimestampNano:
		return int64(x), true, nil
	}
	return nil, false, nil
}
