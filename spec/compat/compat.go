// Package compat computes the compatibility matrix: every golden file
// (spec/golden) and parquet-testing's unknown-logical-type.parquet, read by
// every reader (parquet-go and arrow-go in process, arrow-go through the
// lab's guard, DuckDB, hyparquet and parquet-wasm as peer processes), each
// outcome classed by comparing the values the reader returned with the
// golden sidecar's expected values, never by the mere absence of an error.
//
// spec/COMPAT.md defines the classes and the decision rules; Classify is
// their implementation.
package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/spec/golden"
)

// Class is the outcome of one reader on one case.
type Class string

const (
	// Typed: the values match the type's meaning and the reader shows the
	// type (a VECTOR as numbers, a FILE column reported as FILE, a VARIANT
	// decoded).
	Typed Class = "typed"
	// Physical: the values match the physical layout (or the meaning,
	// without the reader showing the type).
	Physical Class = "physical"
	// Error: the reader refused the file with an error.
	Error Class = "error"
	// Crash: a panic, a process killed or exiting abnormally, a hang, or
	// output that is not a result.
	Crash Class = "crash"
	// Wrong: the reader returned values that match neither.
	Wrong Class = "wrong"
)

// Classes lists the classes, best first.
func Classes() []Class { return []Class{Typed, Physical, Error, Crash, Wrong} }

// Column is a top-level column as a reader reports it; Type is the
// reader's own spelling. It is the peers' column, which the Go readers
// fill too.
type Column = peers.Column

// Output is what a reader returned: its columns and every row in the
// common JSON form (numbers as json.Number after normalise).
type Output struct {
	Columns []Column
	Rows    []map[string]any
}

// CrashError is a reader failure that is not a clean error: a recovered
// panic, a process that died or hung, garbage on stdout.
type CrashError struct {
	Reader string
	Detail string
}

func (e *CrashError) Error() string { return "reader " + e.Reader + " crashed: " + e.Detail }

// Case is one file of the matrix with its expected values.
type Case struct {
	// ID names the row of the matrix: kind/case, or parquet-testing/<name>.
	ID   string `json:"id"`
	Path string `json:"path"`
	// Column and Annotation as in golden.Sidecar.
	Column       string           `json:"column"`
	Annotation   string           `json:"annotation,omitempty"`
	Rows         []map[string]any `json:"-"`
	PhysicalRows []map[string]any `json:"-"`
}

// Cell is one outcome: its class and a short note (the error's first
// words, the first differing value, the type the reader showed).
type Cell struct {
	Class Class  `json:"class"`
	Note  string `json:"note,omitempty"`
}

// Matrix holds the outcomes of readers × cases.
type Matrix struct {
	Readers []string `json:"readers"`
	Cases   []string `json:"cases"`
	// Cells[case][reader].
	Cells map[string]map[string]Cell `json:"cells"`
}

// Classes returns the matrix's classes alone, the part the expected
// matrix pins.
func (m *Matrix) Classes() map[string]map[string]Class {
	out := map[string]map[string]Class{}
	for c, row := range m.Cells {
		out[c] = map[string]Class{}
		for r, cell := range row {
			out[c][r] = cell.Class
		}
	}
	return out
}

// Cases loads the golden cases under goldenDir and, when parquetTesting is
// not empty, parquet-testing's unknown-logical-type file under it.
func Cases(goldenDir, parquetTesting string) ([]Case, error) {
	goldenDir, err := filepath.Abs(goldenDir)
	if err != nil {
		return nil, err
	}
	gcs, err := golden.Load(goldenDir)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, g := range gcs {
		cases = append(cases, Case{ID: g.ID(), Path: g.Path, Column: g.Column, Annotation: g.Annotation, Rows: g.Rows, PhysicalRows: g.PhysicalRows})
	}
	if parquetTesting != "" {
		cases = append(cases, UnknownLogicalTypeCase(parquetTesting))
	}
	return cases, nil
}

// UnknownLogicalTypeCase is parquet-testing's data/unknown-logical-type.parquet:
// a STRING column and a BYTE_ARRAY column whose LogicalType is a union
// member no reader knows. Its values are the file's (three rows, "known
// string N" and the bytes of "unknown string N"); with no meaning to apply,
// the best a reader can do is the physical bytes.
func UnknownLogicalTypeCase(parquetTesting string) Case {
	c := Case{ID: "parquet-testing/unknown-logical-type", Path: filepath.Join(parquetTesting, "data", "unknown-logical-type.parquet"),
		Column: "column with unknown type"}
	for i := 1; i <= 3; i++ {
		c.Rows = append(c.Rows, map[string]any{
			"column with known type":   fmt.Sprintf("known string %d", i),
			"column with unknown type": fmt.Sprintf("%x", fmt.Sprintf("unknown string %d", i)),
		})
	}
	return c
}

// Run reads every case with every reader and classes the outcomes. Each
// peer reader reads its cases one after another (one process per file,
// under the peer's time limit) while the readers run side by side; an
// unavailable reader fails the run, naming it.
func Run(ctx context.Context, cases []Case, readers []Reader) (*Matrix, error) {
	for _, r := range readers {
		if err := r.Available(); err != nil {
			return nil, err
		}
	}
	m := &Matrix{Cells: map[string]map[string]Cell{}}
	for _, c := range cases {
		m.Cases = append(m.Cases, c.ID)
		m.Cells[c.ID] = map[string]Cell{}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range readers {
		m.Readers = append(m.Readers, r.Name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs, errs := readAll(ctx, r, cases)
			mu.Lock()
			defer mu.Unlock()
			for i, c := range cases {
				m.Cells[c.ID][r.Name] = Classify(c, outs[i], errs[i])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

func readAll(ctx context.Context, r Reader, cases []Case) ([]*Output, []error) {
	if r.ReadBatch != nil {
		paths := make([]string, len(cases))
		for i, c := range cases {
			paths[i] = c.Path
		}
		return r.ReadBatch(ctx, paths)
	}
	outs, errs := make([]*Output, len(cases)), make([]error, len(cases))
	for i, c := range cases {
		outs[i], errs[i] = r.Read(ctx, c.Path)
	}
	return outs, errs
}

// normalise round-trips v through JSON so that in-process and peer
// outputs share one form: maps, slices, strings, bools, json.Number.
func normalise(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}

// Expected is the checked-in expected matrix: the class of every cell.
type Expected struct {
	Readers []string                    `json:"readers"`
	Cells   map[string]map[string]Class `json:"cells"`
}

// Diff lists the cells where m differs from want, one line each, naming
// case, reader, both classes and the note; cases or readers missing on
// either side count as differences.
func Diff(want Expected, m *Matrix) []string {
	var out []string
	got := m.Classes()
	ids := map[string]bool{}
	for id := range want.Cells {
		ids[id] = true
	}
	for id := range got {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		w, g := want.Cells[id], got[id]
		if w == nil {
			out = append(out, fmt.Sprintf("case %s: not in the expected matrix", id))
			continue
		}
		if g == nil {
			out = append(out, fmt.Sprintf("case %s: expected but not computed", id))
			continue
		}
		for _, r := range m.Readers {
			wc, ok := w[r]
			if !ok {
				out = append(out, fmt.Sprintf("case %s × reader %s: not in the expected matrix (got %s)", id, r, g[r]))
			} else if wc != g[r] {
				out = append(out, fmt.Sprintf("case %s × reader %s: got %s, want %s (%s)", id, r, g[r], wc, m.Cells[id][r].Note))
			}
		}
	}
	return out
}

// ExpectedOf is the expected matrix m would check in.
func ExpectedOf(m *Matrix) Expected {
	return Expected{Readers: m.Readers, Cells: m.Classes()}
}
