package notebook

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Check verifies the page a notebook wrote to dir, as the notebooks' tests
// and `lab report` do: README.md has its summary line, the Setup and "What
// this shows" sections and every section in want; every table row holds at
// least one number; at least one SVG figure is shown, and every SVG file in
// dir exists, parses as XML with an <svg> root and is shown by the page. All
// problems are reported together.
func Check(dir string, want ...string) error {
	readme := filepath.Join(dir, "README.md")
	page, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(readme+": "+format, args...)) }

	if _, err := ReadSummary(readme); err != nil {
		errs = append(errs, err)
	}
	headings := map[string]bool{}
	for _, m := range headingLine.FindAllSubmatch(page, -1) {
		headings[string(m[1])] = true
	}
	for _, h := range append([]string{"Setup", "What this shows"}, want...) {
		if !headings[h] {
			fail("no section %q", h)
		}
	}
	for _, row := range tableRows(string(page)) {
		if !slices.ContainsFunc(row.cells, isNumber) {
			fail("line %d: table row without a number: %s", row.line, row.text)
		}
	}

	shown := map[string]bool{}
	for _, m := range imageRef.FindAllStringSubmatch(string(page), -1) {
		shown[m[1]] = true
	}
	if len(shown) == 0 {
		fail("shows no SVG figure")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if !shown[filepath.Base(f)] {
			fail("does not show %s", filepath.Base(f))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(shown)) {
		if err := checkSVG(filepath.Join(dir, name)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var (
	headingLine = regexp.MustCompile(`(?m)^#{2,3} (.+?)\s*$`)
	imageRef    = regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+\.svg)\)`)
	// A number cell starts with a number, optionally signed, and may carry a
	// unit or a suffix such as ×, %, " ms" or "/s".
	numberCell = regexp.MustCompile(`^[-+−]?(\d[\d,]*(\.\d+)?|\.\d+)([eE][-+]?\d+)?(\S|\s|$)`)
)

func isNumber(cell string) bool {
	cell = strings.Trim(strings.TrimSpace(cell), "*`")
	return numberCell.MatchString(cell)
}

type tableRow struct {
	line  int
	text  string
	cells []string
}

// tableRows returns the data rows of the page's Markdown tables: lines
// starting with "|" that follow a header and its |---| rule. Fenced code is
// skipped.
func tableRows(page string) []tableRow {
	var rows []tableRow
	lines := strings.Split(page, "\n")
	inTable, inFence := false, false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(t, "|") {
			inTable = false
			continue
		}
		if isRule(t) {
			inTable = true
			continue
		}
		if inTable {
			rows = append(rows, tableRow{line: i + 1, text: t, cells: splitCells(t)})
		}
	}
	return rows
}

func isRule(line string) bool {
	return strings.Trim(line, "|-: ") == "" && strings.Contains(line, "-")
}

func splitCells(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, cur.String())
}

func checkSVG(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: not XML: %w", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("%s: root element is %q, want svg", path, root)
	}
	return nil
}

// GenerateQuick runs a notebook at its test size into dir, checks its page
// with Check for the sections in want, and returns the page: the start of
// every notebook's test.
func GenerateQuick(dir, name string, run Run, want ...string) (string, error) {
	if err := Generate(context.Background(), name, Options{Quick: true, Out: dir}, run); err != nil {
		return "", err
	}
	if err := Check(dir, want...); err != nil {
		return "", err
	}
	page, err := os.ReadFile(filepath.Join(dir, "README.md"))
	return string(page), err
}
