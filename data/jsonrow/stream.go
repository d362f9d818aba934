package jsonrow

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/coltype-lab/lab/data"
)

// LineError is input that does not read or decode, at Line (from 1). For
// CSV, Line is where the row starts: a quoted cell may span lines.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ReadJSONLines decodes one record per non-blank line of r (JSON Lines) and
// calls fn with each and its line. A line that does not decode, or a read
// error, stops the read with a *LineError; an error of fn stops it and is
// returned as it is. Lines may be of any length: a row holding a large
// VECTOR or inline FILE is one line.
func (c *Codec) ReadJSONLines(r io.Reader, fn func(line int, rec *data.Record) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) != 0 {
			rec, derr := c.DecodeJSON(b)
			if derr != nil {
				return &LineError{line, derr}
			}
			if ferr := fn(line, rec); ferr != nil {
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

// ReadCSV decodes a header row naming the columns (CSVHeader) and then one
// record per row (DecodeCSV), calling fn with each and the line it starts
// on. Errors are as for ReadJSONLines; input without a header row is one.
func (c *Codec) ReadCSV(r io.Reader, fn func(line int, rec *data.Record) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // DecodeCSV names the row with the wrong cell count
	cr.ReuseRecord = true
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &LineError{pe.Line, pe.Err}
		}
		return &LineError{1, err}
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return &LineError{1, errors.New("no header row: CSV input starts with a row naming the columns")}
	}
	if err != nil {
		return csvErr(err)
	}
	layout, err := c.CSVHeader(slices.Clone(header))
	if err != nil {
		return &LineError{1, err}
	}
	for {
		cells, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		rec, err := c.DecodeCSV(layout, cells)
		if err != nil {
			return &LineError{line, err}
		}
		if err := fn(line, rec); err != nil {
			return err
		}
	}
}
