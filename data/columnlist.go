package data

import "strings"

// ParseColumnList parses a column-list property (write.parquet.file-columns
// and every column binding's property): comma-separated column names,
// trimmed; blank entries are skipped. The format's bindings and the schema
// forms read the same value, so they share this one parser.
func ParseColumnList(list string) []string {
	var out []string
	for _, part := range strings.Split(list, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
