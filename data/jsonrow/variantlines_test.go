package jsonrow

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// text is a value as its JSON, or NULL for a SQL NULL (the zero Value).
func text(v variant.Value) string {
	if v.Bytes() == nil {
		return "NULL"
	}
	return v.String()
}

func TestReadVariantLines(t *testing.T) {
	const input = `{"p": {"b": "x", "a": 1}, "other": [1]}` + "\n\n" +
		`{"p": null}` + "\r\n" + `{"q": 2}` + "\n   \n" + `{"p": [1, true]}` // no final newline
	for _, tt := range []struct {
		name, in, member string
		want             []string // text of each value
		lines            []int
	}{
		{"member", input, "p", []string{`{"a":1,"b":"x"}`, "null", "NULL", "[1,true]"}, []int{1, 3, 4, 6}},
		{"whole lines", "1\n\"s\"\nnull\n{\"x\":1.5}\n", "", []string{"1", `"s"`, "null", `{"x":1.5}`}, []int{1, 2, 3, 4}},
		{"null line with a member", "null\n", "p", []string{"NULL"}, []int{1}},
		{"empty", "", "p", nil, nil},
		{"blank lines only", "\n \n\t\n", "", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var lines []int
			err := ReadVariantLines(strings.NewReader(tt.in), tt.member, func(line int, v variant.Value) error {
				got, lines = append(got, text(v)), append(lines, line)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") || len(lines) != len(tt.lines) {
				t.Fatalf("values %q at lines %v, want %q at %v", got, lines, tt.want, tt.lines)
			}
			for i := range lines {
				if lines[i] != tt.lines[i] {
					t.Errorf("value %d at line %d, want %d", i, lines[i], tt.lines[i])
				}
			}
		})
	}
}

func TestReadVariantLinesErrors(t *testing.T) {
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	for _, tt := range []struct {
		name, in, member string
		line, before     int // the error's line, the values before it
		want             string
	}{
		{"not JSON", "1\n{bad\n", "", 2, 1, "not JSON at offset 1: invalid character 'b'"},
		{"not an object", `{"p":1}` + "\n[1]\n", "p", 2, 1, `not a JSON object with member "p": json: cannot unmarshal array`},
		{"bad member", `{"p":"\ud800"}` + "\n" + `{"p": 1e999}`, "p", 2, 1, "1e999"},
		{"too deep", "1\n\n" + deep + "\n", "", 3, 1, "exceeded max depth"},
		{"too deep in a member", `{"p":` + deep + `}`, "p", 1, 0, `not a JSON object with member "p": invalid character '[' exceeded max depth`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			err := ReadVariantLines(strings.NewReader(tt.in), tt.member, func(int, variant.Value) error { n++; return nil })
			var le *LineError
			if !errors.As(err, &le) || le.Line != tt.line || !strings.Contains(le.Err.Error(), tt.want) {
				t.Fatalf("error %v, want a LineError at line %d containing %q", err, tt.line, tt.want)
			}
			if n != tt.before {
				t.Errorf("%d values before the error, want %d", n, tt.before)
			}
		})
	}
	stop := errors.New("stop")
	n := 0
	err := ReadVariantLines(strings.NewReader("1\n2\n3\n"), "", func(int, variant.Value) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("fn's error: got %v after %d values, want it as it is after 2", err, n)
	}
}
