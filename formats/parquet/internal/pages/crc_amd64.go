//go:build !purego

package pages

import (
	"hash/crc32"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveCRCFold gates the VPCLMULQDQ CRC kernel: AVX and AVX2 with the OS
// saving the YMM registers (x/sys/cpu's HasAVX and HasAVX2 check XCR0),
// PCLMULQDQ, and VPCLMULQDQ (CPUID leaf 7, sub-leaf 0, ECX bit 10). x/sys/cpu
// reports that bit only as HasAVX512VPCLMULQDQ and only when the OS enables
// AVX-512 state, so it is read here with cpuidECX. HasAVX2 implies the
// maximum CPUID leaf is at least 7 (x/sys/cpu sets it from leaf 7).
var haveCRCFold = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ &&
	cpuidECX(7, 0)&(1<<10) != 0

// cpuidECX returns ECX of CPUID(leaf, sub).
func cpuidECX(leaf, sub uint32) uint32

// crcFoldK holds the constants crcFoldAVX2 reads. P = 0x104C11DB7 is the
// CRC-32 IEEE polynomial; the data and the register are bit-reflected (the
// first bit of a byte, its LSB, is the highest-degree coefficient).
//
// Folding: a 128-bit lane T = L·x^64 + H (L its low quadword: the earlier
// bytes) moved D bits on is T·x^D ≡ L·(x^(D+64) mod P) + H·(x^D mod P). With
// reflected operands a carry-less product lands 32 bits further on when the
// constant is the 33-bit reflection of x^n mod P (bit j for x^(32-j), i.e.
// bits.Reverse32(x^n mod P) << 1), so the lane pairs are {x^(D+32) mod P,
// x^(D-32) mod P} in that form, for D = 1024 (the main loop: 4 ymm, 128
// bytes, apart), 256 (a ymm into the next) and 128 (lane into lane, and the
// 16-byte tail folds).
//
// Final reduction of the 128-bit remainder T to the 32-bit register,
// T·x^32 mod P: L·(x^96 mod P) + H·x^32 leaves 96 bits R1 = A·x^64 + B;
// A·(x^64 mod P) + B leaves 64 bits R2; then Barrett: Q = floor(floor(R2 /
// x^32)·mu / x^32) with mu = floor(x^64 / P) = 0x104D101DF, and R2 + Q·P
// is the register. P and mu are stored in the same 33-bit reflected form.
//
// TestCRCFoldConstants recomputes all of them from P (xnModP, polyDiv); the
// ones hash/crc32's amd64 code also uses (r2r1 for D = 512, r4r3, r5,
// rupoly) come out equal to its values.
var crcFoldK = [9]uint64{
	0x1e88ef372, 0x14a7fe880, // D = 1024: x^1056, x^992
	0x0f1da05aa, 0x15a546366, // D = 256: x^288, x^224
	0x1751997d0, 0x0ccaa009e, // D = 128: x^160, x^96
	0x163cd6124,              // x^64
	0x1db710641, 0x1f7011641, // P, mu
}

// crcKernelBuilt is true: this build has crcFoldAVX2 (used if haveCRCFold).
const crcKernelBuilt = true

// crcFoldConsts returns crcFoldK for TestCRCFoldConstants.
func crcFoldConsts() []uint64 { return crcFoldK[:] }

// crcFoldAVX2 returns the raw (not inverted) CRC-32 IEEE register after n
// bytes at p from the register crc; n must be a multiple of 16, at least
// 128.
//
//go:noescape
func crcFoldAVX2(crc uint32, p unsafe.Pointer, n int) uint32

// crcFold is crc32.ChecksumIEEE(b) for len(b) >= 128 on a CPU with
// haveCRCFold: the kernel takes the whole 16-byte blocks, and hash/crc32
// the last len(b) % 16 bytes (crc32.Update inverts the register on the way
// in and out, as ChecksumIEEE does).
func crcFold(b []byte) uint32 {
	n := len(b) &^ 15
	r := crcFoldAVX2(0xffffffff, unsafe.Pointer(unsafe.SliceData(b)), n)
	if n == len(b) {
		return ^r
	}
	return crc32.Update(^r, crc32.IEEETable, b[n:])
}
