// Command lab is Coltype Lab's command line: thin cobra commands over the
// lab's packages, configured by lab.yaml, LAB_* environment variables and flags.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/coltype-lab/lab/registry"
)

// usageError marks bad arguments; it exits with status 2, other failures with 1.
type usageError struct{ error }

func main() {
	removePartialFilesOnSignal()
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		var ue usageError
		var up *registry.UnknownPropertyError
		if errors.As(err, &ue) || errors.As(err, &up) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// removePartialFilesOnSignal removes the files a write has not published
// when the lab is interrupted (Ctrl-C, SIGTERM), then exits as the signal
// would: 128 + its number. SIGKILL cannot be caught; its leftovers carry
// registry.PartialFileMarker and the process id in their names.
func removePartialFilesOnSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		if n := registry.RemovePartialFiles(); n > 0 {
			fmt.Fprintf(os.Stderr, "lab: %v: removed %d unfinished output file(s)\n", sig, n)
		}
		code := 130
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}
