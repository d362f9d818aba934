//go:build !purego

package pages

import "unsafe"

// bssPrefetch asks for every cache line of streams stretches of length
// bytes at p + j*stride to be brought into cache (bss_prefetch_amd64.s).
//
//go:noescape
func bssPrefetch(p unsafe.Pointer, stride, streams, length int)
