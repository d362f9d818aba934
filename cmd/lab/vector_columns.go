package main

import (
	"encoding/json"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// hitRows is lab vector search --columns: the named columns (dotted for
// nested fields) of the hit rows, in lab read's JSON form, keyed by row
// position. The columns are chosen as lab read chooses them, so an unknown
// one is the same usage error; vectorcol.HitRows reads the rows.
func hitRows(in registry.InputFile, shown string, columns []string, res [][]vector.Result) (map[int64]json.RawMessage, error) {
	spec, err := readFileSpec(in, shown, registry.PARQUET, nil)
	if err != nil {
		return nil, err
	}
	if spec, err = selectColumns(spec, shown, columns); err != nil {
		return nil, err
	}
	return vectorcol.HitRows(in, shown, spec, res)
}
