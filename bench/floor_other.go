//go:build !unix

package bench

// offHeapWords is make where there is no anonymous mapping to use.
func offHeapWords(n int) (words []uint64, free func()) { return make([]uint64, n), func() {} }
