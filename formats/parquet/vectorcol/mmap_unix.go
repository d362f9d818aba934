//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package vectorcol

import (
	"os"
	"syscall"
)

// mapFile maps the file read-only so that uncompressed pages are used where
// they lie in the page cache: no read copy and no buffer to allocate and
// clear per page. ok is false when the file cannot be mapped (empty, too
// large for the address space, a file system without mmap); the caller then
// reads with ReadAt.
//
// A mapping has one hazard a read does not: if another process truncates the
// file while it is mapped, touching the lost pages raises SIGBUS. The layout
// files are written once and not modified in place, so the lab accepts it.
func mapFile(f *os.File, size int64) (data []byte, unmap func() error, ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, false
	}
	return b, func() error { return syscall.Munmap(b) }, true
}
