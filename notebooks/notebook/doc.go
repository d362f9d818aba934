// Package notebook is what the lab's notebooks share: each notebook is a Go
// program under notebooks/<name>/ that runs one experiment and writes its
// folder's README.md, with tables and SVG plots, so a reader can look at the
// figures instead of rerunning them.
//
// A notebook's main calls Main with the function that runs the experiment
// and fills a Report. Main parses the common flags (--quick, --out, --seed),
// states the machine and the command that reproduces the page, and writes
// README.md and the SVG files. The page opens with a hidden summary line
// (ReadSummary) from which `lab report` builds the index of all notebooks,
// and Check verifies a written page the way the notebooks' tests do.
//
// Output is deterministic where the data is: plots have fixed sizes, use the
// Liberation fonts gonum/plot carries (so text is measured the same on every
// machine), and carry no timestamps; only the page's header names the date
// and the machine.
package notebook
