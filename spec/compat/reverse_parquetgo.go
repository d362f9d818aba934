package compat

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// parquet-go as a writer: the same generator families, written through
// Go struct types built at run time (reflect.StructOf), since parquet-go's
// options live in struct tags. Its families leave out fixed-size lists,
// which Parquet has no type for and parquet-go no tag.

type pqgoSetting struct {
	name string
	opts []parquet.WriterOption
	// tag returns the extra struct-tag options for a column (dict, delta,
	// split, id(n)); nil: none.
	tag func(c genColumn, index int) []string
}

// parquet-go cannot write a null list element from Go values (a nil
// *int32 element panics), so its nested family's list has none.
var pqgoFamilies = []genFamily{genFamilies[0], genFamilies[1],
	{name: "nested", rows: 3000, columns: []genColumn{
		{"l", "list_int32_dense", 9}, {"st", "struct_ab", 6}, {"m", "map_string_int32", 0},
	}},
	genFamilies[4]}

var pqgoSettings = []pqgoSetting{
	{name: "default"},
	{name: "v1-snappy-dictionary", opts: []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy)},
		tag: func(c genColumn, _ int) []string {
			switch c.kind {
			case "int64", "int32", "float32", "float64", "string", "binary", "date", "timestamptz", "decimal18_4":
				return []string{"dict"}
			}
			return nil
		}},
	{name: "delta-bss-zstd", opts: []parquet.WriterOption{parquet.Compression(&parquet.Zstd)},
		tag: func(c genColumn, _ int) []string {
			switch c.kind {
			case "int64", "int32", "string", "binary", "date", "timestamptz", "uint32", "uint64":
				if c.nullEvery == 0 || c.kind == "binary" {
					return []string{"delta"} // parquet-go takes delta on value types only
				}
			case "float32", "float64":
				return []string{"split"}
			}
			return nil
		}},
	{name: "small-pages-groups", opts: []parquet.WriterOption{parquet.PageBufferSize(1024), parquet.MaxRowsPerRowGroup(700)}},
	// One page per column chunk however large: the huge-page case.
	{name: "one-page-per-chunk", opts: []parquet.WriterOption{parquet.PageBufferSize(1 << 28)}},
	{name: "field-ids", tag: func(_ genColumn, index int) []string { return []string{fmt.Sprintf("id(%d)", index+1)} }},
}

// pqgoField is a column's Go struct field: its type and tag.
func pqgoField(c genColumn, index int, extra []string) reflect.StructField {
	tag := append([]string{c.name}, extra...)
	var typ reflect.Type
	switch c.kind {
	case "int64":
		typ = reflect.TypeFor[int64]()
	case "int32":
		typ = reflect.TypeFor[int32]()
	case "float32":
		typ = reflect.TypeFor[float32]()
	case "float64":
		typ = reflect.TypeFor[float64]()
	case "string":
		typ = reflect.TypeFor[string]()
	case "binary":
		typ, tag = reflect.TypeFor[[]byte](), append(tag, "optional")
	case "bool":
		typ = reflect.TypeFor[bool]()
	case "date":
		typ, tag = reflect.TypeFor[int32](), append(tag, "date")
	case "timestamptz":
		typ, tag = reflect.TypeFor[int64](), append(tag, "timestamp(microsecond:utc)")
	case "decimal18_4":
		typ, tag = reflect.TypeFor[int64](), append(tag, "decimal(4:18)")
	case "uint8":
		typ = reflect.TypeFor[uint8]()
	case "uint16":
		typ = reflect.TypeFor[uint16]()
	case "uint32":
		typ = reflect.TypeFor[uint32]()
	case "uint64":
		typ = reflect.TypeFor[uint64]()
	case "list_int32_dense":
		typ, tag = reflect.TypeFor[[]int32](), append(tag, "list", "optional")
	case "list_float":
		typ, tag = reflect.TypeFor[[]float32](), append(tag, "list")
	case "struct_ab":
		typ = reflect.PointerTo(reflect.StructOf([]reflect.StructField{
			{Name: "A", Type: reflect.TypeFor[int32](), Tag: `parquet:"a"`},
			{Name: "B", Type: reflect.TypeFor[string](), Tag: `parquet:"b"`},
		}))
	case "map_string_int32":
		typ = reflect.TypeFor[map[string]int32]()
	default:
		panic("pqgoField: kind " + c.kind)
	}
	// A column with nulls is a pointer (nil: null); one without is
	// required, which parquet-go's delta tag needs.
	if c.nullEvery > 0 && typ.Kind() != reflect.Slice && typ.Kind() != reflect.Map && typ.Kind() != reflect.Pointer {
		typ = reflect.PointerTo(typ)
	}
	st := fmt.Sprintf(`parquet:"%s"`, strings.Join(tag, ","))
	return reflect.StructField{Name: fmt.Sprintf("F%d", index), Type: typ, Tag: reflect.StructTag(st)}
}

// setPqgo stores row i of column c in the struct field v.
func setPqgo(v reflect.Value, c genColumn, i int) {
	val := genValue(c, i)
	if val == nil {
		return // the zero value: a nil pointer, slice or map is null
	}
	switch x := val.(type) {
	case genDate:
		if v.Type() == reflect.TypeFor[*time.Time]() {
			v.Set(reflect.ValueOf(ptr(time.Unix(int64(x)*86400, 0).UTC())))
			return
		}
	case genDec:
		if v.Kind() == reflect.Slice {
			v.SetBytes(twosComplement(int64(x)))
			return
		}
	}
	if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() != reflect.Struct {
		p := reflect.New(v.Type().Elem())
		setPqgo(p.Elem(), c, i)
		v.Set(p)
		return
	}
	switch x := val.(type) {
	case genDate, genMicros, genDec:
		v.SetInt(reflect.ValueOf(x).Int())
	case []byte:
		v.SetBytes(x)
	case []float32:
		v.Set(reflect.ValueOf(x))
	case genList:
		l := make([]int32, len(x))
		for k, e := range x {
			l[k] = *e
		}
		v.Set(reflect.ValueOf(l))
	case genStruct:
		s := reflect.New(v.Type().Elem())
		s.Elem().Field(0).SetInt(int64(x.a))
		s.Elem().Field(1).SetString(x.b)
		v.Set(s)
	case genMap:
		m := map[string]int32{}
		for _, e := range x {
			m[e.k] = e.v
		}
		v.Set(reflect.ValueOf(m))
	default:
		v.Set(reflect.ValueOf(val))
	}
}

// twosComplement is v as the fewest big-endian two's-complement bytes.
func twosComplement(v int64) []byte {
	b := big.NewInt(v).Bytes()
	if v >= 0 {
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// −v − 1 in magnitude, inverted.
	m := new(big.Int).Sub(new(big.Int).Neg(big.NewInt(v)), big.NewInt(1)).Bytes()
	if len(m) == 0 || m[0]&0x80 != 0 {
		m = append([]byte{0}, m...)
	}
	for i := range m {
		m[i] = ^m[i]
	}
	return m
}

// ParquetGoCases writes every parquet-go family with every setting into dir.
func ParquetGoCases(dir string) ([]*WriterCase, error) {
	var out []*WriterCase
	for _, f := range pqgoFamilies {
		for _, s := range pqgoSettings {
			c, err := writePqgoCase(dir, f, s)
			if err != nil {
				return nil, fmt.Errorf("parquet-go/%s/%s: %w", s.name, f.name, err)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func writePqgoCase(dir string, f genFamily, s pqgoSetting) (*WriterCase, error) {
	fields := make([]reflect.StructField, len(f.columns))
	for j, col := range f.columns {
		var extra []string
		if s.tag != nil {
			extra = s.tag(col, j)
		}
		fields[j] = pqgoField(col, j, extra)
	}
	typ := reflect.StructOf(fields)
	c := &WriterCase{Writer: "parquet-go", Setting: s.name, Family: f.name, Vector: f.vector, Dim: f.dim,
		Path: filepath.Join(dir, "parquet-go-"+s.name+"-"+f.name+".parquet")}
	for _, col := range f.columns {
		c.Columns = append(c.Columns, col.name)
	}
	rows := make([]reflect.Value, f.rows)
	for i := range f.rows {
		v := reflect.New(typ).Elem()
		row := map[string]any{}
		for j, col := range f.columns {
			setPqgo(v.Field(j), col, i)
			row[col.name] = genExpected(col, i)
		}
		rows[i] = v
		c.Rows = append(c.Rows, row)
	}
	file, err := os.Create(c.Path)
	if err != nil {
		return nil, err
	}
	w := parquet.NewWriter(file, append([]parquet.WriterOption{parquet.SchemaOf(reflect.New(typ).Interface())}, s.opts...)...)
	for _, r := range rows {
		if err := w.Write(r.Addr().Interface()); err != nil {
			file.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		file.Close()
		return nil, err
	}
	if err := file.Close(); err != nil {
		return nil, err
	}
	c.WriterDefect, err = pqgoReadBack(c.Path, typ, rows)
	return c, err
}

// pqgoReadBack reads the file back with parquet-go and says where it
// differs from what was written (a writer defect the lab must not be
// blamed for), or "" when it reads back as written.
func pqgoReadBack(path string, typ reflect.Type, rows []reflect.Value) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	r := parquet.NewReader(file, parquet.SchemaOf(reflect.New(typ).Interface()))
	defer r.Close()
	for i, want := range rows {
		got := reflect.New(typ)
		if err := r.Read(got.Interface()); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Sprintf("parquet-go reads %d rows back, %d were written", i, len(rows)), nil
			}
			return "", fmt.Errorf("read back row %d: %w", i, err)
		}
		if !reflect.DeepEqual(got.Elem().Interface(), want.Interface()) {
			return fmt.Sprintf("parquet-go reads row %d back as %+v, it was given %+v", i, got.Elem().Interface(), want.Interface()), nil
		}
	}
	return "", nil
}
