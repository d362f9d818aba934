package compat

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// maxRows bounds what an in-process reader returns: the golden files hold
// a handful of rows, so a reader inventing millions is already wrong.
const maxRows = 10_000

// readParquetGo reads path with parquet-go alone (no lab code between):
// its generic row reader into maps, converted to the common JSON form by
// the file's schema.
func readParquetGo(path string) (*Output, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	out := &Output{}
	fields := pf.Schema().Fields()
	for _, fld := range fields {
		out.Columns = append(out.Columns, Column{Name: fld.Name(), Type: parquetGoType(fld)})
	}
	r := pq.NewReader(pf)
	defer r.Close()
	for len(out.Rows) < maxRows+1 {
		m := map[string]any{}
		if err := r.Read(&m); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("row %d: %w", len(out.Rows), err)
		}
		row := map[string]any{}
		for _, fld := range fields {
			row[fld.Name()] = parquetGoValue(fld, m[fld.Name()])
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// parquetGoType is the node's type as parquet-go reports it: the logical
// type where it knows one, else the physical type or "group".
func parquetGoType(n pq.Node) string {
	if lt := n.Type().LogicalType(); lt != nil && lt.Value != nil {
		return lt.String()
	}
	return n.Type().String()
}

// parquetGoValue converts a value parquet-go's map reader produced for
// node n: it gives Go strings for every BYTE_ARRAY, so the schema decides
// which are text (STRING, ENUM, JSON) and which are bytes (hex). VARIANT
// groups arrive decoded and pass through.
func parquetGoValue(n pq.Node, v any) any {
	if v == nil {
		return nil
	}
	lt := n.Type().LogicalType()
	if n.Leaf() {
		switch x := v.(type) {
		case []byte:
			if isText(n) {
				return string(x)
			}
			return hex.EncodeToString(x)
		case string:
			if isText(n) {
				return x
			}
			return hex.EncodeToString([]byte(x))
		case float32:
			return float64(x)
		}
		return v
	}
	if isLogical[*format.VariantType](lt) {
		return v
	}
	if isLogical[*format.ListType](lt) && len(n.Fields()) == 1 && len(n.Fields()[0].Fields()) == 1 {
		elem := n.Fields()[0].Fields()[0]
		if xs, ok := v.([]any); ok {
			out := make([]any, len(xs))
			for i, x := range xs {
				out[i] = parquetGoValue(elem, x)
			}
			return out
		}
	}
	if m, ok := v.(map[string]any); ok {
		out := map[string]any{}
		for _, f := range n.Fields() {
			out[f.Name()] = parquetGoValue(f, m[f.Name()])
		}
		return out
	}
	return v // a leaf, or the values of a repeated group or leaf as they are
}

func isText(n pq.Node) bool {
	lt := n.Type().LogicalType()
	return isLogical[*format.StringType](lt) || isLogical[*format.EnumType](lt) || isLogical[*format.JsonType](lt)
}

// isLogical reports whether lt is the union member T.
func isLogical[T format.LogicalTypeValue](lt *format.LogicalType) bool {
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(T)
	return ok
}
