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
