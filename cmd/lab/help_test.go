package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command a user can reach, down to the leaves, shows an example in
// its --help: the issue asks for one on every command.
func TestEveryCommandHasAnExample(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || c == c.Root() && (sub.Name() == "help" || sub.Name() == "completion") {
				// cobra's own help and completion commands document themselves.
				continue
			}
			seen++
			if strings.TrimSpace(sub.Example) == "" {
				t.Errorf("%q has no Example in its --help", sub.CommandPath())
			} else if !strings.Contains(sub.Example, "lab ") {
				t.Errorf("%q: its Example does not show a lab command line: %q", sub.CommandPath(), sub.Example)
			}
			walk(sub)
		}
	}
	root := newRootCommand()
	root.InitDefaultCompletionCmd()
	walk(root)
	if seen < 10 {
		t.Fatalf("walked only %d commands; the command tree is not what this test expects", seen)
	}
}

// shellWords splits a line of an Example as a POSIX shell would, for the
// quoting the examples use ('...' and "..."), up to a redirection or a
// comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case (r == '#' || r == '<' || r == '>' || r == '|') && !in:
			return words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// The root help's examples name real commands with flags they take, and
// lab --version says what was built.
func TestRootExamplesAndVersion(t *testing.T) {
	root := newRootCommand()
	lines := strings.Split(strings.TrimSpace(root.Example), "\n")
	if len(lines) < 5 {
		t.Fatalf("root Example has %d lines", len(lines))
	}
	for _, line := range lines {
		words := shellWords(strings.TrimSpace(line))
		if len(words) < 2 || words[0] != "lab" {
			t.Fatalf("example %q does not start with lab COMMAND", line)
		}
		cmd, rest, err := root.Find(words[1:])
		if err != nil || cmd == root {
			t.Fatalf("example %q: no such command (%v)", line, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("example %q: %v", line, err)
		}
	}
	bin := labBinary(t)
	out, errOut, code := run(t, bin, t.TempDir(), "--version")
	if code != 0 || !strings.HasPrefix(out, "lab ") || !strings.Contains(out, "github.com/apache/iceberg-go v") {
		t.Errorf("lab --version: exit %d\n%s%s", code, out, errOut)
	}
}
