package jsonrow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// ReadVariantLines reads one variant value per non-blank line of r (JSON
// Lines) and calls fn with each and its line (from 1). With member empty a
// line is the value; otherwise a line is a JSON object and the value is its
// member, a zero variant.Value (a SQL NULL) when the object lacks it. Values
// parse as ParseVariant parses them, nesting limit included. A line that
// does not parse, or a read error, stops the read with a *LineError; an
// error of fn stops it and is returned as it is. Lines may be of any length,
// as for ReadJSONLines.
func ReadVariantLines(r io.Reader, member string, fn func(line int, v variant.Value) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if text := bytes.TrimSpace(b); len(text) != 0 {
			v, perr := variantOfLine(text, member)
			if perr != nil {
				return &LineError{line, perr}
			}
			if ferr := fn(line, v); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &LineError{line, err}
		}
	}
}

// variantOfLine is the value of one line: the line, or its member.
func variantOfLine(b []byte, member string) (variant.Value, error) {
	if member != "" {
		// encoding/json checks the whole line, and its nesting, first.
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			return variant.Value{}, fmt.Errorf("not a JSON object with member %q: %w", member, err)
		}
		m, ok := obj[member]
		if !ok {
			return variant.Value{}, nil
		}
		b = m
	}
	return ParseVariant(b)
}
