//go:build !unix

package safeopen

import "os"

// openNonBlocking is a plain open where there is no O_NONBLOCK; Open still
// refuses what is not a regular file once it is open.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
