package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// The reverse matrix: other writers' files, read by the lab. Rows are
// writer × setting × type family; columns are the lab's operations on the
// file. A cell is ok (the lab's values equal the expected ones), error (a
// refusal, whose message must name the file, the column and the reason),
// wrong (values that differ) or crash (a panic, a signal, a hang).
//
// Expected values come from the writer's own read-back of the same file
// (DuckDB's to_json) or from the generator's known data, in the form
// `lab read` prints (data/jsonrow); vector searches are compared with a
// brute-force search over the expected vectors.

// Reverse-matrix outcomes. Wrong and Crash are the Class values of the
// forward matrix.
const (
	OK Class = "ok"
)

// Op is one lab operation on a file: a column of the reverse matrix.
type Op string

const (
	OpInspect Op = "lab inspect"
	OpRead    Op = "lab read"
	OpBuilder Op = "read builder"
	// OpBuilderArrow is the read builder with the arrow.RecordBatch row
	// type, the columnar model engines read through.
	OpBuilderArrow Op = "read builder (arrow)"
	OpSearch       Op = "lab vector search"
	OpTake         Op = "lab vector take"
	OpAnalyze      Op = "lab variant analyze"
	// OpReadRepair is lab read of a variant file with
	// --variant-invalid repair-key-order.
	OpReadRepair Op = "lab read (repair-key-order)"
	opsInOrder      = "lab inspect,lab read,lab read (repair-key-order),read builder,read builder (filtered),read builder (arrow),lab vector search,lab vector take,lab variant analyze"
)

// Ops lists the operations in the matrix's column order.
func Ops() []Op {
	var out []Op
	for _, s := range strings.Split(opsInOrder, ",") {
		out = append(out, Op(s))
	}
	return out
}

// WriterCase is one file of the reverse matrix.
type WriterCase struct {
	Writer, Setting, Family string
	Path                    string
	// Columns are the file's top-level columns in order; Rows the values
	// the lab must read, keyed by column, numbers as json.Number.
	Columns []string
	Rows    []map[string]any
	// Vector names a vector column the vector operations run on; Variant a
	// VARIANT column variant analyze runs on.
	Vector  string
	Dim     int
	Variant string
	// WriterDefect, when set, says how the writer's own read-back differs
	// from what it was given: the file holds other values than the
	// generator's, so its cells are not computed.
	WriterDefect string
}

// ID names the case's row: writer/setting/family.
func (c *WriterCase) ID() string { return c.Writer + "/" + c.Setting + "/" + c.Family }

// Applies reports whether op runs on the case.
func (c *WriterCase) Applies(op Op) bool {
	switch op {
	case OpSearch, OpTake:
		return c.Vector != ""
	case OpAnalyze, OpReadRepair:
		return c.Variant != ""
	case OpBuilderFiltered:
		return slices.Contains(c.Columns, filterID)
	}
	return true
}

// Lab runs the lab's command-line tool as a user does.
type Lab struct {
	// Binary is the lab executable.
	Binary string
	// Timeout bounds one command; a command past it is a crash (a hang).
	Timeout time.Duration
}

// run runs one lab command; a clean exit 1 or 2 is an error cell, a
// panic, a signal or a timeout a crash.
func (l Lab) run(ctx context.Context, args ...string) ([]byte, *Cell) {
	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.Binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	switch {
	case ctx.Err() != nil:
		return nil, &Cell{Class: Crash, Note: fmt.Sprintf("no answer in %v", l.Timeout)}
	case strings.Contains(msg, "panic:") || strings.Contains(msg, "goroutine "):
		return nil, &Cell{Class: Crash, Note: firstLine(msg)}
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 2) {
			return nil, &Cell{Class: Error, Note: lastLine(msg)}
		}
		return nil, &Cell{Class: Crash, Note: err.Error() + ": " + firstLine(msg)}
	}
	return stdout.Bytes(), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// RunOp computes one cell.
func (l Lab) RunOp(ctx context.Context, c *WriterCase, op Op) Cell {
	switch op {
	case OpInspect:
		out, cell := l.run(ctx, "inspect", "--json", c.Path)
		if cell != nil {
			return *cell
		}
		if !json.Valid(out) {
			return Cell{Class: Wrong, Note: "lab inspect --json printed no JSON"}
		}
		return Cell{Class: OK}
	case OpRead, OpReadRepair:
		args := []string{"read", "--quiet", c.Path}
		if op == OpReadRepair {
			args = append(args, "--variant-invalid", "repair-key-order")
		}
		out, cell := l.run(ctx, args...)
		if cell != nil {
			return *cell
		}
		rows, err := jsonLines(out)
		if err != nil {
			return Cell{Class: Wrong, Note: err.Error()}
		}
		return compareRows(c, rows)
	case OpBuilder:
		return builderCell(c)
	case OpBuilderFiltered:
		return filteredBuilderCell(c)
	case OpBuilderArrow:
		return arrowBuilderCell(c)
	case OpSearch:
		return l.searchCell(ctx, c)
	case OpTake:
		return l.takeCell(ctx, c)
	case OpAnalyze:
		out, cell := l.run(ctx, "variant", "analyze", c.Path, "--column", c.Variant, "--json")
		if cell != nil {
			return *cell
		}
		if !json.Valid(out) {
			return Cell{Class: Wrong, Note: "lab variant analyze --json printed no JSON"}
		}
		return Cell{Class: OK}
	}
	return Cell{Class: Error, Note: "unknown op " + string(op)}
}

func jsonLines(out []byte) ([]map[string]any, error) {
	var rows []map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	for {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			if err.Error() == "EOF" {
				return rows, nil
			}
			return nil, fmt.Errorf("row %d is not JSON: %v", len(rows), err)
		}
		rows = append(rows, row)
	}
}

// compareRows compares what the lab read with the expected rows.
func compareRows(c *WriterCase, got []map[string]any) Cell {
	if len(got) != len(c.Rows) {
		return Cell{Class: Wrong, Note: fmt.Sprintf("%d rows, want %d", len(got), len(c.Rows))}
	}
	for i, want := range c.Rows {
		for _, col := range c.Columns {
			g, ok := got[i][col]
			if !ok {
				return Cell{Class: Wrong, Note: fmt.Sprintf("row %d: column %q missing", i, col)}
			}
			if path, ok := sameJSON(g, want[col]); !ok {
				return Cell{Class: Wrong, Note: fmt.Sprintf("row %d: column %q%s: got %s, want %s", i, col, path, short(g), short(want[col]))}
			}
		}
		if extra := len(got[i]) - len(c.Columns); extra > 0 {
			return Cell{Class: Wrong, Note: fmt.Sprintf("row %d: %d columns the file does not have", i, extra)}
		}
	}
	return Cell{Class: OK}
}

// sameJSON compares two JSON values: numbers by value (integers exactly,
// others as float64, or as float32 when either side is a float32's
// shortest text), objects by key, arrays in order. It returns where they
// first differ.
func sameJSON(got, want any) (string, bool) {
	switch w := want.(type) {
	case nil:
		return "", got == nil
	case json.Number:
		g, ok := got.(json.Number)
		return "", ok && sameNumber(g, w)
	case string:
		g, ok := got.(string)
		return "", ok && g == w
	case bool:
		g, ok := got.(bool)
		return "", ok && g == w
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return "", false
		}
		for i := range w {
			if p, ok := sameJSON(g[i], w[i]); !ok {
				return fmt.Sprintf("[%d]%s", i, p), false
			}
		}
		return "", true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return "", false
		}
		for k := range w {
			if p, ok := sameJSON(g[k], w[k]); !ok {
				return "." + k + p, false
			}
		}
		return "", true
	}
	return "", false
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	ai, aerr := strconv.ParseInt(string(a), 10, 64)
	bi, berr := strconv.ParseInt(string(b), 10, 64)
	if aerr == nil && berr == nil {
		return ai == bi
	}
	af, err1 := a.Float64()
	bf, err2 := b.Float64()
	if err1 != nil || err2 != nil {
		return false
	}
	return af == bf || float32(af) == float32(bf) && !math.IsInf(float64(float32(af)), 0)
}

// builderCell reads the file through the registry's read builder in
// process, as Iceberg engines do, and checks the row count and where the
// nulls are; the values themselves are lab read's cell.
func builderCell(c *WriterCase) (cell Cell) {
	defer func() {
		if p := recover(); p != nil {
			cell = Cell{Class: Crash, Note: fmt.Sprint("panic: ", p)}
		}
	}()
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(c.Path))
	if err != nil {
		return Cell{Class: Error, Note: err.Error()}
	}
	r, err := b.Build()
	if err != nil {
		return Cell{Class: Error, Note: err.Error()}
	}
	defer r.Close()
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err != nil {
			if err.Error() == "EOF" {
				if i != len(c.Rows) {
					return Cell{Class: Wrong, Note: fmt.Sprintf("%d records, want %d", i, len(c.Rows))}
				}
				return Cell{Class: OK}
			}
			return Cell{Class: Error, Note: err.Error()}
		}
		if i >= len(c.Rows) {
			return Cell{Class: Wrong, Note: fmt.Sprintf("more than %d records", len(c.Rows))}
		}
		if rec.Len() != len(c.Columns) {
			return Cell{Class: Wrong, Note: fmt.Sprintf("record %d has %d fields, the file %d columns", i, rec.Len(), len(c.Columns))}
		}
		for j, col := range c.Columns {
			if isNull(rec.Get(j)) != (c.Rows[i][col] == nil) {
				return Cell{Class: Wrong, Note: fmt.Sprintf("record %d: column %q null is %v, want %v", i, col, rec.Get(j) == nil, c.Rows[i][col] == nil)}
			}
		}
	}
}

// arrowBuilderCell reads the file through the read builder's
// arrow.RecordBatch model and checks the row count, the columns and where
// each top-level column is null.
func arrowBuilderCell(c *WriterCase) (cell Cell) {
	defer func() {
		if p := recover(); p != nil {
			cell = Cell{Class: Crash, Note: fmt.Sprint("panic: ", p)}
		}
	}()
	b, err := registry.NewReadBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalInput(c.Path))
	if err != nil {
		return Cell{Class: Error, Note: err.Error()}
	}
	r, err := b.Build()
	if err != nil {
		return Cell{Class: Error, Note: err.Error()}
	}
	defer r.Close()
	row := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Cell{Class: Error, Note: err.Error()}
		}
		if int(rec.NumCols()) != len(c.Columns) {
			return Cell{Class: Wrong, Note: fmt.Sprintf("batch at row %d has %d columns, the file %d", row, rec.NumCols(), len(c.Columns))}
		}
		n := int(rec.NumRows())
		if row+n > len(c.Rows) {
			return Cell{Class: Wrong, Note: fmt.Sprintf("more than %d rows", len(c.Rows))}
		}
		for j, col := range c.Columns {
			if name := rec.ColumnName(j); name != col {
				return Cell{Class: Wrong, Note: fmt.Sprintf("column %d is %q, want %q", j, name, col)}
			}
			a := rec.Column(j)
			for i := range n {
				if a.IsNull(i) != (c.Rows[row+i][col] == nil) && !variantNullAt(a, i) {
					return Cell{Class: Wrong, Note: fmt.Sprintf("row %d: column %q null is %v, want %v", row+i, col, a.IsNull(i), c.Rows[row+i][col] == nil)}
				}
			}
		}
		row += n
	}
	if row != len(c.Rows) {
		return Cell{Class: Wrong, Note: fmt.Sprintf("%d rows, want %d", row, len(c.Rows))}
	}
	return Cell{Class: OK}
}

// variantNullAt reports a present variant holding the variant null, which
// DuckDB writes for a SQL NULL (see isNull).
func variantNullAt(a arrow.Array, i int) bool {
	v, ok := a.(*extensions.VariantArray)
	if !ok || v.IsNull(i) {
		return false
	}
	val, err := v.Value(i)
	return err == nil && val.Type() == pvariant.Null
}

// isNull reports a null value. A variant null counts: DuckDB writes a SQL
// NULL VARIANT as a present variant holding the variant null (and reads it
// back as NULL), which the lab reads as what the file holds.
func isNull(v any) bool {
	if x, ok := v.(pvariant.Value); ok {
		return x.Type() == pvariant.Null
	}
	return v == nil
}

// expectedVectors are the case's vectors, nil for a null vector.
func (c *WriterCase) expectedVectors() ([][]float64, error) {
	out := make([][]float64, len(c.Rows))
	for i, row := range c.Rows {
		v, ok := row[c.Vector].([]any)
		if row[c.Vector] == nil {
			continue
		}
		if !ok || len(v) != c.Dim {
			return nil, fmt.Errorf("row %d: expected vector is not %d numbers", i, c.Dim)
		}
		out[i] = make([]float64, c.Dim)
		for j, x := range v {
			n, ok := x.(json.Number)
			if !ok {
				return nil, fmt.Errorf("row %d: element %d is not a number", i, j)
			}
			f, err := n.Float64()
			if err != nil {
				return nil, err
			}
			out[i][j] = float64(float32(f))
		}
	}
	return out, nil
}

type searchOutput struct {
	Results [][]struct {
		Row   int64       `json:"row"`
		Score json.Number `json:"score"`
	} `json:"results"`
}

// searchCell runs a dot-product top-5 search for a query made from the
// case's data and compares it with brute force: the same rows in the same
// order, scores within float32 rounding.
func (l Lab) searchCell(ctx context.Context, c *WriterCase) Cell {
	vecs, err := c.expectedVectors()
	if err != nil {
		return Cell{Class: Error, Note: "generator: " + err.Error()}
	}
	query := make([]float64, c.Dim)
	for j := range query {
		query[j] = float64(float32(math.Sin(float64(j+1)) * 0.5))
	}
	type hit struct {
		row   int
		score float64
	}
	var all []hit
	for i, v := range vecs {
		if v == nil {
			continue
		}
		s := 0.0
		for j := range v {
			s += v[j] * query[j]
		}
		all = append(all, hit{i, s})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].score > all[b].score })
	k := min(5, len(all))
	qjson, _ := json.Marshal(query)
	out, cell := l.run(ctx, "vector", "search", c.Path, "--column", c.Vector, "--metric", "dot", "--k", "5", "--json", "--query", string(qjson))
	if cell != nil {
		return *cell
	}
	var res searchOutput
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil || len(res.Results) != 1 {
		return Cell{Class: Wrong, Note: fmt.Sprintf("lab vector search --json: %v", err)}
	}
	got := res.Results[0]
	if len(got) != k {
		return Cell{Class: Wrong, Note: fmt.Sprintf("%d hits, want %d", len(got), k)}
	}
	for i := range got {
		s, _ := got[i].Score.Float64()
		tol := 1e-4 * (1 + math.Abs(all[i].score))
		if math.Abs(s-all[i].score) > tol {
			return Cell{Class: Wrong, Note: fmt.Sprintf("hit %d: score %v, brute force %v (row %d)", i, s, all[i].score, all[i].row)}
		}
		// Ties within rounding may order differently; a row must score as
		// brute force scores it.
		if got[i].Row < 0 || int(got[i].Row) >= len(vecs) || vecs[got[i].Row] == nil {
			return Cell{Class: Wrong, Note: fmt.Sprintf("hit %d: row %d is not a vector of the file", i, got[i].Row)}
		}
		want := 0.0
		for j, x := range vecs[got[i].Row] {
			want += x * query[j]
		}
		if math.Abs(want-s) > tol {
			return Cell{Class: Wrong, Note: fmt.Sprintf("hit %d: row %d scores %v, brute force %v", i, got[i].Row, s, want)}
		}
	}
	return Cell{Class: OK}
}

// takeCell takes the first, a middle and the last row and compares them
// with the expected vectors.
func (l Lab) takeCell(ctx context.Context, c *WriterCase) Cell {
	vecs, err := c.expectedVectors()
	if err != nil {
		return Cell{Class: Error, Note: "generator: " + err.Error()}
	}
	rows := []int{0, len(vecs) / 2, len(vecs) - 1}
	// A null vector, if there is one: how it is taken is part of the cell.
	for i, v := range vecs {
		if v == nil {
			rows = append(rows, i)
			break
		}
	}
	var list []string
	for _, r := range rows {
		list = append(list, strconv.Itoa(r))
	}
	out, cell := l.run(ctx, "vector", "take", c.Path, "--column", c.Vector, "--rows", strings.Join(list, ","), "--json")
	if cell != nil {
		return *cell
	}
	var res struct {
		Rows []struct {
			Row    int64         `json:"row"`
			Vector []json.Number `json:"vector"`
		} `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil || len(res.Rows) != len(rows) {
		return Cell{Class: Wrong, Note: fmt.Sprintf("lab vector take --json: %d rows, %v", len(res.Rows), err)}
	}
	for i, r := range rows {
		got, want := res.Rows[i].Vector, vecs[r]
		if (got == nil) != (want == nil) || len(got) != len(want) {
			return Cell{Class: Wrong, Note: fmt.Sprintf("row %d: %d values, want %d", r, len(got), len(want))}
		}
		for j := range want {
			f, err := got[j].Float64()
			if err != nil || float32(f) != float32(want[j]) {
				return Cell{Class: Wrong, Note: fmt.Sprintf("row %d element %d: %s, want %v", r, j, got[j], want[j])}
			}
		}
	}
	return Cell{Class: OK}
}

// Reverse-matrix markers in spec/COMPAT.md: the table between them is
// generated by TestReverseMatrix -update.
const (
	ReverseBegin = "<!-- reverse matrix: generated by go test ./spec/compat -run TestReverseMatrix -update; do not edit -->"
	ReverseEnd   = "<!-- reverse matrix: end -->"
)

// ReverseMarkdown renders the reverse matrix: one row per file, one column
// per operation; ok cells as "ok", the others by class, "–" where the
// operation does not apply. errors lists each error cell's message.
func ReverseMarkdown(cells map[string]map[string]Class, errors map[string]string) string {
	var ids []string
	for id := range cells {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	counts := map[Class]int{}
	b.WriteString("| writer / setting / family |")
	for _, op := range Ops() {
		b.WriteString(" " + string(op) + " |")
	}
	b.WriteString("\n|---|")
	for range Ops() {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, id := range ids {
		b.WriteString("| " + id + " |")
		if _, ok := cells[id]["writer"]; ok {
			for range Ops() {
				b.WriteString(" writer defect |")
			}
			b.WriteString("\n")
			continue
		}
		for _, op := range Ops() {
			c, ok := cells[id][string(op)]
			switch {
			case !ok:
				b.WriteString(" – |")
			default:
				counts[c]++
				b.WriteString(" " + string(c) + " |")
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%d files; %d cells ok, %d error, %d wrong, %d crash.\n", len(ids), counts[OK], counts[Error], counts[Wrong], counts[Crash])
	if len(errors) > 0 {
		b.WriteString("\nThe refusals:\n\n")
		var keys []string
		for k := range errors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "- %s: `%s`\n", k, errors[k])
		}
	}
	return b.String()
}
