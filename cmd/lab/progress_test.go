package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// Off a terminal, steps are plain lines, each line a package writes counts
// as a step, and the final line gives the count; --quiet silences it all.
func TestPlainProgressSteps(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		t.Run(fmt.Sprint("quiet=", quiet), func(t *testing.T) {
			cmd := &cobra.Command{Use: "x"}
			addQuietFlag(cmd)
			if quiet {
				if err := cmd.Flags().Set("quiet", "true"); err != nil {
					t.Fatal(err)
				}
			}
			var errOut bytes.Buffer
			cmd.SetErr(&errOut)
			p := newProgress(cmd, -1, "steps")
			fmt.Fprintf(stepWriter{p}, "peers: one\npeers: two\n\n")
			fmt.Fprintf(stepWriter{p}, "peers: three")
			p.Finish()
			got := errOut.String()
			if quiet {
				if got != "" {
					t.Fatalf("--quiet printed %q", got)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != 4 || lines[0] != "peers: one" || lines[1] != "peers: two" || lines[2] != "peers: three" ||
				!strings.HasPrefix(lines[3], "lab: 3 steps in ") {
				t.Fatalf("progress lines %q", lines)
			}
			if _, err := time.ParseDuration(strings.TrimPrefix(lines[3], "lab: 3 steps in ")); err != nil {
				t.Fatalf("final line %q: %v", lines[3], err)
			}
		})
	}
}
