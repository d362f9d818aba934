package jsonrow

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
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
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		if err == nil {
			err = fmt.Errorf("invalid JSON")
		}
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	s := scanner{b: b}
	s.space()
	return s.value()
}

type scanner struct {
	b   []byte
	pos int
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
			v, err := s.value()
			if err != nil {
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
