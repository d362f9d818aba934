package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// progress reports how far long work has got: a bar on a terminal, plain
// lines when stderr is a file or a pipe (logs, CI), nothing with --quiet.
// Commands call Add as work is done and Step to say what is running now,
// then Finish on success or Abort on failure (which drops the bar without a
// final line).
type progress interface {
	Add(n int64)
	// Step names the work under way: the bar's description on a terminal,
	// one plain line otherwise.
	Step(msg string)
	Finish()
	Abort()
}

// stepWriter turns each line written to it into a Step that counts as one
// unit of work, for packages that report progress to an io.Writer.
type stepWriter struct{ p progress }

func (w stepWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" {
			w.p.Step(line)
			w.p.Add(1)
		}
	}
	return len(b), nil
}

// plainInterval is how often plain progress lines are written during long
// work; short work gets only the final line.
const plainInterval = 10 * time.Second

// newProgress starts a progress report on cmd's stderr. total is the
// expected count, or -1 when unknown; what names the count as it should read
// after the number, e.g. "rows written" gives "lab: 100000 rows written".
func newProgress(cmd *cobra.Command, total int64, what string) progress {
	if quiet, err := cmd.Flags().GetBool("quiet"); err == nil && quiet {
		return silentProgress{}
	}
	w := cmd.ErrOrStderr()
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(strings.Fields(what + " items")[0]),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		return &barProgress{bar: bar, w: w, what: what, start: time.Now()}
	}
	now := time.Now()
	return &plainProgress{w: w, what: what, total: total, start: now, last: now}
}

// addQuietFlag gives a command the --quiet flag newProgress obeys.
func addQuietFlag(cmd *cobra.Command) {
	cmd.Flags().BoolP("quiet", "q", false, "no progress output on stderr")
}

type silentProgress struct{}

func (silentProgress) Add(int64)   {}
func (silentProgress) Step(string) {}
func (silentProgress) Finish()     {}
func (silentProgress) Abort()      {}

type barProgress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	what  string
	n     int64
	shown int64 // what the bar has been told of n
	start time.Time
}

// progressBatch is how many units a report gathers, once past its first
// progressBatch, before it looks at the clock or the bar: Add runs once
// per row, and a bar update (a lock, the clock and a redraw check) costs a
// good part of a row. Slow units (notebooks, files) are shown one by one.
const progressBatch = 1024

func (p *barProgress) Add(n int64) {
	p.n += n
	if p.n < progressBatch || p.n-p.shown >= progressBatch {
		_ = p.bar.Add64(p.n - p.shown)
		p.shown = p.n
	}
}

// Finish clears the bar and leaves the same final line the plain report
// writes, so a terminal keeps a record of what was done.
func (p *barProgress) Finish() {
	_ = p.bar.Add64(p.n - p.shown)
	p.shown = p.n
	_ = p.bar.Finish()
	fmt.Fprintf(p.w, "lab: %d %s in %s\n", p.n, p.what, time.Since(p.start).Round(time.Millisecond))
}

func (p *barProgress) Step(msg string) { p.bar.Describe(msg) }

func (p *barProgress) Abort() { _ = p.bar.Exit() }

type plainProgress struct {
	w           io.Writer
	what        string
	n, total    int64
	start, last time.Time
}

func (p *plainProgress) Add(n int64) {
	before := p.n
	p.n += n
	if p.n > progressBatch && p.n/progressBatch == before/progressBatch {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= plainInterval {
		p.last = now
		if p.total > 0 {
			fmt.Fprintf(p.w, "lab: %d of %d %s so far\n", p.n, p.total, p.what)
		} else {
			fmt.Fprintf(p.w, "lab: %d %s so far\n", p.n, p.what)
		}
	}
}

func (p *plainProgress) Step(msg string) { fmt.Fprintln(p.w, msg) }

func (p *plainProgress) Finish() {
	fmt.Fprintf(p.w, "lab: %d %s in %s\n", p.n, p.what, time.Since(p.start).Round(time.Millisecond))
}

func (p *plainProgress) Abort() {}
