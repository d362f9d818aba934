//go:build !amd64 || purego

package pages

// bssAsm reports that no assembly kernels exist here: DecodeBSS uses Go.
func bssAsm(dst, src []byte, width, n int) bool { return false }

// haveBSSAVX2 is false: there is no assembly here.
const haveBSSAVX2 = false

// bssEncode4Asm reports that no assembly kernel exists here.
func bssEncode4Asm(dst, src []byte, n int) bool { return false }

// bssRowsAsm reports that no assembly kernels exist here: DecodeBSSRows
// uses Go.
func bssRowsAsm(dst, src []byte, width, n, first, count int) bool { return false }

// bssStripesAsm reports that no assembly kernels exist here.
func bssStripesAsm(count int) bool { return false }

func bssStripeAVX2(buf, src []byte, width, n, first, count, k0 int) {
	panic("pages: no assembly kernels")
}
