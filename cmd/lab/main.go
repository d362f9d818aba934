// Command lab is Coltype Lab's command line: thin cobra commands over the
// lab's packages, configured by lab.yaml, LAB_* environment variables and flags.
package main

import (
	"errors"
	"fmt"
	"os"
)

// usageError marks bad arguments; it exits with status 2, other failures with 1.
type usageError struct{ error }

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
