package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// WriteText renders the report for people: a header, the schema tree, the
// annotations, the row groups with one line per column chunk (and a line
// saying which ones the report leaves out), and the key/value metadata,
// each in aligned columns, within TextWidth where the file allows.
func (r *Report) WriteText(w io.Writer) error {
	// tabwriter writes cell by cell: unbuffered, a report of thousands of
	// row groups to a terminal or file is millions of system calls.
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	name := r.File
	if name == "" {
		name = "(unnamed)"
	}
	createdBy := "(not set)"
	if r.CreatedBy != nil {
		createdBy = *r.CreatedBy
	}
	tw := table(ew)
	fmt.Fprintf(tw, "file\t%s\n", name)
	fmt.Fprintf(tw, "size\t%d bytes; footer %d bytes at offset %d\n", r.Size, r.FooterLength, r.FooterOffset)
	fmt.Fprintf(tw, "created by\t%s\n", createdBy)
	fmt.Fprintf(tw, "version\t%d\n", r.Version)
	groups := max(r.NumRowGroups, len(r.RowGroups))
	fmt.Fprintf(tw, "rows\t%d in %d row group%s, %d column%s\n", r.NumRows, groups, plural(groups), r.NumColumns, plural(r.NumColumns))
	if r.Encrypted {
		fmt.Fprintf(tw, "encrypted\tyes (plaintext footer)\n")
	}
	if len(r.ColumnOrders) > 0 {
		fmt.Fprintf(tw, "column orders\t%s\n", summarizeOrders(r.ColumnOrders))
	}
	fmt.Fprintf(tw, "VECTOR id\t%d\n", r.VectorID)
	tw.Flush()

	fmt.Fprintf(ew, "\nschema\n")
	tw = table(ew)
	// Annotation and details share the last cell: one node's long
	// annotation (a VECTOR's parameters) and another's long details would
	// otherwise add up to a line wider than either.
	fmt.Fprintf(tw, "  name\trepetition\ttype\tannotation; details\n")
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		last := annotationText(n)
		if d := nodeDetails(n); d != "" && last != "" {
			last += "; " + d
		} else if d != "" {
			last = d
		}
		fmt.Fprintf(tw, "  %s%s\t%s\t%s\t%s\n", strings.Repeat("  ", depth), n.Name,
			dash(strings.ToLower(n.Repetition)), dash(nodeType(n)), dash(last))
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(r.Schema, 0)
	tw.Flush()

	if len(r.Annotations) > 0 {
		fmt.Fprintf(ew, "\nextension annotations\n")
		tw = table(ew)
		fmt.Fprintf(tw, "  column\tkind\tid\tdetails\tfound in\n")
		for _, a := range r.Annotations {
			var details []string
			if a.Element != "" {
				details = append(details, "element "+a.Element)
			}
			if a.VectorLength > 0 {
				details = append(details, fmt.Sprintf("dim %d", a.VectorLength))
			}
			if a.VectorRepetition {
				details = append(details, "vector repetition")
			}
			var where []string
			if a.InFooter {
				where = append(where, "schema")
			}
			if a.InKeyValue {
				where = append(where, "mirror")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", strings.Join(a.Path, "."), a.Kind, a.ID,
				dash(strings.Join(details, ", ")), strings.Join(where, "+"))
		}
		tw.Flush()
	}

	for _, rg := range r.RowGroups {
		fmt.Fprintf(ew, "\nrow group %d: %d rows, total_byte_size %d", rg.Index, rg.NumRows, rg.TotalByteSize)
		if rg.TotalCompressedSize != nil {
			fmt.Fprintf(ew, ", total_compressed_size %d", *rg.TotalCompressedSize)
		}
		if rg.FileOffset != nil {
			fmt.Fprintf(ew, ", file_offset %d", *rg.FileOffset)
		}
		if rg.Ordinal != nil {
			fmt.Fprintf(ew, ", ordinal %d", *rg.Ordinal)
		}
		fmt.Fprintln(ew)
		// Statistics get a table of their own: with the sizes on one line a
		// chunk does not fit a terminal, whatever its bounds are cut to. The
		// physical type is the schema's, shown there with its length (a
		// chunk whose type differs is a warning): with it, a chunk of
		// BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY pages was 116 columns.
		tw = table(ew)
		fmt.Fprintf(tw, "  column\tcodec\tencodings\tvalues\tcompressed\tuncompressed\tpage index\tbloom\n")
		var withStats []ColumnChunk
		for _, c := range rg.Columns {
			if c.NoMetaData {
				state := "no metadata"
				if c.Encrypted {
					state = "encrypted column metadata"
				}
				fmt.Fprintf(tw, "  ?\t%s\t\t\t\t\t%s\t\n", state, pageIndex(c))
				continue
			}
			if c.Statistics != nil {
				withStats = append(withStats, c)
			}
			bloom := "-"
			if c.BloomFilter != nil {
				bloom = fmt.Sprintf("@%d", c.BloomFilter.Offset)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", strings.Join(c.Path, "."),
				c.Codec, strings.Join(c.Encodings, ","), c.NumValues,
				c.TotalCompressedSize, c.TotalUncompressedSize, pageIndex(c), bloom)
		}
		tw.Flush()
		if len(withStats) == 0 {
			continue
		}
		fmt.Fprintf(ew, "  statistics\n")
		tw = table(ew)
		fmt.Fprintf(tw, "    column\tnulls\tmin\tmax\n")
		for _, c := range withStats {
			s := c.Statistics
			nulls := "-"
			if s.NullCount != nil {
				nulls = strconv.FormatInt(*s.NullCount, 10)
			}
			minV, maxV := s.textBounds()
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", strings.Join(c.Path, "."), nulls, minV, maxV)
		}
		tw.Flush()
	}
	if r.RowGroupsOmitted > 0 {
		fmt.Fprintf(ew, "\n%s\n", r.omittedLine())
	}

	fmt.Fprintf(ew, "\nkey/value metadata")
	if len(r.KeyValue) == 0 {
		fmt.Fprintf(ew, ": none\n")
	} else {
		fmt.Fprintln(ew)
		keys := 0
		for _, kv := range r.KeyValue {
			keys = max(keys, utf8.RuneCountInString(kv.Key))
		}
		// The values share what the widest key leaves of a line: the mirror
		// and iceberg.schema are JSON of hundreds of bytes.
		room := max(TextWidth-len("  ")-keys-len("  "), textValueWidth)
		tw = table(ew)
		for _, kv := range r.KeyValue {
			v := "(no value)"
			if kv.Value != nil {
				v = keyValueText(*kv.Value, kv.Truncated, kv.Length, room)
			}
			fmt.Fprintf(tw, "  %s\t%s\n", kv.Key, v)
		}
		tw.Flush()
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(ew, "warning: %s\n", w)
	}
	if ew.err == nil {
		ew.err = bw.Flush()
	}
	return ew.err
}

// omittedLine says which row groups the report leaves out and how to see
// them, e.g. "row groups 20-99999 not shown (99980 of 100000): ...".
func (r *Report) omittedLine() string {
	span := func(a, b int) string {
		if a == b {
			return strconv.Itoa(a)
		}
		return fmt.Sprintf("%d-%d", a, b)
	}
	var parts []string
	if len(r.RowGroups) == 0 {
		parts = append(parts, span(0, r.NumRowGroups-1))
	} else {
		if first := r.RowGroups[0].Index; first > 0 {
			parts = append(parts, span(0, first-1))
		}
		if last := r.RowGroups[len(r.RowGroups)-1].Index; last < r.NumRowGroups-1 {
			parts = append(parts, span(last+1, r.NumRowGroups-1))
		}
	}
	noun := "row groups"
	if r.RowGroupsOmitted == 1 {
		noun = "row group"
	}
	return fmt.Sprintf("%s %s not shown (%d of %d): --row-groups all shows every one, --row-groups FIRST-LAST a range",
		noun, strings.Join(parts, " and "), r.RowGroupsOmitted, r.NumRowGroups)
}

// textBounds are the statistics' min and max as the text view shows them
// (textBound), marked when they come from the deprecated min/max fields.
func (s *Statistics) textBounds() (minV, maxV string) {
	minV, maxV = textBound(s.Min, s.minText, s.minBytes), textBound(s.Max, s.maxText, s.maxBytes)
	if s.LegacyMinMax {
		minV, maxV = minV+" (legacy)", maxV+" (legacy)"
	}
	return minV, maxV
}

// textBound is one bound as the text view shows it, in a column index as
// in statistics: as the column's registered type formats it (typed) when
// it does, else the display string cut by textValue (n is its encoded
// length); "-" for none.
func textBound(display, typed string, n int) string {
	if typed != "" {
		return textValue(typed, 0)
	}
	return dash(textValue(display, n))
}

// keyValueText is a key/value value as a Go string literal of at most room
// columns: a value cut by the report (truncated) or too long for room is
// cut to whole characters (and whole escapes) and ends in its length in
// bytes, e.g. `"{\"type\":\"struct\""… (179 bytes)`.
func keyValueText(v string, truncated bool, length, room int) string {
	if truncated {
		v = strings.TrimSuffix(v, "…")
	} else if q := strconv.Quote(v); utf8.RuneCountInString(q) <= room {
		return q
	}
	suffix := fmt.Sprintf("… (%d bytes)", length)
	keep := room - utf8.RuneCountInString(suffix) - len(`""`)
	var b strings.Builder
	b.WriteByte('"')
	for i, n := 0, 0; i < len(v); {
		_, size := utf8.DecodeRuneInString(v[i:])
		q := strconv.Quote(v[i : i+size])
		q = q[1 : len(q)-1]
		if n += utf8.RuneCountInString(q); n > keep {
			break
		}
		b.WriteString(q)
		i += size
	}
	b.WriteByte('"')
	return b.String() + suffix
}

// TextWidth is the line width the text view keeps to where it can: a
// report of a 768-dim VECTOR file written by the lab fits it, as lab pages
// does. Key/value values are cut to it; a schema line of long names or
// deep nesting, or a long created_by, may still be wider.
const TextWidth = 107

// textValueWidth is the most columns a statistics value takes in the text
// view: two of them and a column path fit a terminal line.
const textValueWidth = 36

// textValue cuts a statistics rendering longer than textValueWidth to its
// start and the encoded length, e.g. "0x00000000000000000000… (3072 bytes)":
// a VECTOR bound in hex is thousands of columns. Hex keeps whole bytes.
// n is the encoded length; 0 (a report read back from JSON) leaves it out.
func textValue(s string, n int) string {
	if utf8.RuneCountInString(s) <= textValueWidth {
		return s
	}
	suffix := "…"
	if n > 0 {
		suffix = fmt.Sprintf("… (%d bytes)", n)
	}
	keep := textValueWidth - utf8.RuneCountInString(suffix)
	if strings.HasPrefix(s, "0x") {
		keep -= keep % 2 // "0x" and pairs of digits
	}
	cut, _ := truncate(s, keep)
	return strings.TrimSuffix(cut, "…") + suffix
}

func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// nodeType is the physical type of a leaf ("FIXED_LEN_BYTE_ARRAY(16)") or
// "group".
func nodeType(n *Node) string {
	if !n.IsLeaf() {
		return "group"
	}
	if n.TypeLength != nil && n.PhysicalType == "FIXED_LEN_BYTE_ARRAY" {
		return fmt.Sprintf("%s(%d)", n.PhysicalType, *n.TypeLength)
	}
	return n.PhysicalType
}

// annotationText is the logical type, with the converted type when it says
// something the logical type does not.
func annotationText(n *Node) string {
	var parts []string
	if n.LogicalType != nil {
		parts = append(parts, logicalTypeText(n.LogicalType))
	}
	if n.ConvertedType != "" {
		if n.LogicalType == nil {
			parts = append(parts, n.ConvertedType+" (converted)")
		} else if n.ConvertedType != equivalentConverted(n.LogicalType) {
			parts = append(parts, "converted "+n.ConvertedType)
		}
	}
	return strings.Join(parts, "; ")
}

// logicalTypeText is the logical type as the text view shows it: its Text,
// but the parameters of an annotation that has them (Vector: the footer's
// VECTOR member, read from the schema and the mirror) as its values' bounds
// show them, "VECTOR(id=20, 768×float32, flba)", not "VECTOR(id=20,
// element=float32, dim=768, layout=flba)", so that a 768-dim
// FIXED_LEN_BYTE_ARRAY(3072) leaf's schema line fits TextWidth beside its
// physical type and field id. It keys on the parameters, not on the type's
// name, so every other annotation (FILE, a registered type) shows its Text.
// The JSON report keeps Text and the parameters one by one (Vector).
func logicalTypeText(lt *LogicalType) string {
	v := lt.Vector
	if v == nil {
		return lt.Text
	}
	parts := []string{fmt.Sprintf("id=%d", lt.ID)}
	switch {
	case v.Element != "" && v.Dim > 0:
		parts = append(parts, fmt.Sprintf("%d×%s", v.Dim, v.Element))
	case v.Element != "":
		parts = append(parts, "element="+v.Element)
	case v.Dim > 0:
		parts = append(parts, fmt.Sprintf("dim=%d", v.Dim))
	}
	if v.Layout != "" {
		parts = append(parts, v.Layout)
	}
	return lt.Name + "(" + strings.Join(parts, ", ") + ")"
}

func nodeDetails(n *Node) string {
	var parts []string
	if n.FieldID != nil {
		parts = append(parts, fmt.Sprintf("field_id=%d", *n.FieldID))
	}
	if n.VectorLength != nil {
		parts = append(parts, fmt.Sprintf("vector_length=%d", *n.VectorLength))
	}
	if n.TypeLength != nil && n.PhysicalType != "FIXED_LEN_BYTE_ARRAY" {
		parts = append(parts, fmt.Sprintf("type_length=%d", *n.TypeLength))
	}
	if n.Column != nil {
		parts = append(parts, fmt.Sprintf("column %d", *n.Column))
	}
	return strings.Join(parts, " ")
}

func pageIndex(c ColumnChunk) string {
	var parts []string
	if c.ColumnIndex != nil {
		parts = append(parts, "column")
	}
	if c.OffsetIndex != nil {
		parts = append(parts, "offset")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "+")
}

func summarizeOrders(orders []string) string {
	same := true
	for _, o := range orders {
		same = same && o == orders[0]
	}
	if same {
		return fmt.Sprintf("%s (all %d)", orders[0], len(orders))
	}
	return strings.Join(orders, ", ")
}

// errWriter keeps the first write error so rendering code need not check
// each Fprintf.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// WriteJSON writes the report as indented JSON (see the package
// documentation for the field names), the bytes json.MarshalIndent would
// give. The row groups are encoded one at a time: encoding the report as
// one value builds the whole document, and an indented copy of it, in
// memory, which for 100,000 row groups was 750 MB.
func (r *Report) WriteJSON(w io.Writer) error {
	head := *r
	head.RowGroups = []RowGroup{}
	doc, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	// Only the top-level field sits at this indentation, and a newline in a
	// string is escaped, so this is the one place the row groups go.
	const empty = "\n  \"row_groups\": [],\n"
	at := bytes.Index(doc, []byte(empty))
	if at < 0 {
		return errors.New("inspect: report JSON has no row_groups field")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	if len(r.RowGroups) == 0 {
		ew.Write(doc)
	} else {
		ew.Write(doc[:at])
		io.WriteString(ew, "\n  \"row_groups\": [\n")
		for i := range r.RowGroups {
			rg, err := json.MarshalIndent(&r.RowGroups[i], "    ", "  ")
			if err != nil {
				return err
			}
			io.WriteString(ew, "    ")
			ew.Write(rg)
			if i < len(r.RowGroups)-1 {
				io.WriteString(ew, ",")
			}
			io.WriteString(ew, "\n")
		}
		io.WriteString(ew, "  ],\n")
		ew.Write(doc[at+len(empty):])
	}
	io.WriteString(ew, "\n")
	if ew.err != nil {
		return ew.err
	}
	return bw.Flush()
}
