//go:build unix

package safeopen

import (
	"os"
	"syscall"
)

// openNonBlocking opens path with O_NONBLOCK, so that opening a FIFO returns
// at once instead of waiting for a writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
