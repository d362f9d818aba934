//go:build !purego

#include "textflag.h"

// AVX2 + FMA float32 kernels. Loads are unaligned (VMOVUPS), so a result
// depends only on the values and the length, never on where the vectors sit
// in memory: 32 elements per step into four 8-lane accumulators, then 8 per
// step into the first, then the lanes are summed in a fixed order, then the
// scalar tail is added element by element.

// hsum folds Y0's eight lanes into the low lane of X0, in a fixed order.
#define HSUM \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS       X1, X0, X0 \
	VMOVHLPS     X0, X0, X1 \
	VADDPS       X1, X0, X0 \
	VMOVSHDUP    X0, X1     \
	VADDSS       X1, X0, X0

// func dotFMA(a, b unsafe.Pointer, n int) float32
TEXT ·dotFMA(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
dot32:
	CMPQ CX, $32
	JL   dot8
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  dot32
dot8:
	CMPQ CX, $8
	JL   dotfold
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  dot8
dotfold:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
dot1:
	CMPQ CX, $0
	JE   dotdone
	VMOVSS      (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  dot1
dotdone:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func squaredL2FMA(a, b unsafe.Pointer, n int) float32
TEXT ·squaredL2FMA(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
l2x32:
	CMPQ CX, $32
	JL   l2x8
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VSUBPS      (DI), Y4, Y4
	VSUBPS      32(DI), Y5, Y5
	VSUBPS      64(DI), Y6, Y6
	VSUBPS      96(DI), Y7, Y7
	VFMADD231PS Y4, Y4, Y0
	VFMADD231PS Y5, Y5, Y1
	VFMADD231PS Y6, Y6, Y2
	VFMADD231PS Y7, Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  l2x32
l2x8:
	CMPQ CX, $8
	JL   l2fold
	VMOVUPS     (SI), Y4
	VSUBPS      (DI), Y4, Y4
	VFMADD231PS Y4, Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  l2x8
l2fold:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
l2x1:
	CMPQ CX, $0
	JE   l2done
	VMOVSS      (SI), X1
	VSUBSS      (DI), X1, X1
	VFMADD231SS X1, X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  l2x1
l2done:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotNormFMA(a, b unsafe.Pointer, n int) (ab, bb float32)
// ab is computed exactly as dotFMA computes it; bb = b·b alongside, from the
// same loads of b, with the same accumulation structure.
TEXT ·dotNormFMA(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
dn32:
	CMPQ CX, $32
	JL   dn8
	VMOVUPS     (DI), Y4
	VMOVUPS     32(DI), Y5
	VMOVUPS     64(DI), Y6
	VMOVUPS     96(DI), Y7
	VFMADD231PS (SI), Y4, Y0
	VFMADD231PS 32(SI), Y5, Y1
	VFMADD231PS 64(SI), Y6, Y2
	VFMADD231PS 96(SI), Y7, Y3
	VFMADD231PS Y4, Y4, Y8
	VFMADD231PS Y5, Y5, Y9
	VFMADD231PS Y6, Y6, Y10
	VFMADD231PS Y7, Y7, Y11
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  dn32
dn8:
	CMPQ CX, $8
	JL   dnfold
	VMOVUPS     (DI), Y4
	VFMADD231PS (SI), Y4, Y0
	VFMADD231PS Y4, Y4, Y8
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  dn8
dnfold:
	// bb first, parked in X12, then ab in X0 by the shared fold.
	VADDPS Y9, Y8, Y8
	VADDPS Y11, Y10, Y10
	VADDPS Y10, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPS       X9, X8, X8
	VMOVHLPS     X8, X8, X9
	VADDPS       X9, X8, X8
	VMOVSHDUP    X8, X9
	VADDSS       X9, X8, X12
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
dn1:
	CMPQ CX, $0
	JE   dndone
	VMOVSS      (DI), X1
	VFMADD231SS (SI), X1, X0
	VFMADD231SS X1, X1, X12
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  dn1
dndone:
	VZEROUPPER
	MOVSS X0, ab+24(FP)
	MOVSS X12, bb+28(FP)
	RET
