package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/coltype-lab/lab/internal/publish"
)

// Report is one notebook's page: a title, the question the experiment
// answers, the setup, a body of sections, tables and figures in order, and
// "what this shows", written by the notebook from the figures it measured.
type Report struct {
	Title    string
	Question string
	// Headline is the one figure a reader wants first, in one line; the
	// index of all notebooks quotes it.
	Headline string
	// Setup lists what the run did (sizes, seed, repetitions); Generate adds
	// the machine and the command.
	Setup []string

	body     []string // Markdown blocks, in order
	findings []string
	figures  []figure
}

type figure struct {
	file string
	svg  []byte
}

// Section starts a "## title" section of the body.
func (r *Report) Section(title string) { r.body = append(r.body, "## "+title) }

// Text adds a paragraph.
func (r *Report) Text(format string, args ...any) {
	r.body = append(r.body, fmt.Sprintf(format, args...))
}

// Table adds a table.
func (r *Report) Table(t *Table) { r.body = append(r.body, strings.TrimRight(t.Markdown(), "\n")) }

// Markdown adds a block of Markdown as it is, such as a bench report's own
// table.
func (r *Report) Markdown(md string) { r.body = append(r.body, strings.TrimRight(md, "\n")) }

// Figure renders p as the SVG file (a bare name ending in .svg, written
// beside README.md) and shows it with the caption.
func (r *Report) Figure(file, caption string, p *plot.Plot) error {
	if filepath.Base(file) != file || !strings.HasSuffix(file, ".svg") {
		return fmt.Errorf("figure %q: want a bare file name ending in .svg", file)
	}
	for _, f := range r.figures {
		if f.file == file {
			return fmt.Errorf("figure %q added twice", file)
		}
	}
	svg, err := SVG(p)
	if err != nil {
		return fmt.Errorf("figure %s: %w", file, err)
	}
	r.figures = append(r.figures, figure{file, svg})
	r.body = append(r.body, fmt.Sprintf("![%s](%s)\n\n*%s*", escapeAlt(caption), file, caption))
	return nil
}

// Finding adds one point to "what this shows". Notebooks build these from
// the run's own numbers, so the text always matches the tables.
func (r *Report) Finding(format string, args ...any) {
	r.findings = append(r.findings, fmt.Sprintf(format, args...))
}

// Summary is what the index of notebooks needs from a page. It is written at
// the top of README.md as an HTML comment, invisible once rendered.
type Summary struct {
	Name      string    `json:"name"`
	Title     string    `json:"title"`
	Question  string    `json:"question"`
	Headline  string    `json:"headline"`
	Generated time.Time `json:"generated"`
	Command   string    `json:"command"`
	Quick     bool      `json:"quick,omitempty"`
}

const summaryPrefix = "<!-- notebook-summary "

var summaryLine = regexp.MustCompile(`(?m)^<!-- notebook-summary (\{.*\}) -->$`)

// ReadSummary reads the summary of the README.md at path.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := summaryLine.FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("%s: no notebook summary line", path)
	}
	var s Summary
	if err := json.Unmarshal(m[1], &s); err != nil {
		return nil, fmt.Errorf("%s: notebook summary: %w", path, err)
	}
	return &s, nil
}

// page renders README.md.
func (r *Report) page(s Summary, m Machine) ([]byte, error) {
	if r.Title == "" || r.Question == "" || r.Headline == "" {
		return nil, errors.New("report needs a title, a question and a headline")
	}
	if len(r.findings) == 0 {
		return nil, errors.New("report has no findings for \"what this shows\"")
	}
	js, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(summaryPrefix + string(js) + " -->\n")
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	fmt.Fprintf(&b, "**Question.** %s\n\n", r.Question)
	fmt.Fprintf(&b, "**Headline.** %s\n\n", r.Headline)
	b.WriteString("## Setup\n\n")
	for _, line := range r.Setup {
		fmt.Fprintf(&b, "- %s\n", line)
	}
	fmt.Fprintf(&b, "- Machine: %s.\n", m)
	fmt.Fprintf(&b, "- Generated %s by:\n\n  ```sh\n  %s\n  ```\n", s.Generated.Format("2006-01-02 15:04 MST"), s.Command)
	for _, block := range r.body {
		b.WriteString("\n" + block + "\n")
	}
	b.WriteString("\n## What this shows\n\n")
	for _, f := range r.findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	return b.Bytes(), nil
}

// write puts README.md and the figures in dir, and removes SVG files there
// that this report no longer draws, so the folder holds exactly the page.
func (r *Report) write(dir string, s Summary, m Machine) error {
	page, err := r.page(s, m)
	if err != nil {
		return fmt.Errorf("notebook %s: %w", s.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range r.figures {
		keep[f.file] = true
		if err := writeFileAtomic(filepath.Join(dir, f.file), f.svg); err != nil {
			return err
		}
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		return err
	}
	for _, path := range old {
		if !keep[filepath.Base(path)] {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return writeFileAtomic(filepath.Join(dir, "README.md"), page)
}

// writeFileAtomic replaces path only once the new bytes are complete and
// synced, so a failed run never leaves half a page.
func writeFileAtomic(path string, b []byte) error {
	return publish.Publish(path, true, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func escapeAlt(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", "\n", " ").Replace(s)
}
