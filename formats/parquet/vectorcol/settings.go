package vectorcol

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/types/vector"
)

// Writer properties of the record model's VECTOR columns (the columns
// write.parquet.vector-columns declares), named as Iceberg names its
// per-column keys (write.parquet.bloom-filter-enabled.column.<col>,
// write.metadata.metrics.default and .column.<col>):
//
//	write.parquet.vector-layout.default         flba (default) | list | vector-repetition | fixed-size-list
//	write.parquet.vector-layout.column.<col>    the same, for one column; wins over the default
//	write.parquet.vector-encoding.default       plain (default) | byte-stream-split
//	write.parquet.vector-encoding.column.<col>  the same, for one column
//	write.parquet.stats-enabled.column.<col>    true | false (default false for VECTOR columns)
//
// The layouts are spec/VECTOR.md's: flba is FIXED_LEN_BYTE_ARRAY(dim ×
// width) annotated with the lab's VECTOR; fixed-size-list the same cells
// annotated PR #241's FIXED_SIZE_LIST (float32 and float64 only); list the
// 3-level LIST of the elements, its outer group annotated VECTOR (the LIST
// converted type stays, so readers that do not know VECTOR read a list);
// vector-repetition PR #592's VECTOR-repeated middle group, which only the
// lab reads (it needs the annotation in the footer: not with
// write.parquet.footer-annotations=false). byte-stream-split splits the
// element bytes of list and vector-repetition (4 streams for float32) and
// the whole cell of flba and fixed-size-list (dim × width streams, as
// Parquet defines the encoding on FIXED_LEN_BYTE_ARRAY).
//
// A VECTOR column's Iceberg type is fixed[dim × width] in every layout,
// its values the elements' little-endian bytes. In the list and
// vector-repetition layouts it may instead be list<float> (float32
// elements) or list<double> (float64), whose non-null values are lists of
// exactly dim elements, and whose elements may be null when the list's
// elements are optional: the element then keeps its field id in the file,
// and reads back as that list.
//
// Statistics: a VECTOR column's chunks carry their null count only, and no
// ColumnIndex, unless write.parquet.stats-enabled.column.<col>=true asks
// for min/max (per chunk and per page, in the ColumnIndex): byte-wise
// bounds of little-endian floats and element bounds that mix every
// dimension prune nothing, and cost a pass over the data. Iceberg's key
// turns statistics off where they are on by default; the lab honours it on
// VECTOR columns only, where they are off by default, and refuses it on
// other columns.
//
// Codec: write.parquet.compression-codec and -level apply to VECTOR
// columns too, with none (uncompressed), snappy, zstd or lz4 (the codecs
// the vector page reader reads; gzip and brotli are refused). Without a
// level, zstd writes the pages of BYTE_STREAM_SPLIT elements as
// literal-only frames (Zstd) and every other VECTOR page at ZstdLevel,
// both chosen by measurement (spec/VECTOR.md, "Writing from the
// registry").
const (
	PropLayoutDefault   = "write.parquet.vector-layout.default"
	PropLayoutColumn    = "write.parquet.vector-layout.column."
	PropEncodingDefault = "write.parquet.vector-encoding.default"
	PropEncodingColumn  = "write.parquet.vector-encoding.column."
	// PropStatsEnabledColumn is Iceberg's per-column statistics switch
	// (TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX).
	PropStatsEnabledColumn = "write.parquet.stats-enabled.column."
)

// ZstdLevel is the zstd level of VECTOR pages other than split elements'
// (see Zstd) when write.parquet.compression-level is not set. Measured on clustered
// 768-dimension float32 embeddings, vector-repetition with
// byte-stream-split (BenchmarkVectorWriteCodecs; spec/VECTOR.md, "Writing
// from the registry"): level 1 gives 0.857 of the raw size at 193 MB/s,
// level 3 0.859 at 113, 6 0.857 at 61, 10 0.848 at 9.7; on PLAIN floats
// levels 1 and 3 compress nothing (1.000) and 6 reaches 0.93 at a fifth of
// level 1's speed. The mantissa bytes are close to random: only the split
// exponent bytes compress, and the fastest level finds them.
const ZstdLevel = 1

// vectorLayouts are the layouts the record model writes, in the order its
// errors name them.
var vectorLayouts = []Layout{LayoutFLBA, LayoutList, LayoutVectorRepetition, LayoutFixedSizeList}

// vectorSettings are a column's layout properties.
type vectorSettings struct {
	layout   Layout
	encoding ValueEncoding
	stats    bool
}

// parseVectorLayout parses a layout property's value.
func parseVectorLayout(key, v string) (Layout, error) {
	name := strings.ToLower(strings.TrimSpace(v))
	if name == LayoutFLBARaw.String() {
		return 0, fmt.Errorf("%s: %q: flba-raw is flba without the VECTOR annotation, and the record writer annotates its VECTOR columns (write.parquet.footer-annotations=false keeps the annotation in the key/value mirror only); want flba, list, vector-repetition or fixed-size-list", key, v)
	}
	for _, l := range vectorLayouts {
		if name == l.String() {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%s: %q is not a VECTOR layout (want flba, list, vector-repetition or fixed-size-list)", key, v)
}

// parseVectorEncoding parses an encoding property's value.
func parseVectorEncoding(key, v string) (ValueEncoding, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "plain":
		return EncodingPlain, nil
	case "byte-stream-split", "byte_stream_split", "bss":
		return EncodingByteStreamSplit, nil
	}
	return 0, fmt.Errorf("%s: %q is not a VECTOR value encoding (want plain or byte-stream-split)", key, v)
}

// planVectorSettings reads the VECTOR layout properties for the declared
// columns. Every key must be well formed and name a declared column;
// every value must parse. The errors name the key and the value.
func planVectorSettings(props map[string]string, declared []string) (map[string]vectorSettings, error) {
	def := vectorSettings{layout: LayoutFLBA, encoding: EncodingPlain}
	if v, ok := props[PropLayoutDefault]; ok {
		l, err := parseVectorLayout(PropLayoutDefault, v)
		if err != nil {
			return nil, err
		}
		def.layout = l
	}
	if v, ok := props[PropEncodingDefault]; ok {
		e, err := parseVectorEncoding(PropEncodingDefault, v)
		if err != nil {
			return nil, err
		}
		def.encoding = e
	}
	out := make(map[string]vectorSettings, len(declared))
	for _, name := range declared {
		out[name] = def
	}
	column := func(key, prefix string) (string, error) {
		name := strings.TrimPrefix(key, prefix)
		if _, ok := out[name]; !ok {
			list := "none"
			if len(declared) > 0 {
				list = strings.Join(declared, ", ")
			}
			return "", fmt.Errorf("%s: column %q is not a VECTOR column (%s declares: %s)", key, name, PropColumns, list)
		}
		return name, nil
	}
	for _, key := range slices.Sorted(maps.Keys(props)) {
		v := props[key]
		switch {
		case strings.HasPrefix(key, PropLayoutColumn):
			name, err := column(key, PropLayoutColumn)
			if err != nil {
				return nil, err
			}
			s := out[name]
			if s.layout, err = parseVectorLayout(key, v); err != nil {
				return nil, err
			}
			out[name] = s
		case strings.HasPrefix(key, PropEncodingColumn):
			name, err := column(key, PropEncodingColumn)
			if err != nil {
				return nil, err
			}
			s := out[name]
			if s.encoding, err = parseVectorEncoding(key, v); err != nil {
				return nil, err
			}
			out[name] = s
		case strings.HasPrefix(key, PropStatsEnabledColumn):
			name := strings.TrimPrefix(key, PropStatsEnabledColumn)
			if _, ok := out[name]; !ok {
				return nil, fmt.Errorf("%s: column %q is not a VECTOR column: the lab honours Iceberg's per-column statistics switch on VECTOR columns only (%s), whose statistics are off unless asked; every other column has statistics", key, name, PropColumns)
			}
			on, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a boolean", key, v)
			}
			s := out[name]
			s.stats = on
			out[name] = s
		}
	}
	return out, nil
}

// checkVectorType checks a declared column's Iceberg type against its
// layout: fixed[dim × width] in every layout; list<float> or list<double>
// (the declared element float32 or float64) in list and vector-repetition.
// It reports whether the column is list-typed.
func checkVectorType(f iceberg.NestedField, d vector.Declaration, s vectorSettings) (listTyped bool, err error) {
	want := d.Element.VectorBytes(d.Dim)
	switch t := f.Type.(type) {
	case iceberg.FixedType:
		if t.Len() == want {
			return false, nil
		}
	case *iceberg.ListType:
		var elem iceberg.Type
		switch d.Element {
		case vector.Float32:
			elem = iceberg.PrimitiveTypes.Float32
		case vector.Float64:
			elem = iceberg.PrimitiveTypes.Float64
		}
		if elem != nil && t.Element.Equals(elem) {
			if s.layout != LayoutList && s.layout != LayoutVectorRepetition {
				return false, fmt.Errorf("%s: column %q (field id %d) has type %s, which layout %s cannot store (its cells are fixed[%d]): write layout list or vector-repetition, or type the column fixed[%d]",
					PropLayoutColumn+d.Column, d.Column, f.ID, f.Type, s.layout, want, want)
			}
			return true, nil
		}
	}
	return false, fmt.Errorf("%s: column %q (field id %d) has type %s, a VECTOR of %d %s needs fixed[%d]%s", PropColumns, d.Column, f.ID, f.Type, d.Dim, d.Element, want, listAlternative(d))
}

func listAlternative(d vector.Declaration) string {
	switch d.Element {
	case vector.Float32:
		return " (or list<float> in the list and vector-repetition layouts)"
	case vector.Float64:
		return " (or list<double> in the list and vector-repetition layouts)"
	}
	return ""
}
