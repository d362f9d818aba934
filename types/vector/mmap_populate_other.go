//go:build (darwin || freebsd || netbsd || openbsd || dragonfly) && !linux

package vector

// mapPopulate is Linux-only; elsewhere pages are faulted in as the scan
// touches them.
const mapPopulate = 0
