package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// snakeKeys returns v for encoding/json with the keys of its untagged struct
// fields in snake_case (WriteMBps: write_mbps), so that every --json of the
// lab uses one key style even where it prints a package's struct that has no
// json tags (the bench reports). Tagged fields keep their tag's name, map
// keys (data: type names, case ids) and values with their own MarshalJSON
// are left as they are, and omitempty and "-" are honoured.
func snakeKeys(v any) any {
	return snakeValue(reflect.ValueOf(v))
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func snakeValue(rv reflect.Value) any {
	if !rv.IsValid() {
		return nil
	}
	t := rv.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		rv.CanAddr() && (reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return rv.Interface()
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return snakeValue(rv.Elem())
	case reflect.Struct:
		obj := &orderedObject{}
		snakeFields(rv, obj)
		return obj
	case reflect.Slice:
		if rv.IsNil() {
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return rv.Interface() // []byte: base64, as encoding/json writes it
		}
		fallthrough
	case reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = snakeValue(rv.Index(i))
		}
		return out
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		// Keys stay as encoding/json writes them; only the values change.
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			k, err := json.Marshal(it.Key().Interface())
			if err != nil {
				return rv.Interface() // a key encoding/json cannot write fails there
			}
			key := string(k)
			if s := ""; json.Unmarshal(k, &s) == nil {
				key = s
			}
			out[key] = snakeValue(it.Value())
		}
		return out
	}
	return rv.Interface()
}

// snakeFields appends rv's exported fields to obj in declaration order,
// embedded structs' fields flattened as encoding/json does.
func snakeFields(rv reflect.Value, obj *orderedObject) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := rv.Field(i)
		if f.Anonymous && name == "" {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				snakeFields(fv, obj)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = snakeCase(f.Name)
		}
		if strings.Contains(","+opts+",", ",omitempty,") && fv.IsZero() && fv.Kind() != reflect.Struct {
			continue
		}
		obj.keys = append(obj.keys, name)
		obj.values = append(obj.values, snakeValue(fv))
	}
}

// orderedObject is a JSON object that keeps its keys in the struct's order.
type orderedObject struct {
	keys   []string
	values []any
}

func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.values[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// unitWords are units written with inner capitals that are one word.
var unitWords = strings.NewReplacer("GBps", "Gbps", "MBps", "Mbps", "KBps", "Kbps")

// snakeCase turns a Go field name into snake_case: a word starts at a
// capital after a lower-case letter or digit, or at the last capital of a
// run followed by a lower-case letter (LanceDBBuildMS: lance_db_build_ms).
func snakeCase(name string) string {
	r := []rune(unitWords.Replace(name))
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prev := r[i-1]
			next := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && next {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
