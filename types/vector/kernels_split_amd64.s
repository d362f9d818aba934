//go:build !purego

#include "textflag.h"

// Split kernels: the stripe kernels' step, fed straight from byte planes.
// Rows come as a byte-split matrix (plane 4e+b holds byte b of element e
// of every row, one byte a row, planes n bytes apart), and each call takes
// pairs consecutive pairs of elements, pair i's 8 planes at src + 8i·n, …,
// src + (8i+7)·n, 32 rows at a time for blocks blocks. The 8-plane byte interleave below turns 32 bytes
// of each plane into the 8-byte (two-element) values of those rows, four
// rows to a register: register k holds rows 2k, 2k+1, 16+2k and 17+2k (the
// unpack instructions work within 128-bit lanes, and the accumulators are
// kept in the order they leave the rows in, so no lane crossing is
// needed). Each register is folded into its accumulator in memory with one
// fused multiply-add of the same operands as the row-by-row kernel's, so
// every accumulator lane gets the same FMAs in the same order as there
// (the caller passes the element pairs in order).
//
// Accumulators: a block of 32 rows has 16 lane pairs × 8 registers of 32
// bytes (4 KiB; cosine: ab's 4 KiB then bb's), lane pair p of register k at
// acc + 256p + 32k; the caller offsets acc to the pair's lane pair of the
// first block (pair i's lane pair is 256·i bytes on: the pairs of a call
// are one stripe of 16 elements, whose lane pairs do not wrap), and blocks
// follow 4096 (cosine 8192) bytes apart. q points at the first pair's two
// query elements. pf, when not zero, is added to each
// plane address to prefetch (the same rows of the next pair's planes, or
// the next rows'): PREFETCHT0 never faults, so it need not be mapped.
//
// The interleave is formats/parquet/internal/pages' TRANSPOSE8 without its
// final lane permutation; assembly macros do not cross packages, and the
// Parquet page stack and the scoring kernels are kept apart by design.

// SPLITT8 loads 32 bytes of each plane at SI, SI+R8, SI+2·R8, SI+R9 (3·R8),
// BX (SI+4·R8), … and leaves in Y8..Y15 the 8-byte values of rows
// (0,1|16,17), (2,3|18,19), …, (14,15|30,31).
#define SPLITT8 \
	VMOVDQU    (SI), Y0          \
	VMOVDQU    (SI)(R8*1), Y1    \
	VMOVDQU    (SI)(R8*2), Y2    \
	VMOVDQU    (SI)(R9*1), Y3    \
	VMOVDQU    (BX), Y4          \
	VMOVDQU    (BX)(R8*1), Y5    \
	VMOVDQU    (BX)(R8*2), Y6    \
	VMOVDQU    (BX)(R9*1), Y7    \
	VPUNPCKLBW Y1, Y0, Y8        \
	VPUNPCKHBW Y1, Y0, Y9        \
	VPUNPCKLBW Y3, Y2, Y10       \
	VPUNPCKHBW Y3, Y2, Y11       \
	VPUNPCKLBW Y5, Y4, Y12       \
	VPUNPCKHBW Y5, Y4, Y13       \
	VPUNPCKLBW Y7, Y6, Y14       \
	VPUNPCKHBW Y7, Y6, Y15       \
	VPUNPCKLWD Y10, Y8, Y0       \
	VPUNPCKHWD Y10, Y8, Y1       \
	VPUNPCKLWD Y11, Y9, Y2       \
	VPUNPCKHWD Y11, Y9, Y3       \
	VPUNPCKLWD Y14, Y12, Y4      \
	VPUNPCKHWD Y14, Y12, Y5      \
	VPUNPCKLWD Y15, Y13, Y6      \
	VPUNPCKHWD Y15, Y13, Y7      \
	VPUNPCKLDQ Y4, Y0, Y8        \
	VPUNPCKHDQ Y4, Y0, Y9        \
	VPUNPCKLDQ Y5, Y1, Y10       \
	VPUNPCKHDQ Y5, Y1, Y11       \
	VPUNPCKLDQ Y6, Y2, Y12       \
	VPUNPCKHDQ Y6, Y2, Y13       \
	VPUNPCKLDQ Y7, Y3, Y14       \
	VPUNPCKHDQ Y7, Y3, Y15

// SPLITPF prefetches the 8 planes' next 32 bytes at pf (R10) past them.
#define SPLITPF \
	LEAQ       (SI)(R10*1), R11  \
	PREFETCHT0 (R11)             \
	PREFETCHT0 (R11)(R8*1)       \
	PREFETCHT0 (R11)(R8*2)       \
	PREFETCHT0 (R11)(R9*1)       \
	LEAQ       (BX)(R10*1), R11  \
	PREFETCHT0 (R11)             \
	PREFETCHT0 (R11)(R8*1)       \
	PREFETCHT0 (R11)(R8*2)       \
	PREFETCHT0 (R11)(R9*1)

// SPLITARGS loads the arguments: R12 the pair's first plane, R13 its
// accumulators, DX its query elements, AX the pairs left.
#define SPLITARGS \
	MOVQ acc+0(FP), R13     \
	MOVQ src+8(FP), R12     \
	MOVQ q+16(FP), DX       \
	MOVQ n+24(FP), R8       \
	MOVQ pairs+32(FP), AX   \
	MOVQ pf+48(FP), R10     \
	LEAQ (R8)(R8*2), R9

// SPLITPAIR starts a pair: SI and BX its planes 0 and 4, DI its
// accumulators, CX the blocks.
#define SPLITPAIR \
	MOVQ R12, SI            \
	LEAQ (SI)(R8*4), BX     \
	MOVQ R13, DI            \
	MOVQ blocks+40(FP), CX

// SPLITNEXT moves on to the next pair: 8 planes, one lane pair and two
// query elements on.
#define SPLITNEXT \
	LEAQ (R12)(R8*8), R12   \
	ADDQ $256, R13          \
	ADDQ $8, DX             \
	DECQ AX

// DOTK: acc += x·q for register x (Y0 = q's pair in every lane pair).
#define DOTK(x, off) \
	VFMADD213PS off(DI), Y0, x \
	VMOVUPS     x, off(DI)

// func splitDotFMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)
TEXT ·splitDotFMA(SB), NOSPLIT, $0-56
	SPLITARGS
	TESTQ AX, AX
	JZ    spdotdone
	MOVQ  blocks+40(FP), CX
	TESTQ CX, CX
	JZ    spdotdone
spdotpair:
	SPLITPAIR
spdot:
	SPLITPF
	SPLITT8
	VBROADCASTSD (DX), Y0
	DOTK(Y8, 0)
	DOTK(Y9, 32)
	DOTK(Y10, 64)
	DOTK(Y11, 96)
	DOTK(Y12, 128)
	DOTK(Y13, 160)
	DOTK(Y14, 192)
	DOTK(Y15, 224)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $4096, DI
	DECQ CX
	JNZ  spdot
	SPLITNEXT
	JNZ  spdotpair
	VZEROUPPER
spdotdone:
	RET

// L2K: acc += (q − x)² through the scratch register t, as the stripe
// kernel's L2STEP.
#define L2K(x, t, off) \
	VSUBPS      x, Y0, t       \
	VFMADD213PS off(DI), t, t  \
	VMOVUPS     t, off(DI)

// func splitL2FMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)
TEXT ·splitL2FMA(SB), NOSPLIT, $0-56
	SPLITARGS
	TESTQ AX, AX
	JZ    spl2done
	MOVQ  blocks+40(FP), CX
	TESTQ CX, CX
	JZ    spl2done
spl2pair:
	SPLITPAIR
spl2:
	SPLITPF
	SPLITT8
	VBROADCASTSD (DX), Y0
	L2K(Y8, Y1, 0)
	L2K(Y9, Y2, 32)
	L2K(Y10, Y3, 64)
	L2K(Y11, Y4, 96)
	L2K(Y12, Y5, 128)
	L2K(Y13, Y6, 160)
	L2K(Y14, Y7, 192)
	L2K(Y15, Y1, 224)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $4096, DI
	DECQ CX
	JNZ  spl2
	SPLITNEXT
	JNZ  spl2pair
	VZEROUPPER
spl2done:
	RET

// DNK: ab += x·q (at off) and bb += x·x (at 4096+off) through the scratch
// register t, as the stripe kernel's DNSTEP.
#define DNK(x, t, off) \
	VMOVAPS     x, t                \
	VFMADD213PS 4096+off(DI), t, t  \
	VFMADD213PS off(DI), Y0, x      \
	VMOVUPS     t, 4096+off(DI)     \
	VMOVUPS     x, off(DI)

// func splitDotNormFMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)
TEXT ·splitDotNormFMA(SB), NOSPLIT, $0-56
	SPLITARGS
	TESTQ AX, AX
	JZ    spdndone
	MOVQ  blocks+40(FP), CX
	TESTQ CX, CX
	JZ    spdndone
spdnpair:
	SPLITPAIR
spdn:
	SPLITPF
	SPLITT8
	VBROADCASTSD (DX), Y0
	DNK(Y8, Y1, 0)
	DNK(Y9, Y2, 32)
	DNK(Y10, Y3, 64)
	DNK(Y11, Y4, 96)
	DNK(Y12, Y5, 128)
	DNK(Y13, Y6, 160)
	DNK(Y14, Y7, 192)
	DNK(Y15, Y1, 224)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $8192, DI
	DECQ CX
	JNZ  spdn
	SPLITNEXT
	JNZ  spdnpair
	VZEROUPPER
spdndone:
	RET

// FOLDJ leaves in y lane pair j's sums over the four accumulators,
// (A0 + A1) + (A2 + A3), as foldLanes's first step: registers j, 4+j, 8+j
// and 12+j of row set k, at a0..a3 (256·j, 256·(4+j), …) past DI.
#define FOLDJ(a0, a1, a2, a3, y, t) \
	VMOVUPS a0(DI), y    \
	VADDPS  a1(DI), y, y \
	VMOVUPS a2(DI), t    \
	VADDPS  a3(DI), t, t \
	VADDPS  t, y, y

// func splitFold(acc, out unsafe.Pointer, blocks, blockStride int)
//
// splitFold folds the split kernels' accumulators of blocks blocks (32
// rows each, blockStride bytes apart) into one sum a row, foldLanes's sums
// in foldLanes's order, and writes the block's 32 to out in row order.
TEXT ·splitFold(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), SI
	MOVQ out+8(FP), AX
	MOVQ blocks+16(FP), CX
	MOVQ blockStride+24(FP), DX
	TESTQ CX, CX
	JZ    sfdone
sfblock:
	MOVQ SI, DI
	MOVQ AX, BX
	MOVQ $8, R8
sfset:
	FOLDJ(0, 1024, 2048, 3072, Y0, Y4)
	FOLDJ(256, 1280, 2304, 3328, Y1, Y5)
	FOLDJ(512, 1536, 2560, 3584, Y2, Y6)
	FOLDJ(768, 1792, 2816, 3840, Y3, Y7)
	VADDPS       Y2, Y0, Y0     // (s0, s1) of each row: y0+y4, y1+y5
	VADDPS       Y3, Y1, Y1     // (s2, s3): y2+y6, y3+y7
	VADDPS       Y1, Y0, Y0     // (s0+s2, s1+s3)
	VHADDPS      Y0, Y0, Y0     // (s0+s2) + (s1+s3): rows 2k, 2k+1 | 16+2k, 17+2k
	VMOVLPS      X0, (BX)
	VEXTRACTF128 $1, Y0, X1
	VMOVLPS      X1, 64(BX)
	ADDQ $32, DI
	ADDQ $8, BX
	DECQ R8
	JNZ  sfset
	ADDQ DX, SI
	ADDQ $128, AX
	DECQ CX
	JNZ  sfblock
	VZEROUPPER
sfdone:
	RET
