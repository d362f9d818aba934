//go:build !purego

#include "textflag.h"

// Split kernels: the stripe kernels' step, fed straight from byte planes.
// Rows come as a byte-split matrix (plane 4e+b holds byte b of element e
// of every row, one byte a row, planes n bytes apart), and each call takes
// pairs consecutive pairs of elements, pair i's 8 planes at src + 8i·n, …,
// src + (8i+7)·n, for blocks blocks of 32 rows, block after block: each
// block's pairs in turn (its 64 planes read side by side, its accumulators
// staying in L1), which measured about a seventh faster than pair after
// pair over all blocks. The byte and word unpacks below turn 32 bytes of
// an element's 4 planes into the element of those rows as float32s, eight
// rows to a register: register k holds rows
// 4k..4k+3 and 16+4k..19+4k (the unpack instructions work within 128-bit
// lanes, and the accumulators are kept in the order they leave the rows
// in, so no lane crossing is needed). Each register is folded into its
// accumulator in memory with one fused multiply-add of the same operands
// as the row-by-row kernel's, so every accumulator lane gets the same FMAs
// in the same order as there (the caller passes the elements in order).
//
// Accumulators: a block of 32 rows has 32 lanes × 4 registers of 32 bytes
// (4 KiB; cosine: ab's 4 KiB then bb's), lane l of register k at
// acc + 128l + 32k; element e goes to lane e mod 32, as in the 32-wide
// row kernels. The caller offsets acc to the first pair's first lane in
// the first block (the pairs of a call are one stripe of 16 elements,
// whose lanes do not wrap, 256 bytes a pair), and blocks follow 4096
// (cosine 8192) bytes apart. q points at the first pair's two query
// elements. pf is added to each plane address to prefetch (the same rows
// of the next stripe's planes, or the next rows'; 0 touches the lines
// about to be loaded): PREFETCHT0 never faults, so the address need not
// be mapped.

// SPLITT loads 32 bytes of each of the pair's planes at SI, SI+R8,
// SI+2·R8, SI+R9 (3·R8) and BX (SI+4·R8), … and leaves the first element
// of the 32 rows in Y0..Y3 and the second in Y4..Y7 (register k: rows
// 4k..4k+3 | 16+4k..19+4k): bytes 0 and 1, 2 and 3 interleaved into
// words, the words into little-endian float32s.
#define SPLITT \
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
	VPUNPCKHWD Y15, Y13, Y7

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

// SPLITARGS loads the arguments: R12 the first pair's first plane at the
// block's rows, R13 the block's accumulators, CX the blocks left.
#define SPLITARGS \
	MOVQ acc+0(FP), R13     \
	MOVQ src+8(FP), R12     \
	MOVQ n+24(FP), R8       \
	MOVQ pf+48(FP), R10     \
	LEAQ (R8)(R8*2), R9     \
	MOVQ pairs+32(FP), AX   \
	MOVQ blocks+40(FP), CX

// SPLITBLOCK starts a block of 32 rows: SI and BX the first pair's planes 0
// and 4, DI its accumulators, DX its query elements, AX the pairs.
#define SPLITBLOCK \
	MOVQ R12, SI            \
	LEAQ (SI)(R8*4), BX     \
	MOVQ R13, DI            \
	MOVQ q+16(FP), DX       \
	MOVQ pairs+32(FP), AX

// SPLITPAIR moves on to the block's next pair: 8 planes, one lane pair
// and two query elements on.
#define SPLITPAIR \
	LEAQ (SI)(R8*8), SI     \
	LEAQ (BX)(R8*8), BX     \
	ADDQ $256, DI           \
	ADDQ $8, DX             \
	DECQ AX

// SPLITNEXT moves on to the next block: 32 rows on, its accumulators
// stride bytes on.
#define SPLITNEXT(stride) \
	ADDQ $32, R12           \
	ADDQ $stride, R13       \
	DECQ CX

// DOTK: acc += x·q for register x and the broadcast query element qy.
#define DOTK(x, qy, off) \
	VFMADD213PS off(DI), qy, x \
	VMOVUPS     x, off(DI)

// SPLITQ broadcasts the pair's query elements into Y8 and Y9.
#define SPLITQ \
	VBROADCASTSS (DX), Y8   \
	VBROADCASTSS 4(DX), Y9

// func splitDotFMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)
TEXT ·splitDotFMA(SB), NOSPLIT, $0-56
	SPLITARGS
	TESTQ AX, AX
	JZ    spdotdone
	TESTQ CX, CX
	JZ    spdotdone
spdotblock:
	SPLITBLOCK
spdot:
	SPLITPF
	SPLITT
	SPLITQ
	DOTK(Y0, Y8, 0)
	DOTK(Y1, Y8, 32)
	DOTK(Y2, Y8, 64)
	DOTK(Y3, Y8, 96)
	DOTK(Y4, Y9, 128)
	DOTK(Y5, Y9, 160)
	DOTK(Y6, Y9, 192)
	DOTK(Y7, Y9, 224)
	SPLITPAIR
	JNZ  spdot
	SPLITNEXT(4096)
	JNZ  spdotblock
	VZEROUPPER
spdotdone:
	RET

// L2K: acc += (q − x)² through the scratch register t, as the stripe
// kernel's L2STEP.
#define L2K(x, qy, t, off) \
	VSUBPS      x, qy, t       \
	VFMADD213PS off(DI), t, t  \
	VMOVUPS     t, off(DI)

// func splitL2FMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)
TEXT ·splitL2FMA(SB), NOSPLIT, $0-56
	SPLITARGS
	TESTQ AX, AX
	JZ    spl2done
	TESTQ CX, CX
	JZ    spl2done
spl2block:
	SPLITBLOCK
spl2:
	SPLITPF
	SPLITT
	SPLITQ
	L2K(Y0, Y8, Y10, 0)
	L2K(Y1, Y8, Y11, 32)
	L2K(Y2, Y8, Y12, 64)
	L2K(Y3, Y8, Y13, 96)
	L2K(Y4, Y9, Y14, 128)
	L2K(Y5, Y9, Y15, 160)
	L2K(Y6, Y9, Y10, 192)
	L2K(Y7, Y9, Y11, 224)
	SPLITPAIR
	JNZ  spl2
	SPLITNEXT(4096)
	JNZ  spl2block
	VZEROUPPER
spl2done:
	RET

// DNK: ab += x·q (at off) and bb += x·x (at 4096+off) through the scratch
// register t, as the stripe kernel's DNSTEP.
#define DNK(x, qy, t, off) \
	VMOVAPS     x, t                \
	VFMADD213PS 4096+off(DI), t, t  \
	VFMADD213PS off(DI), qy, x      \
	VMOVUPS     t, 4096+off(DI)     \
	VMOVUPS     x, off(DI)

// func splitDotNormFMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)
TEXT ·splitDotNormFMA(SB), NOSPLIT, $0-56
	SPLITARGS
	TESTQ AX, AX
	JZ    spdndone
	TESTQ CX, CX
	JZ    spdndone
spdnblock:
	SPLITBLOCK
spdn:
	SPLITPF
	SPLITT
	SPLITQ
	DNK(Y0, Y8, Y10, 0)
	DNK(Y1, Y8, Y11, 32)
	DNK(Y2, Y8, Y12, 64)
	DNK(Y3, Y8, Y13, 96)
	DNK(Y4, Y9, Y14, 128)
	DNK(Y5, Y9, Y15, 160)
	DNK(Y6, Y9, Y10, 192)
	DNK(Y7, Y9, Y11, 224)
	SPLITPAIR
	JNZ  spdn
	SPLITNEXT(8192)
	JNZ  spdnblock
	VZEROUPPER
spdndone:
	RET

// FOLDL leaves in y lane l's sums over the four 8-lane accumulators,
// (A0 + A1) + (A2 + A3), as foldLanes's first step: lanes l, 8+l, 16+l and
// 24+l of row set k, at a0..a3 (128·l, 128·(8+l), …) past DI.
#define FOLDL(a0, a1, a2, a3, y) \
	VMOVUPS a0(DI), y      \
	VADDPS  a1(DI), y, y   \
	VMOVUPS a2(DI), Y8     \
	VADDPS  a3(DI), Y8, Y8 \
	VADDPS  Y8, y, y

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
	MOVQ $4, R8
sfset:
	FOLDL(0, 1024, 2048, 3072, Y0)
	FOLDL(128, 1152, 2176, 3200, Y1)
	FOLDL(256, 1280, 2304, 3328, Y2)
	FOLDL(384, 1408, 2432, 3456, Y3)
	FOLDL(512, 1536, 2560, 3584, Y4)
	FOLDL(640, 1664, 2688, 3712, Y5)
	FOLDL(768, 1792, 2816, 3840, Y6)
	FOLDL(896, 1920, 2944, 3968, Y7)
	VADDPS       Y4, Y0, Y0     // s0 = y0 + y4
	VADDPS       Y5, Y1, Y1     // s1 = y1 + y5
	VADDPS       Y6, Y2, Y2     // s2 = y2 + y6
	VADDPS       Y7, Y3, Y3     // s3 = y3 + y7
	VADDPS       Y2, Y0, Y0     // s0 + s2
	VADDPS       Y3, Y1, Y1     // s1 + s3
	VADDPS       Y1, Y0, Y0     // rows 4k..4k+3 | 16+4k..19+4k
	VMOVUPS      X0, (BX)
	VEXTRACTF128 $1, Y0, X1
	VMOVUPS      X1, 64(BX)
	ADDQ $32, DI
	ADDQ $16, BX
	DECQ R8
	JNZ  sfset
	ADDQ DX, SI
	ADDQ $128, AX
	DECQ CX
	JNZ  sfblock
	VZEROUPPER
sfdone:
	RET
