//go:build !purego

#include "textflag.h"

// Stripe kernels: one step of dotFMA, squaredL2FMA and dotNormFMA's 32-wide
// main loop, for 16 consecutive elements (two of its four 8-lane
// accumulators) of many rows at once, the elements in planes: plane j (at
// planes + j*stride) holds elements 2j and 2j+1 of every row, 8 bytes a
// row, so 32 bytes of a plane are those two elements of 4 rows. The
// accumulators are kept in the same shape, 4 rows × 2 lanes to a register,
// 16 registers for a quad of rows (512 bytes; cosine: ab's 512, then bb's),
// the caller offsetting acc to the 8 that the stripe's elements go to. Each
// accumulator lane gets the same FMA, with the same operands, in the same
// order as the row-by-row kernel gives it, so the folded sums are bit for
// bit that kernel's. q's 16 elements go in pairs to every lane pair
// (VBROADCASTSD).

#define LOADQ \
	VBROADCASTSD 0(DX), Y8   \
	VBROADCASTSD 8(DX), Y9   \
	VBROADCASTSD 16(DX), Y10 \
	VBROADCASTSD 24(DX), Y11 \
	VBROADCASTSD 32(DX), Y12 \
	VBROADCASTSD 40(DX), Y13 \
	VBROADCASTSD 48(DX), Y14 \
	VBROADCASTSD 56(DX), Y15

#define ARGS \
	MOVQ acc+0(FP), DI          \
	MOVQ planes+8(FP), SI       \
	MOVQ q+16(FP), DX           \
	MOVQ quads+24(FP), CX       \
	MOVQ stride+32(FP), R8      \
	LEAQ (R8)(R8*2), R9         \
	LEAQ (SI)(R8*4), BX

// func stripeDotFMA(acc, planes, q unsafe.Pointer, quads, stride int)
TEXT ·stripeDotFMA(SB), NOSPLIT, $0-40
	ARGS
	TESTQ CX, CX
	JZ    sdotdone
	LOADQ
sdot:
	VMOVUPS     0(DI), Y0
	VMOVUPS     32(DI), Y1
	VMOVUPS     64(DI), Y2
	VMOVUPS     96(DI), Y3
	VMOVUPS     128(DI), Y4
	VMOVUPS     160(DI), Y5
	VMOVUPS     192(DI), Y6
	VMOVUPS     224(DI), Y7
	VFMADD231PS (SI), Y8, Y0        // q·x, as dotFMA(q, x)
	VFMADD231PS (SI)(R8*1), Y9, Y1
	VFMADD231PS (SI)(R8*2), Y10, Y2
	VFMADD231PS (SI)(R9*1), Y11, Y3
	VFMADD231PS (BX), Y12, Y4
	VFMADD231PS (BX)(R8*1), Y13, Y5
	VFMADD231PS (BX)(R8*2), Y14, Y6
	VFMADD231PS (BX)(R9*1), Y15, Y7
	VMOVUPS     Y0, 0(DI)
	VMOVUPS     Y1, 32(DI)
	VMOVUPS     Y2, 64(DI)
	VMOVUPS     Y3, 96(DI)
	VMOVUPS     Y4, 128(DI)
	VMOVUPS     Y5, 160(DI)
	VMOVUPS     Y6, 192(DI)
	VMOVUPS     Y7, 224(DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $512, DI
	DECQ CX
	JNZ  sdot
	VZEROUPPER
sdotdone:
	RET

// L2STEP: acc += (q − x)², as squaredL2FMA(q, x), for plane x (memory) and
// the broadcast q in qy, through the scratch register t.
#define L2STEP(x, qy, t, a) \
	VSUBPS      x, qy, t \
	VFMADD231PS t, t, a

// func stripeL2FMA(acc, planes, q unsafe.Pointer, quads, stride int)
TEXT ·stripeL2FMA(SB), NOSPLIT, $0-40
	ARGS
	TESTQ CX, CX
	JZ    sl2done
	LOADQ
sl2:
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	L2STEP((SI), Y8, Y4, Y0)
	L2STEP((SI)(R8*1), Y9, Y5, Y1)
	L2STEP((SI)(R8*2), Y10, Y6, Y2)
	L2STEP((SI)(R9*1), Y11, Y7, Y3)
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS 128(DI), Y0
	VMOVUPS 160(DI), Y1
	VMOVUPS 192(DI), Y2
	VMOVUPS 224(DI), Y3
	L2STEP((BX), Y12, Y4, Y0)
	L2STEP((BX)(R8*1), Y13, Y5, Y1)
	L2STEP((BX)(R8*2), Y14, Y6, Y2)
	L2STEP((BX)(R9*1), Y15, Y7, Y3)
	VMOVUPS Y0, 128(DI)
	VMOVUPS Y1, 160(DI)
	VMOVUPS Y2, 192(DI)
	VMOVUPS Y3, 224(DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $512, DI
	DECQ CX
	JNZ  sl2
	VZEROUPPER
sl2done:
	RET

// DNSTEP: ab += x·q, bb += x·x, as dotNormFMA(q, x), for plane x
// (memory), the broadcast q in qy, the accumulators at off(DI) and
// 512+off(DI).
#define DNSTEP(x, qy, off) \
	VMOVUPS     x, Y0            \
	VMOVUPS     off(DI), Y1      \
	VMOVUPS     512+off(DI), Y2  \
	VFMADD231PS qy, Y0, Y1       \
	VFMADD231PS Y0, Y0, Y2       \
	VMOVUPS     Y1, off(DI)      \
	VMOVUPS     Y2, 512+off(DI)

// func stripeDotNormFMA(acc, planes, q unsafe.Pointer, quads, stride int)
TEXT ·stripeDotNormFMA(SB), NOSPLIT, $0-40
	ARGS
	TESTQ CX, CX
	JZ    sdndone
	LOADQ
sdn:
	DNSTEP((SI), Y8, 0)
	DNSTEP((SI)(R8*1), Y9, 32)
	DNSTEP((SI)(R8*2), Y10, 64)
	DNSTEP((SI)(R9*1), Y11, 96)
	DNSTEP((BX), Y12, 128)
	DNSTEP((BX)(R8*1), Y13, 160)
	DNSTEP((BX)(R8*2), Y14, 192)
	DNSTEP((BX)(R9*1), Y15, 224)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $1024, DI
	DECQ CX
	JNZ  sdn
	VZEROUPPER
sdndone:
	RET
