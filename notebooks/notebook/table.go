package notebook

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Column is one column of a Table: a text column (left-aligned) or a number
// column (right-aligned, formatted with Format).
type Column struct {
	Name    string
	Format  string // fmt verb for numbers, e.g. "%.2f"; empty for text
	numeric bool
}

// Text is a left-aligned text column.
func Text(name string) Column { return Column{Name: name} }

// Num is a right-aligned number column whose values are formatted with format.
func Num(name, format string) Column { return Column{Name: name, Format: format, numeric: true} }

// Table is a Markdown table whose number columns are right-aligned; its source
// is padded too, so the README reads as a table before it is rendered.
type Table struct {
	Columns []Column
	rows    [][]string
}

// NewTable starts a table with the given columns.
func NewTable(cols ...Column) *Table { return &Table{Columns: cols} }

// Row appends a row: one value per column, strings for text columns and
// numbers (any integer or float type) for number columns. A wrong count or
// type is an error naming the column, not a malformed table.
func (t *Table) Row(values ...any) error {
	if len(values) != len(t.Columns) {
		return fmt.Errorf("table row has %d values for %d columns (%s)", len(values), len(t.Columns), t.names())
	}
	row := make([]string, len(values))
	for i, v := range values {
		c := t.Columns[i]
		if !c.numeric {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("table column %q is text; got %T", c.Name, v)
			}
			row[i] = escapeCell(s)
			continue
		}
		switch v.(type) {
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
			row[i] = fmt.Sprintf(c.Format, v)
		default:
			return fmt.Errorf("table column %q is numeric; got %T", c.Name, v)
		}
	}
	t.rows = append(t.rows, row)
	return nil
}

// Rows is the number of rows added.
func (t *Table) Rows() int { return len(t.rows) }

func (t *Table) names() string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// Markdown renders the table, each column padded to its widest cell.
func (t *Table) Markdown() string {
	width := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		width[i] = max(utf8.RuneCountInString(escapeCell(c.Name)), 3)
		for _, r := range t.rows {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, s := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if t.Columns[i].numeric {
				b.WriteString(" " + pad + s + " |")
			} else {
				b.WriteString(" " + s + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	header := make([]string, len(t.Columns))
	rule := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		header[i] = escapeCell(c.Name)
		if c.numeric {
			rule[i] = strings.Repeat("-", width[i]-1) + ":"
		} else {
			rule[i] = strings.Repeat("-", width[i])
		}
	}
	line(header)
	line(rule)
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

// escapeCell keeps a cell on its line and inside its column.
func escapeCell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
