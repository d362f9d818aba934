// Command compat-matrix is the notebook of the compatibility matrix: every
// golden file of the lab's column types (and parquet-testing's
// unknown-logical-type file), read by every independent reader, each outcome
// classed by the values the reader returned (spec/COMPAT.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/notebooks/notebook"
	"github.com/coltype-lab/lab/spec/compat"
)

func main() { notebook.Main(run) }

// goldenDir is spec/golden of the source tree this notebook was built from.
func goldenDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if ok && filepath.IsAbs(file) {
		dir := filepath.Join(filepath.Dir(file), "..", "..", "spec", "golden")
		if _, err := os.Stat(dir); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("spec/golden not found: run the notebook from the lab's source tree (go run ./notebooks/compat-matrix)")
}

func run(ctx context.Context, opts notebook.Options) (*notebook.Report, error) {
	golden, err := goldenDir()
	if err != nil {
		return nil, err
	}
	testing := os.Getenv("PARQUET_TEST_DATA")
	cases, err := compat.Cases(golden, testing)
	if err != nil {
		return nil, err
	}
	if opts.Quick {
		cases = firstOfEachKind(cases)
	}
	var readers []compat.Reader
	var missing []string
	for _, r := range compat.Readers() {
		if err := r.Available(); err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", r.Name, err))
			continue
		}
		readers = append(readers, r)
	}
	if len(missing) > 0 && testenv.RequirePeers() {
		return nil, fmt.Errorf("LAB_REQUIRE_PEERS=1 and readers are missing: %s", strings.Join(missing, "; "))
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	start := time.Now()
	m, err := compat.Run(ctx, cases, readers)
	if err != nil {
		return nil, err
	}
	return report(m, cases, missing, testing != "", time.Since(start))
}

// firstOfEachKind keeps the first case of each kind (the ID's prefix before
// "/"): the quick run still covers FILE, VECTOR and VARIANT.
func firstOfEachKind(cases []compat.Case) []compat.Case {
	seen := map[string]bool{}
	var out []compat.Case
	for _, c := range cases {
		kind, _, _ := strings.Cut(c.ID, "/")
		if !seen[kind] {
			seen[kind] = true
			out = append(out, c)
		}
	}
	return out
}

// classColors colour the outcome classes, best first as compat.Classes
// lists them: green for typed, blue for physical, then orange, vermillion
// and purple for the failures.
var classColors = map[compat.Class]color.Color{
	compat.Typed:    notebook.Color(2),
	compat.Physical: notebook.Color(4),
	compat.Error:    notebook.Color(1),
	compat.Crash:    notebook.Color(5),
	compat.Wrong:    notebook.Color(3),
}

func report(m *compat.Matrix, cases []compat.Case, missing []string, withTesting bool, took time.Duration) (*notebook.Report, error) {
	classes := compat.Classes()
	annotation := map[string]string{}
	for _, c := range cases {
		annotation[c.ID] = c.Annotation
	}
	r := &notebook.Report{
		Title:    "Compatibility matrix: who reads the lab's column types",
		Question: "When files carrying the FILE, VECTOR and VARIANT annotations reach the readers people already use (parquet-go, arrow-go, DuckDB, hyparquet, parquet-wasm), does each reader apply the type, fall back to the physical layout, refuse the file, crash, or return wrong values?",
		Setup: []string{
			fmt.Sprintf("%d cases (the golden files of spec/golden%s) × %d readers, run by spec/compat in %.1f s.", len(m.Cases), testingNote(withTesting), len(m.Readers), took.Seconds()),
			"Each outcome is classed from the values the reader returned, compared with the golden sidecar's expected rows (spec/COMPAT.md, \"Decision rules\"): typed, physical, error, crash or wrong; never from the mere absence of an error.",
		},
	}
	if len(missing) > 0 {
		r.Setup = append(r.Setup, fmt.Sprintf("**Readers missing here**, so their columns are absent: %s. CI sets LAB_REQUIRE_PEERS=1, which makes their absence fail.", strings.Join(missing, "; ")))
	}

	// Per reader: how many cases fall in each class.
	r.Section("Outcomes per reader")
	cols := []notebook.Column{notebook.Text("reader")}
	for _, c := range classes {
		cols = append(cols, notebook.Num(string(c), "%d"))
	}
	pt := notebook.NewTable(cols...)
	count := func(reader string, class compat.Class) int {
		n := 0
		for _, id := range m.Cases {
			if m.Cells[id][reader].Class == class {
				n++
			}
		}
		return n
	}
	for _, reader := range m.Readers {
		row := []any{reader}
		for _, c := range classes {
			row = append(row, count(reader, c))
		}
		if err := pt.Row(row...); err != nil {
			return nil, err
		}
	}
	r.Table(pt)

	r.Section("The matrix")
	classIndex := map[compat.Class]int{}
	colors := make([]color.Color, len(classes))
	names := make([]string, len(classes))
	for i, c := range classes {
		classIndex[c], colors[i], names[i] = i, classColors[c], string(c)
	}
	grid := make([][]int, len(m.Cases))
	for i, id := range m.Cases {
		grid[i] = make([]int, len(m.Readers))
		for j, reader := range m.Readers {
			cell, ok := m.Cells[id][reader]
			grid[i][j] = -1
			if idx, known := classIndex[cell.Class]; ok && known {
				grid[i][j] = idx
			}
		}
	}
	p, err := notebook.Grid("Outcome per case and reader", m.Cases, m.Readers, grid, names, colors)
	if err != nil {
		return nil, err
	}
	if err := r.Figure("matrix.svg", "Outcome class of every reader on every case: green typed, blue physical, orange error, vermillion crash, purple wrong.", p); err != nil {
		return nil, err
	}
	ct := []notebook.Column{notebook.Text("case"), notebook.Text("annotation"), notebook.Num("typed", "%d"), notebook.Num("physical", "%d")}
	for _, reader := range m.Readers {
		ct = append(ct, notebook.Text(reader))
	}
	t := notebook.NewTable(ct...)
	for _, id := range m.Cases {
		typed, physical := 0, 0
		row := []any{"`" + id + "`", annotation[id], 0, 0}
		for _, reader := range m.Readers {
			cell := m.Cells[id][reader]
			switch cell.Class {
			case compat.Typed:
				typed++
			case compat.Physical:
				physical++
			}
			row = append(row, cellText(cell))
		}
		row[2], row[3] = typed, physical
		if err := t.Row(row...); err != nil {
			return nil, err
		}
	}
	r.Table(t)

	// What this shows, from the matrix.
	total := len(m.Cases) * len(m.Readers)
	perClass := map[compat.Class]int{}
	for _, id := range m.Cases {
		for _, reader := range m.Readers {
			perClass[m.Cells[id][reader].Class]++
		}
	}
	parts := make([]string, 0, len(classes))
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("%d %s", perClass[c], c))
	}
	r.Headline = fmt.Sprintf("%d cases × %d readers: %s.", len(m.Cases), len(m.Readers), strings.Join(parts, ", "))
	r.Finding("Of %d outcomes, %s.", total, strings.Join(parts, ", "))
	for _, reader := range m.Readers {
		var bits []string
		for _, c := range classes {
			if n := count(reader, c); n > 0 {
				bits = append(bits, fmt.Sprintf("%d %s", n, c))
			}
		}
		r.Finding("%s: %s.", reader, strings.Join(bits, ", "))
	}
	if bad := perClass[compat.Wrong] + perClass[compat.Crash]; bad > 0 {
		r.Finding("%d outcomes are wrong values or crashes: the cases a reader cannot be trusted with; the notes in the table name the first difference or the failure.", bad)
	} else {
		r.Finding("No reader returned wrong values or crashed: every reader either applied the type, fell back to the physical layout, or refused the file cleanly.")
	}
	return r, nil
}

func testingNote(with bool) string {
	if with {
		return " and parquet-testing's unknown-logical-type.parquet"
	}
	return "; PARQUET_TEST_DATA is not set, so parquet-testing's unknown-logical-type.parquet is left out"
}

// cellText is a matrix cell: the class, and its note shortened to stay
// readable in a table.
func cellText(c compat.Cell) string {
	if c.Note == "" {
		return string(c.Class)
	}
	note := c.Note
	if r := []rune(note); len(r) > 40 {
		note = string(r[:37]) + "…"
	}
	return fmt.Sprintf("%s: %s", c.Class, note)
}
