//go:build !purego

package pages

import "unsafe"

// bssEncode4AVX2 splits blocks × 32 4-byte values at src into the 4 streams
// dst + k*n (bss_encode_amd64.s).
//
//go:noescape
func bssEncode4AVX2(dst, src unsafe.Pointer, n, blocks int)

// bssEncode4Asm encodes n 4-byte values with the assembly kernel and
// reports whether it did: it needs AVX2 and n ≥ 32. The last block is
// shifted back to end at the edge, rewriting stream bytes already written
// with the same values, so no tail is left.
func bssEncode4Asm(dst, src []byte, n int) bool {
	if !haveBSSAVX2 || bssForceGo || n < 32 {
		return false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	s := unsafe.Pointer(unsafe.SliceData(src))
	bssEncode4AVX2(d, s, n, n/32)
	if n%32 != 0 {
		last := n - 32
		bssEncode4AVX2(unsafe.Add(d, last), unsafe.Add(s, 4*last), n, 1)
	}
	return true
}
