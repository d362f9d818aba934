package jsonrow

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// node is one parsed JSON value. Objects keep their keys in order, because
// map values are written in the order given; raw is the value's own text,
// which a VARIANT column hands to the variant encoder unchanged.
type node struct {
	kind  kind
	text  string // kString: the decoded string; kNumber: the literal
	keys  []string
	elems []*node // kArray elements, or kObject values (beside keys)
	raw   []byte
	// shallow is a value scanned past, not into: raw and kind only (a
	// registered type's column, whose codec reads raw itself).
	shallow bool
}

type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

func (k kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// parseJSON parses one JSON text. encoding/json checks the syntax first
// (and words the error); the scan below then trusts it.
func parseJSON(b []byte) (*node, error) {
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	s := scanner{b: b}
	s.space()
	return s.value()
}

// parseRow parses one JSON text as parseJSON does, except that the values
// of the top-level keys shallow names are scanned past (node.shallow): a
// VECTOR's numbers are read once, by its codec, not also into nodes.
func parseRow(b []byte, shallow func(key string) bool) (*node, error) {
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	s := scanner{b: b, shallow: shallow}
	s.space()
	return s.value()
}

// checkJSON is the check a JSON text passes before the lab parses it into
// a value (a lab write row, a lab variant analyze line): encoding/json's
// syntax check, which also refuses nesting deeper than its limit (10000)
// as it scans, at the first level too deep. The parsers that follow
// recurse once per level; arrow-go's variant parser takes seconds and
// hundreds of megabytes on a line nested 400,000 deep.
func checkJSON(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v any
	err := json.Unmarshal(b, &v) // fails in the same check, with the words
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax): // Offset counts the bytes read, the bad one last
		return fmt.Errorf("not JSON at offset %d: %w", max(syntax.Offset-1, 0), err)
	case err == nil:
		err = errors.New("invalid JSON")
	}
	return fmt.Errorf("not JSON: %w", err)
}

// ParseVariant parses one JSON text into a variant value, as lab write
// does for a VARIANT column: the text passes checkJSON, and with it the
// nesting limit, before arrow-go's parser builds anything.
func ParseVariant(b []byte) (variant.Value, error) {
	if err := checkJSON(b); err != nil {
		return variant.Value{}, err
	}
	return variant.ParseJSONBytes(b, false)
}

type scanner struct {
	b   []byte
	pos int
	// shallow, when set, picks the top-level object's members to skip; it
	// is cleared once the top-level value starts.
	shallow func(key string) bool
}

func (s *scanner) space() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value() (*node, error) {
	start := s.pos
	n := &node{}
	shallow := s.shallow
	s.shallow = nil
	switch c := s.b[s.pos]; {
	case c == '{':
		n.kind = kObject
		s.pos++
		s.space()
		if s.b[s.pos] == '}' {
			s.pos++
			break
		}
		for {
			s.space()
			key, err := s.str()
			if err != nil {
				return nil, err
			}
			s.space()
			s.pos++ // ':'
			s.space()
			var v *node
			if shallow != nil && shallow(key) {
				v = s.skip()
			} else if v, err = s.value(); err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.elems = append(n.elems, v)
			s.space()
			c := s.b[s.pos]
			s.pos++
			if c == '}' {
				break
			}
		}
	case c == '[':
		n.kind = kArray
		s.pos++
		s.space()
		if s.b[s.pos] == ']' {
			s.pos++
			break
		}
		for {
			s.space()
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			s.space()
			c := s.b[s.pos]
			s.pos++
			if c == ']' {
				break
			}
		}
	case c == '"':
		n.kind = kString
		str, err := s.str()
		if err != nil {
			return nil, err
		}
		n.text = str
	case c == 't':
		n.kind, n.text = kBool, "true"
		s.pos += 4
	case c == 'f':
		n.kind, n.text = kBool, "false"
		s.pos += 5
	case c == 'n':
		n.kind = kNull
		s.pos += 4
	default:
		n.kind = kNumber
		for s.pos < len(s.b) && isNumberByte(s.b[s.pos]) {
			s.pos++
		}
		n.text = string(s.b[start:s.pos])
	}
	n.raw = s.b[start:s.pos]
	return n, nil
}

// skip scans past one value of text already checked, returning a shallow
// node with its kind and raw text.
func (s *scanner) skip() *node {
	start := s.pos
	n := &node{shallow: true}
	switch c := s.b[s.pos]; c {
	case '{', '[':
		n.kind = kArray
		if c == '{' {
			n.kind = kObject
		}
		for depth := 0; ; {
			switch s.b[s.pos] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.pos++
			if depth == 0 {
				break
			}
		}
	case '"':
		n.kind = kString
		s.skipString()
	default:
		switch c {
		case 't', 'f':
			n.kind = kBool
		case 'n':
			n.kind = kNull
		default:
			n.kind = kNumber
		}
		for s.pos < len(s.b) && s.b[s.pos] != ',' && s.b[s.pos] != '}' && s.b[s.pos] != ']' &&
			s.b[s.pos] != ' ' && s.b[s.pos] != '\t' && s.b[s.pos] != '\r' && s.b[s.pos] != '\n' {
			s.pos++
		}
	}
	n.raw = s.b[start:s.pos]
	return n
}

// skipString scans past a string token.
func (s *scanner) skipString() {
	s.pos++
	for s.b[s.pos] != '"' {
		if s.b[s.pos] == '\\' {
			s.pos++
		}
		s.pos++
	}
	s.pos++
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str reads a string token; only strings with escapes go through
// encoding/json.
func (s *scanner) str() (string, error) {
	start := s.pos
	s.pos++
	escaped := false
	for s.b[s.pos] != '"' {
		if s.b[s.pos] == '\\' {
			escaped = true
			s.pos++
		}
		s.pos++
	}
	s.pos++
	tok := s.b[start:s.pos]
	// encoding/json would replace invalid UTF-8 with U+FFFD: a silent change.
	if !utf8.Valid(tok) {
		return "", fmt.Errorf("string %.40q is not valid UTF-8", tok)
	}
	if !escaped {
		return string(tok[1 : len(tok)-1]), nil
	}
	var out string
	if err := json.Unmarshal(tok, &out); err != nil {
		return "", err
	}
	return out, nil
}
