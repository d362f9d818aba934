//go:build unix

package bench

import (
	"syscall"
	"unsafe"
)

// offHeapWords maps n zeroed words of anonymous memory, outside the Go
// heap; free unmaps them. A failed mapping falls back to the heap.
func offHeapWords(n int) (words []uint64, free func()) {
	b, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]uint64, n), func() {}
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), func() { _ = syscall.Munmap(b) }
}
