//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package vectorcol

import "os"

// mapFile is unavailable here: files are read with ReadAt.
func mapFile(*os.File, int64) ([]byte, func() error, bool) { return nil, nil, false }
