//go:build !purego

#include "textflag.h"

// bssAhead is how far ahead of its loads bss4AVX2 prefetches each stream.
#define bssAhead 2048

// BYTE_STREAM_SPLIT decoding with AVX2. Each step takes 32 bytes (columns)
// from each stream; the unpack instructions interleave within 128-bit lanes,
// so lane 0 of every result holds columns 0-15 and lane 1 columns 16-31, and
// VPERM2I128 (or VEXTRACTI128) puts the lanes in order at the end.

// func bss2AVX2(dst, src unsafe.Pointer, n, blocks int)
TEXT ·bss2AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ blocks+24(FP), CX

loop2:
	VMOVDQU    (SI), Y0
	VMOVDQU    (SI)(R8*1), Y1
	VPUNPCKLBW Y1, Y0, Y2           // columns 0-7 | 16-23
	VPUNPCKHBW Y1, Y0, Y3           // columns 8-15 | 24-31
	VPERM2I128 $0x20, Y3, Y2, Y4    // columns 0-15
	VPERM2I128 $0x31, Y3, Y2, Y5    // columns 16-31
	VMOVDQU    Y4, (DI)
	VMOVDQU    Y5, 32(DI)
	ADDQ       $32, SI
	ADDQ       $64, DI
	DECQ       CX
	JNZ        loop2
	VZEROUPPER
	RET

// func bss4AVX2(dst, src unsafe.Pointer, n, blocks int)
//
// Each step prefetches its four streams bssAhead bytes on. The hardware
// prefetchers alone left one core at 13–15 GB/s from memory on the lab's
// Zen 5 machine, against 20–25 with this (BenchmarkDecodeBSSRowsMemory).
// A prefetch past a stream's end touches the next stream or nothing: it
// never faults.
TEXT ·bss4AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ blocks+24(FP), CX
	LEAQ (R8)(R8*2), R9

loop4:
	PREFETCHT0 bssAhead(SI)
	PREFETCHT0 bssAhead(SI)(R8*1)
	PREFETCHT0 bssAhead(SI)(R8*2)
	PREFETCHT0 bssAhead(SI)(R9*1)
	VMOVDQU    (SI), Y0
	VMOVDQU    (SI)(R8*1), Y1
	VMOVDQU    (SI)(R8*2), Y2
	VMOVDQU    (SI)(R9*1), Y3
	VPUNPCKLBW Y1, Y0, Y4           // streams 0,1: columns 0-7 | 16-23
	VPUNPCKHBW Y1, Y0, Y5           // streams 0,1: columns 8-15 | 24-31
	VPUNPCKLBW Y3, Y2, Y6           // streams 2,3: columns 0-7 | 16-23
	VPUNPCKHBW Y3, Y2, Y7           // streams 2,3: columns 8-15 | 24-31
	VPUNPCKLWD Y6, Y4, Y0           // values 0-3 | 16-19
	VPUNPCKHWD Y6, Y4, Y1           // values 4-7 | 20-23
	VPUNPCKLWD Y7, Y5, Y2           // values 8-11 | 24-27
	VPUNPCKHWD Y7, Y5, Y3           // values 12-15 | 28-31
	VPERM2I128 $0x20, Y1, Y0, Y4    // values 0-7
	VPERM2I128 $0x20, Y3, Y2, Y5    // values 8-15
	VPERM2I128 $0x31, Y1, Y0, Y6    // values 16-23
	VPERM2I128 $0x31, Y3, Y2, Y7    // values 24-31
	VMOVDQU    Y4, (DI)
	VMOVDQU    Y5, 32(DI)
	VMOVDQU    Y6, 64(DI)
	VMOVDQU    Y7, 96(DI)
	ADDQ       $32, SI
	ADDQ       $128, DI
	DECQ       CX
	JNZ        loop4
	VZEROUPPER
	RET

// TRANSPOSE8 loads 32 bytes from each of the streams at SI, SI+R8, SI+2*R8,
// SI+R9 (= 3*R8) and BX (= SI+4*R8) onwards, and leaves in Y8-Y15 the
// 8-byte values of columns (0,1|16,17), (2,3|18,19), ..., (14,15|30,31).
#define TRANSPOSE8 \
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

// func bss8AVX2(dst, src unsafe.Pointer, n, blocks int)
TEXT ·bss8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ blocks+24(FP), CX
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), BX

loop8:
	TRANSPOSE8
	VPERM2I128 $0x20, Y9, Y8, Y0     // values 0-3
	VPERM2I128 $0x20, Y11, Y10, Y1   // values 4-7
	VPERM2I128 $0x20, Y13, Y12, Y2   // values 8-11
	VPERM2I128 $0x20, Y15, Y14, Y3   // values 12-15
	VPERM2I128 $0x31, Y9, Y8, Y4     // values 16-19
	VPERM2I128 $0x31, Y11, Y10, Y5   // values 20-23
	VPERM2I128 $0x31, Y13, Y12, Y6   // values 24-27
	VPERM2I128 $0x31, Y15, Y14, Y7   // values 28-31
	VMOVDQU    Y0, (DI)
	VMOVDQU    Y1, 32(DI)
	VMOVDQU    Y2, 64(DI)
	VMOVDQU    Y3, 96(DI)
	VMOVDQU    Y4, 128(DI)
	VMOVDQU    Y5, 160(DI)
	VMOVDQU    Y6, 192(DI)
	VMOVDQU    Y7, 224(DI)
	ADDQ       $32, SI
	ADDQ       $32, BX
	ADDQ       $256, DI
	DECQ       CX
	JNZ        loop8
	VZEROUPPER
	RET

// STORE16 writes the two 8-byte halves of X0..X7 to the rows AX, AX+R10,
// ..., AX+15*R10 (R11 = 3*R10, R12 = 5*R10, R13 = 7*R10).
#define STORE16(x0, x1, x2, x3, x4, x5, x6, x7) \
	VMOVQ   x0, (AX)             \
	VMOVHPS x0, (AX)(R10*1)      \
	VMOVQ   x1, (AX)(R10*2)      \
	VMOVHPS x1, (AX)(R11*1)      \
	VMOVQ   x2, (AX)(R10*4)      \
	VMOVHPS x2, (AX)(R12*1)      \
	VMOVQ   x3, (AX)(R11*2)      \
	VMOVHPS x3, (AX)(R13*1)      \
	LEAQ    (AX)(R10*8), AX      \
	VMOVQ   x4, (AX)             \
	VMOVHPS x4, (AX)(R10*1)      \
	VMOVQ   x5, (AX)(R10*2)      \
	VMOVHPS x5, (AX)(R11*1)      \
	VMOVQ   x6, (AX)(R10*4)      \
	VMOVHPS x6, (AX)(R12*1)      \
	VMOVQ   x7, (AX)(R11*2)      \
	VMOVHPS x7, (AX)(R13*1)      \
	LEAQ    (AX)(R10*8), AX

// func bssT8AVX2(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride, groups int)
TEXT ·bssT8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R10
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	MOVQ groups+32(FP), CX
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), BX
	LEAQ (R10)(R10*2), R11
	LEAQ (R10)(R10*4), R12
	LEAQ (R11)(R10*4), R13
	MOVQ R8, DX
	SHLQ $3, DX                      // 8 streams

loopT:
	TRANSPOSE8
	MOVQ         DI, AX
	STORE16(X8, X9, X10, X11, X12, X13, X14, X15)
	VEXTRACTI128 $1, Y8, X0
	VEXTRACTI128 $1, Y9, X1
	VEXTRACTI128 $1, Y10, X2
	VEXTRACTI128 $1, Y11, X3
	VEXTRACTI128 $1, Y12, X4
	VEXTRACTI128 $1, Y13, X5
	VEXTRACTI128 $1, Y14, X6
	VEXTRACTI128 $1, Y15, X7
	STORE16(X0, X1, X2, X3, X4, X5, X6, X7)
	ADDQ         $8, DI
	ADDQ         DX, SI
	ADDQ         DX, BX
	DECQ         CX
	JNZ          loopT
	VZEROUPPER
	RET

// func bssMerge8AVX2(dst unsafe.Pointer, dstStride int, parts unsafe.Pointer, partStride, quads int)
//
// The second level of the 64-stream transpose: parts holds 8 arrays (at
// parts + j*partStride) of 8-byte values, array j holding bytes 8j..8j+7 of
// every row; row r of dst (64 bytes at dst + r*dstStride) is the r-th value
// of each array in turn. Rows go 4 at a time (quads of them).
TEXT ·bssMerge8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R10
	MOVQ parts+16(FP), SI
	MOVQ partStride+24(FP), R8
	MOVQ quads+32(FP), CX
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), BX
	LEAQ (R10)(R10*2), R11

loopMerge:
	VMOVDQU     (SI), Y0             // part 0, rows r..r+3
	VMOVDQU     (SI)(R8*1), Y1
	VMOVDQU     (SI)(R8*2), Y2
	VMOVDQU     (SI)(R9*1), Y3
	VMOVDQU     (BX), Y4
	VMOVDQU     (BX)(R8*1), Y5
	VMOVDQU     (BX)(R8*2), Y6
	VMOVDQU     (BX)(R9*1), Y7
	VPUNPCKLQDQ Y1, Y0, Y8           // parts 0,1: rows r | r+2
	VPUNPCKHQDQ Y1, Y0, Y9           // parts 0,1: rows r+1 | r+3
	VPUNPCKLQDQ Y3, Y2, Y10          // parts 2,3
	VPUNPCKHQDQ Y3, Y2, Y11
	VPUNPCKLQDQ Y5, Y4, Y12          // parts 4,5
	VPUNPCKHQDQ Y5, Y4, Y13
	VPUNPCKLQDQ Y7, Y6, Y14          // parts 6,7
	VPUNPCKHQDQ Y7, Y6, Y15
	VPERM2I128  $0x20, Y10, Y8, Y0   // row r, bytes 0-31
	VPERM2I128  $0x20, Y14, Y12, Y1  // row r, bytes 32-63
	VPERM2I128  $0x20, Y11, Y9, Y2   // row r+1
	VPERM2I128  $0x20, Y15, Y13, Y3
	VPERM2I128  $0x31, Y10, Y8, Y4   // row r+2
	VPERM2I128  $0x31, Y14, Y12, Y5
	VPERM2I128  $0x31, Y11, Y9, Y6   // row r+3
	VPERM2I128  $0x31, Y15, Y13, Y7
	VMOVDQU     Y0, (DI)
	VMOVDQU     Y1, 32(DI)
	VMOVDQU     Y2, (DI)(R10*1)
	VMOVDQU     Y3, 32(DI)(R10*1)
	VMOVDQU     Y4, (DI)(R10*2)
	VMOVDQU     Y5, 32(DI)(R10*2)
	VMOVDQU     Y6, (DI)(R11*1)
	VMOVDQU     Y7, 32(DI)(R11*1)
	ADDQ        $32, SI
	ADDQ        $32, BX
	LEAQ        (DI)(R10*4), DI
	DECQ        CX
	JNZ         loopMerge
	VZEROUPPER
	RET
