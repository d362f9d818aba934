//go:build !purego

#include "textflag.h"

// CRC-32 (IEEE, bit-reflected) folding with VPCLMULQDQ on ymm registers,
// after the method of Gopal et al., "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), which
// hash/crc32's ieeeCLMUL also follows with 4 × 128-bit xmm folds. Each ymm
// holds two independent 128-bit lanes; VPCLMULQDQ multiplies per lane, so a
// lane is folded forward with {lo, hi} constants broadcast to both lanes
// (see crcFoldK in crc_amd64.go).

// func cpuidECX(leaf, sub uint32) uint32
TEXT ·cpuidECX(SB), NOSPLIT, $0-12
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL CX, ret+8(FP)
	RET

// func crcFoldAVX2(crc uint32, p unsafe.Pointer, n int) uint32
//
// Go operand order: VPCLMULQDQ $imm, b, a, dst multiplies quadword imm&1 of
// a by quadword (imm>>4)&1 of b, per 128-bit lane.
TEXT ·crcFoldAVX2(SB), NOSPLIT, $0-28
	MOVL crc+0(FP), AX
	MOVQ p+8(FP), SI
	MOVQ n+16(FP), CX

	// Y1..Y4 = the first 128 bytes, the register XORed into the first 4.
	VMOVD   AX, X0
	VMOVDQU (SI), Y1
	VPXOR   Y0, Y1, Y1
	VMOVDQU 32(SI), Y2
	VMOVDQU 64(SI), Y3
	VMOVDQU 96(SI), Y4
	ADDQ    $128, SI
	SUBQ    $128, CX
	CMPQ    CX, $128
	JB      reduce

	// Y0 = {x^1056, x^992} in both lanes: each lane moves 1024 bits on.
	VBROADCASTI128 ·crcFoldK+0(SB), Y0

	PCALIGN $32
loop:
	VPCLMULQDQ $0x00, Y0, Y1, Y5
	VPCLMULQDQ $0x11, Y0, Y1, Y1
	VPCLMULQDQ $0x00, Y0, Y2, Y6
	VPCLMULQDQ $0x11, Y0, Y2, Y2
	VPCLMULQDQ $0x00, Y0, Y3, Y7
	VPCLMULQDQ $0x11, Y0, Y3, Y3
	VPCLMULQDQ $0x00, Y0, Y4, Y8
	VPCLMULQDQ $0x11, Y0, Y4, Y4
	VPXOR      (SI), Y5, Y5
	VPXOR      32(SI), Y6, Y6
	VPXOR      64(SI), Y7, Y7
	VPXOR      96(SI), Y8, Y8
	VPXOR      Y5, Y1, Y1
	VPXOR      Y6, Y2, Y2
	VPXOR      Y7, Y3, Y3
	VPXOR      Y8, Y4, Y4
	ADDQ       $128, SI
	SUBQ       $128, CX
	CMPQ       CX, $128
	JAE        loop

reduce:
	// Fold Y1 into Y2, Y2 into Y3, Y3 into Y4: 256 bits on each.
	VBROADCASTI128 ·crcFoldK+16(SB), Y0
	VPCLMULQDQ     $0x00, Y0, Y1, Y5
	VPCLMULQDQ     $0x11, Y0, Y1, Y1
	VPXOR          Y5, Y1, Y1
	VPXOR          Y1, Y2, Y2
	VPCLMULQDQ     $0x00, Y0, Y2, Y5
	VPCLMULQDQ     $0x11, Y0, Y2, Y2
	VPXOR          Y5, Y2, Y2
	VPXOR          Y2, Y3, Y3
	VPCLMULQDQ     $0x00, Y0, Y3, Y5
	VPCLMULQDQ     $0x11, Y0, Y3, Y3
	VPXOR          Y5, Y3, Y3
	VPXOR          Y3, Y4, Y4

	// Fold Y4's low lane into its high lane (128 bits on): X4.
	VEXTRACTI128 $1, Y4, X5
	VMOVDQU      ·crcFoldK+32(SB), X0
	VPCLMULQDQ   $0x00, X0, X4, X6
	VPCLMULQDQ   $0x11, X0, X4, X4
	VPXOR        X6, X4, X4
	VPXOR        X5, X4, X4

	// The remaining 16-byte blocks, 128 bits on each.
	TESTQ CX, CX
	JZ    finish

tail16:
	VPCLMULQDQ $0x00, X0, X4, X6
	VPCLMULQDQ $0x11, X0, X4, X4
	VPXOR      (SI), X6, X6
	VPXOR      X6, X4, X4
	ADDQ       $16, SI
	SUBQ       $16, CX
	JNZ        tail16

finish:
	// X4 = T = L·x^64 + H. X1 = x^32·R1, R1 = L·(x^96 mod P) + H·x^32 (96
	// bits: the low 12 bytes of X1 hold R1's reflection from its top).
	VPCLMULQDQ $0x01, X4, X0, X1 // X0 high quadword (x^96) × L
	VPSRLDQ    $8, X4, X2        // H
	VPXOR      X2, X1, X1

	// X3 = 0x00000000ffffffff in each quadword.
	VPCMPEQB X3, X3, X3
	VPSRLQ   $32, X3, X3

	// R1 = A·x^64 + B: X1 = x^64·R2, R2 = A·(x^64 mod P) + B (64 bits, the
	// low quadword).
	VPSRLDQ    $4, X1, X2 // B
	VPAND      X3, X1, X1 // A
	VMOVQ      ·crcFoldK+48(SB), X0
	VPCLMULQDQ $0x00, X0, X1, X1
	VPXOR      X2, X1, X1

	// Barrett: Q = floor(floor(R2/x^32)·mu/x^32); R2 + Q·P in bits 32..63.
	VMOVDQU    ·crcFoldK+56(SB), X0 // {P, mu}
	VPAND      X3, X1, X2           // floor(R2/x^32)
	VPCLMULQDQ $0x10, X0, X2, X2    // × mu
	VPAND      X3, X2, X2           // Q
	VPCLMULQDQ $0x00, X0, X2, X2    // × P
	VPXOR      X1, X2, X2
	VMOVQ      X2, AX
	SHRQ       $32, AX
	MOVL       AX, ret+24(FP)
	VZEROUPPER
	RET
