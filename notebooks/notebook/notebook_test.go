package notebook

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTableMarkdown(t *testing.T) {
	tb := NewTable(Text("layout"), Num("MB/s", "%.1f"), Num("rows", "%d"))
	for _, row := range [][]any{{"flba", 1234.56, 7}, {"a|b", 2.0, int64(12345)}} {
		if err := tb.Row(row...); err != nil {
			t.Fatal(err)
		}
	}
	want := "" +
		"| layout |   MB/s |  rows |\n" +
		"| ------ | -----: | ----: |\n" +
		"| flba   | 1234.6 |     7 |\n" +
		`| a\|b   |    2.0 | 12345 |` + "\n"
	if got := tb.Markdown(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range [][]any{{"x", 1.0}, {1, 1.0, 1}, {"x", "1", 1}} {
		if err := tb.Row(bad...); err == nil {
			t.Errorf("Row(%v) accepted", bad)
		}
	}
	if tb.Rows() != 2 {
		t.Errorf("%d rows after rejected rows", tb.Rows())
	}
}

func TestIsNumber(t *testing.T) {
	for cell, want := range map[string]bool{
		"12": true, " 1,234.5 ": true, "-3e-4": true, "4.2×": true, "**7** ms": true, "100%": true, ".5": true,
		"2000×64": true, "flba": false, "": false, "—": false, "float16": false, "x2": false,
	} {
		if got := isNumber(cell); got != want {
			t.Errorf("isNumber(%q) = %t, want %t", cell, got, want)
		}
	}
}

func sampleReport(t *testing.T) *Report {
	t.Helper()
	r := &Report{Title: "Sample", Question: "Does it work?", Headline: "It does: 3× faster.", Setup: []string{"3 rows, seed 1."}}
	r.Section("Results")
	tb := NewTable(Text("name"), Num("ms", "%.2f"))
	_ = tb.Row("a", 1.5)
	_ = tb.Row("b", 4.5)
	r.Table(tb)
	p, err := Bars("time", "ms", []string{"a", "b"}, []Series{{"run 1", []float64{1.5, 4.5}}, {"run 2", []float64{1.4, math.NaN()}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Figure("time.svg", "Time per name", p); err != nil {
		t.Fatal(err)
	}
	r.Finding("b takes %.1f× a's time.", 4.5/1.5)
	return r
}

func TestGenerateAndCheck(t *testing.T) {
	dir := t.TempDir()
	// A stale figure from an earlier run is removed.
	if err := os.WriteFile(filepath.Join(dir, "old.svg"), []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(context.Context, Options) (*Report, error) { return sampleReport(t), nil }
	if err := Generate(context.Background(), "sample", Options{Quick: true, Out: dir}, run); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, "Results"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.svg")); !os.IsNotExist(err) {
		t.Errorf("stale old.svg kept: %v", err)
	}
	s, err := ReadSummary(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "sample" || s.Headline != "It does: 3× faster." || s.Command != "go run ./notebooks/sample --quick" || !s.Quick || s.Generated.IsZero() {
		t.Errorf("summary %+v", s)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	for _, want := range []string{"# Sample\n", "**Question.** Does it work?", "- Machine: ", "go run ./notebooks/sample --quick", "![Time per name](time.svg)", "- b takes 3.0× a's time.", "**Quick run**"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}

	for _, tt := range []struct {
		name   string
		edit   func(dir string) error
		errHas string
	}{
		{"missing section", nil, `no section "Elsewhere"`},
		{"row without number", func(dir string) error {
			return appendTo(filepath.Join(dir, "README.md"), "\n| x | y |\n|---|---|\n| a | b |\n")
		}, "table row without a number: | a | b |"},
		{"unshown svg", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "extra.svg"), []byte("<svg/>"), 0o644)
		}, "does not show extra.svg"},
		{"broken svg", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "time.svg"), []byte("<svg><g></svg>"), 0o644)
		}, "time.svg: not XML"},
		{"missing svg", func(dir string) error { return os.Remove(filepath.Join(dir, "time.svg")) }, "time.svg"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			if err := Generate(context.Background(), "sample", Options{Out: d}, run); err != nil {
				t.Fatal(err)
			}
			want := []string{"Results"}
			if tt.edit != nil {
				if err := tt.edit(d); err != nil {
					t.Fatal(err)
				}
			} else {
				want = append(want, "Elsewhere")
			}
			err := Check(d, want...)
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("Check = %v, want an error with %q", err, tt.errHas)
			}
		})
	}
}

func appendTo(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func TestReportNeedsFindings(t *testing.T) {
	run := func(context.Context, Options) (*Report, error) {
		return &Report{Title: "t", Question: "q", Headline: "h"}, nil
	}
	err := Generate(context.Background(), "empty", Options{Out: t.TempDir()}, run)
	if err == nil || !strings.Contains(err.Error(), "no findings") {
		t.Fatalf("Generate = %v", err)
	}
}

// TestSVGDeterministic: the same data gives the same bytes, so reruns diff
// cleanly.
func TestSVGDeterministic(t *testing.T) {
	render := func() []byte {
		p, err := Lines("scaling", "rows", "ms", []Line{{"a", []float64{1, 10, 100}, []float64{2, 20, 200}}, {"b", []float64{1, 10, 100}, []float64{1, 3, 9}}}, true, true)
		if err != nil {
			t.Fatal(err)
		}
		b, err := SVG(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := render(), render()
	if !bytes.Equal(a, b) {
		t.Fatal("two renders of the same plot differ")
	}
	if !bytes.Contains(a, []byte("Liberation Sans")) {
		t.Error("SVG does not use Liberation Sans")
	}
}

func TestGrid(t *testing.T) {
	p, err := Grid("outcomes", []string{"case-a", "case-b"}, []string{"r1", "r2", "r3"}, [][]int{{0, 1, -1}, {2, 0, 1}}, []string{"typed", "physical", "error"}, palette)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"case-a", "case-b", "r3", "typed", "physical", "error"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("grid SVG lacks %q", want)
		}
	}
}

func TestPlotErrors(t *testing.T) {
	for name, f := range map[string]func() error{
		"series length": func() error {
			_, err := Bars("t", "y", []string{"a", "b"}, []Series{{"s", []float64{1}}}, false)
			return err
		},
		"nothing drawable on log": func() error {
			_, err := Bars("t", "y", []string{"a"}, []Series{{"s", []float64{0}}}, true)
			return err
		},
		"log line at zero": func() error {
			_, err := Lines("t", "x", "y", []Line{{"l", []float64{0, 1}, []float64{1, 2}}}, true, false)
			return err
		},
		"grid class out of range": func() error {
			_, err := Grid("t", []string{"r"}, []string{"c"}, [][]int{{2}}, []string{"a", "b"}, palette)
			return err
		},
		"grid shape": func() error {
			_, err := Grid("t", []string{"r", "s"}, []string{"c"}, [][]int{{0}}, []string{"a"}, palette)
			return err
		},
		"figure name": func() error {
			p, _ := Bars("t", "y", []string{"a"}, []Series{{"s", []float64{1}}}, false)
			return (&Report{}).Figure("../x.svg", "c", p)
		},
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
