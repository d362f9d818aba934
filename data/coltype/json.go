package coltype

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The JSON conventions every codec shares, so a number reads and prints the
// same in a VECTOR as in a float column (data/jsonrow uses them too). The
// texts they take are valid JSON (a row passed encoding/json's check).

// NonFinite are the strings that stand for the floats JSON numbers cannot
// write (the convention of Protocol Buffers' and Avro's JSON encodings).
var NonFinite = []string{"NaN", "Infinity", "-Infinity"}

// DescribeJSON names a JSON value for errors: "a number 1.5", "a string
// \"x\"", "an array".
func DescribeJSON(text []byte) string {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return "nothing"
	}
	switch c := text[0]; {
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean " + string(text)
	case c == '"':
		s, _ := JSONString(text)
		return fmt.Sprintf("a string %.40q", s)
	case c == '[':
		return "an array"
	case c == '{':
		return "an object"
	}
	return "a number " + string(text)
}

// WantJSON is the error for a JSON value that is not what was wanted.
func WantJSON(what string, text []byte) error {
	return fmt.Errorf("want %s, got %s", what, DescribeJSON(text))
}

// JSONString decodes a JSON string token; ok is false for any other value.
func JSONString(text []byte) (string, bool) {
	text = bytes.TrimSpace(text)
	if len(text) < 2 || text[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(text, '\\') < 0 {
		return string(text[1 : len(text)-1]), true
	}
	var s string // only here: a named result would be on the heap for every call
	if json.Unmarshal(text, &s) != nil {
		return "", false
	}
	return s, true
}

func isNumber(text []byte) bool {
	return len(text) > 0 && (text[0] == '-' || '0' <= text[0] && text[0] <= '9')
}

// ParseJSONFloat reads a float of the given size (32 or 64) named name:
// a JSON number, or one of the NonFinite strings.
func ParseJSONFloat(text []byte, bits int, name string) (float64, error) {
	text = bytes.TrimSpace(text)
	if s, ok := JSONString(text); ok {
		return ParseNonFinite(s)
	}
	if !isNumber(text) {
		return 0, WantJSON("a number", text)
	}
	if bytes.ContainsAny(text, "iInN") { // ParseFloat's own "inf", "nan"
		return 0, fmt.Errorf("%s is not a number", text)
	}
	// string(text) does not escape, so a VECTOR's elements parse without
	// allocating; the errors take their own copy.
	v, err := strconv.ParseFloat(string(text), bits)
	if err != nil {
		return floatError(string(text), v, err, name)
	}
	return v, nil
}

// ParseNonFinite reads the string of a float that a JSON number cannot
// write: one of NonFinite.
func ParseNonFinite(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	return 0, fmt.Errorf(`%q is not a number (non-finite values are "NaN", "Infinity", "-Infinity")`, s)
}

// ParseFloatText reads the text of a JSON number (or of a CSV cell that
// holds one) as a float of the given size.
func ParseFloatText(s string, bits int, name string) (float64, error) {
	if strings.ContainsAny(s, "iInN") { // ParseFloat's own "inf", "nan"
		return 0, fmt.Errorf("%s is not a number", s)
	}
	v, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return floatError(s, v, err, name)
	}
	return v, nil
}

func floatError(s string, v float64, err error, name string) (float64, error) {
	if errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0) {
		return v, nil // underflow rounds toward zero, as any float parse does
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is out of range for %s", s, name)
	}
	return 0, fmt.Errorf("%s is not a number", s)
}

// ParseJSONInt reads a whole number of the given size named name.
func ParseJSONInt(text []byte, bits int, name string) (int64, error) {
	text = bytes.TrimSpace(text)
	if !isNumber(text) {
		return 0, WantJSON("an integer", text)
	}
	v, err := strconv.ParseInt(string(text), 10, bits)
	if err != nil {
		return intError(string(text), err, name)
	}
	return v, nil
}

// ParseIntText reads the text of a JSON number as a whole number.
func ParseIntText(s string, bits int, name string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return intError(s, err, name)
	}
	return v, nil
}

func intError(s string, err error, name string) (int64, error) {
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is out of range for %s", s, name)
	}
	return 0, fmt.Errorf("%s is not an integer (%s holds whole numbers)", s, name)
}

// AppendJSONFloat writes the shortest decimal that reads back to the same
// float of the given size, as encoding/json does, and the non-finite
// values as strings.
func AppendJSONFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// 1e-07 -> 1e-7, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// JSONArray splits a JSON array into its elements' texts; ok is false for
// any other value. The text must be valid JSON.
func JSONArray(text []byte) (elems [][]byte, ok bool) {
	text = bytes.TrimSpace(text)
	if len(text) < 2 || text[0] != '[' {
		return nil, false
	}
	body := text[1 : len(text)-1]
	if len(bytes.TrimSpace(body)) == 0 {
		return [][]byte{}, true
	}
	depth, start, inString := 0, 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				elems = append(elems, bytes.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	return append(elems, bytes.TrimSpace(body[start:])), true
}

// IsJSONNull reports whether a JSON text is null.
func IsJSONNull(text []byte) bool { return string(bytes.TrimSpace(text)) == "null" }
