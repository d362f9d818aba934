package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// hitRows reads the named columns (dotted for nested fields) of the rows
// that are hits, as JSON objects in lab read's form, keyed by row position.
// One record read with only those columns projected, stopped after the last
// hit; positions are the read's order, the file's rows from the first.
func hitRows(in registry.InputFile, shown string, columns []string, res [][]vector.Result) (map[int64]json.RawMessage, error) {
	want := map[int64]bool{}
	last := int64(-1)
	for _, rs := range res {
		for _, r := range rs {
			want[r.ID] = true
			last = max(last, r.ID)
		}
	}
	spec, err := readFileSpec(in, shown, registry.PARQUET, nil)
	if err != nil {
		return nil, err
	}
	if spec, err = selectColumns(spec, shown, columns); err != nil {
		return nil, err
	}
	codec, err := jsonrow.New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		return nil, err
	}
	r, err := b.Project(spec.Schema).ReuseContainers().Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	defer r.Close()
	out := make(map[int64]json.RawMessage, len(want))
	for pos := int64(0); pos <= last; pos++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: row %d was a hit but the file ends at row %d", shown, last, pos)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", shown, pos, err)
		}
		if want[pos] {
			if out[pos], err = codec.AppendJSON(nil, rec); err != nil {
				return nil, fmt.Errorf("%s: row %d: %w", shown, pos, err)
			}
		}
	}
	return out, nil
}
