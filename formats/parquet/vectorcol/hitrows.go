package vectorcol

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// HitRows reads the columns of spec (the file's schema narrowed to the
// columns wanted, its registered types declared) for the rows a search
// returned, as JSON objects in data/jsonrow's form, keyed by row position.
// It is one registry read of the Parquet file with spec's schema projected,
// stopped after the last hit; positions are the read's order, the file's
// rows from the first, as the block scan's result ids are. A hit past the
// file's end is an error, never a missing row. shown names the file in
// errors.
func HitRows(in registry.InputFile, shown string, spec *schemaspec.Spec, res [][]vector.Result) (map[int64]json.RawMessage, error) {
	want := map[int64]bool{}
	last := int64(-1)
	for _, rs := range res {
		for _, r := range rs {
			want[r.ID] = true
			last = max(last, r.ID)
		}
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
			// AppendJSON copies what it needs: rec is reused by the next row.
			if out[pos], err = codec.AppendJSON(nil, rec); err != nil {
				return nil, fmt.Errorf("%s: row %d: %w", shown, pos, err)
			}
		}
	}
	return out, nil
}
