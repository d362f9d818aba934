// Command testsummary reads `go test -json` on standard input and prints
// what `go test` prints (a line per package, and the output of every failed
// test and package), then a summary of the skipped tests with the reason
// each gave, grouped by reason. Without it the skips are invisible unless
// the run is verbose: `make test` pipes through it, so a run that skipped
// the parquet-testing conformance or the peer matrices says so at the end.
// It exits 1 when a test or package failed or the input was not test2json.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json output (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

func summarize(in io.Reader, out io.Writer) (failed bool, err error) {
	output := map[key][]string{}
	type skip struct{ pkg, test, reason string }
	var skips []skip
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			// go test prints build failures as plain text before any JSON.
			fmt.Fprintln(out, string(line))
			if len(line) > 0 {
				failed = true
			}
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			output[k] = append(output[k], e.Output)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skip{e.Package, e.Test, skipReason(output[k])})
			} else {
				fmt.Fprint(out, strings.Join(output[k], "")) // "?  pkg [no test files]"
			}
			delete(output, k)
		case "pass":
			if e.Test == "" {
				// The package's own summary line ("ok  pkg 1.2s").
				for _, l := range output[k] {
					if strings.HasPrefix(l, "ok") {
						fmt.Fprint(out, l)
					}
				}
			}
			delete(output, k)
		case "fail":
			failed = true
			fmt.Fprint(out, strings.Join(output[k], ""))
			delete(output, k)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	if len(skips) == 0 {
		fmt.Fprintln(out, "no test skipped")
		return failed, nil
	}
	byReason := map[string][]string{}
	for _, s := range skips {
		byReason[s.reason] = append(byReason[s.reason], strings.TrimPrefix(s.pkg, "github.com/coltype-lab/lab/")+" "+s.test)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if len(byReason[reasons[i]]) != len(byReason[reasons[j]]) {
			return len(byReason[reasons[i]]) > len(byReason[reasons[j]])
		}
		return reasons[i] < reasons[j]
	})
	fmt.Fprintf(out, "\n%d tests skipped:\n", len(skips))
	for _, r := range reasons {
		tests := byReason[r]
		sort.Strings(tests)
		fmt.Fprintf(out, "  %d × %s\n", len(tests), r)
		for i, t := range tests {
			if i == 5 {
				fmt.Fprintf(out, "      … and %d more\n", len(tests)-5)
				break
			}
			fmt.Fprintf(out, "      %s\n", t)
		}
	}
	return failed, nil
}

// skipReason is the message a skipped test logged: its output without the
// framework's own lines, on one line.
func skipReason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		// "file_test.go:12: reason" → "reason"
		if i := strings.Index(t, ".go:"); i >= 0 {
			if j := strings.Index(t[i+4:], ": "); j >= 0 {
				t = t[i+4+j+2:]
			}
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}
