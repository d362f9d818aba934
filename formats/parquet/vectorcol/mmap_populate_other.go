//go:build (darwin || freebsd || netbsd || openbsd || dragonfly) && !linux

package vectorcol

// mapPopulate is Linux-only; elsewhere pages are faulted in as the scan
// touches them.
const mapPopulate = 0
